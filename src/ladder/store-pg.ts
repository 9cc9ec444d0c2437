import pg from 'pg';
import type { Logger } from '../core/log.js';
import { Outage, retryWhileDown, transactionOnce } from '../core/pg-outage.js';
import { nameKey, newCode, newEntryId, newPageToken, newReservation, type RosterRow } from './roster.js';
import {
  checkGame,
  checkGameRecord,
  checkRating,
  cleanRename,
  cleanRoster,
  cleanSeasonName,
  duplicateGame,
  LadderStoreError,
  mustBeOpen,
  notFound,
  opponentId,
  rosterClashes,
  seasonId,
  seatValues,
  staleRating,
  toEntry,
  toGame,
  toSeason,
  toSeat,
  toStandings,
  type EntryRow,
  type GameRow,
  type LadderStore,
  type ListGamesOptions,
  type SeasonRow,
  type SeatRow,
  type StandingsDbRow,
  type StandingsRow,
} from './store-rows.js';
import { PG_LADDER_MIGRATIONS as MIGRATIONS } from './store-pg-schema.js';
import { ladderSql, ladderTables, toSeatCounts, type EntryColumn } from './store-sql.js';
import type {
  LadderGame,
  LadderGameRecord,
  LadderGameSeat,
  Rating,
  RatingPoint,
  RosterEntry,
  Season,
} from './types.js';

/**
 * The ladder's store in PostgreSQL (`database.url`): one roster, one set of seasons, ratings and
 * games for several `serve` processes. The tables live beside the records in the same schema,
 * prefixed `ladder_`, with a version of their own (`ladder_schema_version`); the SQL is the SQLite
 * store's (store-rows.ts). What several processes need:
 * - roster writes (addEntries, rename) and the creation of a season take a transaction-scoped
 *   advisory lock of the schema (and game), so check-then-insert holds; the partial unique
 *   indexes stand behind them;
 * - a write to a season reads the season `FOR SHARE`, so a freeze waits for a game being recorded
 *   and a game recorded after the freeze sees it;
 * - recordGame writes each rating only over the `before` it was rated from (compare and set in
 *   one upsert, in entry-id order so two games lock the same rows in the same order): a game rated
 *   from a rating another process has changed meanwhile is refused with `stale-rating`.
 * Outages (issue #31): a call waits for a database that is gone, retrying with backoff, up to
 * `outageWaitMs` (recordGame: `recordWaitMs`), then fails; a transaction is retried whole.
 */

const { Pool, types } = pg;

export interface PgLadderStoreOptions {
  /** `postgres://user@host:port/database`. */
  url: string;
  /** The schema (created when missing); default `public`. */
  schema?: string;
  /** Default 4. */
  poolSize?: number;
  log?: Logger;
  /** How long a call waits for a database that is gone before it fails. Default 15 s. */
  outageWaitMs?: number;
  /** As outageWaitMs, for recordGame (a rated game is worth waiting for). Default 10 min. */
  recordWaitMs?: number;
}

const SQL = ladderSql(ladderTables('ladder_'));

/** BIGINT (times, counts) and NUMERIC as numbers: every value stored is far below 2^53. */
const INT8 = 20;
const NUMERIC = 1700;
const typeParsers = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
    oid === INT8 || oid === NUMERIC
      ? (v: string) => Number(v)
      : (types.getTypeParser as (o: number, f: string) => unknown)(
          oid,
          format ?? 'text',
        )) as typeof types.getTypeParser,
};

/** `?` placeholders (the SQL both stores share) as PostgreSQL's `$1, $2, …`. */
const numbered = (sql: string): string => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

const pgError = (err: unknown): { code: string; constraint: string } => {
  const e = err as { code?: unknown; constraint?: unknown } | null;
  return {
    code: typeof e?.code === 'string' ? e.code : '',
    constraint: typeof e?.constraint === 'string' ? e.constraint : '',
  };
};

/** Deadlock and serialization failures: the transaction is tried again (a few times). */
const RETRIED_CODES = new Set(['40P01', '40001']);

