import type { Socket } from 'node:net';
import type { Clock, Timer } from '../../core/clock.js';
import { INTERNAL_ERROR, guard } from '../../core/guard.js';
import { connectionLogger, logWire, type Logger } from '../../core/log.js';
import { badInputTotal, messagesTotal } from '../../core/metrics.js';
import type { Records } from '../../core/record-backend.js';
import { JsonObjectReader } from './json-reader.js';
import type { Hall } from './lobby.js';
import type { Peer } from './match.js';
import { MAX_MESSAGE_BYTES, MELDUNG_SERVER, Outgoing, parseClient } from './protocol.js';
import type { Lobby, Session } from './session.js';

/**
 * One TCP client: bytes → JSON objects → client messages → the hall; server messages → lines.
 * Bad input is answered with `Fehler` (`Ungueltige Nachricht`) and skipped; an object over 64 KiB
 * (D10), a flood beyond the rate limit, a client that stops reading or sends no Hallo in time is
 * disconnected, which the hall handles like any lost connection (D9). An exception in anything a
 * socket event or timer of the connection runs closes this connection (a game it plays in is ended
 * by the match's own boundary), never the server.
 */

export interface ConnectionLimits {
  /** Messages a second a client may send; a burst of twice that is allowed. Beyond, lines are dropped, and
   * a client that keeps going after another such burst is disconnected. */
  readonly floodPerSecond: number;
  /** Output a client may leave unread before it is disconnected. */
  readonly maxOutputBytes: number;
  /** Time to answer the server's Hallo. */
  readonly helloTimeoutMs: number;
  /** How long a closed connection may stay half-open. */
  readonly lingerMs: number;
  /** Metrics hook: time from reading a chunk to having written every line it caused. */
  readonly onHandled?: ((ms: number) => void) | undefined;
}

const GAME = 'catan';
const inCounter = messagesTotal.labels({ game: GAME, dir: 'in' });
const outCounter = messagesTotal.labels({ game: GAME, dir: 'out' });
const SHOWN = 2000;
/**
 * Wire entries, in and out, recorded per connection while it is in no game (Hallo, lobby, refused
 * input and its `Fehler`); beyond this they are only counted, and the count is recorded when the
 * connection ends (issue 15: random bytes from one host grew the store by ~2 MiB a second).
 */
export const MAX_UNMATCHED_WIRE = 200;

export class Connection implements Peer {
  readonly conn: string;
  matchId: string | null = null;
  private readonly session: Session;
  private readonly reader = new JsonObjectReader(MAX_MESSAGE_BYTES);
  private readonly log: Logger;
  private closed = false;
  /** Lines waiting for the end of the current step. */
  private pending: string | null = null;
  private sent = 0;
  private tokens: number;
  private at: number;
  private dropped = 0;
  private unmatchedRecorded = 0;
  private unmatchedDropped = 0;
  private helloTimer: Timer | null;
  private readonly flushGuarded: () => void;

  constructor(
    private readonly socket: Socket,
    address: string,
    private readonly hall: Hall,
    private readonly o: {
      /** The remote IP as the per-host caps count it; null: not counted (the dashboard's gateway). */
      readonly host: string | null;
      readonly log: Logger;
      readonly store: Records | null;
      readonly clock: Clock;
      readonly limits: ConnectionLimits;
      /** The prepared game this connection came for (a tournament match's own listener); null: the open lobby. */
      readonly target?: Lobby | null | undefined;
      /**
       * A connection of the ladder port (ladder-door.ts): its `Spieler` name is a ladder code, a
       * student's secret, which the record store keeps as `(Liga-Code)` (`isCode`).
       */
      readonly ladder?: { isCode(code: string): boolean } | undefined;
    },
  ) {
    this.conn = address;
    this.log = connectionLogger(o.log, { game: GAME, conn: address });
    this.tokens = o.limits.floodPerSecond * 2;
    this.at = o.clock.now();
    this.log.debug('connected');
    this.flushGuarded = this.guarded('flush', () => this.flush());
    this.helloTimer = o.clock.setTimeout(
      this.guarded('hello timer', () => {
        this.helloTimer = null;
        if (this.session.id === null) this.close('no Hallo in time');
      }),
      o.limits.helloTimeoutMs,
    );
    this.session = hall.connect(this, address, 'human', o.target ?? null, o.host, false);
    if (o.ladder !== undefined) this.session.ladder = { ticket: null, code: null };
    socket.on(
      'data',
      this.guarded('input', (chunk: Buffer) => this.receive(chunk)),
    );
    socket.on(
      'close',
      guard(this.log, 'connection close', () => this.gone()),
    );
    socket.on('error', (err) => this.log.debug({ err: err.message }, 'socket error'));
  }

  /** `fn` behind an error boundary that closes this connection. */
  private guarded<A extends unknown[]>(what: string, fn: (...args: A) => unknown): (...args: A) => void {
    return guard(this.log, what, fn, () => this.close(INTERNAL_ERROR));
  }

  get open(): boolean {
    return !this.closed;
  }

  deliver(out: Outgoing): void {
    if (this.closed || this.socket.destroyed) return;
    const line = out.line;
    this.sent++;
    logWire(this.log, 'out', line);
    // The lines of one step leave in one write, and go to the record as one entry: a row per line
    // kept the record store's writer thread busy a whole core at 40 concurrent games.
    if (this.pending === null) {
      this.pending = line + '\n';
      process.nextTick(this.flushGuarded);
    } else this.pending += line + '\n';
  }

