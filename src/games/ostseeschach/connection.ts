import type { Clock, Timer } from '../../core/clock.js';
import { guard } from '../../core/guard.js';
import { connectionLogger, houseLogger, logWire, type Logger } from '../../core/log.js';
import { badInputTotal, messagesTotal } from '../../core/metrics.js';
import type { Records } from '../../core/record-backend.js';
import type { Lobby, LobbyPeer } from './lobby.js';
import type { DisconnectCause } from './messages.js';
import {
  attr,
  formatServer,
  parseClient,
  STREAM_CLOSE,
  STREAM_EMPTY,
  STREAM_OPEN,
  type ServerPacket,
} from './protocol.js';
import { XmlStreamParser, type XmlEvent, type XmlLimits } from './xml/parser.js';

/**
 * One client connection: bytes in → stream parser → packets → lobby; packets out → bytes. This is
 * the only place that knows about the stream: the `<protocol>` before the first packet, the
 * closing of the stream, and how each way of leaving is reported (spec §3.1, §3.5):
 * - `<sc.protocol.CloseConnection/>`: RECEIVED_DISCONNECT, answered with `\n</protocol>`;
 * - `</protocol>` or end of stream: LOST_CONNECTION, the stream just ends (issue #16), except for
 *   a `</protocol>` after the client's game ended with `<left>`: `\n</protocol>` as recorded in
 *   `join-invalid-then-CloseConnection`;
 * - an unknown element or broken XML: PROTOCOL_ERROR, the stream just ends.
 * A connection that has not become a participant (joined a room, redeemed a reservation or
 * authenticated as administrator) within `joinTimeoutMs` is stopped the way the official server
 * stops a client: `<sc.protocol.CloseConnection/>` and the end of the stream.
 */

/** The byte side of a connection: a TCP socket, or an in-memory pipe in tests. */
export interface Transport {
  write(data: string): void;
  /** Flushes what was written, then closes. */
  end(): void;
}

export interface ConnectionOptions {
  readonly id: string;
  /** The remote IP (fair share per host); `id` when not given. */
  readonly host?: string | undefined;
  readonly lobby: Lobby;
  readonly transport: Transport;
  readonly log: Logger;
  readonly store: Records | null;
  readonly clock: Clock;
  readonly limits?: Partial<XmlLimits> | undefined;
  /** Time to join, redeem a reservation or authenticate before the server closes the connection (0: none). */
  readonly joinTimeoutMs?: number | undefined;
  readonly onClosed?: ((connection: Connection) => void) | undefined;
  /**
   * Runs the rest of a long run of packets later (a socket: `setImmediate`, guarded), so that
   * one client's flood never holds up the others' games. Without it (in-memory tests) every
   * packet is handled at once.
   */
  readonly defer?: ((rest: () => void) => void) | undefined;
}

const GAME = 'ostseeschach';
const inCounter = messagesTotal.labels({ game: GAME, dir: 'in' });
const outCounter = messagesTotal.labels({ game: GAME, dir: 'out' });
/** How much of unreadable input goes into logs and wire records (characters). */
export const SHOWN = 500;
/**
 * Wire messages, in and out, recorded per connection outside any game (lobby requests and their
 * errors, unreadable input); beyond this they are only counted, and the count is recorded when
 * the connection ends (issue #15: a never-joining flood of requests filled the store).
 */
export const MAX_UNMATCHED_WIRE = 200;
/** Packets a socket connection handles before it lets other connections in. */
export const PACKETS_PER_TURN = 64;
/**
 * Packets (and other parser events) read but not yet handled, at most: a client that gets this
 * far ahead of the server is dropped as for a limit exceeded (PROTOCOL_ERROR). The official
 * client sends one packet and waits for the answer.
 */
export const MAX_PENDING_PACKETS = 8192;

export class Connection implements LobbyPeer {
  readonly id: string;
  readonly host: string;
  admin = false;
  private closed = false;
  private failed = false;
  private sentAny = false;
  /** The last room packet this client got was `<left>`: its game is over and no other started. */
  private afterLeft = false;
  /** Joined a room, redeemed a reservation or authenticated: no join timeout any more. */
  private participant = false;
  private joinTimer: Timer | null = null;
  private unmatchedRecorded = 0;
  private unmatchedDropped = 0;
  /** Parsed input not handled yet (with the chunk it came in, for the record of unreadable input). */
  private queue: { event: XmlEvent; chunk: Uint8Array | string }[] = [];
  private queueAt = 0;
  private draining = false;
  /** The client's end of the stream came while packets before it were still queued. */
  private lostAfterQueue = false;
  private readonly parser: XmlStreamParser;
  private log: Logger;
  private quieted = false;

