/**
 * The live standings of tournaments in the record store (issue 38), the same SQL in SQLite
 * (records.ts) and PostgreSQL (records-pg.ts): one row per tournament with the coordinator's
 * standings state (src/tournament/live-standings.ts, as JSON) and the `finish_seq` of the last
 * result folded into it, and the results of a tournament read by that cursor, page by page.
 */

/**
 * The migration (appended to both stores' lists): the standings table, and the indexes that let
 * the cursor read and the done count use an index instead of the whole tournament. `IF NOT EXISTS`:
 * a store that ran it under another migration number (branches merged in another order) runs it
 * again harmlessly.
 */
export const STANDINGS_MIGRATION = `CREATE TABLE IF NOT EXISTS tournament_standings (
   tournament_id TEXT PRIMARY KEY REFERENCES tournaments (id) ON DELETE CASCADE,
   finish_seq INTEGER NOT NULL,
   state TEXT NOT NULL,
   updated_at BIGINT NOT NULL
 );
 CREATE INDEX IF NOT EXISTS tournament_matches_finished ON tournament_matches (tournament_id, finish_seq);
 CREATE INDEX IF NOT EXISTS tournament_matches_status ON tournament_matches (tournament_id, status, round, match_index);`;

/** A tournament's saved standings: the state after every result up to `finishSeq`. */
export interface StandingsSnapshot {
  finishSeq: number;
  state: unknown;
  updatedAt: number;
}

/** A done tournament match as the standings read it: its place in the finishing order and its result. */
export interface TournamentResultRow {
  /** finish_seq: 1, 2, … in the order the matches finished (commit order, per tournament). */
  seq: number;
  id: string;
  bye: boolean;
  startedAt: number | null;
  endedAt: number | null;
  /** src/tournament/standings.ts MatchResult. */
  result: unknown;
}

export interface ResultsPage {
  /** Only those finished after this `seq` (default 0: from the first). */
  after?: number | undefined;
  /** At most this many (default and at most 1000). */
  limit?: number | undefined;
  /** The `limit` last finished instead (still oldest first). */
  newest?: boolean | undefined;
}

export const RESULTS_PAGE = 1000;

/**
 * ` LIMIT ? OFFSET ?` for a page of a tournament's matches (its arguments pushed), or '' for all of
 * them (and always with `entrant`, which is filtered after the query).
 */
export function pageOf(options: { entrant?: string | undefined; limit?: number | undefined; offset?: number | undefined }, args: (string | number)[]): string {
  if (options.entrant !== undefined || (options.limit === undefined && options.offset === undefined)) return '';
  args.push(Math.max(0, Math.floor(options.limit ?? Number.MAX_SAFE_INTEGER)), Math.max(0, Math.floor(options.offset ?? 0)));
  return ' LIMIT ? OFFSET ?';
}

/** The query of a page of results, `?` placeholders: tournament id, cursor, limit. */
export function resultsQuery(tournamentId: string, page: ResultsPage): [string, (string | number)[]] {
  const limit = Math.min(Math.max(Math.floor(page.limit ?? RESULTS_PAGE), 1), RESULTS_PAGE);
  const order = page.newest === true ? 'DESC' : 'ASC';
  return [
    `SELECT finish_seq, id, bye, started_at, ended_at, result FROM tournament_matches
     WHERE tournament_id = ? AND finish_seq > ? AND status = 'done' ORDER BY finish_seq ${order} LIMIT ?`,
    [tournamentId, Math.max(0, page.after ?? 0), limit],
  ];
}

export interface ResultRow {
  finish_seq: number;
  id: string;
  bye: number;
  started_at: number | null;
  ended_at: number | null;
  result: string | null;
}

/** Rows of a page, oldest first. */
export function toResultRows(rows: readonly ResultRow[], page: ResultsPage): TournamentResultRow[] {
  const list = rows.map((r) => ({
    seq: r.finish_seq,
    id: r.id,
    bye: r.bye === 1,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    result: r.result === null ? null : (JSON.parse(r.result) as unknown),
  }));
  return page.newest === true ? list.reverse() : list;
}

/** Saves a snapshot unless a newer one is there (`?`: id, seq, state, at). */
export const SAVE_STANDINGS = `INSERT INTO tournament_standings (tournament_id, finish_seq, state, updated_at) VALUES (?, ?, ?, ?)
  ON CONFLICT (tournament_id) DO UPDATE SET finish_seq = excluded.finish_seq, state = excluded.state, updated_at = excluded.updated_at
  WHERE excluded.finish_seq >= tournament_standings.finish_seq`;

export const GET_STANDINGS = 'SELECT finish_seq, state, updated_at FROM tournament_standings WHERE tournament_id = ?';

export interface SnapshotRow {
  finish_seq: number;
  state: string;
  updated_at: number;
}

export function toSnapshot(row: SnapshotRow | undefined): StandingsSnapshot | null {
  return row === undefined ? null : { finishSeq: row.finish_seq, state: JSON.parse(row.state) as unknown, updatedAt: row.updated_at };
}
