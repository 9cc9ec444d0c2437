import { randomBytes, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as wait } from 'node:timers/promises';
import pg from 'pg';
import PgBoss from 'pg-boss';
import type { Logger } from '../core/log.js';
import { backoffMs, isConnectionError, Outage, recentlyDown, retryWhileDown, sleep } from '../core/pg-outage.js';

/**
 * The match queue of distributed tournaments (issue #19): pg-boss, jobs in the same PostgreSQL
 * that holds the records, one queue per game (`spielhalle.<game>`), one job per match to play.
 * Nothing of a match travels in its job but its ids; the schedule, the entrants and every result
 * are in the record store. Workers hold a session advisory lock for as long as they live, so a
 * coordinator can tell at once that the worker of a running match has died (kill -9, lost
 * connection) and hand its job to another; a job nobody reports on is retried by pg-boss itself
 * when its lease (`expireInSeconds`) runs out.
 */

export interface MatchJob {
  tournament: string;
  match: string;
}

export type JobState = 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';

export interface QueuedJob {
  id: string;
  game: string;
  match: string;
  state: JobState;
  /** What the job's last failure said (pg-boss keeps `{ message }` or its own `{ value: { message } }`). */
  message: string | null;
}

export interface FetchedJob {
  id: string;
  game: string;
  data: MatchJob;
  /** Tries before this one (pg-boss's retry count). */
  retryCount: number;
  retryLimit: number;
}

export interface QueueOptions {
  url: string;
  /** pg-boss's schema (created and migrated by pg-boss at start). */
  schema: string;
  /** Shown in pg_stat_activity for this process's queue connections. */
  applicationName?: string;
  /** How often expired leases are failed (and retried); pg-boss's default is 120 s. */
  maintenanceSeconds?: number;
  /** Connections of the queue's pool. */
  poolSize?: number;
  /** Where outages of the queue's connections are logged (default: stderr lines). */
  log?: Logger;
}

/**
 * After this process saw PostgreSQL gone, a worker's free life lock is not taken for its death
 * for this long: every session was dropped with the server, and the live workers take their
 * locks again within a few seconds of its return (LifeLock).
 */
export const OUTAGE_GRACE_MS = 15_000;

/** pg-boss's schema beside the records' schema: `pgboss` for `public`, else `<schema>_pgboss`. */
export function jobsSchema(recordsSchema: string): string {
  return recordsSchema === 'public' ? 'pgboss' : `${recordsSchema.slice(0, 55)}_pgboss`;
}

export const queueName = (game: string): string => `spielhalle.${game}`;

/** Waits `ms`, or less when the signal aborts (never rejects): the polling loops' pause. */
export const pauseFor = (ms: number, signal: AbortSignal): Promise<void> =>
  wait(ms, undefined, { signal }).catch(() => undefined);

