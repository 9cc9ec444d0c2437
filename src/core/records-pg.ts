import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { promisify } from 'node:util';
import { deflateRaw } from 'node:zlib';
import pg from 'pg';
import { SERVER_STOPPED } from './guard.js';
import type { Logger } from './log.js';
import { trackDatabase } from './metrics.js';
import { idStart, keepMigration, keepOf, prunable, prunedNoteOf, type KeepClass, type PruneReason, type PrunedNote } from './record-keep.js';
import { backoffMs, isConnectionError, noteLostConnection, Outage, retryWhileDown, sleep, transactionOnce } from './pg-outage.js';
import type { NewMatch, Records, RecordsHealth, TournamentClaim, WireLine } from './record-backend.js';
import {
  TOURNAMENT_SELECT,
  TOURNAMENT_TABLES,
  WireGatherer,
  listFilter,
  newMatchId,
  packWire,
  toMatchRecord,
  toTournament,
  toTournamentMatch,
  unpackWire,
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
import type { PruneOptions, PruneResult } from './records.js';

/**
 * The record store on PostgreSQL (issue #19, setting `database: postgres://…`): the same logical
 * schema and behaviour as the SQLite store (records.ts), for many processes on many machines at
 * once. Writes are queued and committed every `flushMs` in one transaction, as multi-row
 * statements (one round trip per table, not per row); reads wait for what was queued before them.
 * Migrations are versioned and run at open under an advisory lock, so workers that start together
 * migrate once. Differences that the SQL dialects force: a packed wire row keeps its deflated
 * bytes in `packed BYTEA` (SQLite keeps them in `data`), and `matches.row_id` stands in for
 * SQLite's rowid as the insertion order.
 *
 * Unlike the single serving SQLite process, a serving process here never touches matches other
 * processes run: on close it marks only its own unfinished matches aborted.
 */

const { Pool, types } = pg;

export interface PgStoreOptions {
  /** `postgres://user@host:port/database`. */
  url: string;
  /** A schema of its own (created when missing); default `public`. */
  schema?: string;
  flushMs?: number;
  mode?: 'serve' | 'write' | 'read';
  /** Connections for reads and tournament writes (the write queue has one more). Default 4. */
  poolSize?: number;
  /** Where outages are logged (default: one line on stderr each). */
  log?: Logger;
  /**
   * How long a read or a tournament change waits for a database that is gone (it retries with
   * backoff) before it fails: default forever in `write` and `serve` mode, 0 in `read` mode.
   * The queued game records always wait (bounded by `maxBufferedBytes`).
   */
  outageWaitMs?: number;
  /** Game records held in memory while the database is gone, in bytes (about). Default 64 MiB. */
  maxBufferedBytes?: number;
  /** At close, how long queued records wait for a database that is gone before they are given up. Default 10 s. */
  closeWaitMs?: number;
}

/** The default bound of the records held while PostgreSQL is gone (docs/operations.md). */
export const DEFAULT_MAX_BUFFERED_BYTES = 64 * 1024 * 1024;

const MIGRATIONS: readonly string[] = [
  `CREATE TABLE matches (
     row_id BIGSERIAL UNIQUE,
     id TEXT PRIMARY KEY,
     game TEXT NOT NULL,
     seed TEXT,
     status TEXT NOT NULL,
     started_at BIGINT NOT NULL,
     ended_at BIGINT,
     result TEXT,
     meta TEXT
   );
   CREATE INDEX matches_game_started ON matches (game, started_at DESC);
   CREATE INDEX matches_started ON matches (started_at DESC, row_id DESC);
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
     at BIGINT NOT NULL,
     seat INTEGER,
     type TEXT NOT NULL,
     data TEXT,
     PRIMARY KEY (match_id, seq)
   );
   CREATE TABLE wire (
     id BIGSERIAL PRIMARY KEY,
     match_id TEXT,
     game TEXT NOT NULL,
     conn TEXT NOT NULL,
     at BIGINT NOT NULL,
     dir TEXT NOT NULL,
     data TEXT,
     packed BYTEA
   );
   CREATE INDEX wire_match ON wire (match_id, id);
   CREATE TABLE scores (
     game TEXT NOT NULL,
     player TEXT NOT NULL,
     points INTEGER NOT NULL,
     updated_at BIGINT NOT NULL,
     PRIMARY KEY (game, player)
   );`,
  TOURNAMENT_TABLES,
  // The running matches are few among millions: found by their own index (a tournament's live records).
  "CREATE INDEX matches_running ON matches (started_at) WHERE status = 'running';",
  // Which serving process records a match (`host:pid:random`): a match a crashed `serve` left
  // running is marked aborted (`crash`) by the next serving store (issue 31), as on SQLite.
  'ALTER TABLE matches ADD COLUMN served_by TEXT;',
  // Retention classes, notes on pruned records, archived tournaments (issue 37).
  keepMigration('postgres'),
  // Live standings of tournaments and the indexes of their results' cursor (issue 38).
  STANDINGS_MIGRATION,
];

/** The advisory lock a serving store holds for its life: free again means its process is gone. */
const serveLockSql = (param: string): string => `hashtextextended('spielhalle-serve:' || ${param}, 0)`;

/** BIGINT (times, counts) as numbers: every value we store is far below 2^53. */
const INT8 = 20;
const typeParsers = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
    oid === INT8 ? (v: string) => Number(v) : (types.getTypeParser as (o: number, f: string) => unknown)(oid, format ?? 'text')) as typeof types.getTypeParser,
};

/** `?` placeholders (the SQL both backends share) as PostgreSQL's `$1, $2, …`. */
const numbered = (sql: string): string => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

const deflate = promisify(deflateRaw);

type Op =
  | { t: 'match'; id: string; game: string; seed: string | null; startedAt: number; meta: string | null; keep: KeepClass; tournamentId: string | null }
  | { t: 'seat'; matchId: string; seat: number; name: string; kind: string; address: string | null }
  | { t: 'event'; matchId: string; seq: number; at: number; seat: number | null; type: string; data: string | null }
  | { t: 'wire'; matchId: string | null; game: string; conn: string; at: number; dir: string; data: string }
  | { t: 'wirepack'; matchId: string; game: string; at: number; json: string; lines: number }
  | { t: 'finish'; id: string; status: string; endedAt: number; result: string }
  | { t: 'score'; game: string; player: string; points: number; at: number }
  /** A note on a match (finished meanwhile) that some of its records were given up: an event at the next free seq. */
  | { t: 'lost'; matchId: string; at: number; data: string };

/** Ops that are never given up when the buffer is full: few and small, and a match without them would be wrong, not just short. */
const KEPT: ReadonlySet<Op['t']> = new Set(['match', 'seat', 'finish', 'score', 'lost']);

/** About how much memory an op holds (the bound of the outage buffer counts these). */
function sizeOf(op: Op): number {
  switch (op.t) {
    case 'wire':
      return 120 + op.data.length * 2;
    case 'wirepack':
      return 120 + op.json.length * 2;
    case 'event':
      return 120 + (op.data?.length ?? 0) * 2;
    case 'match':
      return 160 + (op.meta?.length ?? 0) * 2;
    case 'finish':
      return 120 + op.result.length * 2;
    case 'lost':
      return 120 + op.data.length * 2;
    default:
      return 120;
  }
}

type OpOf<T extends Op['t']> = Extract<Op, { t: T }>;

