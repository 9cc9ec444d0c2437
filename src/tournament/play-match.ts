import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../core/log.js';
import type { PortRange } from '../core/ports.js';
import type { Records } from '../core/record-backend.js';
import type { ProgramOutput, TournamentMatchRecord } from '../core/record-types.js';
import type { MatchSeat, TournamentArena, TournamentMatchOutcome, TournamentSupport } from '../core/tournament-match.js';
import type { TournamentSpec } from './file.js';
import { matchPrograms, type ProgramFactory } from './programs.js';
import type { MatchResult, SeatResult } from './standings.js';

/**
 * One scheduled match of a tournament played through a game's arena, the same way wherever it is
 * played: by the single-machine coordinator (coordinator.ts) or by a worker taking it from the
 * queue (worker.ts, issue #19). Entrants that are programs start in their sandbox, in
 * `<workDir>/tournaments/<id>/<entrant>` unless the file gives a `cwd`.
 */

export interface MatchContext {
  tournamentId: string;
  spec: TournamentSpec;
  /** The data directory (programs' default working directories are under it). */
  workDir: string;
  /** How programs are started (the sandbox with the entrant's limits). */
  programs: ProgramFactory;
  log: Logger;
}

export type PlayedMatch =
  | { kind: 'done'; result: MatchResult; records: string[]; output: ProgramOutput[] }
  /** play() threw: the arena or the server broke, not an entrant. */
  | { kind: 'failed'; why: string }
  /** Cut off before its end (the signal, or the arena by itself). */
  | { kind: 'cut'; reason: string };

/**
 * The ports a tournament's arena listens on (issue #33, firewalled labs): the file's own `ports`,
 * else the settings' `tournaments.ports` (`fallback`), else any (null). The coordinator, the
 * workers and the preflight all take it from here.
 */
export function arenaPorts(spec: Pick<TournamentSpec, 'ports'>, fallback: PortRange | null | undefined): PortRange | null {
  return spec.ports ?? fallback ?? null;
}

/** Opens the game's arena for a tournament: its servers listen in `arenaPorts(spec, ports)`. */
export function openArena(
  support: TournamentSupport,
  spec: Pick<TournamentSpec, 'ports'>,
  context: { store: Records; log: Logger; ports?: PortRange | null | undefined },
): Promise<TournamentArena> {
  return support.open({ store: context.store, log: context.log, ports: arenaPorts(spec, context.ports) });
}

/** A played match as the standings see it. */
export function matchResult(
  m: Pick<TournamentMatchRecord, 'id' | 'round' | 'seed' | 'seats'>,
  outcome: TournamentMatchOutcome,
): MatchResult {
  const seats = outcome.seats.map((s, i): SeatResult & { note?: string } => ({
    name: m.seats[i] ?? s.name,
    ...(s.outcome === undefined ? {} : { outcome: s.outcome }),
    ...(s.placing === undefined ? {} : { placing: s.placing }),
    points: s.points,
    ...(s.crashed === true ? { crashed: true } : {}),
    ...(s.timedOut === true ? { timedOut: true } : {}),
    ...(s.note === undefined ? {} : { note: s.note }),
  }));
  const first = outcome.records[0];
  return {
    id: m.id,
    round: m.round,
    seed: m.seed,
    seats,
    reason: outcome.reason,
    ...(first === undefined ? {} : { replay: `/matches/${first}` }),
  };
}

/** The result of a bye: the one seat gets a pairing's points. */
export function byeResult(m: TournamentMatchRecord, spec: TournamentSpec): MatchResult {
  return {
    id: m.id,
    round: m.round,
    seed: m.seed,
    seats: [{ name: m.seats[0] ?? '', points: spec.gamesPerPairing }],
    reason: 'bye',
  };
}

function seatsOf(ctx: MatchContext, m: TournamentMatchRecord, programs: ReturnType<typeof matchPrograms>): MatchSeat[] {
  return m.seats.map((name, seat): MatchSeat => {
    const e = ctx.spec.entrants.find((x) => x.name === name);
    if (!e) throw new Error(`match ${m.id}: ${name} is not an entrant`);
    if (e.kind === 'bot') return { name, player: { kind: 'bot', bot: e.bot, options: e.options } };
    const cwd = e.cwd ?? join(ctx.workDir, 'tournaments', ctx.tournamentId, name);
    mkdirSync(cwd, { recursive: true });
    return {
      name,
      player: {
        kind: 'program',
        launch: programs.launcherFor(seat, name, {
          command: e.command,
          cwd,
          limits: e.limits,
          ...(e.isolation === undefined ? {} : { isolation: e.isolation }),
          ...(e.keepState === undefined ? {} : { keepState: e.keepState }),
        }),
      },
    };
  });
}

/** Plays one (non-bye) match to its end; the programs are stopped and their output collected. */
export async function playScheduledMatch(
  ctx: MatchContext,
  arena: TournamentArena,
  m: TournamentMatchRecord,
  signal: AbortSignal,
): Promise<PlayedMatch> {
  const programs = matchPrograms(ctx.programs);
  let outcome: TournamentMatchOutcome | undefined;
  let error: unknown;
  let output: ProgramOutput[] = [];
  try {
    outcome = await arena.play({
      id: `${ctx.tournamentId}/${m.id}`,
      seed: m.seed,
      moveTimeMs: Math.round(ctx.spec.moveTime * 1000),
      seats: seatsOf(ctx, m, programs),
      ...(ctx.spec.game === 'mia' ? { rounds: ctx.spec.gamesPerTable } : {}),
      signal,
    });
  } catch (err) {
    error = err;
  } finally {
    try {
      output = await programs.finish();
    } catch (err) {
      ctx.log.warn({ match: m.id, err }, 'could not collect the programs’ output');
    }
  }
  if (outcome === undefined) return { kind: 'failed', why: error instanceof Error ? error.message : String(error) };
  if (outcome.aborted === true) return { kind: 'cut', reason: outcome.reason };
  return { kind: 'done', result: matchResult(m, outcome), records: outcome.records, output };
}

/** Why a tournament match's finished game records are superseded: the attempt that played them did not count. */
export const SUPERSEDED_REASON = 'an attempt of this tournament match that did not count (its player was cut off and the match was played again)';

/**
 * Marks the finished game records of `tournamentMatch` (`<tournament>/<match>`) that are not the
 * counted attempt's `superseded` (failures are logged, not thrown: the result counts either way).
 */
export async function supersedeEarlier(store: Records, tournamentMatch: string, counted: readonly string[], at: number, log: Logger): Promise<void> {
  try {
    const ids = await store.supersedeRecordsOf(tournamentMatch, counted, at, SUPERSEDED_REASON);
    if (ids.length > 0) log.info({ records: ids }, 'marked the finished game records of an attempt that did not count superseded');
  } catch (err) {
    log.warn({ err, tournamentMatch }, 'could not mark the game records of an earlier attempt superseded');
  }
}

/** Adds an event to each of a match's game records (failures are logged, not thrown). */
export async function annotateRecords(
  store: Records,
  records: readonly string[],
  event: { at: number; type: string; data: unknown },
  log: Logger,
): Promise<void> {
  for (const record of records) {
    try {
      await store.appendEvent(record, event);
    } catch (err) {
      log.warn({ record, err, type: event.type }, 'could not add an event to the match record');
    }
  }
}