  private flush(): void {
    const text = this.pending;
    this.pending = null;
    // Counted per write: the metrics library is slow per call.
    if (this.sent > 0) outCounter.inc(this.sent);
    this.sent = 0;
    if (text === null) return;
    this.record('out', text.slice(0, -1));
    if (this.socket.destroyed) return;
    this.socket.write(text);
    if (this.socket.writableLength > this.o.limits.maxOutputBytes) {
      this.log.warn({ buffered: this.socket.writableLength }, 'client does not read: disconnecting');
      this.socket.destroy();
    }
  }

  /** After `Spiel beendet` (or a refused Hallo): flush and close (D8). */
  end(): void {
    this.close('game over');
  }

  private close(why: string): void {
    if (this.closed) return;
    this.closed = true;
    this.helloTimer?.cancel();
    this.log.debug({ why }, 'closing');
    this.flush();
    this.socket.end();
    const linger = setTimeout(() => this.socket.destroy(), this.o.limits.lingerMs);
    linger.unref();
    // The hall hears of it at once, not when the client gets round to closing its end.
    setImmediate(guard(this.log, 'connection gone', () => this.gone()));
  }

  private gone(): void {
    this.closed = true;
    this.helloTimer?.cancel();
    this.recordDropped();
    this.hall.disconnected(this.session);
  }

  /** Adds a wire entry to the record store; outside a game only the first MAX_UNMATCHED_WIRE. */
  private record(dir: 'in' | 'out', data: string): void {
    const store = this.o.store;
    if (!store) return;
    if (this.matchId === null) {
      if (this.unmatchedRecorded >= MAX_UNMATCHED_WIRE) {
        this.unmatchedDropped++;
        return;
      }
      this.unmatchedRecorded++;
    }
    store.addWire({ matchId: this.matchId, game: GAME, conn: this.conn, at: this.o.clock.now(), dir, data });
  }

  /** At the end of the connection: how many of its entries outside a game were not recorded. */
  private recordDropped(): void {
    if (this.unmatchedDropped === 0) return;
    const n = this.unmatchedDropped;
    this.unmatchedDropped = 0;
    this.o.store?.addWire({ matchId: null, game: GAME, conn: this.conn, at: this.o.clock.now(), dir: 'in', data: `(${n} more entries of this connection outside a game, in and out, not recorded)` });
  }

  /** Token bucket; false drops the message. A client deep in debt is cut off. */
  private admit(): boolean {
    const now = this.o.clock.now();
    const rate = this.o.limits.floodPerSecond;
    this.tokens = Math.min(rate * 2, this.tokens + ((now - this.at) * rate) / 1000);
    this.at = now;
    this.tokens -= 1;
    if (this.tokens >= 0) return true;
    this.dropped++;
    badInputTotal.inc({ game: GAME, reason: 'flood' });
    if (this.dropped === 1) this.log.warn('flood: dropping messages');
    if (this.tokens < -rate * 2) {
      this.log.warn({ dropped: this.dropped }, 'flood: disconnecting');
      this.close('flood');
    }
    return false;
  }

  private recordIn(data: string): void {
    logWire(this.log, 'in', data);
    this.record('in', this.redact(data));
  }

  /** A ladder code given as a name, as the record store keeps it: `(Liga-Code)` (records are public). */
  private redact(text: string): string {
    const door = this.o.ladder;
    if (door === undefined || !text.includes('Name')) return text;
    return text.replace(/"Name"(\s*):(\s*)"([^"\\]*)"/g, (all: string, a: string, b: string, name: string) =>
      door.isCode(name) ? `"Name"${a}:${b}"(Liga-Code)"` : all,
    );
  }

  private receive(chunk: Buffer): void {
    const onHandled = this.o.limits.onHandled;
    const t0 = onHandled ? performance.now() : 0;
    this.handle(chunk);
    // Queued after the flushes of every line the chunk caused, so it runs once they are written.
    if (onHandled) process.nextTick(guard(this.log, 'onHandled', () => onHandled(performance.now() - t0)));
  }

  private handle(chunk: Buffer): void {
    if (this.closed) return;
    const items = this.reader.push(chunk);
    if (items.length > 0) inCounter.inc(items.length);
    for (const item of items) {
      // Handling the last message may have closed the connection.
      if (!this.open) return;
      if (item.kind === 'overlong') {
        badInputTotal.inc({ game: GAME, reason: 'overlong' });
        this.recordIn(`(${item.bytes} bytes without the end of an object)`);
        this.log.info({ bytes: item.bytes }, 'object over 64 KiB: disconnecting');
        this.close('overlong');
        return;
      }
      if (!this.admit()) continue;
      if (item.kind === 'invalid') {
        badInputTotal.inc({ game: GAME, reason: item.reason });
        this.recordIn(item.sample);
        this.refuse(`unreadable input (${item.reason})`);
        continue;
      }
      this.recordIn(item.text.length > SHOWN ? item.text.slice(0, SHOWN) + '…' : item.text);
      const parsed = parseClient(item.value);
      if (!parsed.ok) {
        badInputTotal.inc({ game: GAME, reason: parsed.error.code });
        this.refuse(parsed.error.detail);
        continue;
      }
      if (parsed.value.type === 'hello') {
        this.helloTimer?.cancel();
        this.helloTimer = null;
      }
      this.hall.receive(this.session, parsed.value);
    }
  }

  private refuse(detail: string): void {
    this.log.debug({ detail }, 'Ungueltige Nachricht');
    this.deliver(new Outgoing({ type: 'error', message: MELDUNG_SERVER.invalidMessage }));
  }
}
