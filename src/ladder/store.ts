import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ladderFile, type Settings } from '../config.js';
import type { Logger } from '../core/log.js';
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
import { ladderSql, ladderTables, toSeatCounts, type EntryColumn } from './store-sql.js';
import type { LadderGame, LadderGameRecord, LadderGameSeat, Rating, RatingPoint, RosterEntry, Season } from './types.js';

/**
 * The ladder's store in a SQLite file (the default; store-pg.ts keeps it in PostgreSQL for several
 * `serve` processes). The interface, its errors and the SQL both share are in store-rows.ts.
 */

export { LadderStoreError } from './store-rows.js';
export type { LadderStore, LadderStoreErrorCode, ListGamesOptions, StandingsRow } from './store-rows.js';

/**
 * JSON in TEXT for the loss reasons, numbers for times (ms since epoch), partial unique indexes for
 * the rules "one unrevoked entry per name" and "one current season per game", so that two
 * processes cannot break them. store-pg.ts keeps the same tables (prefixed `ladder_`).
 */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE entries (
     id TEXT PRIMARY KEY,
     seq INTEGER NOT NULL UNIQUE,
     name TEXT NOT NULL,
     name_key TEXT NOT NULL,
     grp TEXT NOT NULL,
     code TEXT NOT NULL UNIQUE,
     reservation TEXT NOT NULL UNIQUE,
     page_token TEXT NOT NULL UNIQUE,
     created_at INTEGER NOT NULL,
     renewed_at INTEGER,
     revoked_at INTEGER
   );
   CREATE UNIQUE INDEX entries_name ON entries (name_key) WHERE revoked_at IS NULL;
   CREATE TABLE seasons (
     id TEXT PRIMARY KEY,
     game TEXT NOT NULL,
     number INTEGER NOT NULL,
     name TEXT NOT NULL,
     started_at INTEGER NOT NULL,
     frozen_at INTEGER,
     archived_at INTEGER,
     UNIQUE (game, number)
   );
   CREATE UNIQUE INDEX seasons_current ON seasons (game) WHERE archived_at IS NULL;
   CREATE TABLE ratings (
     game TEXT NOT NULL,
     season TEXT NOT NULL REFERENCES seasons (id),
     entry_id TEXT NOT NULL REFERENCES entries (id),
     rating REAL NOT NULL,
     rd REAL NOT NULL,
     vol REAL NOT NULL,
     games INTEGER NOT NULL,
     PRIMARY KEY (game, season, entry_id)
   );
   CREATE TABLE games (
     id TEXT PRIMARY KEY,
     game TEXT NOT NULL,
     season TEXT NOT NULL REFERENCES seasons (id),
     started_at INTEGER NOT NULL,
     ended_at INTEGER NOT NULL,
     record_id TEXT
   );
   CREATE INDEX games_ended ON games (ended_at, id);
   CREATE INDEX games_season_ended ON games (game, season, ended_at, id);
   CREATE TABLE game_seats (
     game_id TEXT NOT NULL REFERENCES games (id),
     seat INTEGER NOT NULL,
     entry_id TEXT REFERENCES entries (id),
     house_level TEXT,
     name TEXT NOT NULL,
     score REAL NOT NULL,
     outcome TEXT NOT NULL,
     before_rating REAL NOT NULL,
     before_rd REAL NOT NULL,
     before_vol REAL NOT NULL,
     before_games INTEGER NOT NULL,
     after_rating REAL NOT NULL,
     after_rd REAL NOT NULL,
     after_vol REAL NOT NULL,
     after_games INTEGER NOT NULL,
     reason TEXT,
     PRIMARY KEY (game_id, seat),
     CHECK ((entry_id IS NULL) <> (house_level IS NULL)),
     CHECK (outcome IN ('win', 'draw', 'loss'))
   );
   CREATE INDEX game_seats_entry ON game_seats (entry_id, game_id);
   CREATE TABLE rating_history (
     id INTEGER PRIMARY KEY,
     game TEXT NOT NULL,
     season TEXT NOT NULL,
     entry_id TEXT NOT NULL REFERENCES entries (id),
     game_id TEXT NOT NULL REFERENCES games (id),
     at INTEGER NOT NULL,
     rating REAL NOT NULL,
     rd REAL NOT NULL
   );
   CREATE INDEX rating_history_entry ON rating_history (entry_id, game, season, at, id);`,
];

export const LADDER_SCHEMA_VERSION = MIGRATIONS.length;

const SQL = ladderSql(ladderTables(''));

const sqliteCode = (err: unknown): string => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
};

export class SqliteLadderStore implements LadderStore {
  private readonly db: Database.Database;
  private closed = false;

  constructor(file: string) {
    const memory = file === ':memory:';
    if (!memory) mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    try {
      if (!memory) {
        // As the record store: readers (the dashboard) do not block the ladder's writes, and a
        // second process waits for a lock instead of failing at once.
        this.db.pragma('journal_mode = WAL');
        this.db.pragma('synchronous = NORMAL');
      }
      this.db.pragma('busy_timeout = 5000');
      this.db.pragma('foreign_keys = ON');
      this.migrate(file);
    } catch (err) {
      this.db.close();
      throw err;
    }
  }

  private migrate(file: string): void {
    this.db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
    // IMMEDIATE: two processes opening a new file at once must not both run the first migration.
    this.db
      .transaction(() => {
        const row = this.db.prepare('SELECT version FROM schema_version').get() as { version: number } | undefined;
        if (row === undefined) this.db.prepare('INSERT INTO schema_version (version) VALUES (0)').run();
        const version = row?.version ?? 0;
        if (version > MIGRATIONS.length) {
          throw new LadderStoreError('newer-schema', `${file} was written by a newer Spielhalle (ladder schema ${version})`);
        }
        for (let v = version; v < MIGRATIONS.length; v++) this.db.exec(MIGRATIONS[v] as string);
        this.db.prepare('UPDATE schema_version SET version = ?').run(MIGRATIONS.length);
      })
      .immediate();
  }

  /** Runs synchronous work as the promise the interface promises; a throw becomes a rejection. */
  private run<T>(work: () => T): Promise<T> {
    try {
      if (this.closed) throw new LadderStoreError('closed', 'the ladder store is closed');
      return Promise.resolve(work());
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** IMMEDIATE: the write lock first, so that what the transaction reads stays true until it commits. */
  private tx<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  // ---- roster ----

  addEntries(rows: readonly RosterRow[], at: number): Promise<RosterEntry[]> {
    return this.run(() => {
      const cleaned = cleanRoster(rows);
      return this.tx(() => {
        const taken = this.db.prepare(SQL.nameTaken);
        rosterClashes(
          cleaned.flatMap((r) => {
            const other = taken.get(nameKey(r.name)) as { name: string } | undefined;
            return other === undefined ? [] : [{ name: r.name, other: other.name }];
          }),
        );
        const seq = (this.db.prepare(SQL.maxSeq).get() as { seq: number }).seq;
        const insert = this.db.prepare(SQL.insertEntry);
        return cleaned.map((r, i) => {
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
          insert.run(entry.id, seq + i + 1, entry.name, nameKey(entry.name), entry.group, entry.code, entry.reservation, entry.pageToken, at);
          return entry;
        });
      });
    });
  }

  listEntries(options: { includeRevoked?: boolean | undefined } = {}): Promise<RosterEntry[]> {
    return this.run(() => (this.db.prepare(SQL.listEntries(options.includeRevoked === true)).all() as EntryRow[]).map(toEntry));
  }

  private entryBy(column: EntryColumn, value: string): RosterEntry | null {
    const row = this.db.prepare(SQL.entryBy(column)).get(value) as EntryRow | undefined;
    return row === undefined ? null : toEntry(row);
  }

  private mustEntry(id: string): RosterEntry {
    const entry = this.entryBy('id', id);
    if (entry === null) throw notFound(id);
    return entry;
  }

  getEntry(id: string): Promise<RosterEntry | null> {
    return this.run(() => this.entryBy('id', id));
  }

  byCode(code: string): Promise<RosterEntry | null> {
    return this.run(() => this.entryBy('code', code));
  }

  byReservation(reservation: string): Promise<RosterEntry | null> {
    // Stored as randomUUID writes it (lower case); a client may send it in capitals.
    return this.run(() => this.entryBy('reservation', reservation.toLowerCase()));
  }

  byPageToken(token: string): Promise<RosterEntry | null> {
    return this.run(() => this.entryBy('page_token', token));
  }

  revoke(id: string, at: number): Promise<RosterEntry> {
    return this.run(() => {
      this.db.prepare(SQL.revoke).run(at, id);
      return this.mustEntry(id);
    });
  }

  renew(id: string, at: number): Promise<RosterEntry> {
    return this.run(() => {
      if (this.mustEntry(id).revoked) throw new LadderStoreError('revoked', `roster entry ${id} is revoked`);
      this.db.prepare(SQL.renew).run(newCode(), newReservation(), newPageToken(), at, id);
      return this.mustEntry(id);
    });
  }

  rename(id: string, name: string, group: string): Promise<RosterEntry> {
    return this.run(() => {
      const clean = cleanRename(name, group);
      return this.tx(() => {
        const entry = this.mustEntry(id);
        const other = this.db.prepare(SQL.otherNamed).get(nameKey(clean.name), id);
        // A revoked entry keeps its name out of the unique index, so only an unrevoked one can clash.
        if (other !== undefined && !entry.revoked) {
          throw new LadderStoreError('duplicate-name', `already on the roster: ${JSON.stringify(clean.name)}`);
        }
        this.db.prepare(SQL.rename).run(clean.name, nameKey(clean.name), clean.group, id);
        return this.mustEntry(id);
      });
    });
  }

  // ---- seasons ----

  private current(game: LadderGame): SeasonRow | undefined {
    return this.db.prepare(SQL.currentSeason).get(game) as SeasonRow | undefined;
  }

  private insertSeason(game: LadderGame, name: string, at: number): SeasonRow {
    const number = (this.db.prepare(SQL.nextSeasonNumber).get(game) as { n: number }).n;
    const id = seasonId(game, number);
    this.db.prepare(SQL.insertSeason).run(id, game, number, name, at);
    return this.seasonRow(id);
  }

  private seasonRow(id: string): SeasonRow {
    return this.db.prepare(SQL.season).get(id) as SeasonRow;
  }

  private currentOrFirst(game: LadderGame, at: number): SeasonRow {
    checkGame(game);
    return this.tx(() => this.current(game) ?? this.insertSeason(game, 'Season 1', at));
  }

  currentSeason(game: LadderGame, at: number = Date.now()): Promise<Season> {
    return this.run(() => toSeason(this.currentOrFirst(game, at)));
  }

  startSeason(game: LadderGame, name: string, at: number): Promise<Season> {
    return this.run(() => {
      const clean = cleanSeasonName(game, name);
      return toSeason(
        this.tx(() => {
          this.db.prepare(SQL.archiveCurrent).run(at, game);
          return this.insertSeason(game, clean, at);
        }),
      );
    });
  }

  freezeSeason(game: LadderGame, at: number): Promise<Season> {
    return this.run(() => {
      const { id } = this.currentOrFirst(game, at);
      this.db.prepare(SQL.freeze).run(at, id);
      return toSeason(this.seasonRow(id));
    });
  }

  unfreezeSeason(game: LadderGame, at: number = Date.now()): Promise<Season> {
    return this.run(() => {
      const { id } = this.currentOrFirst(game, at);
      this.db.prepare(SQL.unfreeze).run(id);
      return toSeason(this.seasonRow(id));
    });
  }

  listSeasons(game: LadderGame): Promise<Season[]> {
    return this.run(() => (this.db.prepare(SQL.listSeasons).all(game) as SeasonRow[]).map(toSeason));
  }

  private openSeason(game: LadderGame, season: string): SeasonRow {
    return mustBeOpen(this.db.prepare(SQL.seasonOf).get(season, game) as SeasonRow | undefined, game, season);
  }

  // ---- ratings ----

  getRating(game: LadderGame, season: string, entryId: string): Promise<Rating | null> {
    return this.run(() => (this.db.prepare(SQL.getRating).get(game, season, entryId) as Rating | undefined) ?? null);
  }

  setRating(game: LadderGame, season: string, entryId: string, rating: Rating): Promise<void> {
    return this.run(() => {
      checkRating(rating);
      this.tx(() => {
        this.openSeason(game, season);
        this.mustEntry(entryId);
        this.db.prepare(SQL.putRating).run(game, season, entryId, rating.rating, rating.rd, rating.vol, rating.games);
      });
    });
  }

  standings(game: LadderGame, season: string, options: { includeRevoked?: boolean | undefined } = {}): Promise<StandingsRow[]> {
    return this.run(() =>
      (this.db.prepare(SQL.standings(options.includeRevoked === true)).all(game, season, game, season) as StandingsDbRow[]).map(toStandings),
    );
  }

  // ---- games ----

  recordGame(record: LadderGameRecord): Promise<void> {
    return this.run(() => {
      const { outcome, rated } = checkGameRecord(record);
      this.tx(() => {
        this.openSeason(record.game, record.season);
        for (const { entryId } of rated) this.mustEntry(entryId);
        try {
          this.db.prepare(SQL.insertGame).run(record.id, record.game, record.season, record.startedAt, record.endedAt, record.recordId);
        } catch (err) {
          if (sqliteCode(err) === 'SQLITE_CONSTRAINT_PRIMARYKEY') throw duplicateGame(record.id);
          throw err;
        }
        const seat = this.db.prepare(SQL.insertSeat);
        record.seats.forEach((s, i) => seat.run(...seatValues(record.id, i, s, outcome[i]!)));
        const advance = this.db.prepare(SQL.advanceRating);
        const point = this.db.prepare(SQL.insertPoint);
        for (const { entryId, seat: s } of rated) {
          const { before: b, after: a } = s;
          const changed = advance.run(record.game, record.season, entryId, a.rating, a.rd, a.vol, a.games, b.rating, b.rd, b.vol, b.games).changes;
          if (changed === 0) throw staleRating(record, entryId);
          point.run(record.game, record.season, entryId, record.id, record.endedAt, a.rating, a.rd);
        }
      });
    });
  }

  private toGames(rows: readonly GameRow[]): LadderGameRecord[] {
    const ids = rows.map((r) => r.id);
    const bySeat = new Map<string, LadderGameSeat[]>(ids.map((id) => [id, []]));
    // In slices: SQLite limits the parameters of one statement, and a caller may ask for many games.
    for (let i = 0; i < ids.length; i += 500) {
      const slice = ids.slice(i, i + 500);
      for (const r of this.db.prepare(SQL.seatsOf(slice.length)).all(...slice) as SeatRow[]) bySeat.get(r.game_id)?.push(toSeat(r));
    }
    return rows.map((r) => toGame(r, bySeat.get(r.id) ?? []));
  }

  listGames(options: ListGamesOptions = {}): Promise<LadderGameRecord[]> {
    return this.run(() => {
      const { sql, args } = SQL.listGames(options);
      return this.toGames(this.db.prepare(sql).all(...args) as GameRow[]);
    });
  }

  getGame(id: string): Promise<LadderGameRecord | null> {
    return this.run(() => {
      const row = this.db.prepare(SQL.game).get(id) as GameRow | undefined;
      return row === undefined ? null : (this.toGames([row])[0] ?? null);
    });
  }

  ratingHistory(game: LadderGame, season: string, entryId: string): Promise<RatingPoint[]> {
    return this.run(() => this.db.prepare(SQL.ratingHistory).all(entryId, game, season) as RatingPoint[]);
  }

  lastOpponent(game: LadderGame, season: string, entryId: string): Promise<string | null> {
    return this.run(() => opponentId(this.db.prepare(SQL.lastOpponent).get(entryId, game, season, entryId) as Pick<SeatRow, 'entry_id' | 'house_level'> | undefined));
  }

  seatCounts(game: LadderGame, season: string, entryId: string): Promise<[number, number]> {
    return this.run(() => toSeatCounts(this.db.prepare(SQL.seatCounts).all(entryId, game, season) as { seat: number; n: number }[]));
  }

  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.db.close();
    }
    return Promise.resolve();
  }
}

export interface OpenLadderStoreOptions {
  /** PostgreSQL: the schema (created when missing), the records' by default `public`. */
  schema?: string | undefined;
  /** PostgreSQL: where outages are logged. */
  log?: Logger | undefined;
}

const isPostgresUrl = (s: string): boolean => /^postgres(ql)?:\/\//.test(s);

/**
 * Opens (creating and migrating) the ladder store: in PostgreSQL for a `postgres://` url (in
 * `options.schema`), else in a SQLite file, or in memory (`:memory:`) for tests.
 */
export async function openLadderStore(pathOrUrl: string, options: OpenLadderStoreOptions = {}): Promise<LadderStore> {
  if (isPostgresUrl(pathOrUrl)) {
    // Loaded only when used: the SQLite default needs no PostgreSQL driver.
    const { PgLadderStore } = await import('./store-pg.js');
    return PgLadderStore.open({ url: pathOrUrl, ...(options.schema === undefined ? {} : { schema: options.schema }), ...(options.log === undefined ? {} : { log: options.log }) });
  }
  return new SqliteLadderStore(pathOrUrl);
}

/** The ladder store of these settings: in `database.url` (the records' schema) when it is set, else `<dataDir>/ladder.db`. */
export function openSettingsLadderStore(settings: Settings, log?: Logger): Promise<LadderStore> {
  if (settings.database.url !== '') return openLadderStore(settings.database.url, { schema: settings.database.schema, log });
  return openLadderStore(ladderFile(settings));
}

/** Where the ladder store of these settings lives, for messages (no password). */
export const ladderStoreWhere = (settings: Settings): string =>
  settings.database.url === ''
    ? ladderFile(settings)
    : `${settings.database.url.replace(/\/\/[^@/]*@/, '//…@')} (schema ${settings.database.schema}, tables ladder_*)`;
