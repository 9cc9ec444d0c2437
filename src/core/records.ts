import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { CRASH, SERVER_STOPPED } from './guard.js';
import { CAP_ORDER, idStart, keepMigration, keepOf, prunable, prunedNoteOf, type KeepClass, type PruneReason, type PrunedNote } from './record-keep.js';
import { LOST_EVENT, ROW_LEVEL, SqliteWriter, type DroppedRow, type WriteHealth, type WriteNotice } from './record-writer.js';
import type { NewMatch, Records, TournamentClaim, WireLine } from './record-backend.js';
import {
  TOURNAMENT_SELECT,
  TOURNAMENT_TABLES,
  listFilter,
  newMatchId,
  packWire,
  toMatchRecord,
  toTournament,
  toTournamentMatch,
  unpackWire,
  WireGatherer,
  type MatchRow,
  type TournamentMatchRow,
  type TournamentRow,
} from './record-rows.js';
import {
  GET_STANDINGS,
  SAVE_STANDINGS,
  STANDINGS_MIGRATION,
  resultsQuery,
  toResultRows,
  pageOf,
  toSnapshot,
  type ResultRow,
  type ResultsPage,
  type SnapshotRow,
  type StandingsSnapshot,
  type TournamentResultRow,
} from './standings-rows.js';

/**
 * The record store: every match (a Mia round, a Dame game, ...) with its seats, events, result and
 * the wire log of its connections. Writes are queued as plain rows and, every `flushMs`, handed to
 * a writer thread that inserts them in one transaction, so a busy server neither waits for the
 * disk nor for SQLite. Reads flush first and wait until the writer has committed everything
 * queued before them; `close()` does the same and then stops the writer.
 * A batch that fails is never dropped whole (record-writer.ts): held and retried while the disk
 * refuses writes, split row by row when a row is bad.
 * An in-memory store (tests) writes on the calling thread.
 */

import type {
  HourGroup,
  ListOptions,
  MatchDetail,
  MatchRecord,
  MatchStatus,
  ProgramOutput,
  SeatRecord,
  TournamentMatchRecord,
  TournamentMatchStatus,
  TournamentRecord,
  TournamentStatus,
  WireRecord,
} from './record-types.js';

export type {
  EventRecord,
  HourGroup,
  ListOptions,
  MatchDetail,
  MatchRecord,
  MatchStatus,
  ProgramOutput,
  SeatRecord,
  TournamentMatchRecord,
  TournamentMatchStatus,
  TournamentRecord,
  TournamentStatus,
  WireRecord,
} from './record-types.js';

/**
 * How a process opens the store:
 * - `serve`: the one process that serves. It holds a lock (a second `serve` on the same file is
 *   refused), marks matches a crash left `running` as aborted with reason `crash`, and on a clean
 *   close marks what is still running aborted with reason `server stopped`.
 * - `write` (default): writes without recovering anything (tests, benches, `prune`).
 * - `read`: read-only (`matches`, `replay`); the file must exist.
 */
export type StoreMode = 'serve' | 'write' | 'read';

export interface StoreOptions {
  /** How often queued writes go to the writer thread (ms). */
  flushMs?: number;
  mode?: StoreMode;
  /**
   * Estimated bytes of rows kept in memory while the disk refuses writes (record-writer.ts);
   * beyond, the oldest events and wire messages are lost first (default 64 MiB).
   */
  maxHeldBytes?: number;
}

export type { WriteHealth, WriteNotice } from './record-writer.js';

/** Held rows kept in memory while writes fail, at most (estimated bytes). */
export const MAX_HELD_BYTES = 64 * 1024 * 1024;

/**
 * What `prune` removes: records older than a time, by game, and/or down to a size. A
 * tournament's records (class `tournament`, record-keep.ts) only with `includeTournaments`.
 */
export interface PruneOptions {
  /** Delete finished and aborted matches (with everything recorded of them) that ended before this (ms since epoch). */
  matchesBefore?: number | undefined;
  /** Delete house games (only) that ended before this (records.houseKeepDays). */
  houseBefore?: number | undefined;
  /** Delete wire logs (only) of matches that ended before this, and connection logs older than it. */
  wireBefore?: number | undefined;
  /**
   * Then delete ended matches until the file's used pages are at most this many bytes: house
   * games first, then played and archived games, then ladder games, each oldest first.
   */
  maxBytes?: number | undefined;
  game?: string | undefined;
  /** Tournament records too (`prune --include-tournaments`); under a size cap, they go last. */
  includeTournaments?: boolean | undefined;
  dryRun?: boolean | undefined;
  /** Who prunes, for the notes a pruned record leaves (default `retention`). */
  reason?: PruneReason | undefined;
  /** The time the notes carry (default now). */
  now?: number | undefined;
}

export interface PruneResult {
  matches: number;
  wireRows: number;
  /** Bytes of the file in use before and after (estimated after a dry run). */
  bytesBefore: number;
  bytesAfter: number;
  /** The size cap could not be met without a tournament's records, which were kept. */
  capUnmet?: boolean | undefined;
}

/** Another process serves from this store. */
export class StoreLockedError extends Error {
  override readonly name = 'StoreLockedError';
}


const MIGRATIONS: readonly string[] = [
  `CREATE TABLE matches (
     id TEXT PRIMARY KEY,
     game TEXT NOT NULL,
     seed TEXT,
     status TEXT NOT NULL,
     started_at INTEGER NOT NULL,
     ended_at INTEGER,
     result TEXT,
     meta TEXT
   );
   CREATE INDEX matches_game_started ON matches (game, started_at DESC);
   CREATE TABLE seats (
     match_id TEXT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
     seat INTEGER NOT NULL,
     name TEXT NOT NULL,
     kind TEXT NOT NULL,
     address TEXT,
     PRIMARY KEY (match_id, seat)
   );
   CREATE INDEX seats_name ON seats (name);
   CREATE TABLE events (
     match_id TEXT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
     seq INTEGER NOT NULL,
     at INTEGER NOT NULL,
     seat INTEGER,
     type TEXT NOT NULL,
     data TEXT,
     PRIMARY KEY (match_id, seq)
   );
   CREATE TABLE wire (
     id INTEGER PRIMARY KEY,
     match_id TEXT,
     game TEXT NOT NULL,
     conn TEXT NOT NULL,
     at INTEGER NOT NULL,
     dir TEXT NOT NULL,
     data TEXT NOT NULL
   );
   CREATE INDEX wire_match ON wire (match_id, id);
   CREATE INDEX wire_conn ON wire (game, conn, id);
   CREATE TABLE scores (
     game TEXT NOT NULL,
     player TEXT NOT NULL,
     points INTEGER NOT NULL,
     updated_at INTEGER NOT NULL,
     PRIMARY KEY (game, player)
   );`,
  // Nothing read the wire log by connection, and that index cost 40 % of every wire insert.
  `DROP INDEX IF EXISTS wire_conn;`,
  // Tournaments (issue #17). Plain SQL that PostgreSQL runs as well (#19): JSON in TEXT, 0/1 flags.
  TOURNAMENT_TABLES,
  // Retention classes, notes on pruned records, archived tournaments (issue 37).
  keepMigration('sqlite'),
  // Live standings of tournaments and the indexes of their results' cursor (issue 38).
  STANDINGS_MIGRATION,
];

