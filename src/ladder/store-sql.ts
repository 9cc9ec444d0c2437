import { DEFAULT_LIST_LIMIT, type ListGamesOptions } from './store-rows.js';

/**
 * The SQL both ladder stores run, with `?` placeholders (the PostgreSQL store numbers them), over
 * tables named bare (SQLite) or `ladder_…` (PostgreSQL).
 */

/** The tables' names: bare in the SQLite file, `ladder_…` in PostgreSQL (beside the records in one schema). */
export interface LadderTables {
  entries: string;
  seasons: string;
  ratings: string;
  games: string;
  seats: string;
  history: string;
}

export const ladderTables = (prefix: string): LadderTables => ({
  entries: `${prefix}entries`,
  seasons: `${prefix}seasons`,
  ratings: `${prefix}ratings`,
  games: `${prefix}games`,
  seats: `${prefix}game_seats`,
  history: `${prefix}rating_history`,
});

const ENTRY_COLUMNS = 'id, name, grp, code, reservation, page_token, created_at, revoked_at';

export type EntryColumn = 'id' | 'code' | 'reservation' | 'page_token';

/** Text order is binary in both (SQLite's default; PostgreSQL's columns are declared COLLATE "C"). */
export function ladderSql(t: LadderTables) {
  return {
    entryBy: (column: EntryColumn) => `SELECT ${ENTRY_COLUMNS} FROM ${t.entries} WHERE ${column} = ?`,
    listEntries: (includeRevoked: boolean) =>
      `SELECT ${ENTRY_COLUMNS} FROM ${t.entries} ${includeRevoked ? '' : 'WHERE revoked_at IS NULL'} ORDER BY seq`,
    nameTaken: `SELECT name FROM ${t.entries} WHERE name_key = ? AND revoked_at IS NULL`,
    maxSeq: `SELECT COALESCE(MAX(seq), 0) AS seq FROM ${t.entries}`,
    insertEntry: `INSERT INTO ${t.entries} (id, seq, name, name_key, grp, code, reservation, page_token, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    revoke: `UPDATE ${t.entries} SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`,
    renew: `UPDATE ${t.entries} SET code = ?, reservation = ?, page_token = ?, renewed_at = ? WHERE id = ?`,
    otherNamed: `SELECT id FROM ${t.entries} WHERE name_key = ? AND revoked_at IS NULL AND id <> ?`,
    rename: `UPDATE ${t.entries} SET name = ?, name_key = ?, grp = ? WHERE id = ?`,

    currentSeason: `SELECT * FROM ${t.seasons} WHERE game = ? AND archived_at IS NULL`,
    nextSeasonNumber: `SELECT COALESCE(MAX(number), 0) + 1 AS n FROM ${t.seasons} WHERE game = ?`,
    insertSeason: `INSERT INTO ${t.seasons} (id, game, number, name, started_at) VALUES (?, ?, ?, ?, ?)`,
    season: `SELECT * FROM ${t.seasons} WHERE id = ?`,
    seasonOf: `SELECT * FROM ${t.seasons} WHERE id = ? AND game = ?`,
    archiveCurrent: `UPDATE ${t.seasons} SET archived_at = ? WHERE game = ? AND archived_at IS NULL`,
    freeze: `UPDATE ${t.seasons} SET frozen_at = COALESCE(frozen_at, ?) WHERE id = ?`,
    unfreeze: `UPDATE ${t.seasons} SET frozen_at = NULL WHERE id = ?`,
    listSeasons: `SELECT * FROM ${t.seasons} WHERE game = ? ORDER BY number`,

    getRating: `SELECT rating, rd, vol, games FROM ${t.ratings} WHERE game = ? AND season = ? AND entry_id = ?`,
    putRating: `INSERT INTO ${t.ratings} (game, season, entry_id, rating, rd, vol, games) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (game, season, entry_id) DO UPDATE SET rating = excluded.rating, rd = excluded.rd, vol = excluded.vol, games = excluded.games`,
    /**
     * putRating only over the rating the caller rated from (or none): compare and set in one
     * statement, so that PostgreSQL checks the row it locks (a concurrent writer's committed
     * value). No row changed means stale. Arguments: the new rating, then `before`.
     */
    advanceRating: `INSERT INTO ${t.ratings} (game, season, entry_id, rating, rd, vol, games) VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (game, season, entry_id) DO UPDATE SET rating = excluded.rating, rd = excluded.rd, vol = excluded.vol, games = excluded.games
                    WHERE ${t.ratings}.rating = ? AND ${t.ratings}.rd = ? AND ${t.ratings}.vol = ? AND ${t.ratings}.games = ?`,
    standings: (includeRevoked: boolean) =>
      `SELECT e.id, e.name, e.grp, e.code, e.reservation, e.page_token, e.created_at, e.revoked_at,
              r.rating, r.rd, r.vol, r.games,
              COALESCE(p.wins, 0) AS wins, COALESCE(p.draws, 0) AS draws, COALESCE(p.losses, 0) AS losses, p.last AS last
       FROM ${t.ratings} r
       JOIN ${t.entries} e ON e.id = r.entry_id
       LEFT JOIN (
         SELECT s.entry_id,
                SUM(CASE WHEN s.outcome = 'win' THEN 1 ELSE 0 END) AS wins,
                SUM(CASE WHEN s.outcome = 'draw' THEN 1 ELSE 0 END) AS draws,
                SUM(CASE WHEN s.outcome = 'loss' THEN 1 ELSE 0 END) AS losses,
                MAX(g.ended_at) AS last
         FROM ${t.games} g JOIN ${t.seats} s ON s.game_id = g.id
         WHERE g.game = ? AND g.season = ? AND s.entry_id IS NOT NULL
         GROUP BY s.entry_id
       ) p ON p.entry_id = r.entry_id
       WHERE r.game = ? AND r.season = ? ${includeRevoked ? '' : 'AND e.revoked_at IS NULL'}
       ORDER BY r.rating DESC, r.rd ASC, e.name ASC`,

    insertGame: `INSERT INTO ${t.games} (id, game, season, started_at, ended_at, record_id) VALUES (?, ?, ?, ?, ?, ?)`,
    insertSeat: `INSERT INTO ${t.seats} (game_id, seat, entry_id, house_level, name, score, outcome,
                   before_rating, before_rd, before_vol, before_games, after_rating, after_rd, after_vol, after_games, reason)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    insertPoint: `INSERT INTO ${t.history} (game, season, entry_id, game_id, at, rating, rd) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    game: `SELECT * FROM ${t.games} WHERE id = ?`,
    seatsOf: (n: number) =>
      `SELECT * FROM ${t.seats} WHERE game_id IN (${Array.from({ length: n }, () => '?').join(', ')}) ORDER BY game_id, seat`,
    listGames: (options: ListGamesOptions): { sql: string; args: (string | number)[] } => {
      const where: string[] = [];
      const args: (string | number)[] = [];
      if (options.game !== undefined) {
        where.push('g.game = ?');
        args.push(options.game);
      }
      if (options.season !== undefined) {
        where.push('g.season = ?');
        args.push(options.season);
      }
      if (options.entryId !== undefined) {
        where.push(`EXISTS (SELECT 1 FROM ${t.seats} s WHERE s.game_id = g.id AND s.entry_id = ?)`);
        args.push(options.entryId);
      }
      const filter = where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`;
      return {
        sql: `SELECT g.* FROM ${t.games} g ${filter} ORDER BY g.ended_at DESC, g.id DESC LIMIT ? OFFSET ?`,
        args: [...args, options.limit ?? DEFAULT_LIST_LIMIT, options.offset ?? 0],
      };
    },
    // "gameId" quoted: PostgreSQL folds an unquoted alias to lower case.
    ratingHistory: `SELECT at, game_id AS "gameId", rating, rd FROM ${t.history}
                    WHERE entry_id = ? AND game = ? AND season = ? ORDER BY at, id`,
    /** Arguments: entry, game, season, entry. */
    lastOpponent: `SELECT o.entry_id, o.house_level FROM ${t.seats} o
                   WHERE o.game_id = (
                     SELECT g.id FROM ${t.seats} s JOIN ${t.games} g ON g.id = s.game_id
                     WHERE s.entry_id = ? AND g.game = ? AND g.season = ?
                     ORDER BY g.ended_at DESC, g.id DESC LIMIT 1
                   ) AND (o.entry_id IS NULL OR o.entry_id <> ?)
                   ORDER BY o.seat LIMIT 1`,
    seatCounts: `SELECT s.seat, COUNT(*) AS n FROM ${t.seats} s JOIN ${t.games} g ON g.id = s.game_id
                 WHERE s.entry_id = ? AND g.game = ? AND g.season = ? AND s.seat < 2 GROUP BY s.seat`,
  };
}

export type LadderSql = ReturnType<typeof ladderSql>;

/** seatCounts' rows as [seat 0, seat 1]. */
export const toSeatCounts = (rows: readonly { seat: number; n: number }[]): [number, number] => {
  const count = (seat: number): number => rows.find((r) => r.seat === seat)?.n ?? 0;
  return [count(0), count(1)];
};
