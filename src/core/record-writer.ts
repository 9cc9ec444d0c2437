import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { recordsRows, recordsHeldRows, recordsWriteFailing } from './metrics.js';

/**
 * The SQLite record store's writer thread and what the store keeps while the disk cannot take
 * its writes (issue 31). A batch is never dropped because of the batch:
 * - a transient failure (disk full, an I/O error, the file locked: every SQLite error that is not
 *   about a row) keeps the batch, and everything queued after it, in this process, in order, and
 *   retries it with backoff (100 ms doubling to 5 s) until it is written. Order is kept, so a match
 *   row is always written before its seats, events and end: nothing can be orphaned by an outage.
 * - a row-level failure (a constraint, a value SQLite refuses) writes the batch again row by row,
 *   each in a savepoint: the good rows are committed, only the bad ones dropped, counted, reported.
 * What is kept is bounded (`maxHeldBytes`, estimated): beyond it the oldest held events and wire
 * messages go first (each of their matches gets an event `records-lost`, as on PostgreSQL), then, if the match rows alone are
 * still too much, the oldest rows of any kind; each time with a notice at error level.
 */

/** One queued write: a statement name and its parameters. */
export type Op = [string, ...(string | number | null | Uint8Array)[]];

/** How the store's writes are doing (for /healthz and /metrics). */
export interface WriteHealth {
  /** Writes fail for a transient reason (disk full, I/O error); rows are being held and retried. */
  failing: boolean;
  /** The last transient error (`SQLITE_FULL: database or disk is full`), while failing. */
  reason: string | null;
  /** Since when (ms since epoch), while failing. */
  since: number | null;
  /** Rows held in memory, waiting to be written. */
  heldRows: number;
  /** Their estimated size. */
  heldBytes: number;
  /** Rows written late (after being held), dropped for a row-level reason, lost to the bound. */
  retried: number;
  dropped: number;
  lost: number;
}

/** What the store tells its owner (`serve` logs them: error level but `recovered`, which is a warning). */
export type WriteNotice =
  | { kind: 'failing'; code: string; message: string; heldRows: number; heldBytes: number; downMs: number }
  | { kind: 'recovered'; downMs: number; rows: number }
  | { kind: 'dropped'; rows: number; sample: DroppedRow[] }
  | { kind: 'lost'; rows: number; bytes: number; matches: number; matchIds: string[]; marked: number; why: string };

export interface DroppedRow {
  op: string;
  matchId: string | null;
  code: string;
  message: string;
}

interface Reply {
  seq: number;
  written: number;
  retry: boolean;
  /** Not written (a transient error): the batch, to be kept and sent again. */
  held?: Op[];
  error?: { code: string; message: string };
  dropped?: DroppedRow[];
  droppedCount?: number;
}

/** Rows the writer drops (row-level) and reports in full at most this many of, per batch. */
const DROPPED_SAMPLE = 20;

/** SQLite error codes that are about a row, not about the disk or the file. */
export const ROW_LEVEL = /^SQLITE_(CONSTRAINT|MISMATCH|TOOBIG|RANGE)/;