/** The schema version that has the tournament tables (a read-only store of an older file has none). */
const TOURNAMENT_SCHEMA = 3;
/** The schema version that has the retention classes and the notes on pruned records (issue 37). */
const KEEP_SCHEMA = 4;

/** One queued write: a statement name and its parameters. */
type Op = [keyof typeof SQL, ...(string | number | null | Uint8Array)[]];

const SQL = {
  match: 'INSERT INTO matches (id, game, seed, status, started_at, meta, keep, tournament_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  seat: 'INSERT INTO seats (match_id, seat, name, kind, address) VALUES (?, ?, ?, ?, ?)',
  event: 'INSERT INTO events (match_id, seq, at, seat, type, data) VALUES (?, ?, ?, ?, ?, ?)',
  wire: 'INSERT INTO wire (match_id, game, conn, at, dir, data) VALUES (?, ?, ?, ?, ?, ?)',
  wirepack: 'INSERT INTO wire (match_id, game, conn, at, dir, data) VALUES (?, ?, ?, ?, ?, ?)',
  // A superseded record stays so (a retried batch must not make it count again).
  finish: "UPDATE matches SET status = ?, ended_at = ?, result = ? WHERE id = ? AND status <> 'superseded'",
  score: `INSERT INTO scores (game, player, points, updated_at) VALUES (?, ?, ?, ?)
          ON CONFLICT (game, player) DO UPDATE SET points = excluded.points, updated_at = excluded.updated_at`,
  // The note on an ended match some of whose rows were lost while the disk was full (record-writer.ts).
  lost: `INSERT INTO events (match_id, seq, at, seat, type, data)
         SELECT ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE match_id = ?), ?, NULL, 'records-lost', ?
         WHERE EXISTS (SELECT 1 FROM matches WHERE id = ?)`,
} as const;

