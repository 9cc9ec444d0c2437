import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../core/log.js';
import type { PortRange } from '../core/ports.js';
import type { ProgramOutput, TournamentMatchRecord } from '../core/records.js';
import type { Records } from '../core/record-backend.js';
import type { TournamentArena, TournamentSupport } from '../core/tournament-match.js';
import { GAMES } from '../games/registry.js';
import type { GameModule } from '../games/types.js';
import type { TournamentSpec } from './file.js';
import { annotateRecords, byeResult, openArena, playScheduledMatch, supersedeEarlier, type PlayedMatch } from './play-match.js';
import { sandboxPrograms, type ProgramFactory } from './programs.js';
import { killLeftoverGroups } from './sandbox.js';
import { bwrapWorks } from '../sandbox/box.js';
import { UsageError } from '../core/errors.js';
import { schedule, swissRound, type ScheduledMatch, type SwissGame } from './schedule.js';
import type { MatchResult, Standings } from './standings.js';
import { matchResultOf, SAVE_AFTER_FOLDING, StandingsTracker } from './standings-store.js';

export { matchResult } from './play-match.js';

/**
 * The coordinator: creates a tournament (its schedule in the record store) and runs it, `parallel`
 * matches at a time through one arena of the game. Everything it needs to resume is in the store
 * and written before the next step: a match is `running` while played, `done` with its result
 * once recorded; a run that was cut off (Ctrl-C, crash, kill -9) leaves `running` rows, which the
 * next run puts back to `pending` and plays again. So no match is counted twice and none is lost.
 */

export interface TournamentProgress {
  id: string;
  done: number;
  /** Matches in the whole tournament (Swiss: scheduled rounds and the rounds still to come). */
  total: number;
  /** Schedule ids of the matches being played. */
  running: string[];
  /** When this run started (ms since epoch). */
  startedAt: number;
  elapsedMs: number;
  /** Matches finished per minute in this run. */
  perMinute: number;
  etaMs: number | null;
  leader: string | null;
  /** The match whose end this progress reports (absent when a match was cut off and put back). */
  finished?: MatchResult | undefined;
}

export type RunOutcome = 'finished' | 'stopped' | 'failed';

export interface RunOptions {
  log: Logger;
  /** The games to find the tournament's in (tests inject a fake one); default: all. */
  games?: readonly GameModule[];
  /** Matches at a time; overrides the spec's `parallel`. */
  parallel?: number;
  /** Aborting stops the tournament: matches in flight are cut off and played again on resume. */
  signal?: AbortSignal;
  onProgress?(progress: TournamentProgress): void;
  /** The data directory: programs without a `cwd` run in `<workDir>/tournaments/<id>/<entrant>`. */
  workDir: string;
  /** Who plays (`host:pid` by default), kept with each match. */
  worker?: string;
  /**
   * Take over matches another live process on this host has `running` (its pid may have been
   * reused after a kill -9); by default such a run is refused.
   */
  force?: boolean;
  /** How external programs are started (default: the sandbox with the entrant's limits). */
  programs?: ProgramFactory;
  /** Ports the arena listens on when the tournament file names none (settings `tournaments.ports`). */
  ports?: PortRange | null;
  now?: () => number;
}

/** Queued matches (distributed.ts): a job nobody reports on for this long is failed and retried. */
export const DEFAULT_LEASE_SECONDS = 900;
/** Queued matches: tries after the first before the tournament fails (a killed worker costs one). */
export const DEFAULT_RETRY_LIMIT = 4;

/** A match whose play() throws is tried this often in one run before the tournament fails. */
export const MAX_ATTEMPTS = 3;

export function tournamentSupport(game: string, games: readonly GameModule[] = GAMES): TournamentSupport {
  const module = games.find((g) => g.name === game);
  if (!module) throw new Error(`unknown game "${game}"`);
  if (!module.tournament) throw new Error(`${module.title} cannot play tournaments yet`);
  return module.tournament;
}