type Query = <R extends pg.QueryResultRow>(sql: string, args?: unknown[]) => Promise<pg.QueryResult<R>>;

export class PgLadderStore implements LadderStore {
  private readonly pool: pg.Pool;
  readonly schema: string;
  private readonly outage: Outage;
  private readonly outageWaitMs: number;
  private readonly recordWaitMs: number;
  /** Aborted at close: calls waiting out an outage give up. */
  private readonly giveUp = new AbortController();
  private closed = false;

  private constructor(options: PgLadderStoreOptions) {
    const schema = options.schema ?? 'public';
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
      throw new Error(`database schema "${schema}": lower-case letters, digits and _ only`);
    this.schema = schema;
    const log = options.log ?? null;
    this.outage = new Outage('ladder', log);
    this.outageWaitMs = options.outageWaitMs ?? 15_000;
    this.recordWaitMs = options.recordWaitMs ?? 600_000;
    this.pool = new Pool({
      connectionString: options.url,
      max: options.poolSize ?? 4,
      options: `-c search_path=${schema}`,
      types: typeParsers,
      application_name: 'spielhalle ladder',
      keepAlive: true,
      connectionTimeoutMillis: 10_000,
    });
    // An idle connection that breaks (the server restarts) must not take the process down.
    this.pool.on('error', (err) => {
      if (log !== null)
        log.warn({ err: err.message }, 'ladder store (postgres): an idle connection was lost');
    });
  }

  /** Connects, creates the schema when missing and runs the migrations the ladder tables lack. */
  static async open(options: PgLadderStoreOptions): Promise<PgLadderStore> {
    const store = new PgLadderStore(options);
    try {
      await store.migrate();
    } catch (err) {
      await store.pool.end();
      throw err;
    }
    return store;
  }

  private async migrate(): Promise<void> {
    await this.transactionOnce(async (q) => {
      // The records' migration lock: processes (and the record store) starting together create the schema once.
      await q("SELECT pg_advisory_xact_lock(hashtext('spielhalle-migrate'))");
      await q(`CREATE SCHEMA IF NOT EXISTS ${this.schema}`);
      await q('CREATE TABLE IF NOT EXISTS ladder_schema_version (version INTEGER NOT NULL)');
      const row = (await q<{ version: number }>('SELECT version FROM ladder_schema_version')).rows[0];
      if (row === undefined) await q('INSERT INTO ladder_schema_version (version) VALUES (0)');
      const version = row?.version ?? 0;
      if (version > MIGRATIONS.length) {
        throw new LadderStoreError(
          'newer-schema',
          `schema ${this.schema} was written by a newer Spielhalle (ladder schema ${version})`,
        );
      }
      for (let v = version; v < MIGRATIONS.length; v++) {
        await q(MIGRATIONS[v]!);
        await q('UPDATE ladder_schema_version SET version = ?', [v + 1]);
      }
    });
  }

  private checkOpen(): void {
    if (this.closed) throw new LadderStoreError('closed', 'the ladder store is closed');
  }

  /** One statement, waiting out an outage. */
  private async query<R extends pg.QueryResultRow>(sql: string, args: unknown[] = []): Promise<R[]> {
    this.checkOpen();
    const result = await retryWhileDown(() => this.pool.query<R>(numbered(sql), args), this.outage, {
      maxWaitMs: this.outageWaitMs,
      signal: this.giveUp.signal,
    });
    return result.rows;
  }

  private async one<R extends pg.QueryResultRow>(sql: string, args: unknown[] = []): Promise<R | undefined> {
    return (await this.query<R>(sql, args))[0];
  }

  /** One try of a transaction; `q` numbers the placeholders. */
  private transactionOnce<T>(fn: (q: Query) => Promise<T>): Promise<T> {
    return transactionOnce(this.pool, (c) => fn((sql, args) => c.query(numbered(sql), args)));
  }