export class RecordStore implements Records {
  readonly kind = 'sqlite' as const;
  private readonly db: Database.Database;
  private queue: Op[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly eventSeq = new Map<string, number>();
  private closed = false;
  private readonly stmts: Record<keyof typeof SQL, Database.Statement>;
  private readonly writer: SqliteWriter | null = null;
  /** Wire messages of running matches not yet packed into a row. */
  private readonly wire = new WireGatherer((matchId, game, entries) => this.addWireBatch(matchId, game, entries));

  private readonly flushMs: number;
  readonly mode: StoreMode;
  private lock: Database.Database | null = null;
  private readonly lockFile: string;
  /** Matches found running (cut off by a crash) and marked aborted when this serving store opened. */
  readonly recovered: number = 0;

  constructor(
    private readonly file: string,
    options: number | StoreOptions = {},
  ) {
    const o = typeof options === 'number' ? { flushMs: options } : options;
    this.flushMs = o.flushMs ?? 50;
    this.mode = o.mode ?? 'write';
    this.lockFile = `${file}.lock`;
    const memory = file === ':memory:';
    if (this.mode === 'read') {
      if (!memory && !existsSync(file)) throw new Error(`no record store at ${file}`);
      this.db = new Database(file, { readonly: true, fileMustExist: !memory });
      this.db.pragma('busy_timeout = 5000');
      if (this.schemaVersion > MIGRATIONS.length) throw new Error(`${file} was written by a newer Spielhalle (schema ${this.schemaVersion})`);
      this.stmts = {} as Record<keyof typeof SQL, Database.Statement>;
      return;
    }
    if (!memory) mkdirSync(dirname(file), { recursive: true });
    if (this.mode === 'serve' && !memory) this.takeLock();
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    this.migrate();
    this.stmts = Object.fromEntries(Object.entries(SQL).map(([k, sql]) => [k, this.db.prepare(sql)])) as Record<
      keyof typeof SQL,
      Database.Statement
    >;
    // Only the serving process recovers: a match still "running" in the file was cut off by a
    // crash or a kill (a clean stop marks its own). A reader must never touch live matches.
    if (this.mode === 'serve') this.recovered = this.abortRunning(CRASH);
    if (!memory) {
      this.writer = new SqliteWriter({
        file,
        driver: createRequire(import.meta.url).resolve('better-sqlite3'),
        sql: SQL,
        maxHeldBytes: o.maxHeldBytes ?? MAX_HELD_BYTES,
        notify: (n) => this.onWriteNotice(n),
        lostNote: (id, data, at) => {
          // Still open: the note takes the next seq of its own (later events come after it).
          const seq = this.eventSeq.get(id);
          if (seq === undefined) return ['lost', id, id, at, data, id];
          this.eventSeq.set(id, seq + 1);
          return ['event', id, seq + 1, at, null, LOST_EVENT, data];
        },
      });
    }
  }

  /**
   * A second `serve` on the same file would recover (abort) the first one's live matches and
   * interleave its writes: refuse it. The lock is an exclusive SQLite transaction on a side file,
   * so the operating system releases it when the process dies, however it dies.
   */
  private takeLock(): void {
    const lock = new Database(this.lockFile);
    try {
      lock.pragma('busy_timeout = 0');
      lock.pragma('journal_mode = DELETE');
      lock.exec('BEGIN EXCLUSIVE');
    } catch (err) {
      lock.close();
      if ((err as { code?: string }).code === 'SQLITE_BUSY') {
        throw new StoreLockedError(`${this.file} is in use by another 'spielhalle serve' (stop it first, or give this one another --data-dir)`);
      }
      throw err;
    }
    this.lock = lock;
    try {
      writeFileSync(`${this.lockFile}.pid`, `${process.pid}\n`);
    } catch {
      // Only informational.
    }
  }

  private releaseLock(): void {
    if (!this.lock) return;
    try {
      this.lock.close();
    } catch {
      // The lock goes with the process anyway.
    }
    this.lock = null;
    rmSync(`${this.lockFile}.pid`, { force: true });
  }

  /** Marks every match still running as aborted with `reason`; returns how many. */
  private abortRunning(reason: string): number {
    return this.db
      .prepare("UPDATE matches SET status = 'aborted', ended_at = COALESCE(ended_at, ?), result = ? WHERE status = 'running'")
      .run(Date.now(), JSON.stringify({ reason })).changes;
  }

  /**
   * The crash path (an exception no boundary caught): commit what is queued, mark every match
   * still running aborted with reason `crash`, close. Synchronous, so that it completes before
   * the process exits.
   */
  crash(): void {
    if (this.closed) return;
    try {
      this.flush(true);
    } finally {
      this.closed = true;
      if (this.mode !== 'read') this.abortRunning(CRASH);
      this.writer?.terminate();
      this.db.close();
      this.releaseLock();
    }
  }

  /** Called when a batch could not be written (the server goes on; the caller decides how loud). */
  onWriteError: (err: Error) => void = (err) => {
    process.stderr.write(`record store: write failed: ${err.message}\n`);
  };

  /**
   * What the writes go through (record-writer.ts): writes failing and rows held, recovered,
   * rows dropped or lost. By default each but `recovered` goes to `onWriteError`; `serve` logs them.
   */
  onWriteNotice: (n: WriteNotice) => void = (n) => {
    if (n.kind === 'recovered') process.stderr.write(`record store: writing again after ${n.downMs} ms (${n.rows} held rows written)\n`);
    else this.onWriteError(new Error(describeNotice(n)));
  };

  /** How writes are doing: failing (with the reason) while the disk refuses them (/healthz, /metrics). */
  health(): WriteHealth {
    return this.writer?.health() ?? { failing: false, reason: null, since: null, heldRows: 0, heldBytes: 0, retried: 0, dropped: this.droppedRows, lost: 0 };
  }

  /** Rows an in-memory store dropped (its writes run here, row by row after a bad row). */
  private droppedRows = 0;

  static newMatchId(game: string, now = Date.now()): string {
    return newMatchId(game, now);
  }

  get schemaVersion(): number {
    return Number(this.db.pragma('user_version', { simple: true }));
  }

  private migrate(): void {
    const version = Number(this.db.pragma('user_version', { simple: true }));
    for (let v = version; v < MIGRATIONS.length; v++) {
      const sql = MIGRATIONS[v] as string;
      this.db.transaction(() => {
        this.db.exec(sql);
        this.db.pragma(`user_version = ${v + 1}`);
      })();
    }
  }

  private enqueue(op: Op): void {
    if (this.closed) return;
    if (this.mode === 'read') throw new Error('the record store is open read-only');
    this.queue.push(op);
    if (this.queue.length >= 5000) this.send();
    else if (this.timer === null) {
      this.timer = setTimeout(() => this.send(), this.flushMs);
      this.timer.unref();
    }
  }

  /** Hands what is queued to the writer (or writes it here, for an in-memory store). */
  private send(close = false): void {
    if (this.wire.size > 0) this.wire.packAll();
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const ops = this.queue;
    this.queue = [];
    if (this.writer) {
      this.writer.post(ops, close);
      return;
    }
    if (ops.length === 0) return;
    const run = ([name, ...args]: Op): void => {
      if (name === 'wirepack') args[5] = deflateRawSync(args[5] as string);
      this.stmts[name].run(...args);
    };
    try {
      this.db.transaction(() => {
        for (const op of ops) run(op);
      })();
    } catch (err) {
      if (!isRowLevel(err)) throw err;
      // As the writer thread does: row by row, so one bad row does not take the good ones with it.
      const one = this.db.transaction(run);
      const sample: DroppedRow[] = [];
      let dropped = 0;
      this.db.transaction(() => {
        for (const op of ops) {
          try {
            one(op);
          } catch (e) {
            if (!isRowLevel(e)) throw e;
            dropped++;
            if (sample.length < 20) sample.push({ op: op[0], matchId: typeof op[1] === 'string' ? op[1] : null, code: errorCode(e), message: (e as Error).message });
          }
        }
      })();
      this.droppedRows += dropped;
      this.onWriteNotice({ kind: 'dropped', rows: dropped, sample });
    }
  }

  /**
   * Waits until everything queued so far is committed, blocking (reads need their rows). The
   * limit only guards against a dead writer: servers drain asynchronously when they stop, so a
   * close after that has little left to wait for. While writes fail (a full disk), it waits only
   * until the writer has held them (record-writer.ts), never for the outage to end.
   */
  flush(close = false): void {
    this.send(close);
    this.writer?.wait();
  }

  /**
   * Resolves once everything queued so far is committed, without blocking the event loop: a
   * server stopping after heavy load waits for a busy disk rather than giving up on its records.
   * While writes fail, once they are held instead (`close` tries them once more).
   */
  async drain(): Promise<void> {
    this.send();
    await this.writer?.drain();
  }

  startMatch(input: NewMatch): string {
    const id = input.id ?? RecordStore.newMatchId(input.game, input.startedAt);
    const seed = input.seed === undefined || input.seed === null ? null : String(input.seed);
    const meta = input.meta === undefined ? null : JSON.stringify(input.meta);
    const seats = input.seats.map((s) => ({ ...s }));
    const { keep, tournamentId } = keepOf(input);
    this.eventSeq.set(id, 0);
    this.enqueue(['match', id, input.game, seed, 'running', input.startedAt, meta, keep, tournamentId]);
    for (const s of seats) this.enqueue(['seat', id, s.seat, s.name, s.kind, s.address ?? null]);
    return id;
  }

  addEvent(matchId: string, event: { at: number; seat?: number | null; type: string; data?: unknown }): void {
    const seq = (this.eventSeq.get(matchId) ?? 0) + 1;
    this.eventSeq.set(matchId, seq);
    const data = event.data === undefined ? null : JSON.stringify(event.data);
    this.enqueue(['event', matchId, seq, event.at, event.seat ?? null, event.type, data]);
  }

  /**
   * One wire message. `conn` names the connection (an address, or `*` for a message to all).
   * A match's messages are gathered and written packed, up to WIRE_PACK of them in one deflated
   * row (see packWire), at the latest WIRE_PACK_MS (record-rows.ts) after the first and when the match finishes;
   * reads see them at once. A few times smaller than a row per message (the messages of a match
   * repeat each other), and the deflating happens on the writer thread.
   */
  addWire(entry: WireLine & { matchId: string | null; game: string }): void {
    if (this.closed) return;
    if (this.mode === 'read') throw new Error('the record store is open read-only');
    if (entry.matchId === null) {
      this.enqueue(['wire', entry.matchId, entry.game, entry.conn, entry.at, entry.dir, entry.data]);
      return;
    }
    this.wire.add(entry.matchId, entry.game, { conn: entry.conn, at: entry.at, dir: entry.dir, data: entry.data });
  }

  /**
   * Many wire messages of one match in one row (Mia writes a round's log at its end): stored
   * deflated, as a BLOB in `data` with `conn` '' (see packWire); `getMatch` lists them one by one
   * as if each had been added alone. A few hundred bytes instead of a row per message.
   */
  addWireBatch(matchId: string, game: string, entries: readonly WireLine[]): void {
    if (entries.length === 0) return;
    const at = (entries[0] as { at: number }).at;
    this.enqueue(['wirepack', matchId, game, '', at, 'out', packWire(at, entries)]);
  }

  finishMatch(matchId: string, end: { status: Exclude<MatchStatus, 'running'>; endedAt: number; result: unknown }): void {
    this.eventSeq.delete(matchId);
    this.wire.pack(matchId);
    const result = JSON.stringify(end.result);
    this.enqueue(['finish', end.status, end.endedAt, result, matchId]);
  }

  setScores(game: string, scores: ReadonlyMap<string, number>, at: number): void {
    for (const [player, points] of scores) this.enqueue(['score', game, player, points, at]);
  }

  getScores(game: string): Map<string, number> {
    this.flush();
    const rows = this.db.prepare('SELECT player, points FROM scores WHERE game = ? ORDER BY player').all(game) as {
      player: string;
      points: number;
    }[];
    return new Map(rows.map((r) => [r.player, r.points]));
  }

  listMatches(options: ListOptions = {}): MatchRecord[] {
    this.flush();
    const [where, args] = listFilter(options);
    const sql = `SELECT * FROM matches ${where} ORDER BY started_at DESC, rowid DESC LIMIT ? OFFSET ?`;
    args.push(Math.min(Math.max(options.limit ?? 50, 1), 1000), Math.max(options.offset ?? 0, 0));
    const rows = this.db.prepare(sql).all(...args) as MatchRow[];
    return rows.map((r) => this.toMatch(r));
  }

  /** How many matches `listMatches` finds with these filters, without limit and offset. */
  countListed(options: ListOptions = {}): number {
    this.flush();
    const [where, args] = listFilter(options);
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM matches ${where}`).get(...args) as { n: number }).n;
  }

  /** The matches `listMatches` finds, counted per hour they started in, newest hour first. */
  listHours(options: ListOptions = {}): HourGroup[] {
    this.flush();
    const [where, args] = listFilter(options);
    const sql = `SELECT (started_at / 3600000) * 3600000 AS hour, COUNT(*) AS matches,
                   SUM(status = 'finished') AS finished, SUM(status = 'aborted') AS aborted,
                   SUM(status = 'running') AS running
                 FROM matches ${where} GROUP BY hour ORDER BY hour DESC LIMIT ? OFFSET ?`;
    args.push(Math.min(Math.max(options.limit ?? 50, 1), 1000), Math.max(options.offset ?? 0, 0));
    return this.db.prepare(sql).all(...args) as HourGroup[];
  }

  getMatch(id: string): MatchDetail | null {
    this.flush();
    const row = this.db.prepare('SELECT * FROM matches WHERE id = ?').get(id) as MatchRow | undefined;
    if (!row) return null;
    const events = (
      this.db.prepare('SELECT seq, at, seat, type, data FROM events WHERE match_id = ? ORDER BY seq').all(id) as {
        seq: number;
        at: number;
        seat: number | null;
        type: string;
        data: string | null;
      }[]
    ).map((e) => ({ ...e, data: e.data === null ? null : (JSON.parse(e.data) as unknown) }));
    const wire = (
      this.db.prepare('SELECT id AS seq, at, conn, dir, data FROM wire WHERE match_id = ? ORDER BY id').all(id) as (Omit<WireRecord, 'data'> & {
        data: string | Uint8Array;
      })[]
    ).flatMap((w) => (typeof w.data === 'string' ? [w as WireRecord] : unpackWire(w.seq, w.at, w.data)));
    return { ...this.toMatch(row), events, wire };
  }

  countMatches(game?: string): number {
    this.flush();
    const row = (
      game === undefined
        ? this.db.prepare('SELECT COUNT(*) AS n FROM matches').get()
        : this.db.prepare('SELECT COUNT(*) AS n FROM matches WHERE game = ?').get(game)
    ) as { n: number };
    return row.n;
  }

  // ---- Tournaments (issue #17) -------------------------------------------------------------
  // Small writes that a resumed tournament depends on: written here, synchronously, in a
  // transaction, not through the writer queue, so they are committed when the call returns.

  /** Runs `fn` in a write transaction on this thread (IMMEDIATE: it waits for the writer thread's lock). */
  private writeNow<T>(fn: () => T): T {
    if (this.closed) throw new Error('the record store is closed');
    if (this.mode === 'read') throw new Error('the record store is open read-only');
    return this.db.transaction(fn).immediate();
  }

  /** False for a read-only store of a file written before tournaments existed. */
  private get hasTournaments(): boolean {
    return this.schemaVersion >= TOURNAMENT_SCHEMA;
  }

  createTournament(t: Omit<TournamentRecord, 'done' | 'total' | 'updatedAt' | 'finishedAt' | 'archivedAt' | 'note'>): void {
    this.writeNow(() => {
      this.db
        .prepare(
          `INSERT INTO tournaments (id, name, game, format, spec, source, status, created_at, updated_at, finished_at, note)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)`,
        )
        .run(t.id, t.name, t.game, t.format, JSON.stringify(t.spec), t.source, t.status, t.createdAt, t.createdAt);
    });
  }

  getTournament(id: string): TournamentRecord | null {
    if (!this.hasTournaments) return null;
    const row = this.db.prepare(`${TOURNAMENT_SELECT} WHERE t.id = ?`).get(id) as TournamentRow | undefined;
    return row ? toTournament(row) : null;
  }

  /** Newest first. */
  listTournaments(options: { game?: string | undefined; limit?: number | undefined; offset?: number | undefined } = {}): TournamentRecord[] {
    if (!this.hasTournaments) return [];
    const where = options.game === undefined ? '' : ' WHERE t.game = ?';
    const args: (string | number)[] = options.game === undefined ? [] : [options.game];
    args.push(Math.min(Math.max(options.limit ?? 50, 1), 1000), Math.max(options.offset ?? 0, 0));
    const rows = this.db.prepare(`${TOURNAMENT_SELECT}${where} ORDER BY t.created_at DESC, t.id DESC LIMIT ? OFFSET ?`).all(...args) as TournamentRow[];
    return rows.map(toTournament);
  }

  /** `finishedAt` is set when it finishes or fails and cleared when it runs again; `note` is replaced (null without one). */
  setTournamentStatus(id: string, status: TournamentStatus, at: number, note: string | null = null): void {
    const finished = status === 'finished' || status === 'failed' ? at : null;
    this.writeNow(() => {
      const changed = this.db
        .prepare('UPDATE tournaments SET status = ?, updated_at = ?, finished_at = ?, note = ? WHERE id = ?')
        .run(status, at, finished, note, id).changes;
      if (changed === 0) throw new Error(`no tournament ${id}`);
    });
  }

  /** Adds scheduled matches as pending; those already there (same id) stay as they are. */
  addTournamentMatches(
    tournamentId: string,
    matches: readonly { id: string; round: number; index: number; seats: readonly string[]; seed: number; bye?: boolean | undefined }[],
  ): void {
    this.writeNow(() => {
      const insert = this.db.prepare(
        `INSERT INTO tournament_matches (tournament_id, id, round, match_index, seats, seed, bye, status, records, output, attempts)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', '[]', '[]', 0) ON CONFLICT (tournament_id, id) DO NOTHING`,
      );
      for (const m of matches) insert.run(tournamentId, m.id, m.round, m.index, JSON.stringify(m.seats), m.seed, m.bye === true ? 1 : 0);
    });
  }

  startTournamentMatch(tournamentId: string, id: string, at: number, worker: string): void {
    this.writeNow(() => {
      this.changeMatch(
        `UPDATE tournament_matches SET status = 'running', started_at = ?, ended_at = NULL, worker = ?, attempts = attempts + 1
         WHERE tournament_id = ? AND id = ?`,
        [at, worker, tournamentId, id],
        `${tournamentId}/${id}`,
      );
      this.touchTournament(tournamentId, at);
    });
  }

  finishTournamentMatch(tournamentId: string, id: string, end: { at: number; result: unknown; records: readonly string[]; output: readonly ProgramOutput[] }): void {
    this.writeNow(() => {
      // finish_seq keeps the order they finished in (ended_at ties between parallel matches).
      this.changeMatch(
        `UPDATE tournament_matches SET status = 'done', ended_at = ?, result = ?, records = ?, output = ?,
           finish_seq = (SELECT COALESCE(MAX(finish_seq), 0) + 1 FROM tournament_matches WHERE tournament_id = ?)
         WHERE tournament_id = ? AND id = ?`,
        [end.at, JSON.stringify(end.result ?? null), JSON.stringify(end.records), JSON.stringify(end.output), tournamentId, tournamentId, id],
        `${tournamentId}/${id}`,
      );
      this.touchTournament(tournamentId, end.at);
    });
  }

  /** Back to pending (a match cut off by a stop or a crash, to be played again); attempts stay counted. */
  resetTournamentMatch(tournamentId: string, id: string): void {
    this.writeNow(() => {
      this.changeMatch(
        `UPDATE tournament_matches SET status = 'pending', result = NULL, records = '[]', output = '[]', ended_at = NULL, finish_seq = NULL
         WHERE tournament_id = ? AND id = ?`,
        [tournamentId, id],
        `${tournamentId}/${id}`,
      );
    });
  }

  claimTournamentMatch(tournamentId: string, id: string, at: number, worker: string): TournamentClaim | null {
    return this.writeNow(() => {
      const row = this.db
        .prepare(
          `UPDATE tournament_matches SET status = 'running', started_at = ?, ended_at = NULL, worker = ?, attempts = attempts + 1,
             result = NULL, records = '[]', output = '[]', finish_seq = NULL
           WHERE tournament_id = ? AND id = ? AND status <> 'done' RETURNING attempts`,
        )
        .get(at, worker, tournamentId, id) as { attempts: number } | undefined;
      if (row === undefined) {
        const exists = this.db.prepare('SELECT 1 FROM tournament_matches WHERE tournament_id = ? AND id = ?').get(tournamentId, id);
        if (exists === undefined) throw new Error(`no tournament match ${tournamentId}/${id}`);
        return null;
      }
      this.touchTournament(tournamentId, at);
      return { worker, attempt: row.attempts };
    });
  }

  finishClaimedTournamentMatch(
    tournamentId: string,
    id: string,
    claim: TournamentClaim,
    end: { at: number; result: unknown; records: readonly string[]; output: readonly ProgramOutput[] },
  ): boolean {
    return this.writeNow(() => {
      const changed = this.db
        .prepare(
          `UPDATE tournament_matches SET status = 'done', ended_at = ?, result = ?, records = ?, output = ?,
             finish_seq = (SELECT COALESCE(MAX(finish_seq), 0) + 1 FROM tournament_matches WHERE tournament_id = ?)
           WHERE tournament_id = ? AND id = ? AND status = 'running' AND worker = ? AND attempts = ?`,
        )
        .run(end.at, JSON.stringify(end.result ?? null), JSON.stringify(end.records), JSON.stringify(end.output), tournamentId, tournamentId, id, claim.worker, claim.attempt).changes;
      if (changed > 0) this.touchTournament(tournamentId, end.at);
      return changed > 0;
    });
  }

  releaseTournamentMatch(tournamentId: string, id: string, claim: TournamentClaim): boolean {
    return this.writeNow(
      () =>
        this.db
          .prepare(
            `UPDATE tournament_matches SET status = 'pending', result = NULL, records = '[]', output = '[]', ended_at = NULL, finish_seq = NULL
             WHERE tournament_id = ? AND id = ? AND status = 'running' AND worker = ? AND attempts = ?`,
          )
          .run(tournamentId, id, claim.worker, claim.attempt).changes > 0,
    );
  }

  getTournamentMatch(tournamentId: string, id: string): TournamentMatchRecord | null {
    if (!this.hasTournaments) return null;
    const row = this.db.prepare('SELECT * FROM tournament_matches WHERE tournament_id = ? AND id = ?').get(tournamentId, id) as TournamentMatchRow | undefined;
    return row ? toTournamentMatch(row) : null;
  }

  liveRecordsOf(tournamentMatch: string): string[] {
    this.flush();
    const rows = this.db
      .prepare("SELECT id FROM matches WHERE status = 'running' AND json_extract(meta, '$.tournamentMatch') = ? ORDER BY started_at, rowid")
      .all(tournamentMatch) as { id: string }[];
    return rows.map((r) => r.id);
  }

  abortLiveRecordsOf(tournamentMatch: string, at: number, reason: string): number {
    this.flush();
    return this.writeNow(
      () =>
        this.db
          .prepare(
            "UPDATE matches SET status = 'aborted', ended_at = ?, result = ? WHERE status = 'running' AND json_extract(meta, '$.tournamentMatch') = ?",
          )
          .run(at, JSON.stringify({ reason }), tournamentMatch).changes,
    );
  }

  supersedeRecordsOf(tournamentMatch: string, counted: readonly string[], at: number, reason: string): string[] {
    this.flush();
    const keep = new Set(counted);
    const data = JSON.stringify({ reason, counted });
    return this.writeNow(() =>
      this.db.transaction(() => {
        const ids = (
          this.db
            .prepare("SELECT id FROM matches WHERE status = 'finished' AND json_extract(meta, '$.tournamentMatch') = ?")
            .all(tournamentMatch) as { id: string }[]
        )
          .map((r) => r.id)
          .filter((id) => !keep.has(id));
        const mark = this.db.prepare("UPDATE matches SET status = 'superseded' WHERE id = ? AND status = 'finished'");
        const event = this.db.prepare(
          `INSERT INTO events (match_id, seq, at, seat, type, data)
           SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, NULL, 'superseded', ? FROM events WHERE match_id = ?`,
        );
        for (const id of ids) {
          mark.run(id);
          event.run(id, at, data, id);
        }
        return ids;
      })(),
    );
  }

  /** By round and index; `entrant`: only matches with a seat of that name. */
  listTournamentMatches(tournamentId: string, options: { status?: TournamentMatchStatus | undefined; entrant?: string | undefined; limit?: number | undefined; offset?: number | undefined } = {}): TournamentMatchRecord[] {
    if (!this.hasTournaments) return [];
    const status = options.status === undefined ? '' : ' AND status = ?';
    const args: (string | number)[] = options.status === undefined ? [tournamentId] : [tournamentId, options.status];
    const page = pageOf(options, args);
    const rows = this.db
      .prepare(`SELECT * FROM tournament_matches WHERE tournament_id = ?${status} ORDER BY round, match_index${page}`)
      .all(...args) as TournamentMatchRow[];
    const matches = rows.map(toTournamentMatch);
    const entrant = options.entrant;
    return entrant === undefined ? matches : matches.filter((m) => m.seats.includes(entrant));
  }

  /** Done matches in the order they finished (standings, Elo and Swiss rounds depend on it). */
  listFinishedTournamentMatches(tournamentId: string): TournamentMatchRecord[] {
    if (!this.hasTournaments) return [];
    const rows = this.db
      .prepare(`SELECT * FROM tournament_matches WHERE tournament_id = ? AND status = 'done' ORDER BY finish_seq, round, match_index`)
      .all(tournamentId) as TournamentMatchRow[];
    return rows.map(toTournamentMatch);
  }

  /** Done matches by their finish_seq cursor (issue 38). */
  listTournamentResults(tournamentId: string, page: ResultsPage = {}): TournamentResultRow[] {
    if (!this.hasTournaments) return [];
    const [sql, args] = resultsQuery(tournamentId, page);
    return toResultRows(this.db.prepare(sql).all(...args) as ResultRow[], page);
  }

  getTournamentStandings(tournamentId: string): StandingsSnapshot | null {
    if (!this.hasTable('tournament_standings')) return null;
    return toSnapshot(this.db.prepare(GET_STANDINGS).get(tournamentId) as SnapshotRow | undefined);
  }

  saveTournamentStandings(tournamentId: string, snapshot: { finishSeq: number; state: unknown; at: number }): void {
    const state = JSON.stringify(snapshot.state);
    this.writeNow(() => this.db.prepare(SAVE_STANDINGS).run(tournamentId, snapshot.finishSeq, state, snapshot.at));
  }

  /** Whether the file has this table (a read-only store of an older file may not). */
  private hasTable(name: string): boolean {
    return this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
  }

  /**
   * An event added to a match after it ended (a tournament adds its programs' output), committed
   * when this returns. The events of a match this store still has open go through the queue.
   */
  appendEvent(matchId: string, event: { at: number; seat?: number | null; type: string; data?: unknown }): void {
    if (this.eventSeq.has(matchId)) {
      this.addEvent(matchId, event);
      return;
    }
    this.flush();
    const data = event.data === undefined ? null : JSON.stringify(event.data);
    this.writeNow(() => {
      this.db
        .prepare(
          `INSERT INTO events (match_id, seq, at, seat, type, data)
           SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ? FROM events WHERE match_id = ?`,
        )
        .run(matchId, event.at, event.seat ?? null, event.type, data, matchId);
    });
  }

  private changeMatch(sql: string, args: (string | number | null)[], what: string): void {
    if (this.db.prepare(sql).run(...args).changes === 0) throw new Error(`no tournament match ${what}`);
  }

  private touchTournament(id: string, at: number): void {
    this.db.prepare('UPDATE tournaments SET updated_at = CASE WHEN updated_at > ? THEN updated_at ELSE ? END WHERE id = ?').run(at, at, id);
  }

  close(): void {
    if (this.closed) return;
    if (this.mode === 'read') {
      this.closed = true;
      this.db.close();
      return;
    }
    this.flush(true);
    this.closed = true;
    this.writer?.terminate();
    // A clean stop: the servers have recorded how their matches ended; anything still open
    // stopped with the server (a crash says `crash` instead, on the next start).
    try {
      if (this.mode === 'serve') this.abortRunning(SERVER_STOPPED);
    } catch (err) {
      // A full disk: the next start marks them (reason `crash`); the store still closes and lets go.
      this.onWriteError(new Error(`could not mark the matches still running aborted: ${(err as Error).message}`));
    }
    this.db.close();
    this.releaseLock();
  }

  /**
   * Bytes of the file in use (pages not on the free list): what is committed, without waiting
   * for what is still queued (prune calls it between batches while the games go on writing).
   */
  usedBytes(): number {
    const pageSize = Number(this.db.pragma('page_size', { simple: true }));
    const pages = Number(this.db.pragma('page_count', { simple: true }));
    const free = Number(this.db.pragma('freelist_count', { simple: true }));
    return (pages - free) * pageSize;
  }

  /**
   * Deletes old records in small transactions, yielding between them so a serving process keeps
   * playing (see PruneOptions). Running matches are never touched.
   */
  async prune(o: PruneOptions): Promise<PruneResult> {
    if (this.mode === 'read') throw new Error('the record store is open read-only');
    await this.drain();
    const bytesBefore = this.usedBytes();
    const game = o.game === undefined ? '' : ' AND game = ?';
    const gameArgs = o.game === undefined ? [] : [o.game];
    const keepOk = prunable(o);
    const result: PruneResult = { matches: 0, wireRows: 0, bytesBefore, bytesAfter: bytesBefore };
    const batch = 200;
    const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));
    const wireOf = this.db.prepare('SELECT COUNT(*) AS n FROM wire WHERE match_id = ?');
    const deleteWire = this.db.prepare('DELETE FROM wire WHERE match_id = ?');
    const forget = this.forgetter(o.reason ?? 'retention', o.now ?? Date.now());
    // A dry run counts what each step would delete and deletes nothing.
    const dropWire = (id: string): number => (o.dryRun ? (wireOf.get(id) as { n: number }).n : deleteWire.run(id).changes);
    const deleteMatches = (ids: string[]): void => {
      this.db.transaction(() => {
        for (const id of ids) result.wireRows += o.dryRun ? dropWire(id) : forget(id);
      })();
      result.matches += ids.length;
    };
    /** Hands the ended matches that ended before `before` (and meet `where`) to `each`, oldest first, a batch at a time. */
    const eachBatch = async (before: number, where: string, each: (ids: string[]) => void): Promise<void> => {
      const select = this.db.prepare(
        `SELECT id FROM matches WHERE status != 'running' AND COALESCE(ended_at, started_at) < ?${game}${keepOk}${where} ORDER BY started_at LIMIT ? OFFSET ?`,
      );
      // What a real run deletes leaves the selection; a dry run pages past it.
      for (let offset = 0; ; ) {
        const ids = (select.all(before, ...gameArgs, batch, o.dryRun ? offset : 0) as { id: string }[]).map((r) => r.id);
        if (ids.length === 0) return;
        each(ids);
        offset += ids.length;
        await yieldNow();
      }
    };
    // Everything about matches that ended long enough ago: house games at their own age first.
    if (o.houseBefore !== undefined) await eachBatch(o.houseBefore, " AND keep = 'house'", deleteMatches);
    if (o.matchesBefore !== undefined) await eachBatch(o.matchesBefore, '', deleteMatches);
    // Wire logs only: the match stays (seats, events, result), its messages go.
    if (o.wireBefore !== undefined) {
      await eachBatch(o.wireBefore, ' AND EXISTS (SELECT 1 FROM wire WHERE match_id = matches.id)', (ids) =>
        this.db.transaction(() => {
          for (const id of ids) result.wireRows += dropWire(id);
        })(),
      );
      // Lines of connections that never belonged to a match (rejected, never joined).
      const loose = o.dryRun
        ? (this.db.prepare(`SELECT COUNT(*) AS n FROM wire WHERE match_id IS NULL AND at < ?${game}`).get(o.wireBefore, ...gameArgs) as { n: number }).n
        : this.db.prepare(`DELETE FROM wire WHERE match_id IS NULL AND at < ?${game}`).run(o.wireBefore, ...gameArgs).changes;
      result.wireRows += loose;
    }
    // Down to a size: house games first, then the others by class, each oldest first.
    if (o.maxBytes !== undefined && !o.dryRun) {
      for (const classes of CAP_ORDER) {
        if (classes[0] === 'tournament' && o.includeTournaments !== true) break;
        const select = this.db.prepare(
          `SELECT id FROM matches WHERE status != 'running' AND keep IN (${classes.map(() => '?').join(', ')})${game} ORDER BY started_at LIMIT ?`,
        );
        while (this.usedBytes() > o.maxBytes) {
          // Small steps: the cap is met by deleting little more than needed.
          const ids = (select.all(...classes, ...gameArgs, 25) as { id: string }[]).map((r) => r.id);
          if (ids.length === 0) break;
          deleteMatches(ids);
          await yieldNow();
        }
      }
      if (this.usedBytes() > o.maxBytes) result.capUnmet = true;
    }
    result.bytesAfter = o.dryRun ? Math.max(0, bytesBefore - this.estimateBytes(result)) : this.usedBytes();
    return result;
  }

  /**
   * Deletes one ended record with its wire log (in the caller's transaction) and leaves its note:
   * a row of its own, or for a house game the game's mark (the newest start pruned); how many wire
   * rows went. As forgetMatches does on PostgreSQL.
   */
  private forgetter(reason: PruneReason, at: number): (id: string) => number {
    const row = this.db.prepare('SELECT game, keep, tournament_id, started_at FROM matches WHERE id = ?');
    const wire = this.db.prepare('DELETE FROM wire WHERE match_id = ?');
    const del = this.db.prepare('DELETE FROM matches WHERE id = ?');
    const note = this.db.prepare(
      `INSERT INTO pruned (id, game, keep, tournament_id, started_at, pruned_at, reason) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET keep = excluded.keep, tournament_id = excluded.tournament_id, started_at = excluded.started_at, pruned_at = excluded.pruned_at, reason = excluded.reason`,
    );
    const mark = this.db.prepare(
      `INSERT INTO pruned_house (game, started_before, pruned_at, reason) VALUES (?, ?, ?, ?)
       ON CONFLICT (game) DO UPDATE SET started_before = MAX(started_before, excluded.started_before), pruned_at = excluded.pruned_at, reason = excluded.reason`,
    );
    return (id) => {
      const r = row.get(id) as { game: string; keep: string; tournament_id: string | null; started_at: number } | undefined;
      const wireRows = wire.run(id).changes;
      if (!r) return wireRows;
      if (r.keep === 'house') mark.run(r.game, r.started_at, at, reason);
      else note.run(id, r.game, r.keep, r.tournament_id, r.started_at, at, reason);
      del.run(id);
      return wireRows;
    };
  }

  keepOf(id: string): { keep: KeepClass; tournamentId: string | null } | null {
    if (this.schemaVersion < KEEP_SCHEMA) return null;
    this.flush();
    const r = this.db.prepare('SELECT keep, tournament_id FROM matches WHERE id = ?').get(id) as { keep: KeepClass; tournament_id: string | null } | undefined;
    return r ? { keep: r.keep, tournamentId: r.tournament_id } : null;
  }

  /** Why a record is not in the store, when it was pruned (issue 37); null when nothing says so. */
  prunedNote(id: string): PrunedNote | null {
    if (this.schemaVersion < KEEP_SCHEMA) return null;
    const own = this.db.prepare('SELECT pruned_at, reason, keep, tournament_id FROM pruned WHERE id = ?').get(id) as
      | { pruned_at: number; reason: string; keep: string; tournament_id: string | null }
      | undefined;
    // A house game's mark covers only an id that says its game and start (newMatchId).
    const game = idStart(id)?.game;
    const mark = own || game === undefined ? undefined : (this.db.prepare('SELECT started_before, pruned_at, reason FROM pruned_house WHERE game = ?').get(game) as
      | { started_before: number; pruned_at: number; reason: string }
      | undefined);
    return prunedNoteOf(id, own, mark);
  }

  /**
   * Deletes a tournament on purpose: its rows, and every game record of it (each leaves a note,
   * `tournament deleted`). Running records stay. How many records went; null without the tournament.
   */
  deleteTournament(id: string, at: number): { records: number } | null {
    this.flush();
    return this.writeNow(() => {
      if (!this.db.prepare('SELECT 1 FROM tournaments WHERE id = ?').get(id)) return null;
      const forget = this.forgetter('tournament deleted', at);
      const ids = (this.db.prepare("SELECT id FROM matches WHERE tournament_id = ? AND status <> 'running'").all(id) as { id: string }[]).map((r) => r.id);
      for (const m of ids) forget(m);
      this.db.prepare('DELETE FROM tournaments WHERE id = ?').run(id);
      return { records: ids.length };
    });
  }

  /** Marks a tournament archived (its file was written): its records are pruned like played games from now on. */
  archiveTournament(id: string, at: number): void {
    this.flush();
    this.writeNow(() => {
      if (this.db.prepare('UPDATE tournaments SET archived_at = ? WHERE id = ?').run(at, id).changes === 0) throw new Error(`no tournament ${id}`);
      this.db.prepare("UPDATE matches SET keep = 'archived' WHERE tournament_id = ? AND keep = 'tournament'").run(id);
    });
  }

  /** Reclaims the free pages: the file shrinks to what is in use (blocks; for `prune --vacuum`). */
  vacuum(): void {
    if (this.mode === 'read') throw new Error('the record store is open read-only');
    this.flush();
    this.db.exec('VACUUM');
  }

  /** A rough size of what a dry run would delete: the average wire line and match row. */
  private estimateBytes(r: PruneResult): number {
    const wire = this.db.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(LENGTH(data)), 0) AS bytes FROM wire').get() as { n: number; bytes: number };
    const perLine = wire.n > 0 ? wire.bytes / wire.n + 40 : 0;
    return Math.round(r.wireRows * perLine + r.matches * 300);
  }

  private toMatch(r: MatchRow): MatchRecord {
    const seats = this.db
      .prepare('SELECT seat, name, kind, address FROM seats WHERE match_id = ? ORDER BY seat')
      .all(r.id) as SeatRecord[];
    return toMatchRecord(r, seats);
  }
}