  constructor(private readonly o: ConnectionOptions) {
    this.id = o.id;
    this.host = o.host ?? o.id;
    this.parser = new XmlStreamParser(o.limits);
    this.log = connectionLogger(o.log, { game: GAME, conn: o.id });
    this.log.debug('connected');
    const ms = o.joinTimeoutMs ?? 0;
    if (ms > 0)
      this.joinTimer = o.clock.setTimeout(
        guard(this.log, 'ostseeschach join timeout', () => this.joinTimedOut(), () => this.fail()),
        ms,
      );
  }

  /** One of the house games' own connections: its routine info lines go out at debug (core/log.ts). */
  quiet(): void {
    if (this.quieted) return;
    this.quieted = true;
    this.log = houseLogger(this.log);
  }

  /** Its ladder reservation was admitted (issue 34): it waits for its game, with no join timeout. */
  hold(): void {
    this.becameParticipant();
  }

  /** Whether this connection has joined, redeemed or authenticated (and so has no join timeout). */
  get isParticipant(): boolean {
    return this.participant;
  }

  private becameParticipant(): void {
    if (this.participant) return;
    this.participant = true;
    this.joinTimer?.cancel();
    this.joinTimer = null;
  }

  private joinTimedOut(): void {
    this.joinTimer = null;
    if (this.closed || this.participant) return;
    this.log.info({ joinTimeoutMs: this.o.joinTimeoutMs }, 'no join in time: closing the connection');
    this.shutdown();
    this.o.lobby.disconnected(this, 'TIMEOUT');
  }

  get open(): boolean {
    return !this.closed;
  }

  private isOpen(): boolean {
    return !this.closed;
  }

  send(packet: ServerPacket, matchId: string | null): void {
    if (this.closed) return;
    // The official writer flushes its `<protocol` start tag with the first packet only.
    const text = (this.sentAny ? '' : STREAM_OPEN) + formatServer(packet);
    this.sentAny = true;
    if (packet.type === 'joined') this.becameParticipant();
    if (packet.type === 'joined' || packet.type === 'left') this.afterLeft = packet.type === 'left';
    this.write(text, matchId);
  }

  private write(data: string, matchId: string | null): void {
    outCounter.inc();
    logWire(this.log, 'out', data);
    this.record(matchId, 'out', data);
    this.o.transport.write(data);
  }

  /** Adds a wire message to the record store; outside a game only the first MAX_UNMATCHED_WIRE. */
  private record(matchId: string | null, dir: 'in' | 'out', data: string): void {
    const store = this.o.store;
    if (!store) return;
    if (matchId === null) {
      if (this.unmatchedRecorded >= MAX_UNMATCHED_WIRE) {
        this.unmatchedDropped++;
        return;
      }
      this.unmatchedRecorded++;
    }
    store.addWire({ matchId, game: GAME, conn: this.id, at: this.o.clock.now(), dir, data });
  }

  /** At the end of the connection: how many of its messages outside a game were not recorded. */
  private recordDropped(): void {
    if (this.unmatchedDropped === 0) return;
    const n = this.unmatchedDropped;
    this.unmatchedDropped = 0;
    this.o.store?.addWire({
      matchId: null,
      game: GAME,
      conn: this.id,
      at: this.o.clock.now(),
      dir: 'in',
      data: `<!-- ${n} more messages of this connection outside a game, in and out, not recorded -->`,
    });
  }

  /** Bytes from the client, split anywhere. */
  receive(chunk: Uint8Array | string): void {
    if (this.closed) return;
    for (const event of this.parser.write(chunk)) this.queue.push({ event, chunk });
    if (this.queue.length - this.queueAt > MAX_PENDING_PACKETS) {
      badInputTotal.inc({ game: GAME, reason: 'too-many-pending' });
      this.log.info({ pending: this.queue.length - this.queueAt }, 'too many packets ahead of the server: dropping the client');
      this.dropQueue();
      this.disconnect('PROTOCOL_ERROR');
      return;
    }
    if (!this.draining) this.drain();
  }

  /** Handles the queued input: all of it, or with `defer` PACKETS_PER_TURN at a time. */
  private drain(): void {
    const defer = this.o.defer;
    let handled = 0;
    while (this.queueAt < this.queue.length && this.isOpen()) {
      if (defer && handled >= PACKETS_PER_TURN) {
        if (this.queueAt >= MAX_PENDING_PACKETS) {
          this.queue = this.queue.slice(this.queueAt);
          this.queueAt = 0;
        }
        this.draining = true;
        defer(() => this.drain());
        return;
      }
      const next = this.queue[this.queueAt++] as { event: XmlEvent; chunk: Uint8Array | string };
      handled++;
      this.handle(next.event, next.chunk);
    }
    this.dropQueue();
    this.draining = false;
    if (this.lostAfterQueue) this.disconnect('LOST_CONNECTION');
  }

