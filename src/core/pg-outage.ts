import type pg from 'pg';
import type { Logger } from './log.js';

/**
 * PostgreSQL outages (issue #31): a lost or refused connection is an expected event, not a crash.
 * `isConnectionError` tells an outage (the server stopped, restarting, unreachable) from an error
 * of the statement itself (a constraint, bad SQL), which retrying cannot cure. `Outage` keeps the
 * log lines of one component: the first failure at error level, then at most one warning every
 * `everyMs` with the time down, and one line with how long it was down once it is back.
 */

/** SQLSTATE classes and node error codes that mean "the database is not there right now". */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01', // admin_shutdown (pg_ctl stop -m fast/immediate)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down, recovery)
  '53300', // too_many_connections
]);

const CONNECTION_MESSAGES = [
  /Connection terminated/i,
  /not queryable/i,
  /timeout exceeded when trying to connect/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
  /terminating connection due to/i,
  /server closed the connection unexpectedly/i,
  /Client was closed and is not queryable/i,
];

export function isConnectionError(err: unknown): boolean {
  if (err === null || typeof err !== 'object') return false;
  const e = err as { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown };
  if (typeof e.code === 'string' && (CONNECTION_CODES.has(e.code) || e.code.startsWith('08'))) return true;
  if (typeof e.message === 'string' && CONNECTION_MESSAGES.some((re) => re.test(e.message as string))) return true;
  // An AggregateError (several addresses refused), or an error that wraps the real one.
  if (Array.isArray(e.errors) && e.errors.some((x) => isConnectionError(x))) return true;
  return e.cause !== undefined && e.cause !== err && isConnectionError(e.cause);
}

/** Backoff after `failures` failures in a row: 250 ms doubling up to `maxMs`, with ±20 % jitter. */
export function backoffMs(failures: number, maxMs = 5000): number {
  const base = Math.min(maxMs, 250 * 2 ** Math.min(Math.max(failures - 1, 0), 16));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

const errText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The outage log of one component (`records`, `queue`, `life lock`, `coordinator`). */
export class Outage {
  private downSince: number | null = null;
  private lastWarn = 0;
  private failures = 0;

  constructor(
    private readonly what: string,
    private log: Logger | null,
    private readonly everyMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  setLogger(log: Logger): void {
    this.log = log;
  }

  get down(): boolean {
    return this.downSince !== null;
  }

  /** Milliseconds since the outage began (0 when up). */
  get downForMs(): number {
    return this.downSince === null ? 0 : this.now() - this.downSince;
  }

  /** Failures in a row (for the backoff). */
  get failuresInARow(): number {
    return this.failures;
  }

  /** A connection failure: logged at error the first time, then a warning every `everyMs`. */
  failed(err: unknown, fields: Record<string, unknown> = {}): void {
    this.failures++;
    const at = this.now();
    noteLostConnection(at);
    if (this.downSince === null) {
      this.downSince = at;
      this.lastWarn = at;
      this.write('error', { ...fields, err: errText(err) }, `PostgreSQL unreachable (${this.what}): retrying with backoff`);
    } else if (at - this.lastWarn >= this.everyMs) {
      this.lastWarn = at;
      this.write('warn', { ...fields, downForMs: at - this.downSince, err: errText(err) }, `PostgreSQL still unreachable (${this.what})`);
    }
  }

  /** A success: when it was down, one line with how long. Returns the time it was down (0 if up). */
  ok(fields: Record<string, unknown> = {}): number {
    this.failures = 0;
    if (this.downSince === null) return 0;
    const downForMs = this.now() - this.downSince;
    this.downSince = null;
    noteLostConnection(this.now());
    this.write('warn', { ...fields, downForMs }, `PostgreSQL back (${this.what}) after ${(downForMs / 1000).toFixed(1)} s`);
    return downForMs;
  }

  private write(level: 'error' | 'warn', fields: Record<string, unknown>, msg: string): void {
    if (this.log !== null) this.log[level](fields, msg);
    else process.stderr.write(`${msg} ${JSON.stringify(fields)}\n`);
  }
}

/**
 * Runs `fn` until it does not fail with a connection error: each connection failure is logged by
 * `outage` and retried after a backoff, for at most `maxWaitMs` of outage (then the last error is
 * thrown) or until `signal` aborts. Any other error is thrown at once.
 */
export async function retryWhileDown<T>(
  fn: () => Promise<T>,
  outage: Outage,
  options: { maxWaitMs?: number; signal?: AbortSignal | undefined; maxBackoffMs?: number } = {},
): Promise<T> {
  const maxWaitMs = options.maxWaitMs ?? Infinity;
  const started = Date.now();
  for (;;) {
    try {
      const value = await fn();
      outage.ok();
      return value;
    } catch (err) {
      if (!isConnectionError(err)) throw err;
      outage.failed(err);
      if (options.signal?.aborted || Date.now() - started >= maxWaitMs) throw err;
      await sleep(Math.min(backoffMs(outage.failuresInARow, options.maxBackoffMs), Math.max(0, started + maxWaitMs - Date.now())), options.signal);
      if (options.signal?.aborted) throw err;
    }
  }
}

/**
 * The process's last sign of an outage (any component): a coordinator does not take a worker's
 * free life lock for a death while the outage may still be settling (the worker re-takes it).
 */
let lastOutageAt = 0;

/** An idle connection was lost (or any component saw the database gone). */
export function noteLostConnection(at = Date.now()): void {
  lastOutageAt = Math.max(lastOutageAt, at);
}

/** Whether this process saw the database gone within the last `ms`. */
export function recentlyDown(ms: number, now = Date.now()): boolean {
  return now - lastOutageAt < ms;
}

/**
 * One try of a transaction on a client checked out of `pool`: BEGIN, `fn`, COMMIT (ROLLBACK on an
 * error). A checked-out client has no pool listener, and an 'error' it emits with nobody listening
 * would end the process: it is caught here, and a client whose connection broke is not put back
 * in the pool (its query has failed already).
 */
export async function transactionOnce<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  const state: { broken: Error | null } = { broken: null };
  const onError = (err: Error) => {
    state.broken = err;
  };
  c.on('error', onError);
  try {
    await c.query('BEGIN');
    const result = await fn(c);
    await c.query('COMMIT');
    return result;
  } catch (err) {
    if (state.broken === null) await c.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    c.off('error', onError);
    c.release(state.broken ?? undefined);
  }
}