/** The writer thread (plain JS, so it runs the same from src/ under tests and from dist/). */
const WRITER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const { deflateRawSync } = require('node:zlib');
const port = workerData.port;
const done = new Int32Array(workerData.done);
const ROW_LEVEL = new RegExp(workerData.rowLevel);
let db = null;
let stmts = null;
let holding = false;
let lastError = null;
// Opened at the first batch (and again after a failed open): all or nothing.
function open() {
  const d = new Database(workerData.file);
  try {
    d.pragma('journal_mode = WAL');
    d.pragma('synchronous = NORMAL');
    d.pragma('foreign_keys = ON');
    d.pragma('busy_timeout = 5000');
    const s = {};
    for (const [name, sql] of Object.entries(workerData.sql)) s[name] = d.prepare(sql);
    stmts = s;
    db = d;
  } catch (err) {
    try { d.close(); } catch {}
    // Not about a row, whatever it says: the batch is held, not dropped.
    const code = err && typeof err.code === 'string' && !rowLevel(err) ? err.code : 'SQLITE_CANTOPEN';
    throw Object.assign(new Error(String((err && err.message) || err)), { code });
  }
}
const rowLevel = (err) => typeof (err && err.code) !== 'string' || !err.code.startsWith('SQLITE_') || ROW_LEVEL.test(err.code);
const describe = (err) => ({ code: String((err && err.code) || 'ERROR'), message: String((err && err.message) || err) });
// 'wirepack': a packed batch of wire messages (JSON), deflated here, off the game loop.
function run(op) {
  const [name, ...args] = op;
  if (name === 'wirepack' && typeof args[5] === 'string') args[5] = deflateRawSync(args[5]);
  stmts[name].run(...args);
}
function writeAll(ops) {
  db.transaction(() => { for (const op of ops) run(op); })();
}
// Row by row, each in a savepoint: a bad row goes, the good ones stay. A transient error throws.
function writeEach(ops, reply) {
  const one = db.transaction(run);
  const dropped = [];
  let count = 0;
  db.transaction(() => {
    for (const op of ops) {
      try { one(op); } catch (err) {
        if (!rowLevel(err)) throw err;
        count++;
        if (dropped.length < ${DROPPED_SAMPLE}) dropped.push({ op: op[0], matchId: typeof op[1] === 'string' ? op[1] : null, ...describe(err) });
      }
    }
  })();
  reply.dropped = dropped;
  reply.droppedCount = count;
  reply.written = ops.length - count;
}
function hold(ops, err, reply) {
  holding = true;
  lastError = describe(err);
  reply.held = ops;
  reply.error = lastError;
}
parentPort.on('message', (m) => {
  const reply = { seq: m.seq, written: 0, retry: m.retry === true };
  if (m.retry) holding = false;
  if (m.ops.length) {
    if (holding) {
      // An earlier batch is held: this one waits behind it, unwritten, to keep the order.
      reply.held = m.ops;
      reply.error = lastError;
    } else {
      try {
        if (db === null) open();
        writeAll(m.ops);
        reply.written = m.ops.length;
      } catch (err) {
        if (!rowLevel(err)) hold(m.ops, err, reply);
        else {
          try { writeEach(m.ops, reply); } catch (err2) { hold(m.ops, err2, reply); }
        }
      }
    }
  }
  if (m.close && db !== null) { try { db.close(); } catch {} db = null; }
  // The reply first: whoever sees 'done' can then take it with receiveMessageOnPort.
  port.postMessage(reply);
  Atomics.store(done, 0, m.seq);
  Atomics.notify(done, 0);
});
`;

/** Atomics.waitAsync (Node ≥ 16; typed only from lib ES2024). */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(array: Int32Array, index: number, value: number, timeoutMs: number): { async: false; value: string } | { async: true; value: Promise<string> };
  }
).waitAsync;

/** A rough in-memory size of a row (characters of its strings, bytes of its buffers, a fixed overhead). */
export function opBytes(op: Op): number {
  let n = 64;
  for (const a of op) n += typeof a === 'string' ? a.length : a instanceof Uint8Array ? a.byteLength : 8;
  return n;
}

const sumBytes = (ops: readonly Op[]): number => ops.reduce((n, op) => n + opBytes(op), 0);

/** Rows that only add detail to a match (what goes first when the bound is exceeded). */
const DETAIL = new Set(['event', 'wire', 'wirepack']);

/** The event type of the note on a match that lost rows (the same on PostgreSQL). */
export const LOST_EVENT = 'records-lost';

export interface WriterOptions {
  file: string;
  driver: string;
  sql: Readonly<Record<string, string>>;
  /** Estimated bytes of rows held while writes fail; beyond, rows are lost (with a notice). */
  maxHeldBytes: number;
  notify: (n: WriteNotice) => void;
  /** The row that notes on a match what it lost (`data`: JSON { events, wireRows, reason }). */
  lostNote: (matchId: string, data: string, at: number) => Op;
}

const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5000;
/** While writes keep failing, the `failing` notice is repeated this often. */
const REPEAT_NOTICE_MS = 60_000;

/** The writers of the stores open in this process. */
const OPEN = new Set<SqliteWriter>();

/** The main thread's side of the writer thread. */
export class SqliteWriter {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly done = new Int32Array(new SharedArrayBuffer(4));
  private sent = 0;
  private acked = 0;
  private draining = 0;
  /** Rows the writer gave back (a transient error), oldest first; then `waiting`, queued since. */
  private held: Op[] = [];
  private heldBytes = 0;
  private waiting: Op[] = [];
  private waitingBytes = 0;
  private holding = false;
  private retryInFlight = false;
  /** The held rows on their way to the writer in a retry (still held until it says so). */
  private retrying = { rows: 0, bytes: 0 };
  private retryMs = RETRY_FIRST_MS;
  private retryTimer: NodeJS.Timeout | null = null;
  private failingSince: number | null = null;
  private lastNoticeAt = 0;
  private lastError: { code: string; message: string } | null = null;
  private readonly totals = { retried: 0, dropped: 0, lost: 0 };
  private closed = false;

  constructor(private readonly o: WriterOptions) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(WRITER, {
      eval: true,
      workerData: { file: o.file, driver: o.driver, sql: o.sql, done: this.done.buffer, port: port2, rowLevel: ROW_LEVEL.source },
      transferList: [port2],
    });
    this.port.on('message', (m: Reply) => this.onReply(m));
    this.port.unref();
    this.worker.on('error', (err) => this.o.notify({ kind: 'failing', code: 'WRITER', message: `the writer thread failed: ${err.message}`, heldRows: 0, heldBytes: 0, downMs: 0 }));
    this.worker.unref();
    OPEN.add(this);
  }

  health(): WriteHealth {
    const e = this.lastError;
    return {
      failing: this.holding,
      reason: this.holding && e ? `${e.code}: ${e.message}` : null,
      since: this.holding ? this.failingSince : null,
      heldRows: this.held.length + this.waiting.length + this.retrying.rows,
      heldBytes: this.heldBytes + this.waitingBytes + this.retrying.bytes,
      ...this.totals,
    };
  }

  /** Hands a batch to the writer thread; while writes fail it waits here, behind the held rows. */
  post(ops: Op[], close = false): void {
    if (close) {
      this.closeWith(ops);
      return;
    }
    if (this.holding) {
      if (ops.length === 0) return;
      for (const op of ops) this.waiting.push(op);
      this.waitingBytes += sumBytes(ops);
      this.bound();
      this.updateGauges();
      return;
    }
    if (ops.length === 0) return;
    this.worker.postMessage({ ops, seq: ++this.sent });
  }

  /** Blocks until the writer has handled (written or given back) everything sent. */
  wait(timeoutMs = 120_000): void {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const done = Atomics.load(this.done, 0);
      if (done >= this.sent) {
        // A reply may send more (what waited behind a recovered outage): wait for that too.
        this.takeReplies();
        if (Atomics.load(this.done, 0) >= this.sent) return;
        continue;
      }
      if (Date.now() > deadline) throw new Error(`record store: the writer did not finish in ${Math.round(timeoutMs / 1000)} s`);
      Atomics.wait(this.done, 0, done, 1000);
    }
  }

  /** The same without blocking the event loop. */
  async drain(): Promise<void> {
    const target = this.sent;
    // A pending waitAsync does not keep the process alive: the writer does, while anyone waits.
    if (this.draining++ === 0) this.worker.ref();
    try {
      for (;;) {
        const done = Atomics.load(this.done, 0);
        if (done >= target) break;
        const waited = waitAsync(this.done, 0, done, 1000);
        if (waited.async) await waited.value;
      }
    } finally {
      if (--this.draining === 0) this.worker.unref();
    }
    this.takeReplies();
  }

  terminate(): void {
    OPEN.delete(this);
    this.updateGauges();
    this.closed = true;
    this.stopRetry();
    this.port.close();
    void this.worker.terminate();
  }

  /** Replies already posted, handled now rather than when the event loop gets to them. */
  private takeReplies(): void {
    for (let m = receiveMessageOnPort(this.port); m !== undefined; m = receiveMessageOnPort(this.port)) this.onReply(m.message as Reply);
  }

  private onReply(m: Reply): void {
    this.acked = Math.max(this.acked, m.seq);
    if (m.droppedCount !== undefined && m.droppedCount > 0) {
      this.totals.dropped += m.droppedCount;
      recordsRows.inc({ outcome: 'dropped' }, m.droppedCount);
      this.o.notify({ kind: 'dropped', rows: m.droppedCount, sample: m.dropped ?? [] });
    }
    if (m.held !== undefined) {
      // Replies come in the order the batches were sent, all of them before anything in `waiting`.
      if (m.retry) this.endRetry();
      for (const op of m.held) this.held.push(op);
      this.heldBytes += sumBytes(m.held);
      this.lastError = m.error ?? this.lastError;
      const now = Date.now();
      if (!this.holding) {
        this.holding = true;
        this.failingSince = now;
        this.lastNoticeAt = 0;
      }
      if (now - this.lastNoticeAt >= REPEAT_NOTICE_MS) {
        this.lastNoticeAt = now;
        const e = this.lastError ?? { code: 'UNKNOWN', message: 'write failed' };
        const h = this.health();
        this.o.notify({ kind: 'failing', code: e.code, message: e.message, heldRows: h.heldRows, heldBytes: h.heldBytes, downMs: now - (this.failingSince ?? now) });
      }
      this.bound();
      this.updateGauges();
      if (!this.closed) this.scheduleRetry(m.retry);
      return;
    }
    if (m.retry) {
      this.endRetry();
      this.totals.retried += m.written;
      recordsRows.inc({ outcome: 'retried' }, m.written);
      const downMs = Date.now() - (this.failingSince ?? Date.now());
      this.holding = false;
      this.failingSince = null;
      this.retryMs = RETRY_FIRST_MS;
      this.o.notify({ kind: 'recovered', downMs, rows: m.written });
      const rest = this.waiting;
      this.waiting = [];
      this.waitingBytes = 0;
      this.updateGauges();
      if (rest.length > 0 && !this.closed) this.post(rest);
    }
  }

  private endRetry(): void {
    this.retryInFlight = false;
    this.retrying = { rows: 0, bytes: 0 };
  }

  private scheduleRetry(afterFailedRetry: boolean): void {
    if (afterFailedRetry) this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
    if (this.retryTimer !== null || this.retryInFlight) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.retry();
    }, this.retryMs);
    this.retryTimer.unref();
  }

  private stopRetry(): void {
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  /** Sends everything held, in order, as one batch that clears the writer's holding. */
  private retry(): void {
    if (!this.holding || this.closed || this.retryInFlight) return;
    this.takeReplies();
    // Batches still on their way back belong before what is held now: wait for them.
    if (this.acked < this.sent) {
      this.scheduleRetry(false);
      return;
    }
    const bytes = this.heldBytes + this.waitingBytes;
    const ops = this.takeHeld();
    this.retrying = { rows: ops.length, bytes };
    this.retryInFlight = true;
    this.worker.postMessage({ ops, seq: ++this.sent, retry: true });
  }

  private takeHeld(): Op[] {
    const ops = this.held.length === 0 ? this.waiting : this.waiting.length === 0 ? this.held : this.held.concat(this.waiting);
    this.held = [];
    this.waiting = [];
    this.heldBytes = 0;
    this.waitingBytes = 0;
    return ops;
  }

  /** The last batch, with everything held: one more try; what still fails is lost, and said so. */
  private closeWith(ops: Op[]): void {
    this.stopRetry();
    this.wait();
    const holding = this.holding;
    if (holding) {
      for (const op of ops) this.waiting.push(op);
      this.waitingBytes += sumBytes(ops);
      ops = this.takeHeld();
    }
    this.closed = true;
    this.worker.postMessage({ ops, seq: ++this.sent, close: true, retry: holding });
    this.wait();
    const left = this.held.concat(this.waiting);
    if (left.length > 0) {
      this.lose(left, 'the store was closed while writes still failed');
      this.held = [];
      this.waiting = [];
      this.heldBytes = 0;
      this.waitingBytes = 0;
    }
    this.holding = false;
    this.updateGauges();
  }

  /** Keeps what is held under `maxHeldBytes`: details of the oldest matches first, then whole rows. */
  private bound(): void {
    // The oldest rows are on their way to the writer in a retry, out of reach here: cutting now
    // would take newer rows before them. The retry's answer (written, or given back) comes soon
    // and bounds everything in order.
    if (this.retryInFlight) return;
    const max = this.o.maxHeldBytes;
    const total = this.heldBytes + this.waitingBytes;
    if (total <= max) return;
    let toFree = total - Math.floor(max * 0.75);
    const lostDetail: Op[] = [];
    const perMatch = new Map<string, { events: number; wire: number }>();
    const shed = (ops: Op[]): Op[] =>
      ops.filter((op) => {
        if (toFree <= 0 || !DETAIL.has(op[0]) || op[5] === LOST_EVENT) return true;
        const b = opBytes(op);
        toFree -= b;
        lostDetail.push(op);
        const id = op[1];
        if (typeof id === 'string') {
          const m = perMatch.get(id) ?? { events: 0, wire: 0 };
          if (op[0] === 'event') m.events++;
          else m.wire++;
          perMatch.set(id, m);
        }
        return false;
      });
    this.held = shed(this.held);
    this.waiting = shed(this.waiting);
    // Each match that lost rows says so: an event `records-lost`, written after its match row.
    const size = max >= 1048576 ? `${Math.round(max / 1048576)} MiB` : `${Math.round(max / 1024)} KiB`;
    const why = `records held in memory exceeded ${size} while writes failed (${this.lastError?.code ?? 'write error'})`;
    const at = Date.now();
    for (const [id, m] of perMatch) this.waiting.push(this.o.lostNote(id, JSON.stringify({ events: m.events, wireRows: m.wire, reason: why }), at));
    this.heldBytes = sumBytes(this.held);
    this.waitingBytes = sumBytes(this.waiting);
    if (lostDetail.length > 0) this.lose(lostDetail, why, perMatch.size);
    // Only match rows, seats and ends left, and still too much: the oldest rows go, whatever they are.
    if (this.heldBytes + this.waitingBytes > max) {
      const all = this.held.concat(this.waiting);
      let free = this.heldBytes + this.waitingBytes - Math.floor(max * 0.75);
      let cut = 0;
      while (cut < all.length && free > 0) free -= opBytes(all[cut++] as Op);
      const gone = all.slice(0, cut);
      this.held = all.slice(cut);
      this.waiting = [];
      this.heldBytes = sumBytes(this.held);
      this.waitingBytes = 0;
      this.lose(gone, why);
    }
  }

  private lose(ops: Op[], why: string, marked = 0): void {
    const matches = new Set<string>();
    for (const op of ops) if (typeof op[1] === 'string' && op[0] !== 'score' && op[0] !== 'lost') matches.add(op[1]);
    for (const op of ops) if (op[0] === 'finish' && typeof op[4] === 'string') matches.add(op[4]);
    this.totals.lost += ops.length;
    recordsRows.inc({ outcome: 'lost' }, ops.length);
    this.o.notify({ kind: 'lost', rows: ops.length, bytes: sumBytes(ops), matches: matches.size, matchIds: [...matches].slice(0, 20), marked, why });
  }

  /** The gauges are the process's: over every open store (one in `serve`, several in tests). */
  private updateGauges(): void {
    let failing = 0;
    let rows = 0;
    for (const w of OPEN) {
      if (w.holding) failing = 1;
      rows += w.held.length + w.waiting.length + w.retrying.rows;
    }
    recordsWriteFailing.set(failing);
    recordsHeldRows.set(rows);
  }
}