  private dropQueue(): void {
    this.queue = [];
    this.queueAt = 0;
  }

  private handle(event: XmlEvent, chunk: Uint8Array | string): void {
    switch (event.type) {
      case 'open':
        // XStream takes the first element as the root whatever its name (spec §3.1).
        if (event.name !== 'protocol') this.log.info({ root: event.name }, 'stream root is not <protocol>');
        break;
      case 'packet': {
        inCounter.inc();
        const roomId = event.element.name === 'room' ? attr(event.element, 'roomId') : null;
        this.recordIn(event.raw, roomId);
        const parsed = parseClient(event.element);
        if (!parsed.ok) {
          badInputTotal.inc({ game: GAME, reason: parsed.error.code });
          this.log.info({ error: parsed.error.message }, 'protocol error: dropping the client');
          this.disconnect('PROTOCOL_ERROR');
        } else if (parsed.value.type === 'closeConnection') this.disconnect('RECEIVED_DISCONNECT');
        else {
          this.o.lobby.handle(this, parsed.value);
          if (this.admin) this.becameParticipant();
        }
        break;
      }
      case 'close':
        this.recordIn('</protocol>', null);
        this.disconnect('LOST_CONNECTION', this.afterLeft);
        break;
      case 'error': {
        badInputTotal.inc({ game: GAME, reason: event.code });
        // Only the start is decoded: a UTF-8 character takes at most 4 bytes.
        const text =
          typeof chunk === 'string'
            ? chunk.slice(0, SHOWN + 1)
            : Buffer.from(chunk.buffer, chunk.byteOffset, Math.min(chunk.byteLength, 4 * (SHOWN + 1))).toString('utf8');
        this.recordIn(text.length > SHOWN ? text.slice(0, SHOWN) + '…' : text, null);
        this.log.info({ code: event.code, error: event.message }, 'unreadable XML: dropping the client');
        this.disconnect('PROTOCOL_ERROR');
        break;
      }
    }
  }

  private recordIn(data: string, roomId: string | null): void {
    logWire(this.log, 'in', data);
    const matchId = this.o.lobby.matchIdFor(roomId) ?? this.o.lobby.matchIdOf(this);
    this.record(matchId, 'in', this.o.lobby.redact(data));
  }

  /**
   * The client's end of the stream (FIN, `finished`: what it sent before is handled first) or a
   * socket that is gone (the rest of its input is dropped).
   */
  remoteClosed(finished = false): void {
    if (this.draining && finished) this.lostAfterQueue = true;
    else {
      this.dropQueue();
      this.disconnect('LOST_CONNECTION');
    }
  }

  /**
   * Ends the connection with `cause` and tells the lobby, which ends this client's games. Like
   * the official server, the stream is closed first, so the leaver gets no result. Only a
   * CloseConnection (and a `</protocol>` after `<left>`, `closeStream`) gets the end of the stream.
   */
  disconnect(cause: DisconnectCause, closeStream = cause === 'RECEIVED_DISCONNECT'): void {
    if (this.closed) return;
    if (closeStream) this.write(this.sentAny ? STREAM_CLOSE : STREAM_EMPTY, this.o.lobby.matchIdOf(this));
    this.closed = true;
    this.clearJoinTimer();
    this.recordDropped();
    this.o.transport.end();
    this.log.info({ cause }, 'disconnected');
    this.o.lobby.disconnected(this, cause);
    this.o.onClosed?.(this);
  }

  /**
   * Server stop (and a connection that never joined): CloseConnection and the end of the stream,
   * as the official Client.stop() does.
   */
  shutdown(): void {
    if (this.closed) return;
    this.send({ type: 'closeConnection' }, null);
    this.write(STREAM_CLOSE, null);
    this.closed = true;
    this.clearJoinTimer();
    this.recordDropped();
    this.o.transport.end();
    this.o.onClosed?.(this);
  }

  /**
   * A bug in our code while serving this connection: its games end as aborted (internal error),
   * and its stream just ends (as after a protocol error). Never throws.
   */
  fail(): void {
    if (this.failed) return;
    this.failed = true;
    const wasClosed = this.closed;
    this.closed = true;
    this.clearJoinTimer();
    for (const step of [
      () => {
        if (!wasClosed) this.o.transport.end();
      },
      () => this.o.lobby.failed(this),
      () => this.recordDropped(),
      () => this.o.onClosed?.(this),
    ]) {
      try {
        step();
      } catch (error) {
        this.log.error({ err: error }, 'could not close a failed connection cleanly');
      }
    }
    this.log.warn('connection closed after an internal error');
  }

  private clearJoinTimer(): void {
    this.joinTimer?.cancel();
    this.joinTimer = null;
  }
}