/** Problems with the spec's bot entrants, one line each. */
export function checkEntrants(spec: TournamentSpec, support: TournamentSupport): string[] {
  return spec.entrants.flatMap((e) =>
    e.kind === 'bot' ? support.checkBot(e.bot, e.options).map((p) => `entrant ${e.name}: ${p}`) : [],
  );
}

function stamp(now: number): string {
  return new Date(now).toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

/** The first round(s) of the schedule: all of it, or Swiss round 1. */
export function firstMatches(spec: TournamentSpec): ScheduledMatch[] {
  return spec.format === 'swiss' ? swissRound(spec, 1, []) : schedule(spec);
}

/**
 * Creates a tournament with its schedule (Swiss: round 1) and returns its id
 * (`t-<yyyymmdd>-<hhmmss>-<game>`). Throws when the game has no tournament support or a bot
 * entrant is unknown or has bad options (the message lists every problem).
 */
export async function createTournament(
  store: Records,
  spec: TournamentSpec,
  source: string | null = null,
  now = Date.now(),
  games: readonly GameModule[] = GAMES,
): Promise<string> {
  const support = tournamentSupport(spec.game, games);
  const problems = checkEntrants(spec, support);
  if (problems.length > 0) throw new Error(`the tournament has bad entrants:\n  ${problems.join('\n  ')}`);
  const matches = firstMatches(spec);
  const base = `t-${stamp(now)}-${spec.game}`;
  let id = base;
  for (let n = 2; (await store.getTournament(id)) !== null; n++) id = `${base}-${n}`;
  await store.createTournament({
    id,
    name: spec.name,
    game: spec.game,
    format: spec.format,
    spec,
    source,
    status: 'stopped',
    createdAt: now,
  });
  await store.addTournamentMatches(id, matches);
  return id;
}

/** Results of the done matches, in the order they finished (read page by page: exports, Swiss pairing). */
export async function tournamentResults(store: Records, id: string): Promise<MatchResult[]> {
  const results: MatchResult[] = [];
  for (let after = 0; ; ) {
    const page = await store.listTournamentResults(id, { after });
    for (const row of page) {
      const result = matchResultOf(row.result);
      if (result !== null) results.push(result);
      after = row.seq;
    }
    if (page.length === 0) return results;
  }
}

async function entrantNames(store: Records, id: string): Promise<string[]> {
  const spec = (await store.getTournament(id))?.spec as TournamentSpec | undefined;
  return spec?.entrants.map((e) => e.name) ?? [];
}

/**
 * The tournament's live standings (issue 38): the coordinator's saved ones and what finished since
 * (standings-store.ts). `save`: a store that may be written keeps what it had to fold (many results
 * behind the saved ones: a tournament from before the saved standings existed).
 */
export async function openStandings(store: Records, id: string, options: { save?: boolean } = {}): Promise<StandingsTracker> {
  const tracker = await StandingsTracker.open(store, id, await entrantNames(store, id));
  // Best effort: a store opened read-only (or gone for the moment) keeps what it had.
  if (options.save === true && tracker.folded > SAVE_AFTER_FOLDING) await tracker.save(Date.now(), true).catch(() => false);
  return tracker;
}

/** The standings with their intervals, as computeStandings of every result gives them. */
export async function tournamentStandings(store: Records, id: string, options: { save?: boolean } = {}): Promise<Standings> {
  return (await openStandings(store, id, options)).live.standings();
}

/** Rank 1 of the standings (no intervals computed); null before any result. */
export async function tournamentLeader(store: Records, id: string): Promise<string | null> {
  const tracker = await openStandings(store, id);
  return tracker.live.results > 0 ? tracker.live.leader() : null;
}

/** Swiss scoring: win 1, draw ½, loss 0; a bye (no outcome) counts its points. */
export function swissHistory(results: readonly MatchResult[]): SwissGame[] {
  const score = { win: 1, draw: 0.5, loss: 0 } as const;
  return results.map((r) => ({
    seats: r.seats.map((s) => s.name),
    points: r.seats.map((s) => (s.outcome === undefined ? s.points : score[s.outcome])),
  }));
}

/** Matches in the whole tournament: those scheduled, and for Swiss the rounds still to pair. */
export function expectedTotal(spec: TournamentSpec, matches: readonly TournamentMatchRecord[]): number {
  if (spec.format !== 'swiss') return matches.length;
  const perRound = matches.filter((m) => m.round === 1).length;
  const scheduledRounds = Math.max(0, ...matches.map((m) => m.round));
  return matches.length + perRound * Math.max(0, spec.rounds - scheduledRounds);
}

/** Swiss: once every scheduled round is done, pairs the next from the results so far; whether it did. */
export async function pairNextSwissRound(
  store: Records,
  id: string,
  spec: TournamentSpec,
  results: readonly MatchResult[],
): Promise<boolean> {
  if (spec.format !== 'swiss') return false;
  const matches = await store.listTournamentMatches(id);
  const round = Math.max(0, ...matches.map((m) => m.round));
  if (round >= spec.rounds || matches.some((m) => m.status !== 'done')) return false;
  await store.addTournamentMatches(id, swissRound(spec, round + 1, swissHistory(results)));
  return true;
}

/** Whether the pid of a `host:pid` worker on this host is a live process other than this one. */
function otherLiveWorker(worker: string | null): boolean {
  if (worker === null) return false;
  const [host, pidText] = [
    worker.slice(0, worker.lastIndexOf(':')),
    worker.slice(worker.lastIndexOf(':') + 1),
  ];
  const pid = Number(pidText);
  if (host !== hostname() || !Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs (or resumes) a tournament until every match is done, the signal aborts it, or a match fails
 * MAX_ATTEMPTS times. Matches a crash left `running` are played again; done ones never.
 */
export async function runTournament(
  store: Records,
  id: string,
  options: RunOptions,
): Promise<RunOutcome> {
  const now = options.now ?? Date.now;
  const log = options.log.child({ tournament: id });
  const record = await store.getTournament(id);
  if (!record) throw new Error(`no tournament "${id}"`);
  const spec = record.spec as TournamentSpec;
  const worker = options.worker ?? `${hostname()}:${process.pid}`;
  const fail = async (note: string): Promise<RunOutcome> => {
    log.error({ note }, 'tournament failed');
    await store.setTournamentStatus(id, 'failed', now(), note);
    return 'failed';
  };

  let support: TournamentSupport;
  try {
    support = tournamentSupport(spec.game, options.games ?? GAMES);
  } catch (err) {
    return fail((err as Error).message);
  }
  const problems = checkEntrants(spec, support);
  if (problems.length > 0) return fail(problems.join('; '));

  // Resume: what a crash or kill cut off is played again — unless another live process plays it.
  const cutOff = await store.listTournamentMatches(id, { status: 'running' });
  const live = options.force === true ? undefined : cutOff.find((m) => otherLiveWorker(m.worker));
  if (live)
    throw new Error(
      `tournament ${id} is being run by ${live.worker ?? '?'} (match ${live.id}); stop that first (or resume with --force if that process is gone)`,
    );
  for (const m of cutOff) await store.resetTournamentMatch(id, m.id);
  if (cutOff.length > 0)
    log.info({ matches: cutOff.map((m) => m.id) }, 'resuming: matches cut off before are played again');
  if ((await store.listTournamentMatches(id)).length === 0) await store.addTournamentMatches(id, firstMatches(spec));

  const parallel = Math.max(1, Math.floor(options.parallel ?? spec.parallel));
  // Programs a killed run left behind (their leaders died with it; what they started may not have).
  const pidDir = join(options.workDir, 'tournaments', id, 'pids');
  const leftovers = killLeftoverGroups(pidDir);
  if (leftovers > 0)
    log.warn({ processes: leftovers }, 'killed processes left behind by a run that was killed');
  if (options.programs === undefined) checkIsolation(spec, log);
  const factory = options.programs ?? sandboxPrograms(pidDir);
  // The live standings (issue 38): the saved ones and what finished since; each result is folded
  // in once recorded, so the leader after a match costs a few solves, not the whole fit.
  const standings = await StandingsTracker.open(store, id, spec.entrants.map((e) => e.name));
  const queue = await store.listTournamentMatches(id, { status: 'pending' });
  // Counted here, not read back per match: only this run finishes matches of this tournament.
  const doneAtStart = (await store.getTournament(id))?.done ?? 0;
  let total = expectedTotal(spec, await store.listTournamentMatches(id));
  const startedAt = now();
  let doneThisRun = 0;
  const failures = new Map<string, number>();
  // In an object: set from the match tasks, read after the loop.
  const state: { failure: string | null } = { failure: null };
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const inFlight = new Map<string, Promise<void>>();
  /** Matches that ended since the last progress report (undefined: put back to pending). */
  const reports: {
    finished: MatchResult | undefined;
    done: number;
    elapsedMs: number;
    doneThisRun: number;
    /** Rank 1 of the standings then. */
    leader: string | null;
  }[] = [];

  /** Progress as of when a match ended (several may be reported at once). */
  const progress = (at: { done: number; elapsedMs: number; doneThisRun: number; leader: string | null }): TournamentProgress => {
    const { done, elapsedMs, doneThisRun, leader } = at;
    const perMinute = elapsedMs > 0 ? (doneThisRun * 60_000) / elapsedMs : 0;
    return {
      id,
      done,
      total,
      running: [...inFlight.keys()],
      startedAt,
      elapsedMs,
      perMinute,
      etaMs: perMinute > 0 ? ((total - done) / perMinute) * 60_000 : null,
      leader,
    };
  };

  const finish = async (
    m: TournamentMatchRecord,
    result: MatchResult,
    records: string[],
    output: ProgramOutput[],
  ): Promise<MatchResult> => {
    const at = now();
    await store.finishTournamentMatch(id, m.id, { at, result, records, output });
    // An earlier attempt (a run that was killed, a cut-off try) may have left finished game records
    // of this match: they did not count. (A first attempt has none: no search through the records.)
    if (m.attempts > 0 || failures.has(m.id)) await supersedeEarlier(store, `${id}/${m.id}`, records, at, log);
    doneThisRun++;
    return result;
  };

  /** A failed attempt (play() threw, or the arena cut it off by itself): again later, or the end. */
  const retry = async (m: TournamentMatchRecord, why: string): Promise<void> => {
    await store.resetTournamentMatch(id, m.id);
    if (stop.signal.aborted) return;
    const n = (failures.get(m.id) ?? 0) + 1;
    failures.set(m.id, n);
    log.error({ match: m.id, attempt: n, err: why }, 'tournament match failed');
    if (n >= MAX_ATTEMPTS) {
      state.failure ??= `match ${m.id} (${m.seats.join(' vs ')}) failed ${n} times: ${why}`;
      stop.abort();
    } else queue.push(m);
  };

  const context = { tournamentId: id, spec, workDir: options.workDir, programs: factory, log };

  /** The standings into the store: at most every second while it runs, and at its end. */
  const saveStandings = (end: boolean): Promise<void> => standings.saveOrWarn(now(), end, log);

  /** Plays one match; its result once it is done, undefined when it goes back to pending. */
  const play = async (arena: TournamentArena, m: TournamentMatchRecord): Promise<MatchResult | undefined> => {
    await store.startTournamentMatch(id, m.id, now(), worker);
    if (m.bye) return finish(m, byeResult(m, spec), [], []);
    const abort = new AbortController();
    const cut = () => abort.abort();
    stop.signal.addEventListener('abort', cut, { once: true });
    let played: PlayedMatch;
    try {
      played = await playScheduledMatch(context, arena, m, abort.signal);
    } finally {
      stop.signal.removeEventListener('abort', cut);
    }
    if (played.kind === 'failed') {
      await retry(m, played.why);
      return undefined;
    }
    if (played.kind === 'cut') {
      if (stop.signal.aborted) await store.resetTournamentMatch(id, m.id);
      else await retry(m, `cut off: ${played.reason}`);
      return undefined;
    }
    const { result, records, output } = played;
    await finish(m, result, records, output);
    if (output.length > 0)
      await annotateRecords(store, records.slice(0, 1), { at: now(), type: 'program-output', data: output }, log);
    log.info({ match: m.id, seats: m.seats, reason: result.reason }, 'tournament match done');
    return result;
  };

  /** Swiss: once a round is all done, the next one from the results so far. */
  const nextRound = async (): Promise<boolean> => {
    if (!(await pairNextSwissRound(store, id, spec, await tournamentResults(store, id)))) return false;
    queue.push(...(await store.listTournamentMatches(id, { status: 'pending' })));
    total = expectedTotal(spec, await store.listTournamentMatches(id));
    return queue.length > 0;
  };

  await store.setTournamentStatus(id, 'running', now());
  let arena: TournamentArena;
  try {
    arena = await openArena(support, spec, { store, log, ports: options.ports });
  } catch (err) {
    options.signal?.removeEventListener('abort', onAbort);
    return fail(`the ${spec.game} server did not start: ${(err as Error).message}`);
  }
  log.info({ pending: queue.length, done: doneAtStart, parallel }, 'tournament running');
  try {
    for (;;) {
      while (!stop.signal.aborted && inFlight.size < parallel && queue.length > 0) {
        const m = queue.shift() as TournamentMatchRecord;
        const task = play(arena, m)
          .catch((err: unknown) => {
            // The store or the coordinator itself: nothing to retry.
            state.failure ??= `match ${m.id}: ${err instanceof Error ? err.message : String(err)}`;
            stop.abort();
            return undefined;
          })
          .then(async (finished) => {
            const done = doneAtStart + doneThisRun;
            let leader: string | null = null;
            try {
              await standings.catchUp();
              leader = standings.live.results > 0 ? standings.live.leader() : null;
            } catch (err) {
              log.warn({ err }, 'the standings could not be brought up to date');
            }
            inFlight.delete(m.id);
            reports.push({ finished, done, elapsedMs: now() - startedAt, doneThisRun, leader });
          });
        inFlight.set(m.id, task);
      }
      // Reported once the next matches are under way, so `running` shows them.
      for (const { finished, ...at } of reports.splice(0)) {
        try {
          options.onProgress?.({ ...progress(at), ...(finished === undefined ? {} : { finished }) });
        } catch (err) {
          log.warn({ err }, 'onProgress threw');
        }
      }
      await saveStandings(false);
      if (inFlight.size === 0 && (stop.signal.aborted || (queue.length === 0 && !(await nextRound())))) break;
      if (inFlight.size > 0) await Promise.race(inFlight.values());
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    await arena.close().catch((err: unknown) => log.warn({ err }, 'the arena did not close cleanly'));
    await saveStandings(true);
  }
  if (state.failure !== null) return fail(state.failure);
  if (stop.signal.aborted) {
    await store.setTournamentStatus(id, 'stopped', now(), 'stopped');
    log.info('tournament stopped');
    return 'stopped';
  }
  await store.setTournamentStatus(id, 'finished', now());
  log.info('tournament finished');
  return 'finished';
}

/**
 * Command entrants run in boxes (isolation: bwrap, the default) or, where the tournament says
 * `isolation: none`, without — and then every start says so. Without boxes on this machine a
 * tournament that wants them does not start.
 */
export function checkIsolation(spec: TournamentSpec, log: Logger): void {
  const commands = spec.entrants.filter((e) => e.kind === 'command');
  if (commands.some((e) => (e.isolation ?? 'bwrap') === 'bwrap')) {
    const works = bwrapWorks();
    if (!works.ok) throw new UsageError(`the entrants' programs cannot be isolated here: ${works.why}. Install bubblewrap, or write isolation: none into the tournament file to run them NOT isolated (spielhalle doctor says what this machine gives)`);
  }
  if (commands.some((e) => e.isolation === 'none'))
    log.warn({ entrants: commands.filter((e) => e.isolation === 'none').map((e) => e.name) }, 'the programs of this tournament are NOT isolated (isolation: none): they can read and change what this user can');
}