  /** A transaction, tried again whole after a deadlock (a few times) and while the database is gone. */
  private transaction<T>(
    fn: (q: Query, attempt: number) => Promise<T>,
    waitMs = this.outageWaitMs,
  ): Promise<T> {
    this.checkOpen();
    // `attempt` counts the tries after an outage only: a try after a deadlock starts from a rollback.
    let tries = 0;
    const once = async (): Promise<T> => {
      const attempt = tries++;
      for (let conflicts = 0; ; conflicts++) {
        try {
          return await this.transactionOnce((q) => fn(q, attempt));
        } catch (err) {
          if (!RETRIED_CODES.has(pgError(err).code) || conflicts >= 4) throw err;
        }
      }
    };
    return retryWhileDown(once, this.outage, { maxWaitMs: waitMs, signal: this.giveUp.signal });
  }

  /** A lock of this schema's ladder for the transaction (`what`: roster, season:<game>). */
  private lock(q: Query, what: string): Promise<unknown> {
    return q('SELECT pg_advisory_xact_lock(hashtext(?))', [`spielhalle-ladder:${this.schema}:${what}`]);
  }

  // ---- roster ----

  async addEntries(rows: readonly RosterRow[], at: number): Promise<RosterEntry[]> {
    const cleaned = cleanRoster(rows);
    this.checkOpen();
    if (cleaned.length === 0) return [];
    try {
      return await this.transaction(async (q) => {
        await this.lock(q, 'roster');
        const clashes: { name: string; other: string }[] = [];
        for (const r of cleaned) {
          const other = (await q<{ name: string }>(SQL.nameTaken, [nameKey(r.name)])).rows[0];
          if (other !== undefined) clashes.push({ name: r.name, other: other.name });
        }
        rosterClashes(clashes);
        const seq = (await q<{ seq: number }>(SQL.maxSeq)).rows[0]?.seq ?? 0;
        const added: RosterEntry[] = [];
        for (const [i, r] of cleaned.entries()) {
          const entry: RosterEntry = {
            id: newEntryId(),
            name: r.name,
            group: r.group,
            code: newCode(),
            reservation: newReservation(),
            pageToken: newPageToken(),
            revoked: false,
            createdAt: at,
          };
          await q(SQL.insertEntry, [
            entry.id,
            seq + i + 1,
            entry.name,
            nameKey(entry.name),
            entry.group,
            entry.code,
            entry.reservation,
            entry.pageToken,
            at,
          ]);
          added.push(entry);
        }
        return added;
      });
    } catch (err) {
      // Behind the lock: a writer that does not take it (an older process) still meets the index.
      if (pgError(err).constraint === 'ladder_entries_name')
        throw new LadderStoreError('duplicate-name', 'a name is already on the roster');
      throw err;
    }
  }

  async listEntries(options: { includeRevoked?: boolean | undefined } = {}): Promise<RosterEntry[]> {
    return (await this.query<EntryRow>(SQL.listEntries(options.includeRevoked === true))).map(toEntry);
  }

  private async entryBy(column: EntryColumn, value: string, q?: Query): Promise<RosterEntry | null> {
    const row =
      q === undefined
        ? await this.one<EntryRow>(SQL.entryBy(column), [value])
        : (await q<EntryRow>(SQL.entryBy(column), [value])).rows[0];
    return row === undefined ? null : toEntry(row);
  }

  private async mustEntry(id: string, q?: Query): Promise<RosterEntry> {
    const entry = await this.entryBy('id', id, q);
    if (entry === null) throw notFound(id);
    return entry;
  }

  getEntry(id: string): Promise<RosterEntry | null> {
    return this.entryBy('id', id);
  }

  byCode(code: string): Promise<RosterEntry | null> {
    return this.entryBy('code', code);
  }

  byReservation(reservation: string): Promise<RosterEntry | null> {
    // Stored as randomUUID writes it (lower case); a client may send it in capitals.
    return this.entryBy('reservation', reservation.toLowerCase());
  }

  byPageToken(token: string): Promise<RosterEntry | null> {
    return this.entryBy('page_token', token);
  }

  async revoke(id: string, at: number): Promise<RosterEntry> {
    await this.query(SQL.revoke, [at, id]);
    return this.mustEntry(id);
  }

