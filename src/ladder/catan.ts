import { Rng } from '../core/rng.js';
import type { Logger } from '../core/log.js';
import { createCatanBot, type CatanStrategy } from '../games/catan/bots/strategies.js';
import type { CatanLadderDoor, CatanLadderTicket } from '../games/catan/ladder-door.js';
import type { Match } from '../games/catan/match.js';
import { TEXT } from '../games/catan/messages.js';
import { MAX_NAME_LENGTH, Outgoing } from '../games/catan/protocol.js';
import type { CatanServer } from '../games/catan/server.js';
import type { Session } from '../games/catan/session.js';
import type { CatanResultRow } from '../games/catan/snapshot.js';
import type { Ladder, MultiLadderTable, TableOutcome, TableSeat } from './ladder.js';
import type { LossReason } from './types.js';

/**
 * Siedler von Catan on the ladder (issue 34). A student's client connects to the ladder port
 * (`games.catan.ladderPort`, 6010 by default) and gives its 13-character ladder code as its name
 * (`Spieler` with `Name`), then `Spiel starten`, unchanged; any other name there is `Ungueltiger
 * Name` and the connection is closed. It waits, as in a lobby, until the ladder has grouped it
 * with two or three others near its rating, or after the house wait with whoever waits and house
 * bots up to three players; then it sees the others join and the game starts. On the wire and in
 * the record every student goes by their roster name (Catan's JSON is UTF-8); the code appears
 * nowhere public (the record keeps `(Liga-Code)`).
 *
 * Three, not four, after the wait: the protocol's smallest game is the shortest, and every house
 * seat is an anchor that the student's result is measured against rather than another student.
 */

export interface CatanLadderOptions {
  log: Logger;
  /** D10 per-decision timeout of a ladder game (the server acts for a player who does not answer). */
  timeoutMs?: number;
}

/** A player the server had to act for this many times in a row is out (the game ends, `timeout`). */
export const CATAN_LADDER_TIMEOUT_STREAK = 3;
/** Turns after which a ladder game ends without a winner (places by victory points). */
export const CATAN_LADDER_TURN_LIMIT = 1000;
const DEFAULT_TIMEOUT_MS = 10_000;
export const CATAN_CHECK_COMMAND = 'spielhalle check-client catan -- <the command that starts your client, with {host} {port} {name}>';

/** The house levels' strategies (ratings.ts HOUSE_LEVELS.catan). */
const HOUSE_STRATEGY: Record<string, CatanStrategy> = { random: 'random', weighted: 'weighted', search: 'search' };

/**
 * Places from a game's end: the winner first, the others by their true victory points (equal
 * points share a place), a seat that failed (its connection lost, or out for not answering) after
 * all of them.
 */
export function catanPlaces(points: readonly number[], failed: readonly boolean[], winner: number | null): number[] {
  const ok = points.map((_, i) => i).filter((i) => !failed[i]);
  return points.map((p, i) => {
    if (failed[i]) return ok.length + 1;
    if (i === winner) return 1;
    const base = winner !== null && !failed[winner] ? 2 : 1;
    return base + ok.filter((j) => j !== winner && points[j]! > p).length;
  });
}

/** The first `n` characters (code points, as the protocol counts a name's length) of `text`. */
const firstChars = (text: string, n: number): string => Array.from(text).slice(0, n).join('');

/**
 * The names a game shows: the protocol's 40 characters at most (roster names are no longer), each
 * once in a game (the hall tells its seats apart by name), a clash numbered.
 */
export function gameNames(names: readonly string[]): string[] {
  const out: string[] = [];
  for (const name of names) {
    let n = firstChars(name, MAX_NAME_LENGTH) || 'Liga';
    for (let k = 2; out.includes(n); k++) n = `${firstChars(name, MAX_NAME_LENGTH - 5)} (${k})`;
    out.push(n);
  }
  return out;
}

const nameOf = (s: TableSeat<unknown>): string => (s.kind === 'entry' ? s.entry.name : `${s.level.label} (Haus)`);

export class CatanLadderTable implements MultiLadderTable<Session>, CatanLadderDoor {
  readonly game = 'catan' as const;
  readonly players = { min: 3, max: 4 };

  constructor(
    private readonly ladder: Ladder,
    private readonly server: CatanServer,
    private readonly o: CatanLadderOptions,
  ) {}

  /** Opens the ladder port on the server; resolves with where it listens. */
  open(port: number): Promise<number> {
    return this.server.openLadderPort(this, port);
  }

  isCode(code: string): boolean {
    return this.ladder.knows(code);
  }

  admit(code: string, host: string): { ok: true; name: string; ticket: CatanLadderTicket } | { ok: false; text: string } | null {
    const admission = this.ladder.admit('catan', code);
    if (admission === null) return null;
    if (!admission.ok) return admission;
    const entry = admission.entry;
    let leave: (() => void) | null = null;
    let left = false;
    const ticket: CatanLadderTicket = {
      wait: (session) => {
        leave = this.ladder.join('catan', entry, { seat: null, host }, session, (text) => this.refuse(session, text));
        if (left) leave();
      },
      leave: () => {
        left = true;
        leave?.();
      },
    };
    return { ok: true, name: firstChars(entry.name, MAX_NAME_LENGTH), ticket };
  }