const errorCode = (err: unknown): string => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'ERROR';
};

/** A failure that is about a row (a constraint, a value), not about the disk or the file. */
function isRowLevel(err: unknown): boolean {
  const code = errorCode(err);
  return !code.startsWith('SQLITE_') || ROW_LEVEL.test(code);
}

/** One line for a notice (the default `onWriteNotice` and `serve`'s log message). */
export function describeNotice(n: WriteNotice): string {
  switch (n.kind) {
    case 'failing':
      return `writes fail (${n.code}: ${n.message}); ${n.heldRows} rows held in memory and retried${n.downMs > 0 ? `, failing for ${Math.round(n.downMs / 1000)} s` : ''}`;
    case 'recovered':
      return `writing again after ${Math.round(n.downMs / 1000)} s; ${n.rows} held rows written`;
    case 'dropped':
      return `${n.rows} rows dropped for a row-level error (${n.sample.map((d) => `${d.op} ${d.matchId ?? ''}: ${d.code}`).join('; ')}); the rest of the batch was written`;
    case 'lost':
      return `${n.rows} rows of ${n.matches} matches lost: ${n.why}${n.marked > 0 ? ` (${n.marked} matches noted with an event ${LOST_EVENT})` : ''}; matches: ${n.matchIds.join(', ')}`;
  }
}