  renew(id: string, at: number): Promise<RosterEntry> {
    return this.transaction(async (q) => {
      if ((await this.mustEntry(id, q)).revoked)
        throw new LadderStoreError('revoked', `roster entry ${id} is revoked`);
      await q(SQL.renew, [newCode(), newReservation(), newPageToken(), at, id]);
      return this.mustEntry(id, q);
    });
  }

  async rename(id: string, name: string, group: string): Promise<RosterEntry> {
    const clean = cleanRename(name, group);
    return this.transaction(async (q) => {
      await this.lock(q, 'roster');
      const entry = await this.mustEntry(id, q);
      const other = (await q(SQL.otherNamed, [nameKey(clean.name), id])).rows[0];
      // A revoked entry keeps its name out of the unique index, so only an unrevoked one can clash.
      if (other !== undefined && !entry.revoked) {
        throw new LadderStoreError('duplicate-name', `already on the roster: ${JSON.stringify(clean.name)}`);
      }
      await q(SQL.rename, [clean.name, nameKey(clean.name), clean.group, id]);
      return this.mustEntry(id, q);
    });
  }

  // ---- seasons ----

  private async insertSeason(q: Query, game: LadderGame, name: string, at: number): Promise<SeasonRow> {
    const number = (await q<{ n: number }>(SQL.nextSeasonNumber, [game])).rows[0]?.n ?? 1;
    const id = seasonId(game, number);
    await q(SQL.insertSeason, [id, game, number, name, at]);
    return (await q<SeasonRow>(SQL.season, [id])).rows[0]!;
  }

  private async currentOrFirst(game: LadderGame, at: number): Promise<SeasonRow> {
    checkGame(game);
    const current = await this.one<SeasonRow>(SQL.currentSeason, [game]);
    if (current !== undefined) return current;
    return this.transaction(async (q) => {
      await this.lock(q, `season:${game}`);
      return (
        (await q<SeasonRow>(SQL.currentSeason, [game])).rows[0] ??
        (await this.insertSeason(q, game, 'Season 1', at))
      );
    });
  }

  async currentSeason(game: LadderGame, at: number = Date.now()): Promise<Season> {
    return toSeason(await this.currentOrFirst(game, at));
  }

  async startSeason(game: LadderGame, name: string, at: number): Promise<Season> {
    const clean = cleanSeasonName(game, name);
    return toSeason(
      await this.transaction(async (q) => {
        await this.lock(q, `season:${game}`);
        await q(SQL.archiveCurrent, [at, game]);
        return this.insertSeason(q, game, clean, at);
      }),
    );
  }

  async freezeSeason(game: LadderGame, at: number): Promise<Season> {
    const { id } = await this.currentOrFirst(game, at);
    await this.query(SQL.freeze, [at, id]);
    return toSeason((await this.one<SeasonRow>(SQL.season, [id]))!);
  }

  async unfreezeSeason(game: LadderGame, at: number = Date.now()): Promise<Season> {
    const { id } = await this.currentOrFirst(game, at);
    await this.query(SQL.unfreeze, [id]);
    return toSeason((await this.one<SeasonRow>(SQL.season, [id]))!);
  }

  async listSeasons(game: LadderGame): Promise<Season[]> {
    return (await this.query<SeasonRow>(SQL.listSeasons, [game])).map(toSeason);
  }

  /** FOR SHARE: a freeze (an UPDATE of the row) waits until this transaction ends. */
  private async openSeason(q: Query, game: LadderGame, season: string): Promise<SeasonRow> {
    return mustBeOpen(
      (await q<SeasonRow>(`${SQL.seasonOf} FOR SHARE`, [season, game])).rows[0],
      game,
      season,
    );
  }

  // ---- ratings ----

  async getRating(game: LadderGame, season: string, entryId: string): Promise<Rating | null> {
    return (await this.one<Rating & pg.QueryResultRow>(SQL.getRating, [game, season, entryId])) ?? null;
  }