  refuse(session: Session, text: string): void {
    session.peer.deliver(new Outgoing({ type: 'error', message: text }));
    session.peer.end();
  }

  play(seats: TableSeat<Session>[], context: { gameId: string; season: string }): Promise<TableOutcome> {
    const rng = Rng.seeded(context.gameId);
    // The turn order is drawn for each game (the first to place has an edge).
    const order = seats.map((_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = rng.int(0, i);
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    const names = gameNames(seats.map(nameOf));
    // Each name once in a game (two students may share a roster name): the game's names are the seats'.
    seats.forEach((s, i) => {
      if (s.kind === 'entry') s.handle.name = names[i]!;
    });
    const students = seats.flatMap((s) => (s.kind === 'entry' ? [s.handle] : []));
    const bots = seats.flatMap((s, i) =>
      s.kind === 'house'
        ? // No pause (the server's botThinkMs is for games people watch): a ladder game goes at the students' pace.
          [{ name: names[i]!, thinkMs: 0, strategy: (seed: string) => createCatanBot(HOUSE_STRATEGY[s.level.id] ?? 'random', seed) }]
        : [],
    );
    const failed = (note: string): TableOutcome => ({ scores: null, reasons: seats.map(() => null), recordId: null, note });
    return new Promise<TableOutcome>((resolve) => {
      const lobby = this.server.hall.ladderGame(students, bots, {
        names: order.map((i) => names[i]!),
        seed: context.gameId,
        timeoutMs: this.o.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        turnLimit: CATAN_LADDER_TURN_LIMIT,
        timeoutStreak: CATAN_LADDER_TIMEOUT_STREAK,
        meta: { ladder: { game: 'catan', gameId: context.gameId, season: context.season, entries: seats.map((s) => (s.kind === 'entry' ? s.entry.id : null)) } },
        onEnd: (m, result) => resolve(this.outcome(seats, names, m, result)),
      });
      if (lobby === null) {
        // A student left between the grouping and the seats: nothing is rated, the others are told.
        this.o.log.info({ gameId: context.gameId }, 'ladder: a Catan seat left before the start');
        for (const s of students) this.refuse(s, 'Liga: a player left before the game started; connect again for the next one');
        resolve(failed('a seat left before the start'));
        return;
      }
      // A student gone before the start calls the game off (the others are told and closed): a
      // prepared lobby would otherwise wait for them.
      let started = false;
      for (const s of students)
        if (s.ladder !== undefined)
          s.ladder.ticket = {
            wait: () => undefined,
            leave: () => {
              if (!started) this.server.hall.cancel(lobby, TEXT.calledOff);
            },
          };
      // A lobby that went without a game (called off, the server stopping).
      lobby.waiters.push((id) => {
        started = id !== null;
        if (id === null) resolve(failed('the game did not start'));
      });
    });
  }

  /** Places and loss reasons from the game's end (CatanResultRow and the match's tally). */
  private outcome(seats: TableSeat<Session>[], names: readonly string[], match: Match, result: CatanResultRow): TableOutcome {
    const recordId = match.id;
    if (result.reason === 'server stopped' || result.reason === 'internal error')
      return { scores: null, reasons: seats.map(() => null), recordId, note: result.reason };
    const tally = names.map((name) => match.tally().find((t) => t.name === name)!);
    const timedOut = tally.map((t) => match.timedOut === t.id);
    const lost = tally.map((t) => t.lost);
    const winner = result.winner === null ? null : tally.findIndex((t) => t.id === result.winner);
    const places = catanPlaces(
      tally.map((t) => t.points),
      tally.map((_, i) => timedOut[i]! || lost[i]!),
      winner === -1 ? null : winner,
    );
    const reasons = tally.map((t, i): LossReason | null => {
      if (places[i] === 1 && !timedOut[i] && !lost[i]) return null;
      if (lost[i]) return { kind: 'disconnect', detail: 'the connection closed during the game (D9: the game ended without a winner)' };
      const refused = t.refused > 0 ? `; the server refused ${t.refused} of its actions (first: ${t.firstRefusal ?? '?'})` : '';
      if (timedOut[i])
        return { kind: 'timeout', detail: `no valid answer to ${CATAN_LADDER_TIMEOUT_STREAK} decisions in a row within the time: the server acted for it, then ended the game${refused}` };
      if (t.refused > 0)
        return { kind: 'protocol', detail: `the server refused ${t.refused} of its actions as invalid (first: ${t.firstRefusal ?? '?'})`, command: CATAN_CHECK_COMMAND };
      if (t.timeouts > 0) return { kind: 'timeout', detail: `the server acted for it ${t.timeouts} times (no answer in time, D10)` };
      return { kind: 'played' };
    });
    return { scores: places, reasons, recordId };
  }
}
