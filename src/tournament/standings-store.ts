import type { Logger } from '../core/log.js';
import type { Records } from '../core/record-backend.js';
import { RESULTS_PAGE } from '../core/standings-rows.js';
import { LiveStandings } from './live-standings.js';
import type { MatchResult, StandingsOptions } from './standings.js';

/**
 * A tournament's live standings kept with its records (issue 38). The coordinator holds them: it
 * folds in each result as it is recorded (read back by the `finish_seq` cursor, so the order is the
 * store's finishing order, the order computeStandings sees) and saves them to the store at most
 * every SAVE_EVERY_MS and when its run ends. A reader — the dashboard, `tournament status`,
 * `standings`, `export` — starts from the saved standings (one row) and folds in only what finished
 * since (a page or so), never every result. Any state saved for a `finish_seq` is the one the
 * results up to it give, so whoever saves (a coordinator, a dashboard catching up) saves the same;
 * the store keeps the latest.
 */

/** A coordinator saves its standings at most this often (readers fold what finished since). */
export const SAVE_EVERY_MS = 1000;
/** A reader that had to fold more than this many results saves what it found, where it may write. */
export const SAVE_AFTER_FOLDING = 1000;

/** The standings' result of a done match (null for one without). */
export function matchResultOf(result: unknown): MatchResult | null {
  return result !== null && typeof result === 'object' && Array.isArray((result as MatchResult).seats) ? (result as MatchResult) : null;
}

export class StandingsTracker {
  private cursor: number;
  private savedSeq: number;
  private savedAt = Number.NEGATIVE_INFINITY;
  /** Results folded in since it was opened. */
  folded = 0;
  /** catchUp calls take turns (a result must be folded exactly once). */
  private turn: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly store: Records,
    readonly tournamentId: string,
    readonly live: LiveStandings,
    seq: number,
  ) {
    this.cursor = seq;
    this.savedSeq = seq;
  }

  /** The saved standings of the tournament, brought up to date with what finished since. */
  static async open(store: Records, tournamentId: string, entrants: readonly string[], options: Omit<StandingsOptions, 'entrants'> = {}): Promise<StandingsTracker> {
    const snapshot = await store.getTournamentStandings(tournamentId);
    const saved = snapshot === null ? null : LiveStandings.fromState(snapshot.state, entrants, options);
    const tracker =
      snapshot !== null && saved !== null
        ? new StandingsTracker(store, tournamentId, saved, snapshot.finishSeq)
        : new StandingsTracker(store, tournamentId, new LiveStandings(entrants, options), 0);
    if (saved === null) tracker.savedSeq = -1;
    await tracker.catchUp();
    return tracker;
  }

  /** The finish_seq of the last result folded in. */
  get seq(): number {
    return this.cursor;
  }

  /** Folds in the results recorded since, page by page; those results, in finishing order. */
  catchUp(): Promise<MatchResult[]> {
    const next = this.turn.then(async () => {
      const fresh: MatchResult[] = [];
      for (;;) {
        const page = await this.store.listTournamentResults(this.tournamentId, { after: this.cursor, limit: RESULTS_PAGE });
        for (const row of page) {
          const result = matchResultOf(row.result);
          if (result !== null) {
            this.live.add(result);
            fresh.push(result);
          }
          this.cursor = row.seq;
        }
        this.folded += page.length;
        if (page.length < RESULTS_PAGE) return fresh;
      }
    });
    this.turn = next.catch(() => undefined);
    return next;
  }

  /**
   * What a coordinator does after a match and at the end of a run (`end`: caught up with every
   * result, and saved whatever the time): a failure is logged, the run goes on.
   */
  async saveOrWarn(at: number, end: boolean, log: Logger): Promise<void> {
    try {
      if (end) await this.catchUp();
      await this.save(at, end);
    } catch (err) {
      log.warn({ err }, 'the standings could not be saved');
    }
  }

  /**
   * Saves the standings when they changed since the last save, at most every SAVE_EVERY_MS unless
   * `force`; whether it saved.
   */
  async save(at: number, force = false): Promise<boolean> {
    if (this.cursor === this.savedSeq || (!force && at - this.savedAt < SAVE_EVERY_MS)) return false;
    const seq = this.cursor;
    await this.store.saveTournamentStandings(this.tournamentId, { finishSeq: seq, state: this.live.toState(), at });
    this.savedSeq = seq;
    this.savedAt = at;
    return true;
  }
}