export class PgRecordStore implements Records {
  readonly kind = 'postgres' as const;
  /** The connections. */
  private readonly raw: pg.Pool;
  /** Queries through `raw` that wait out an outage (up to `outageWaitMs`). */
  private readonly pool: { query: <R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, args?: unknown[]) => Promise<pg.QueryResult<R>> };
  /** Ops not yet committed, oldest first; the first `due` of them are due to be sent. */
  private queue: Op[] = [];
  private due = 0;
  private timer: NodeJS.Timeout | null = null;
  /** The one commit loop (null when idle): batches go one after the other, in order. */
  private loop: Promise<void> | null = null;
  /** Ops ever queued, and ever settled (committed, failed or given up): what a drain waits for. */
  private queuedCount = 0;
  private settledCount = 0;
  private waiters: { upTo: number; resolve: () => void }[] = [];
  /** Bytes (about) of the ops queued or in the batch being committed. */
  private bufferedBytes = 0;
  private readonly maxBufferedBytes: number;
  /** While the buffer is full: events and wire rows are not kept (counted per match in `lost`). */
  private refusing = false;
  private readonly lost = new Map<string | null, { events: number; wire: number }>();
  private lostReported = 0;
  private readonly outage: Outage;
  private readonly outageWaitMs: number;
  private readonly closeWaitMs: number;
  /** Aborted when a closing store gives up waiting for the database. */
  private readonly giveUp = new AbortController();
  private log: Logger | null;
  private readonly eventSeq = new Map<string, number>();
  private readonly wire = new WireGatherer((matchId, game, entries) => this.addWireBatch(matchId, game, entries));
  private closed = false;
  private readonly flushMs: number;
  readonly mode: 'serve' | 'write' | 'read';
  readonly schema: string;

  onWriteError: (err: Error) => void = (err) => {
    process.stderr.write(`record store (postgres): write failed: ${err.message}\n`);
  };

  private constructor(options: PgStoreOptions) {
    this.flushMs = options.flushMs ?? 50;
    this.mode = options.mode ?? 'write';
    const schema = options.schema ?? 'public';
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`database schema "${schema}": lower-case letters, digits and _ only`);
    this.schema = schema;
    this.log = options.log ?? null;
    this.outage = new Outage('records', this.log);
    this.maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    this.outageWaitMs = options.outageWaitMs ?? (this.mode === 'read' ? 0 : Infinity);
    this.closeWaitMs = options.closeWaitMs ?? 10_000;
    this.ownerUrl = options.url;
    this.servedBy = this.mode === 'serve' ? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}` : null;
    this.raw = new Pool({
      connectionString: options.url,
      max: (options.poolSize ?? 4) + 1,
      options: `-c search_path=${schema}`,
      types: typeParsers,
      application_name: 'spielhalle',
      keepAlive: true,
      // A host that does not answer at all (a lost network) fails a connect after this, rather than TCP's minutes.
      connectionTimeoutMillis: 10_000,
    });
    // An idle connection that breaks (the server restarts) must not take the process down.
    this.raw.on('error', (err) => {
      noteLostConnection();
      this.warn({ err: err.message }, 'record store (postgres): an idle connection was lost');
    });
    const query = <R extends pg.QueryResultRow>(sql: string, args?: unknown[]): Promise<pg.QueryResult<R>> =>
      this.raw.query<R>(sql, args);
    this.pool = {
      query: <R extends pg.QueryResultRow>(sql: string, args?: unknown[]) =>
        this.outageWaitMs <= 0 ? query<R>(sql, args) : retryWhileDown(() => query<R>(sql, args), this.outage, { maxWaitMs: this.outageWaitMs, signal: this.giveUp.signal }),
    };
  }

  /** Outages from now on are logged here (the serving process's logger). */
  setLogger(log: Logger): void {
    this.log = log;
    this.outage.setLogger(log);
  }

  private warn(fields: Record<string, unknown>, msg: string): void {
    if (this.log !== null) this.log.warn(fields, msg);
    else process.stderr.write(`${msg} ${JSON.stringify(fields)}\n`);
  }

  private error(fields: Record<string, unknown>, msg: string): void {
    if (this.log !== null) this.log.error(fields, msg);
    else process.stderr.write(`${msg} ${JSON.stringify(fields)}\n`);
  }

  /** Connects, creates the schema and runs the migrations it lacks. */
  static async open(options: PgStoreOptions): Promise<PgRecordStore> {
    const store = new PgRecordStore(options);
    try {
      if (store.mode !== 'read') await store.migrate(options.schema ?? 'public');
      else await store.raw.query('SELECT 1');
      if (store.mode === 'serve') {
        await store.holdServeLock();
        await store.markCrashedServes();
      }
    } catch (err) {
      await store.ownerLock?.end().catch(() => undefined);
      await store.raw.end();
      throw err;
    }
    // /metrics: spielhalle_database_up and _down_seconds say what databaseState() says (issue #31).
    if (store.mode !== 'read') store.untrackDatabase = trackDatabase(() => store.databaseState());
    return store;
  }

  private untrackDatabase: (() => void) | null = null;

  /** This serving process (`host:pid:random`), written with every match it starts; null unless serving. */
  readonly servedBy: string | null;
  private ownerLock: pg.Client | null = null;
  private readonly ownerUrl: string;
  /** Matches of crashed serving processes this store marked aborted (`crash`) when it opened. */
  crashedMatches = 0;

  /**
   * Holds the advisory lock of `servedBy` on a connection of its own for the store's life; after
   * an outage it is taken again (with backoff). Free again means the process is gone.
   */
  private async holdServeLock(): Promise<void> {
    const client = new pg.Client({ connectionString: this.ownerUrl, application_name: `spielhalle serve ${this.servedBy ?? ''}`.slice(0, 63) });
    client.on('error', () => {
      if (this.ownerLock !== client) return;
      this.ownerLock = null;
      void client.end().catch(() => undefined);
      void this.retakeServeLock();
    });
    await client.connect();
    try {
      await client.query(`SELECT pg_advisory_lock(${serveLockSql('$1::text')})`, [this.servedBy]);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    this.ownerLock = client;
  }

  private async retakeServeLock(): Promise<void> {
    for (let failures = 0; !this.closed && this.ownerLock === null; failures++) {
      try {
        await this.holdServeLock();
        if (failures > 0) this.log?.info({ servedBy: this.servedBy }, 'record store (postgres): holds its serving lock again');
        return;
      } catch {
        await sleep(backoffMs(failures, 2000));
      }
    }
  }

  /**
   * Matches left `running` by serving processes that are gone (their lock is free: a kill -9, a
   * power cut) are marked aborted with reason `crash` — those of live ones, of workers and of the
   * tournament runner (no `served_by`) are left alone.
   */
  private async markCrashedServes(): Promise<void> {
    const at = Date.now();
    this.crashedMatches = await this.transactionOnce(async (c) => {
      const dead = (
        await c.query<{ served_by: string }>(
          `SELECT served_by FROM (SELECT DISTINCT served_by FROM matches WHERE status = 'running' AND served_by IS NOT NULL AND served_by <> $1) AS owners
            WHERE pg_try_advisory_xact_lock(${serveLockSql('served_by')})`,
          [this.servedBy],
        )
      ).rows.map((r) => r.served_by);
      if (dead.length === 0) return 0;
      const r = await c.query("UPDATE matches SET status = 'aborted', ended_at = $1, result = $2 WHERE status = 'running' AND served_by = ANY($3::text[])", [at, JSON.stringify({ reason: 'crash' }), dead]);
      return r.rowCount ?? 0;
    });
    if (this.crashedMatches > 0) this.log?.warn({ matches: this.crashedMatches }, 'record store (postgres): marked the matches a crashed serve left running aborted (crash)');
  }

  /**
   * `open`, waiting for a database that is not there yet (a connection refused, the server
   * starting up): each try is logged (first at error, then a warning every 10 s) and retried
   * with backoff up to 5 s, until `signal` aborts. Any other error (a wrong password, no such
   * database) is thrown at once.
   */
  static async openWhenReachable(options: PgStoreOptions, signal?: AbortSignal): Promise<PgRecordStore> {
    return retryWhileDown(() => PgRecordStore.open(options), new Outage('records: waiting for the database at start', options.log ?? null), { signal });
  }

  private async migrate(schema: string): Promise<void> {
    // Not retried here: `open` fails at once, `openWhenReachable` waits.
    await this.transactionOnce(async (c) => {
      // Workers that start together: one migrates, the others wait and find nothing to do.
      await c.query("SELECT pg_advisory_xact_lock(hashtext('spielhalle-migrate'))");
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await c.query('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
      const row = (await c.query<{ version: number }>('SELECT version FROM schema_version')).rows[0];
      if (row === undefined) await c.query('INSERT INTO schema_version (version) VALUES (0)');
      const version = row?.version ?? 0;
      if (version > MIGRATIONS.length) throw new Error(`the database was written by a newer Spielhalle (schema ${version})`);
      for (let v = version; v < MIGRATIONS.length; v++) {
        await c.query(MIGRATIONS[v]!);
        await c.query('UPDATE schema_version SET version = $1', [v + 1]);
      }
    });
  }

  async schemaVersion(): Promise<number> {
    return (await this.pool.query<{ version: number }>('SELECT version FROM schema_version')).rows[0]?.version ?? 0;
  }

  /** One try of a transaction. A connection lost meanwhile fails its query (and is not put back in the pool). */
  private transactionOnce<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return transactionOnce(this.raw, fn);
  }

  /** A transaction that is tried again (whole) while the database is gone, up to `outageWaitMs`. */
  private transaction<T>(fn: (c: pg.PoolClient) => Promise<T>, waitMs = this.outageWaitMs): Promise<T> {
    if (waitMs <= 0) return this.transactionOnce(fn);
    return retryWhileDown(() => this.transactionOnce(fn), this.outage, { maxWaitMs: waitMs, signal: this.giveUp.signal });
  }

  // ---- The write queue ------------------------------------------------------------------------

  private enqueue(op: Op): void {
    if (this.closed) return;
    if (this.mode === 'read') throw new Error('the record store is open read-only');
    const size = sizeOf(op);
    // The bound holds while the database is gone: a burst it is slow to take while up waits, as before.
    if (!this.refusing && this.outage.down && !KEPT.has(op.t) && this.bufferedBytes + size > this.maxBufferedBytes) this.shed();
    if (this.refusing && !KEPT.has(op.t)) {
      this.noteLost(op);
      this.reportLost();
      return;
    }
    this.queue.push(op);
    this.queuedCount++;
    this.bufferedBytes += size;
    if (this.queue.length - this.due >= 5000) void this.send();
    else if (this.timer === null) {
      this.timer = setTimeout(() => void this.send(), this.flushMs);
      this.timer.unref();
    }
  }

  private noteLost(op: Op): void {
    const matchId = op.t === 'wire' || op.t === 'wirepack' || op.t === 'event' ? op.matchId : null;
    const n = this.lost.get(matchId) ?? { events: 0, wire: 0 };
    if (op.t === 'event') n.events++;
    else n.wire += op.t === 'wirepack' ? op.lines : 1;
    this.lost.set(matchId, n);
  }

  /**
   * The buffer is full (the database has been gone a while, or cannot keep up): the oldest wire
   * rows still queued are given up first, then, while it stays full, new events and wire rows
   * are not kept. Matches, seats, ends and scores always are. Every match that lost something
   * gets an event `records-lost` (once the database is back) and the loss is logged at error.
   */
  private shed(): void {
    const target = this.maxBufferedBytes * 0.75;
    let freed = 0;
    const kept: Op[] = [];
    let dueKept = 0;
    for (const [i, op] of this.queue.entries()) {
      if (this.bufferedBytes - freed > target && (op.t === 'wire' || op.t === 'wirepack')) {
        freed += sizeOf(op);
        this.noteLost(op);
        this.settledCount++;
        continue;
      }
      kept.push(op);
      if (i < this.due) dueKept++;
    }
    this.queue = kept;
    this.due = dueKept;
    this.bufferedBytes -= freed;
    if (this.bufferedBytes > target) this.refusing = true;
    this.reportLost();
    this.resolveWaiters();
  }

  /** Logs what was given up (at most every 10 s) and queues the `records-lost` notes. */
  private reportLost(): void {
    const at = Date.now();
    if (at - this.lostReported < 10_000 && this.refusing) return;
    this.lostReported = at;
    if (this.lost.size === 0) return;
    const matches = [...this.lost.entries()];
    this.lost.clear();
    const reason = `PostgreSQL ${this.outage.down ? `unreachable for ${Math.round(this.outage.downForMs / 1000)} s` : 'too slow'}: the records held in memory reached ${Math.round(this.maxBufferedBytes / 1048576)} MiB (maxBufferedBytes)`;
    this.error(
      {
        matches: matches.filter(([id]) => id !== null).map(([id, n]) => ({ match: id, ...n })),
        looseWireRows: matches.find(([id]) => id === null)?.[1].wire ?? 0,
        refusing: this.refusing,
      },
      'record store (postgres): records given up, the buffer is full; the matches are marked (event records-lost)',
    );
    for (const [matchId, n] of matches) {
      if (matchId === null) continue;
      const data = JSON.stringify({ events: n.events, wireRows: n.wire, reason });
      const seq = this.eventSeq.get(matchId);
      if (seq !== undefined) {
        // Still open: the note takes the next seq of its own (later events come after it).
        this.eventSeq.set(matchId, seq + 1);
        this.queue.push({ t: 'event', matchId, seq: seq + 1, at, seat: null, type: 'records-lost', data });
      } else this.queue.push({ t: 'lost', matchId, at, data });
      this.queuedCount++;
      this.bufferedBytes += 120 + data.length * 2;
    }
    this.due = this.queue.length;
  }

  /** Starts committing what is queued, after the batches before it; resolves once all of it is settled. */
  private send(): Promise<void> {
    if (this.wire.size > 0) this.wire.packAll();
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.due = this.queue.length;
    const upTo = this.queuedCount;
    if (this.settledCount >= upTo) return Promise.resolve();
    this.loop ??= this.commitLoop();
    return new Promise((resolve) => this.waiters.push({ upTo, resolve }));
  }

  private resolveWaiters(): void {
    if (this.waiters.length === 0) return;
    const waiting: typeof this.waiters = [];
    for (const w of this.waiters) (this.settledCount >= w.upTo ? w.resolve : () => waiting.push(w))();
    this.waiters = waiting;
  }

  /** Commits the due ops in batches of at most 5000, in order; a batch waits out an outage. */
  private async commitLoop(): Promise<void> {
    // `loop` is cleared in the same tick as the last look at `due`: a send() right after finds no loop and starts one.
    try {
      while (this.due > 0) {
        const n = Math.min(this.due, 5000);
        // Out of the queue: what is given up while it waits (shed) is never an op of the batch in flight.
        const batch = this.queue.splice(0, n);
        this.due -= n;
        await this.commit(batch);
        this.settledCount += n;
        for (const op of batch) this.bufferedBytes -= sizeOf(op);
        if (this.refusing && this.bufferedBytes < this.maxBufferedBytes / 2) {
          this.refusing = false;
          this.lostReported = 0;
          this.reportLost();
        }
        this.resolveWaiters();
      }
    } finally {
      this.loop = null;
    }
  }

  /** One batch, tried again with backoff while the database is gone (forever, or until a closing store gives up). */
  private async commit(batch: Op[]): Promise<void> {
    for (let tries = 0; ; tries++) {
      try {
        await this.writeBatch(batch, tries > 0);
        this.outage.ok({ queued: this.queue.length });
        return;
      } catch (err) {
        const e = err instanceof Error ? err : new Error(String(err));
        if (!isConnectionError(e)) {
          this.onWriteError(e);
          return;
        }
        this.outage.failed(e, { queued: this.queue.length + batch.length, bufferedMiB: Math.round(this.bufferedBytes / 1048576) });
        if (this.giveUp.signal.aborted) {
          this.giveUpQueue(e, batch);
          return;
        }
        await sleep(backoffMs(this.outage.failuresInARow), this.giveUp.signal);
      }
    }
  }

  /** A closing store whose database stayed away: what is queued is lost, and said so at error level. */
  private giveUpQueue(err: Error, batch: readonly Op[]): void {
    const ops = [...batch, ...this.queue];
    const matches = new Set<string>();
    for (const op of ops) {
      if (op.t === 'match' || op.t === 'finish') matches.add(op.id);
      else if ('matchId' in op && op.matchId !== null) matches.add(op.matchId);
    }
    this.error(
      { ops: ops.length, matches: [...matches], err: err.message, downForMs: this.outage.downForMs },
      'record store (postgres): closed while the database is gone; these records are lost',
    );
    this.settledCount += this.queue.length;
    for (const op of this.queue) this.bufferedBytes -= sizeOf(op);
    this.queue = [];
    this.due = 0;
  }

  drain(): Promise<void> {
    return this.send();
  }

  /**
   * One batch in one transaction, a statement per table in the order the foreign keys need
   * (matches before their seats, events and end), each a multi-row statement over arrays.
   */
  private async writeBatch(ops: readonly Op[], again = false): Promise<void> {
    // Tried again after a connection lost in the middle: a COMMIT may have gone through already.
    const orSkip = again ? ' ON CONFLICT DO NOTHING' : '';
    const of = <T extends Op['t']>(t: T): OpOf<T>[] => ops.filter((o): o is OpOf<T> => o.t === t);
    const packs = of('wirepack');
    const packed = await Promise.all(packs.map((p) => deflate(Buffer.from(p.json))));
    // One try: commit() waits out an outage and tries the batch again.
    await this.transactionOnce(async (c) => {
      const matches = of('match');
      if (matches.length > 0)
        await c.query(
          `INSERT INTO matches (id, game, seed, status, started_at, meta, served_by, keep, tournament_id)
           SELECT id, game, seed, 'running', started_at, meta, $6::text, keep, tournament_id
             FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $7::text[], $8::text[])
             WITH ORDINALITY AS u(id, game, seed, started_at, meta, keep, tournament_id, n) ORDER BY n${orSkip}`,
          [
            matches.map((m) => m.id),
            matches.map((m) => m.game),
            matches.map((m) => m.seed),
            matches.map((m) => m.startedAt),
            matches.map((m) => m.meta),
            this.servedBy,
            matches.map((m) => m.keep),
            matches.map((m) => m.tournamentId),
          ],
        );
      const seats = of('seat');
      if (seats.length > 0)
        await c.query(
          `INSERT INTO seats (match_id, seat, name, kind, address) SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[])${orSkip}`,
          [seats.map((s) => s.matchId), seats.map((s) => s.seat), seats.map((s) => s.name), seats.map((s) => s.kind), seats.map((s) => s.address)],
        );
      const events = of('event');
      if (events.length > 0)
        await c.query(
          `INSERT INTO events (match_id, seq, at, seat, type, data) SELECT * FROM unnest($1::text[], $2::int[], $3::bigint[], $4::int[], $5::text[], $6::text[])${orSkip}`,
          [events.map((e) => e.matchId), events.map((e) => e.seq), events.map((e) => e.at), events.map((e) => e.seat), events.map((e) => e.type), events.map((e) => e.data)],
        );
      // Wire rows in the order they were queued (their ids are the order getMatch lists them in).
      const wires = ops.filter((o): o is OpOf<'wire'> | OpOf<'wirepack'> => o.t === 'wire' || o.t === 'wirepack');
      if (wires.length > 0) {
        const bytes = new Map(packs.map((p, i) => [p, packed[i]!]));
        await c.query(
          `INSERT INTO wire (match_id, game, conn, at, dir, data, packed)
           SELECT match_id, game, conn, at, dir, data, packed
             FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::bytea[])
             WITH ORDINALITY AS u(match_id, game, conn, at, dir, data, packed, n) ORDER BY n`,
          [
            wires.map((w) => w.matchId),
            wires.map((w) => w.game),
            wires.map((w) => (w.t === 'wire' ? w.conn : '')),
            wires.map((w) => w.at),
            wires.map((w) => (w.t === 'wire' ? w.dir : 'out')),
            wires.map((w) => (w.t === 'wire' ? w.data : null)),
            wires.map((w) => (w.t === 'wirepack' ? bytes.get(w)! : null)),
          ],
        );
      }
      const finishes = of('finish');
      if (finishes.length > 0)
        await c.query(
          `UPDATE matches m SET status = u.status, ended_at = u.ended_at, result = u.result
             FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[]) AS u(id, status, ended_at, result) WHERE m.id = u.id AND m.status <> 'superseded'`,
          [finishes.map((f) => f.id), finishes.map((f) => f.status), finishes.map((f) => f.endedAt), finishes.map((f) => f.result)],
        );
      // Notes on matches that lost records to a full buffer (docs/operations.md), each at its match's next seq.
      for (const l of of('lost'))
        await c.query(
          `INSERT INTO events (match_id, seq, at, seat, type, data)
           SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, NULL, 'records-lost', $3 FROM events WHERE match_id = $1
           HAVING EXISTS (SELECT 1 FROM matches WHERE id = $1)`,
          [l.matchId, l.at, l.data],
        );
      // One row per player: the last score queued wins (an upsert may not touch a row twice).
      const scores = [...new Map(of('score').map((s) => [`${s.game}\u0000${s.player}`, s])).values()];
      if (scores.length > 0)
        await c.query(
          `INSERT INTO scores (game, player, points, updated_at) SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::bigint[])
           ON CONFLICT (game, player) DO UPDATE SET points = excluded.points, updated_at = excluded.updated_at`,
          [scores.map((s) => s.game), scores.map((s) => s.player), scores.map((s) => s.points), scores.map((s) => s.at)],
        );
    });
  }

  startMatch(input: NewMatch): string {
    const id = input.id ?? newMatchId(input.game, input.startedAt);
    const seed = input.seed === undefined || input.seed === null ? null : String(input.seed);
    const meta = input.meta === undefined ? null : JSON.stringify(input.meta);
    const { keep, tournamentId } = keepOf(input);
    this.eventSeq.set(id, 0);
    this.enqueue({ t: 'match', id, game: input.game, seed, startedAt: input.startedAt, meta, keep, tournamentId });
    for (const s of input.seats) this.enqueue({ t: 'seat', matchId: id, seat: s.seat, name: s.name, kind: s.kind, address: s.address ?? null });
    return id;
  }

  addEvent(matchId: string, event: { at: number; seat?: number | null; type: string; data?: unknown }): void {
    const seq = (this.eventSeq.get(matchId) ?? 0) + 1;
    this.eventSeq.set(matchId, seq);
    const data = event.data === undefined ? null : JSON.stringify(event.data);
    this.enqueue({ t: 'event', matchId, seq, at: event.at, seat: event.seat ?? null, type: event.type, data });
  }

  addWire(entry: WireLine & { matchId: string | null; game: string }): void {
    if (this.closed) return;
    if (this.mode === 'read') throw new Error('the record store is open read-only');
    if (entry.matchId === null) {
      this.enqueue({ t: 'wire', matchId: null, game: entry.game, conn: entry.conn, at: entry.at, dir: entry.dir, data: entry.data });
      return;
    }
    this.wire.add(entry.matchId, entry.game, { conn: entry.conn, at: entry.at, dir: entry.dir, data: entry.data });
  }

  addWireBatch(matchId: string, game: string, entries: readonly WireLine[]): void {
    if (entries.length === 0) return;
    const at = entries[0]!.at;
    this.enqueue({ t: 'wirepack', matchId, game, at, json: packWire(at, entries), lines: entries.length });
  }

  finishMatch(matchId: string, end: { status: Exclude<MatchStatus, 'running'>; endedAt: number; result: unknown }): void {
    this.eventSeq.delete(matchId);
    this.wire.pack(matchId);
    this.enqueue({ t: 'finish', id: matchId, status: end.status, endedAt: end.endedAt, result: JSON.stringify(end.result) });
  }

  setScores(game: string, scores: ReadonlyMap<string, number>, at: number): void {
    for (const [player, points] of scores) this.enqueue({ t: 'score', game, player, points, at });
  }

  // ---- Reads ---------------------------------------------------------------------------------

  private async read<R extends pg.QueryResultRow>(sql: string, args: unknown[] = []): Promise<R[]> {
    await this.drain();
    return (await this.pool.query<R>(numbered(sql), args)).rows;
  }

  async getScores(game: string): Promise<Map<string, number>> {
    const rows = await this.read<{ player: string; points: number }>('SELECT player, points FROM scores WHERE game = ? ORDER BY player', [game]);
    return new Map(rows.map((r) => [r.player, r.points]));
  }

  async listMatches(options: ListOptions = {}): Promise<MatchRecord[]> {
    const [where, args] = listFilter(options);
    args.push(Math.min(Math.max(options.limit ?? 50, 1), 1000), Math.max(options.offset ?? 0, 0));
    const rows = await this.read<MatchRow>(`SELECT * FROM matches ${where} ORDER BY started_at DESC, row_id DESC LIMIT ? OFFSET ?`, args);
    return this.withSeats(rows);
  }

  async countListed(options: ListOptions = {}): Promise<number> {
    const [where, args] = listFilter(options);
    return (await this.read<{ n: number }>(`SELECT COUNT(*) AS n FROM matches ${where}`, args))[0]!.n;
  }

  async listHours(options: ListOptions = {}): Promise<HourGroup[]> {
    const [where, args] = listFilter(options);
    args.push(Math.min(Math.max(options.limit ?? 50, 1), 1000), Math.max(options.offset ?? 0, 0));
    return this.read<HourGroup>(
      `SELECT (started_at / 3600000) * 3600000 AS hour, COUNT(*) AS matches,
         COUNT(*) FILTER (WHERE status = 'finished') AS finished, COUNT(*) FILTER (WHERE status = 'aborted') AS aborted,
         COUNT(*) FILTER (WHERE status = 'running') AS running
       FROM matches ${where} GROUP BY 1 ORDER BY 1 DESC LIMIT ? OFFSET ?`,
      args,
    );
  }

  async getMatch(id: string): Promise<MatchDetail | null> {
    const [row] = await this.read<MatchRow>('SELECT * FROM matches WHERE id = ?', [id]);
    if (!row) return null;
    const [match] = await this.withSeats([row]);
    const events = (
      await this.pool.query<{ seq: number; at: number; seat: number | null; type: string; data: string | null }>(
        'SELECT seq, at, seat, type, data FROM events WHERE match_id = $1 ORDER BY seq',
        [id],
      )
    ).rows.map((e) => ({ ...e, data: e.data === null ? null : (JSON.parse(e.data) as unknown) }));
    const wire = (
      await this.pool.query<{ seq: number; at: number; conn: string; dir: 'in' | 'out'; data: string | null; packed: Buffer | null }>(
        'SELECT id AS seq, at, conn, dir, data, packed FROM wire WHERE match_id = $1 ORDER BY id',
        [id],
      )
    ).rows.flatMap((w): WireRecord[] =>
      w.packed !== null ? unpackWire(w.seq, w.at, w.packed) : [{ seq: w.seq, at: w.at, conn: w.conn, dir: w.dir, data: w.data ?? '' }],
    );
    return { ...match!, events, wire };
  }

  async countMatches(game?: string): Promise<number> {
    const rows =
      game === undefined
        ? await this.read<{ n: number }>('SELECT COUNT(*) AS n FROM matches')
        : await this.read<{ n: number }>('SELECT COUNT(*) AS n FROM matches WHERE game = ?', [game]);
    return rows[0]!.n;
  }

  private async withSeats(rows: readonly MatchRow[]): Promise<MatchRecord[]> {
    if (rows.length === 0) return [];
    const seats = (
      await this.pool.query<SeatRecord & { match_id: string }>(
        'SELECT match_id, seat, name, kind, address FROM seats WHERE match_id = ANY($1::text[]) ORDER BY match_id, seat',
        [rows.map((r) => r.id)],
      )
    ).rows;
    const byMatch = new Map<string, SeatRecord[]>();
    for (const s of seats) {
      const list = byMatch.get(s.match_id) ?? [];
      list.push(s);
      byMatch.set(s.match_id, list);
    }
    return rows.map((r) => toMatchRecord(r, byMatch.get(r.id) ?? []));
  }

  // ---- Tournaments ---------------------------------------------------------------------------

  private writable(): void {
    if (this.closed) throw new Error('the record store is closed');
    if (this.mode === 'read') throw new Error('the record store is open read-only');
  }

  async createTournament(t: Omit<TournamentRecord, 'done' | 'total' | 'updatedAt' | 'finishedAt' | 'archivedAt' | 'note'>): Promise<void> {
    this.writable();
    await this.pool.query(
      `INSERT INTO tournaments (id, name, game, format, spec, source, status, created_at, updated_at, finished_at, note)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL, NULL)`,
      [t.id, t.name, t.game, t.format, JSON.stringify(t.spec), t.source, t.status, t.createdAt, t.createdAt],
    );
  }

  async getTournament(id: string): Promise<TournamentRecord | null> {
    const row = (await this.pool.query<TournamentRow>(`${TOURNAMENT_SELECT} WHERE t.id = $1`, [id])).rows[0];
    return row ? toTournament(row) : null;
  }

  async listTournaments(options: { game?: string | undefined; limit?: number | undefined; offset?: number | undefined } = {}): Promise<TournamentRecord[]> {
    const where = options.game === undefined ? '' : ' WHERE t.game = ?';
    const args: (string | number)[] = options.game === undefined ? [] : [options.game];
    args.push(Math.min(Math.max(options.limit ?? 50, 1), 1000), Math.max(options.offset ?? 0, 0));
    const rows = (await this.pool.query<TournamentRow>(numbered(`${TOURNAMENT_SELECT}${where} ORDER BY t.created_at DESC, t.id DESC LIMIT ? OFFSET ?`), args)).rows;
    return rows.map(toTournament);
  }

  async setTournamentStatus(id: string, status: TournamentStatus, at: number, note: string | null = null): Promise<void> {
    this.writable();
    const finished = status === 'finished' || status === 'failed' ? at : null;
    const r = await this.pool.query('UPDATE tournaments SET status = $1, updated_at = $2, finished_at = $3, note = $4 WHERE id = $5', [status, at, finished, note, id]);
    if (r.rowCount === 0) throw new Error(`no tournament ${id}`);
  }

  async addTournamentMatches(
    tournamentId: string,
    matches: readonly { id: string; round: number; index: number; seats: readonly string[]; seed: number; bye?: boolean | undefined }[],
  ): Promise<void> {
    this.writable();
    if (matches.length === 0) return;
    await this.pool.query(
      `INSERT INTO tournament_matches (tournament_id, id, round, match_index, seats, seed, bye, status, records, output, attempts)
       SELECT $1, id, round, match_index, seats, seed, bye, 'pending', '[]', '[]', 0
         FROM unnest($2::text[], $3::int[], $4::int[], $5::text[], $6::bigint[], $7::int[]) AS u(id, round, match_index, seats, seed, bye)
       ON CONFLICT (tournament_id, id) DO NOTHING`,
      [
        tournamentId,
        matches.map((m) => m.id),
        matches.map((m) => m.round),
        matches.map((m) => m.index),
        matches.map((m) => JSON.stringify(m.seats)),
        matches.map((m) => m.seed),
        matches.map((m) => (m.bye === true ? 1 : 0)),
      ],
    );
  }

  /** A change of one tournament match and its tournament's `updated_at`, in one transaction holding the tournament's row. */
  private async changeMatch(tournamentId: string, id: string, sql: string, args: unknown[], at: number | null): Promise<void> {
    this.writable();
    await this.transaction(async (c) => {
      // Concurrent finishes of one tournament (several workers) take turns: finish_seq stays unique.
      await c.query('SELECT 1 FROM tournaments WHERE id = $1 FOR UPDATE', [tournamentId]);
      const r = await c.query(numbered(sql), args);
      if (r.rowCount === 0) throw new Error(`no tournament match ${tournamentId}/${id}`);
      if (at !== null) await c.query('UPDATE tournaments SET updated_at = CASE WHEN updated_at > $1 THEN updated_at ELSE $1 END WHERE id = $2', [at, tournamentId]);
    });
  }

  startTournamentMatch(tournamentId: string, id: string, at: number, worker: string): Promise<void> {
    return this.changeMatch(
      tournamentId,
      id,
      `UPDATE tournament_matches SET status = 'running', started_at = ?, ended_at = NULL, worker = ?, attempts = attempts + 1
       WHERE tournament_id = ? AND id = ?`,
      [at, worker, tournamentId, id],
      at,
    );
  }

  finishTournamentMatch(tournamentId: string, id: string, end: { at: number; result: unknown; records: readonly string[]; output: readonly ProgramOutput[] }): Promise<void> {
    return this.changeMatch(
      tournamentId,
      id,
      `UPDATE tournament_matches SET status = 'done', ended_at = ?, result = ?, records = ?, output = ?,
         finish_seq = (SELECT COALESCE(MAX(finish_seq), 0) + 1 FROM tournament_matches WHERE tournament_id = ?)
       WHERE tournament_id = ? AND id = ?`,
      [end.at, JSON.stringify(end.result ?? null), JSON.stringify(end.records), JSON.stringify(end.output), tournamentId, tournamentId, id],
      end.at,
    );
  }

  resetTournamentMatch(tournamentId: string, id: string): Promise<void> {
    return this.changeMatch(
      tournamentId,
      id,
      `UPDATE tournament_matches SET status = 'pending', result = NULL, records = '[]', output = '[]', ended_at = NULL, finish_seq = NULL
       WHERE tournament_id = ? AND id = ?`,
      [tournamentId, id],
      null,
    );
  }

  async claimTournamentMatch(tournamentId: string, id: string, at: number, worker: string): Promise<TournamentClaim | null> {
    this.writable();
    return this.transaction(async (c) => {
      await c.query('SELECT 1 FROM tournaments WHERE id = $1 FOR UPDATE', [tournamentId]);
      const r = await c.query<{ attempts: number }>(
        `UPDATE tournament_matches SET status = 'running', started_at = $1, ended_at = NULL, worker = $2, attempts = attempts + 1,
           result = NULL, records = '[]', output = '[]', finish_seq = NULL
         WHERE tournament_id = $3 AND id = $4 AND status <> 'done' RETURNING attempts`,
        [at, worker, tournamentId, id],
      );
      const row = r.rows[0];
      if (row === undefined) {
        const exists = await c.query('SELECT 1 FROM tournament_matches WHERE tournament_id = $1 AND id = $2', [tournamentId, id]);
        if (exists.rowCount === 0) throw new Error(`no tournament match ${tournamentId}/${id}`);
        return null;
      }
      await c.query('UPDATE tournaments SET updated_at = GREATEST(updated_at, $1) WHERE id = $2', [at, tournamentId]);
      return { worker, attempt: row.attempts };
    });
  }

  async finishClaimedTournamentMatch(
    tournamentId: string,
    id: string,
    claim: TournamentClaim,
    end: { at: number; result: unknown; records: readonly string[]; output: readonly ProgramOutput[] },
  ): Promise<boolean> {
    this.writable();
    return this.transaction(async (c) => {
      // Finishes of one tournament take turns (its row locked): finish_seq stays unique.
      await c.query('SELECT 1 FROM tournaments WHERE id = $1 FOR UPDATE', [tournamentId]);
      const r = await c.query(
        `UPDATE tournament_matches SET status = 'done', ended_at = $1, result = $2, records = $3, output = $4,
           finish_seq = (SELECT COALESCE(MAX(finish_seq), 0) + 1 FROM tournament_matches WHERE tournament_id = $5)
         WHERE tournament_id = $5 AND id = $6 AND status = 'running' AND worker = $7 AND attempts = $8`,
        [end.at, JSON.stringify(end.result ?? null), JSON.stringify(end.records), JSON.stringify(end.output), tournamentId, id, claim.worker, claim.attempt],
      );
      const done = (r.rowCount ?? 0) > 0;
      if (done) await c.query('UPDATE tournaments SET updated_at = GREATEST(updated_at, $1) WHERE id = $2', [end.at, tournamentId]);
      if (done) return true;
      // Tried again after the connection broke during COMMIT (an outage): the first try may have counted already.
      const ours = await c.query(
        "SELECT 1 FROM tournament_matches WHERE tournament_id = $1 AND id = $2 AND status = 'done' AND worker = $3 AND attempts = $4 AND ended_at = $5",
        [tournamentId, id, claim.worker, claim.attempt, end.at],
      );
      return (ours.rowCount ?? 0) > 0;
    });
  }

  async releaseTournamentMatch(tournamentId: string, id: string, claim: TournamentClaim): Promise<boolean> {
    this.writable();
    const r = await this.pool.query(
      `UPDATE tournament_matches SET status = 'pending', result = NULL, records = '[]', output = '[]', ended_at = NULL, finish_seq = NULL
       WHERE tournament_id = $1 AND id = $2 AND status = 'running' AND worker = $3 AND attempts = $4`,
      [tournamentId, id, claim.worker, claim.attempt],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async getTournamentMatch(tournamentId: string, id: string): Promise<TournamentMatchRecord | null> {
    const row = (await this.pool.query<TournamentMatchRow>('SELECT * FROM tournament_matches WHERE tournament_id = $1 AND id = $2', [tournamentId, id])).rows[0];
    return row ? toTournamentMatch(row) : null;
  }

  async liveRecordsOf(tournamentMatch: string): Promise<string[]> {
    await this.drain();
    const rows = (
      await this.pool.query<{ id: string }>(
        "SELECT id FROM matches WHERE status = 'running' AND meta::jsonb->>'tournamentMatch' = $1 ORDER BY started_at, row_id",
        [tournamentMatch],
      )
    ).rows;
    return rows.map((r) => r.id);
  }

  async abortLiveRecordsOf(tournamentMatch: string, at: number, reason: string): Promise<number> {
    this.writable();
    await this.drain();
    const r = await this.pool.query(
      "UPDATE matches SET status = 'aborted', ended_at = $1, result = $2 WHERE status = 'running' AND meta::jsonb->>'tournamentMatch' = $3",
      [at, JSON.stringify({ reason }), tournamentMatch],
    );
    return r.rowCount ?? 0;
  }

  async supersedeRecordsOf(tournamentMatch: string, counted: readonly string[], at: number, reason: string): Promise<string[]> {
    this.writable();
    await this.drain();
    const data = JSON.stringify({ reason, counted });
    return this.transaction(async (c) => {
      const ids = (
        await c.query<{ id: string }>(
          "UPDATE matches SET status = 'superseded' WHERE status = 'finished' AND meta::jsonb->>'tournamentMatch' = $1 AND NOT (id = ANY($2::text[])) RETURNING id",
          [tournamentMatch, [...counted]],
        )
      ).rows.map((r) => r.id);
      for (const id of ids)
        await c.query(
          `INSERT INTO events (match_id, seq, at, seat, type, data)
           SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, NULL, 'superseded', $3 FROM events WHERE match_id = $1`,
          [id, at, data],
        );
      return ids;
    });
  }

  async listTournamentMatches(
    tournamentId: string,
    options: { status?: TournamentMatchStatus | undefined; entrant?: string | undefined; limit?: number | undefined; offset?: number | undefined } = {},
  ): Promise<TournamentMatchRecord[]> {
    const status = options.status === undefined ? '' : ' AND status = ?';
    const args: (string | number)[] = options.status === undefined ? [tournamentId] : [tournamentId, options.status];
    const page = pageOf(options, args);
    const rows = (await this.pool.query<TournamentMatchRow>(numbered(`SELECT * FROM tournament_matches WHERE tournament_id = ?${status} ORDER BY round, match_index${page}`), args)).rows;
    const matches = rows.map(toTournamentMatch);
    const entrant = options.entrant;
    return entrant === undefined ? matches : matches.filter((m) => m.seats.includes(entrant));
  }

  async listFinishedTournamentMatches(tournamentId: string): Promise<TournamentMatchRecord[]> {
    const rows = (
      await this.pool.query<TournamentMatchRow>(
        `SELECT * FROM tournament_matches WHERE tournament_id = $1 AND status = 'done' ORDER BY finish_seq, round, match_index`,
        [tournamentId],
      )
    ).rows;
    return rows.map(toTournamentMatch);
  }

  /** Done matches by their finish_seq cursor (issue 38). */
  async listTournamentResults(tournamentId: string, page: ResultsPage = {}): Promise<TournamentResultRow[]> {
    const [sql, args] = resultsQuery(tournamentId, page);
    return toResultRows((await this.pool.query<ResultRow>(numbered(sql), args)).rows, page);
  }

  async getTournamentStandings(tournamentId: string): Promise<StandingsSnapshot | null> {
    try {
      return toSnapshot((await this.pool.query<SnapshotRow>(numbered(GET_STANDINGS), [tournamentId])).rows[0]);
    } catch (err) {
      // A reader of a database an older Spielhalle wrote: no such table, no snapshot.
      if ((err as { code?: string }).code === '42P01') return null;
      throw err;
    }
  }

  async saveTournamentStandings(tournamentId: string, snapshot: { finishSeq: number; state: unknown; at: number }): Promise<void> {
    this.writable();
    await this.pool.query(numbered(SAVE_STANDINGS), [tournamentId, snapshot.finishSeq, JSON.stringify(snapshot.state), snapshot.at]);
  }

  async appendEvent(matchId: string, event: { at: number; seat?: number | null; type: string; data?: unknown }): Promise<void> {
    if (this.eventSeq.has(matchId)) {
      this.addEvent(matchId, event);
      return;
    }
    this.writable();
    await this.drain();
    const data = event.data === undefined ? null : JSON.stringify(event.data);
    await this.transaction(async (c) => {
      // Two appends to one match at once must not pick the same seq.
      await c.query('SELECT 1 FROM matches WHERE id = $1 FOR UPDATE', [matchId]);
      await c.query(
        `INSERT INTO events (match_id, seq, at, seat, type, data)
         SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3, $4, $5 FROM events WHERE match_id = $1`,
        [matchId, event.at, event.seat ?? null, event.type, data],
      );
    });
  }

  /**
   * Retention on PostgreSQL (`prune`, the serving process's timer): matches that ended before
   * `matchesBefore` with everything recorded of them, and wire logs of matches that ended before
   * `wireBefore`, in batches of 500 rows so the games go on writing; running matches are never
   * touched. `maxBytes` is not applied here: a table's size on disk shrinks only by VACUUM, so
   * deleting until it drops under a cap would delete everything (PostgreSQL's autovacuum reuses
   * the space). The sizes reported are the schema's tables and indexes on disk.
   */
  async prune(o: PruneOptions): Promise<PruneResult> {
    this.writable();
    await this.drain();
    const bytesBefore = await this.usedBytes();
    const result: PruneResult = { matches: 0, wireRows: 0, bytesBefore, bytesAfter: bytesBefore };
    const game = o.game === undefined ? '' : ' AND game = $2';
    const keepOk = prunable(o);
    const ended = (before: number, extra = '') =>
      `SELECT id FROM matches WHERE status <> 'running' AND COALESCE(ended_at, started_at) < $1${game}${keepOk}${extra}`;
    const args = (before: number) => (o.game === undefined ? [before] : [before, o.game]);
    const count = async (sql: string, values: unknown[]): Promise<number> =>
      Number((await this.pool.query<{ n: string }>(sql, values)).rows[0]?.n ?? 0);
    const reason = o.reason ?? 'retention';
    const at = o.now ?? Date.now();
    const deleteEnded = async (before: number, extra: string): Promise<void> => {
      if (o.dryRun) {
        result.matches += await count(`SELECT COUNT(*) AS n FROM (${ended(before, extra)}) m`, args(before));
        result.wireRows += await count(`SELECT COUNT(*) AS n FROM wire WHERE match_id IN (${ended(before, extra)})`, args(before));
        return;
      }
      for (;;) {
        const n = await this.transaction(async (c) => {
          const ids = (await c.query<{ id: string }>(`${ended(before, extra)} ORDER BY started_at LIMIT 500`, args(before))).rows.map((r) => r.id);
          if (ids.length > 0) result.wireRows += await forgetMatches(c, ids, reason, at);
          return ids.length;
        });
        result.matches += n;
        if (n === 0) break;
      }
    };
    if (o.houseBefore !== undefined) await deleteEnded(o.houseBefore, " AND keep = 'house'");
    if (o.matchesBefore !== undefined) await deleteEnded(o.matchesBefore, '');
    if (o.wireBefore !== undefined) {
      const before = o.wireBefore;
      const loose = `FROM wire WHERE match_id IS NULL AND at < $1${game}`;
      if (o.dryRun) {
        result.wireRows += await count(`SELECT COUNT(*) AS n FROM wire WHERE match_id IN (${ended(before)})`, args(before));
        result.wireRows += await count(`SELECT COUNT(*) AS n ${loose}`, args(before));
      } else {
        for (;;) {
          const r = await this.pool.query(`DELETE FROM wire WHERE id IN (SELECT id FROM wire WHERE match_id IN (${ended(before)}) LIMIT 500)`, args(before));
          result.wireRows += r.rowCount ?? 0;
          if ((r.rowCount ?? 0) === 0) break;
        }
        result.wireRows += (await this.pool.query(`DELETE ${loose}`, args(before))).rowCount ?? 0;
      }
    }
    result.bytesAfter = await this.usedBytes();
    return result;
  }

  async keepOf(id: string): Promise<{ keep: KeepClass; tournamentId: string | null } | null> {
    await this.drain();
    const r = (await this.pool.query<{ keep: KeepClass; tournament_id: string | null }>('SELECT keep, tournament_id FROM matches WHERE id = $1', [id])).rows[0];
    return r ? { keep: r.keep, tournamentId: r.tournament_id } : null;
  }

  async prunedNote(id: string): Promise<PrunedNote | null> {
    const own = (
      await this.pool.query<{ pruned_at: number; reason: string; keep: string; tournament_id: string | null }>(
        'SELECT pruned_at, reason, keep, tournament_id FROM pruned WHERE id = $1',
        [id],
      )
    ).rows[0];
    // A house game's mark covers only an id that says its game and start (newMatchId).
    const game = idStart(id)?.game;
    const mark =
      own || game === undefined
        ? undefined
        : (await this.pool.query<{ started_before: number; pruned_at: number; reason: string }>('SELECT started_before, pruned_at, reason FROM pruned_house WHERE game = $1', [game])).rows[0];
    return prunedNoteOf(id, own, mark);
  }

  async deleteTournament(id: string, at: number): Promise<{ records: number } | null> {
    this.writable();
    await this.drain();
    return this.transaction(async (c) => {
      if ((await c.query('SELECT 1 FROM tournaments WHERE id = $1 FOR UPDATE', [id])).rowCount === 0) return null;
      const ids = (await c.query<{ id: string }>("SELECT id FROM matches WHERE tournament_id = $1 AND status <> 'running'", [id])).rows.map((r) => r.id);
      if (ids.length > 0) await forgetMatches(c, ids, 'tournament deleted', at);
      await c.query('DELETE FROM tournaments WHERE id = $1', [id]);
      return { records: ids.length };
    });
  }

  async archiveTournament(id: string, at: number): Promise<void> {
    this.writable();
    await this.drain();
    await this.transaction(async (c) => {
      if ((await c.query('UPDATE tournaments SET archived_at = $1 WHERE id = $2', [at, id])).rowCount === 0) throw new Error(`no tournament ${id}`);
      await c.query("UPDATE matches SET keep = 'archived' WHERE tournament_id = $1 AND keep = 'tournament'", [id]);
    });
  }

  /** Bytes on disk of this schema's tables with their indexes and TOAST. */
  async usedBytes(): Promise<number> {
    const r = await this.pool.query<{ bytes: string | null }>(
      `SELECT SUM(pg_total_relation_size(c.oid))::text AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relkind = 'r'`,
      [this.schema],
    );
    return Number(r.rows[0]?.bytes ?? 0);
  }

  /** Whether the database is gone as far as this store saw last, and for how long (`/healthz`). */
  databaseState(): { up: boolean; downForMs: number; bufferedBytes: number; queued: number } {
    return { up: !this.outage.down, downForMs: this.outage.downForMs, bufferedBytes: this.bufferedBytes, queued: this.queue.length };
  }

  /** /healthz: failing while the database is gone (the games play on; their records wait in memory). */
  health(): RecordsHealth {
    const s = this.databaseState();
    return s.up
      ? { failing: false, reason: null, since: null, heldRows: 0 }
      : { failing: true, reason: `PostgreSQL unreachable for ${Math.round(s.downForMs / 1000)} s`, since: Date.now() - s.downForMs, heldRows: s.queued };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // A database that stays away does not hold up a stop for longer than closeWaitMs: then what is queued is given up (logged).
    const deadline = setTimeout(() => this.giveUp.abort(), this.closeWaitMs);
    deadline.unref();
    try {
      if (this.mode !== 'read') {
        await this.drain();
        const open = [...this.eventSeq.keys()];
        if (this.mode === 'serve' && open.length > 0)
          await this.pool
            .query(
              "UPDATE matches SET status = 'aborted', ended_at = COALESCE(ended_at, $1), result = $2 WHERE id = ANY($3::text[]) AND status = 'running'",
              [Date.now(), JSON.stringify({ reason: SERVER_STOPPED }), open],
            )
            .catch((err: unknown) => {
              if (!isConnectionError(err)) throw err;
              this.error({ matches: open, err: (err as Error).message }, 'record store (postgres): could not mark the open matches aborted, the database is gone');
            });
      }
    } finally {
      clearTimeout(deadline);
      this.closed = true;
      this.untrackDatabase?.();
      // The serving lock goes last: its matches are marked by now (or the next start does it).
      const lock = this.ownerLock;
      this.ownerLock = null;
      await lock?.end().catch(() => undefined);
      await this.raw.end();
    }
  }
}

/**
 * Deletes ended records in a transaction, each leaving its note (a row of its own, or for house
 * games the game's mark, record-keep.ts); how many wire rows went with them.
 */
async function forgetMatches(c: pg.PoolClient, ids: readonly string[], reason: PruneReason, at: number): Promise<number> {
  await c.query(
    `INSERT INTO pruned (id, game, keep, tournament_id, started_at, pruned_at, reason)
     SELECT id, game, keep, tournament_id, started_at, $2, $3 FROM matches WHERE id = ANY($1::text[]) AND keep <> 'house'
     ON CONFLICT (id) DO UPDATE SET keep = excluded.keep, tournament_id = excluded.tournament_id, started_at = excluded.started_at, pruned_at = excluded.pruned_at, reason = excluded.reason`,
    [ids, at, reason],
  );
  await c.query(
    `INSERT INTO pruned_house (game, started_before, pruned_at, reason)
     SELECT game, MAX(started_at), $2, $3 FROM matches WHERE id = ANY($1::text[]) AND keep = 'house' GROUP BY game
     ON CONFLICT (game) DO UPDATE SET started_before = GREATEST(pruned_house.started_before, excluded.started_before), pruned_at = excluded.pruned_at, reason = excluded.reason`,
    [ids, at, reason],
  );
  const wire = (await c.query('DELETE FROM wire WHERE match_id = ANY($1::text[])', [ids])).rowCount ?? 0;
  await c.query('DELETE FROM matches WHERE id = ANY($1::text[])', [ids]);
  return wire;
}