/** `host:pid:random` — unique even when a pid is reused on a host. */
export function newWorkerId(): string {
  return `${hostname().slice(0, 32)}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

/** Job ids are uuids; anything else in a job table is not ours. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function messageOf(output: unknown): string | null {
  if (output === null || typeof output !== 'object') return null;
  const o = output as { message?: unknown; value?: { message?: unknown } };
  if (typeof o.message === 'string') return o.message;
  if (o.value && typeof o.value.message === 'string') return o.value.message;
  return null;
}

export class MatchQueue {
  /** Aborted by close: calls that wait out an outage give up. */
  private readonly closing = new AbortController();

  private constructor(
    private readonly boss: PgBoss,
    readonly schema: string,
    private readonly pool: pg.Pool,
    private readonly outage: Outage,
  ) {}

  /** A call that waits out an outage (retried with backoff, logged) until the queue is closed. */
  private waiting<T>(fn: () => Promise<T>): Promise<T> {
    return retryWhileDown(fn, this.outage, { signal: this.closing.signal });
  }

  /**
   * `open`, waiting for a database that is not there yet (refused, starting up): logged and
   * retried with backoff until `signal` aborts; any other error is thrown at once.
   */
  static openWhenReachable(options: QueueOptions, games: readonly string[], signal?: AbortSignal): Promise<MatchQueue> {
    return retryWhileDown(() => MatchQueue.open(options, games), new Outage('queue: waiting for the database at start', options.log ?? null), { signal });
  }

  static async open(options: QueueOptions, games: readonly string[]): Promise<MatchQueue> {
    const boss = new PgBoss({
      connectionString: options.url,
      schema: options.schema,
      application_name: options.applicationName ?? 'spielhalle',
      max: options.poolSize ?? 4,
      // No cron schedules: nothing of ours is scheduled.
      schedule: false,
      maintenanceIntervalSeconds: options.maintenanceSeconds ?? 15,
      // Done jobs leave the job table after a day; failed ones after a week (they say why).
      archiveCompletedAfterSeconds: 24 * 3600,
      archiveFailedAfterSeconds: 7 * 24 * 3600,
      deleteAfterDays: 30,
    });
    const failure: { err: Error | null } = { err: null };
    boss.on('error', (err: Error) => {
      failure.err = err;
    });
    try {
      await boss.start();
      if (failure.err !== null) throw failure.err;
    } catch (err) {
      await boss.stop({ graceful: false, wait: true, timeout: 1000 }).catch(() => undefined);
      throw err;
    }
    const outage = new Outage('queue', options.log ?? null);
    const pool = new pg.Pool({ connectionString: options.url, max: 2, application_name: options.applicationName ?? 'spielhalle', keepAlive: true, connectionTimeoutMillis: 10_000 });
    // An idle connection lost (the server restarted): the next query connects again.
    pool.on('error', () => undefined);
    // Processes that start together create the queues one at a time (pg-boss's queue creation
    // adds a partition; two at once can deadlock).
    const missing: string[] = [];
    for (const game of games) if ((await boss.getQueue(queueName(game))) === null) missing.push(queueName(game));
    if (missing.length > 0) {
      const client = await pool.connect();
      // A checked-out client without a listener would end the process if its connection broke.
      client.on('error', () => undefined);
      try {
        await client.query("SELECT pg_advisory_lock(hashtextextended('spielhalle-queues:' || $1, 0))", [options.schema]);
        for (const name of missing) if ((await boss.getQueue(name)) === null) await boss.createQueue(name, { name, policy: 'standard' });
      } finally {
        await client.query("SELECT pg_advisory_unlock(hashtextextended('spielhalle-queues:' || $1, 0))", [options.schema]).catch(() => undefined);
        client.release();
      }
    }
    return new MatchQueue(boss, options.schema, pool, outage);
  }

  /** Errors of pg-boss's own background work (maintenance); a lost connection is logged as an outage instead. */
  onError(listener: (err: Error) => void): void {
    this.boss.on('error', (err: Error) => {
      if (isConnectionError(err)) this.outage.failed(err);
      else listener(err);
    });
  }

  /** One job per match; returns the job ids by match. */
  async enqueue(
    game: string,
    tournament: string,
    matches: readonly string[],
    options: { leaseSeconds: number; retryLimit: number },
  ): Promise<Map<string, string>> {
    const ids = new Map<string, string>();
    const name = queueName(game);
    for (let i = 0; i < matches.length; i += 1000) {
      const batch = matches.slice(i, i + 1000).map((match) => {
        const id = randomUUID();
        ids.set(match, id);
        return {
          id,
          name,
          data: { tournament, match } satisfies MatchJob,
          expireInSeconds: options.leaseSeconds,
          retryLimit: options.retryLimit,
          retryDelay: 0,
        };
      });
      await this.waiting(() => this.boss.insert(batch));
    }
    return ids;
  }

  /** The jobs of a tournament still in the job table (not yet archived), newest last. */
  async jobsOf(game: string, tournament: string, states?: readonly JobState[]): Promise<QueuedJob[]> {
    const rows = (
      await this.waiting(() => this.pool.query<{ id: string; state: JobState; match: string; output: unknown }>(
        `SELECT id::text, state::text AS state, data->>'match' AS match, output FROM ${this.schema}.job
          WHERE name = $1 AND data->>'tournament' = $2 ${states === undefined ? '' : 'AND state::text = ANY($3::text[])'}
          ORDER BY created_on, id`,
        states === undefined ? [queueName(game), tournament] : [queueName(game), tournament, states],
      ))
    ).rows;
    return rows.map((r) => ({ id: r.id, game, match: r.match, state: r.state, message: messageOf(r.output) }));
  }

  /** Jobs of a tournament in play (`active`) for longer than `seconds` by the database's clock. */
  async activeSince(game: string, tournament: string, seconds: number): Promise<QueuedJob[]> {
    const rows = (
      await this.waiting(() => this.pool.query<{ id: string; match: string }>(
        `SELECT id::text, data->>'match' AS match FROM ${this.schema}.job
          WHERE name = $1 AND data->>'tournament' = $2 AND state = 'active' AND started_on < now() - make_interval(secs => $3)`,
        [queueName(game), tournament, seconds],
      ))
    ).rows;
    return rows.map((r) => ({ id: r.id, game, match: r.match, state: 'active', message: null }));
  }

  /** Not retried: a worker asks again after a pause (a connection error is logged here as an outage, and thrown). */
  async fetch(games: readonly string[]): Promise<FetchedJob | null> {
    try {
      for (const game of games) {
        const [job] = await this.boss.fetch<MatchJob>(queueName(game), { batchSize: 1, includeMetadata: true });
        if (job) {
          this.outage.ok();
          return { id: job.id, game, data: job.data, retryCount: job.retryCount, retryLimit: job.retryLimit };
        }
      }
      this.outage.ok();
      return null;
    } catch (err) {
      if (isConnectionError(err)) this.outage.failed(err);
      throw err;
    }
  }

  /** Whether the queue's database was gone at the last try, and how often in a row (a worker's pause). */
  get down(): { down: boolean; failures: number } {
    return { down: this.outage.down, failures: this.outage.failuresInARow };
  }

  /** Completes the job; waits out an outage (a finished match's job is completed once the database is back). */
  async complete(job: { id: string; game: string }): Promise<void> {
    await this.waiting(() => this.boss.complete(queueName(job.game), job.id));
  }

  /** Failed: retried while the job has tries left, else it stays failed with this message. */
  async fail(job: { id: string; game: string }, message: string): Promise<void> {
    await this.waiting(() => this.boss.fail(queueName(job.game), job.id, { message }));
  }

  async cancel(game: string, ids: readonly string[]): Promise<void> {
    const valid = ids.filter((id) => UUID.test(id));
    if (valid.length > 0) await this.waiting(() => this.boss.cancel(queueName(game), [...valid]));
  }

  /**
   * Which of these workers no longer hold their life lock: their session ended (the process was
   * killed, or its connection was lost long enough for the server to drop it).
   */
  async goneWorkers(workers: readonly string[], graceMs = OUTAGE_GRACE_MS): Promise<Set<string>> {
    if (workers.length === 0) return new Set();
    // Just after an outage every lock is free: the workers that live take theirs again first.
    if (recentlyDown(graceMs)) return new Set();
    // A transaction-level try-lock: taken and let go within this one statement.
    const rows = (
      await this.waiting(() => this.pool.query<{ worker: string; free: boolean }>(
        `SELECT w AS worker, pg_try_advisory_xact_lock(hashtextextended('spielhalle-worker:' || w, 0)) AS free
           FROM unnest($1::text[]) AS w`,
        [[...workers]],
      ))
    ).rows;
    // The outage may have begun while this statement was under way.
    if (recentlyDown(graceMs)) return new Set();
    return new Set(rows.filter((r) => r.free).map((r) => r.worker));
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.boss.stop({ graceful: false, wait: true, timeout: 1000 }).catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }
}

/**
 * A life lock: a connection of its own holding a session advisory lock keyed by a name
 * (`worker:<id>` for a worker, `coordinator:<tournament>` for a coordinator), checked every
 * `heartbeatMs`. When the process dies, PostgreSQL ends the session and the lock is free
 * (MatchQueue.goneWorkers); a second coordinator of the same tournament cannot take it.
 *
 * When the session is lost while the process lives (PostgreSQL restarted, the network gone for
 * a while) the lock is taken again on a new connection as soon as the database answers (backoff
 * from 250 ms up to `maxBackoffMs`), so a worker that only lost its database for a while is not
 * taken for dead once it is back (the coordinator waits OUTAGE_GRACE_MS after an outage). Only
 * when someone else holds the lock by then (a second coordinator started meanwhile) is it lost
 * for good: `onLost`.
 */
export class LifeLock {
  private timer: NodeJS.Timeout | null = null;
  private client: pg.Client | null = null;
  private released = false;
  private readonly stop = new AbortController();
  private readonly outage: Outage;

  private constructor(
    private readonly url: string,
    private readonly name: string,
    private readonly onLost: (err: Error) => void,
    private readonly heartbeatMs: number,
    private readonly events: LifeLockEvents,
  ) {
    this.outage = new Outage(`life lock ${name}`, events.log ?? null);
  }

  /** Waits for nothing: null when another session holds the lock. */
  static async take(
    url: string,
    name: string,
    onLost: (err: Error) => void,
    heartbeatMs = 10_000,
    events: LifeLockEvents = {},
  ): Promise<LifeLock | null> {
    const lock = new LifeLock(url, name, onLost, heartbeatMs, events);
    const client = await lock.lockOn();
    if (client === null) return null;
    lock.hold(client);
    return lock;
  }

  /** `take`, waiting for a database that is not there yet (connection errors retried with backoff until `signal` aborts). */
  static takeWhenReachable(
    url: string,
    name: string,
    onLost: (err: Error) => void,
    events: LifeLockEvents = {},
    signal?: AbortSignal,
  ): Promise<LifeLock | null> {
    return retryWhileDown(() => LifeLock.take(url, name, onLost, 10_000, events), new Outage(`life lock ${name}: waiting for the database at start`, events.log ?? null), { signal });
  }

  /** A new connection holding the lock, or null when another session holds it. */
  private async lockOn(): Promise<pg.Client | null> {
    const client = new pg.Client({
      connectionString: this.url,
      application_name: `spielhalle ${this.name}`.slice(0, 63),
      keepAlive: true,
      connectionTimeoutMillis: 10_000,
    });
    // Until hold() listens: a connection that breaks now fails the query below, and must not end the process.
    client.on('error', () => undefined);
    try {
      await client.connect();
      const got = (
        await client.query<{ got: boolean }>("SELECT pg_try_advisory_lock(hashtextextended('spielhalle-' || $1, 0)) AS got", [this.name])
      ).rows[0]?.got;
      if (got === true) return client;
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    await client.end().catch(() => undefined);
    return null;
  }

  private hold(client: pg.Client): void {
    this.client = client;
    let broken = false;
    const fail = (err: Error) => {
      if (broken || this.released) return;
      broken = true;
      this.stopTimer();
      void client.end().catch(() => undefined);
      if (!isConnectionError(err)) {
        this.onLost(err);
        return;
      }
      this.outage.failed(err);
      this.events.onDown?.(err);
      void this.retake();
    };
    client.on('error', fail);
    this.timer = setInterval(() => {
      client.query('SELECT 1').catch(fail);
    }, this.heartbeatMs);
    this.timer.unref();
  }

  /** Takes the lock again on a new connection once the database answers. */
  private async retake(): Promise<void> {
    const maxBackoffMs = this.events.maxBackoffMs ?? 2000;
    while (!this.released) {
      await sleep(backoffMs(this.outage.failuresInARow, maxBackoffMs), this.stop.signal);
      if (this.isReleased()) return;
      let client: pg.Client | null;
      try {
        client = await this.lockOn();
      } catch (err) {
        if (isConnectionError(err)) {
          this.outage.failed(err);
          continue;
        }
        this.onLost(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      if (this.isReleased()) {
        await client?.end().catch(() => undefined);
        return;
      }
      const downForMs = this.outage.ok();
      if (client === null) {
        this.onLost(new Error(`the life lock ${this.name} is held by another session now`));
        return;
      }
      this.hold(client);
      this.events.onBack?.(downForMs);
      return;
    }
  }

  /** Read anew after each await (release() may have come meanwhile). */
  private isReleased(): boolean {
    return this.released;
  }

  private stopTimer(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  async release(): Promise<void> {
    this.released = true;
    this.stop.abort();
    this.stopTimer();
    await this.client?.end().catch(() => undefined);
  }
}

export interface LifeLockEvents {
  log?: Logger;
  /** The session was lost (it is being taken again). */
  onDown?(err: Error): void;
  /** Taken again after `downForMs`. */
  onBack?(downForMs: number): void;
  /** The longest pause between two tries to take it again (default 2 s). */
  maxBackoffMs?: number;
}
