import { exitOrStop, type ProgramRun, type TournamentMatchOutcome, type TournamentMatchRequest } from './tournament-match.js';

/**
 * What the five games' tournament arenas share (issue 30: "one arena shape"): the bookkeeping of
 * the matches in play — a match is cut off by its request's abort signal or by the arena's close,
 * and close waits until every match has returned —, the aborted outcome, whose connection a seat
 * is (seats bound to their owner), and how a match's programs are stopped. Each game keeps what is
 * its own: how it seats its players, reads its end and scores it.
 */

/** After a game that ended, a program may still exit by itself this long before it is stopped. */
export const EXIT_GRACE_MS = 500;
/** How long a program seat may take to connect (join, register) when the request does not say. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** The reason of a match cut off because its arena closed (the tournament server stopped). */
export const ARENA_CLOSED = 'the tournament server stopped';
/** The reason of a match cut off by its request's abort signal. */
export const MATCH_ABORTED = 'aborted';

/** The outcome of a match that was cut off and must be played again: no points for anybody. */
export function abortedOutcome(names: readonly string[], reason: string, records: readonly string[] = []): TournamentMatchOutcome {
  return { seats: names.map((name) => ({ name, points: 0 })), reason, records: [...records], aborted: true };
}

/** The matches an arena has in play. */
export class ArenaMatches {
  private isClosed = false;
  private readonly cutters = new Set<AbortController>();
  private readonly inPlay = new Set<Promise<unknown>>();

  get closed(): boolean {
    return this.isClosed;
  }

  /**
   * Plays one match: `body` gets a signal that aborts when the request's signal does (reason
   * MATCH_ABORTED) or the arena closes (ARENA_CLOSED); the reason is `signal.reason`. A match asked
   * for after the close, or with its signal aborted already, is not started: its outcome is aborted.
   */
  async play(request: TournamentMatchRequest, names: readonly string[], body: (signal: AbortSignal) => Promise<TournamentMatchOutcome>): Promise<TournamentMatchOutcome> {
    if (this.isClosed) return abortedOutcome(names, ARENA_CLOSED);
    if (request.signal?.aborted === true) return abortedOutcome(names, MATCH_ABORTED);
    const cut = new AbortController();
    const onAbort = (): void => cut.abort(MATCH_ABORTED);
    request.signal?.addEventListener('abort', onAbort, { once: true });
    this.cutters.add(cut);
    const playing = body(cut.signal);
    this.inPlay.add(playing);
    try {
      return await playing;
    } finally {
      this.inPlay.delete(playing);
      this.cutters.delete(cut);
      request.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Cuts off every match in play and waits until each has returned. */
  async close(): Promise<void> {
    this.isClosed = true;
    for (const cut of this.cutters) cut.abort(ARENA_CLOSED);
    await Promise.allSettled([...this.inPlay]);
  }
}

/** Why a cut-off signal was aborted (its reason when that is a string). */
export const cutReason = (signal: AbortSignal): string => (typeof signal.reason === 'string' ? signal.reason : MATCH_ABORTED);

/** The port of a `host:port` address (IPv6 hosts included). */
export const portOf = (address: string): number => Number(address.slice(address.lastIndexOf(':') + 1));

/**
 * Whether a connection (or datagram socket) at the game from `port` is a seat's own (issue 30):
 * our bot's client connection, or one that came through the box of the seat's program. A program
 * without a box cannot be told (isolation: none): its seat is open to any connection, as before.
 */
export function seatOwns(seat: { bot: true; localPort: number | null | undefined } | { bot: false; run: ProgramRun | null | undefined }, port: number): boolean {
  if (seat.bot) return seat.localPort === port;
  const run = seat.run;
  if (run === null || run === undefined) return false;
  return run.ownsConnection === undefined || run.ownsConnection(port);
}

/** Stops a match's programs: each may first exit by itself within `graceMs` (0: stopped at once). */
export async function stopPrograms(runs: readonly (ProgramRun | null | undefined)[], graceMs: number): Promise<void> {
  await Promise.all(runs.filter((r): r is ProgramRun => r !== null && r !== undefined).map((r) => exitOrStop(r, graceMs)));
}