  async setRating(game: LadderGame, season: string, entryId: string, rating: Rating): Promise<void> {
    checkRating(rating);
    await this.transaction(async (q) => {
      await this.openSeason(q, game, season);
      await this.mustEntry(entryId, q);
      await q(SQL.putRating, [game, season, entryId, rating.rating, rating.rd, rating.vol, rating.games]);
    });
  }

  async standings(
    game: LadderGame,
    season: string,
    options: { includeRevoked?: boolean | undefined } = {},
  ): Promise<StandingsRow[]> {
    return (
      await this.query<StandingsDbRow & pg.QueryResultRow>(SQL.standings(options.includeRevoked === true), [
        game,
        season,
        game,
        season,
      ])
    ).map(toStandings);
  }

  // ---- games ----

  async recordGame(record: LadderGameRecord): Promise<void> {
    const { outcome, rated } = checkGameRecord(record);
    await this.transaction(async (q, attempt) => {
      await this.openSeason(q, record.game, record.season);
      for (const { entryId } of rated) await this.mustEntry(entryId, q);
      try {
        await q(SQL.insertGame, [
          record.id,
          record.game,
          record.season,
          record.startedAt,
          record.endedAt,
          record.recordId,
        ]);
      } catch (err) {
        if (pgError(err).constraint !== 'ladder_games_pkey') throw err;
        // A try after a connection lost at COMMIT may find its own game there: that one committed.
        if (attempt > 0) return;
        throw duplicateGame(record.id);
      }
      for (const [i, s] of record.seats.entries())
        await q(SQL.insertSeat, seatValues(record.id, i, s, outcome[i]!));
      for (const { entryId, seat: s } of rated) {
        const { before: b, after: a } = s;
        const changed = await q(SQL.advanceRating, [
          record.game,
          record.season,
          entryId,
          a.rating,
          a.rd,
          a.vol,
          a.games,
          b.rating,
          b.rd,
          b.vol,
          b.games,
        ]);
        if (changed.rowCount === 0) throw staleRating(record, entryId);
        await q(SQL.insertPoint, [
          record.game,
          record.season,
          entryId,
          record.id,
          record.endedAt,
          a.rating,
          a.rd,
        ]);
      }
    }, this.recordWaitMs);
  }

  private async toGames(rows: readonly GameRow[]): Promise<LadderGameRecord[]> {
    if (rows.length === 0) return [];
    const bySeat = new Map<string, LadderGameSeat[]>(rows.map((r) => [r.id, []]));
    const seats = await this.query<SeatRow & pg.QueryResultRow>(
      'SELECT * FROM ladder_game_seats WHERE game_id = ANY(?::text[]) ORDER BY game_id, seat',
      [rows.map((r) => r.id)],
    );
    for (const r of seats) bySeat.get(r.game_id)?.push(toSeat(r));
    return rows.map((r) => toGame(r, bySeat.get(r.id) ?? []));
  }

  async listGames(options: ListGamesOptions = {}): Promise<LadderGameRecord[]> {
    const { sql, args } = SQL.listGames(options);
    return this.toGames(await this.query<GameRow & pg.QueryResultRow>(sql, args));
  }

  async getGame(id: string): Promise<LadderGameRecord | null> {
    const row = await this.one<GameRow & pg.QueryResultRow>(SQL.game, [id]);
    return row === undefined ? null : ((await this.toGames([row]))[0] ?? null);
  }

  ratingHistory(game: LadderGame, season: string, entryId: string): Promise<RatingPoint[]> {
    return this.query<RatingPoint & pg.QueryResultRow>(SQL.ratingHistory, [entryId, game, season]);
  }

  async lastOpponent(game: LadderGame, season: string, entryId: string): Promise<string | null> {
    return opponentId(
      await this.one<Pick<SeatRow, 'entry_id' | 'house_level'> & pg.QueryResultRow>(SQL.lastOpponent, [
        entryId,
        game,
        season,
        entryId,
      ]),
    );
  }

  async seatCounts(game: LadderGame, season: string, entryId: string): Promise<[number, number]> {
    return toSeatCounts(
      await this.query<{ seat: number; n: number }>(SQL.seatCounts, [entryId, game, season]),
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.giveUp.abort();
    await this.pool.end();
  }
}
