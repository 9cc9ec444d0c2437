import type { Clock } from '../../core/clock.js';
import { connectionLogger, logWire, type Logger } from '../../core/log.js';
import { badInputTotal, messagesTotal } from '../../core/metrics.js';
import type { RecordStore } from '../../core/records.js';
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
import { XmlStreamParser, type XmlLimits } from './xml/parser.js';

/**
 * One client connection: bytes in → stream parser → packets → lobby; packets out → bytes. This is
 * the only place that knows about the stream: the `<protocol>` before the first packet, the
 * closing of the stream, and how each way of leaving is reported (spec §3.1, §3.5):
 * - `<sc.protocol.CloseConnection/>`: RECEIVED_DISCONNECT, answered with `\n</protocol>`;
 * - `</protocol>` or end of stream: LOST_CONNECTION, answered the same way;
 * - an unknown element or broken XML: PROTOCOL_ERROR, the stream just ends.
 */

/** The byte side of a connection: a TCP socket, or an in-memory pipe in tests. */
export interface Transport {
  write(data: string): void;
  /** Flushes what was written, then closes. */
  end(): void;
}

export interface ConnectionOptions {
  readonly id: string;
  readonly lobby: Lobby;
  readonly transport: Transport;
  readonly log: Logger;
  readonly store: RecordStore | null;
  readonly clock: Clock;
  readonly limits?: Partial<XmlLimits> | undefined;
  readonly onClosed?: ((connection: Connection) => void) | undefined;
}

const GAME = 'ostseeschach';
const inCounter = messagesTotal.labels({ game: GAME, dir: 'in' });
const outCounter = messagesTotal.labels({ game: GAME, dir: 'out' });
/** How much of unreadable input goes into logs and wire records. */
const SHOWN = 2000;

export class Connection implements LobbyPeer {
  readonly id: string;
  admin = false;
  private closed = false;
  private sentAny = false;
  private readonly parser: XmlStreamParser;
  private readonly log: Logger;

  constructor(private readonly o: ConnectionOptions) {
    this.id = o.id;
    this.parser = new XmlStreamParser(o.limits);
    this.log = connectionLogger(o.log, { game: GAME, conn: o.id });
    this.log.debug('connected');
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
    this.write(text, matchId);
  }

  private write(data: string, matchId: string | null): void {
    outCounter.inc();
    logWire(this.log, 'out', data);
    this.o.store?.addWire({ matchId, game: GAME, conn: this.id, at: this.o.clock.now(), dir: 'out', data });
    this.o.transport.write(data);
  }

  /** Bytes from the client, split anywhere. */
  receive(chunk: Uint8Array | string): void {
    if (this.closed) return;
    for (const event of this.parser.write(chunk)) {
      // A packet handled before may have closed this connection.
      if (!this.isOpen()) return;
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
          else this.o.lobby.handle(this, parsed.value);
          break;
        }
        case 'close':
          this.recordIn('</protocol>', null);
          this.disconnect('LOST_CONNECTION');
          break;
        case 'error': {
          badInputTotal.inc({ game: GAME, reason: event.code });
          const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
          this.recordIn(text.length > SHOWN ? text.slice(0, SHOWN) + '…' : text, null);
          this.log.info({ code: event.code, error: event.message }, 'unreadable XML: dropping the client');
          this.disconnect('PROTOCOL_ERROR');
          break;
        }
      }
    }
  }

  private recordIn(data: string, roomId: string | null): void {
    logWire(this.log, 'in', data);
    const matchId = this.o.lobby.matchIdFor(roomId) ?? this.o.lobby.matchIdOf(this);
    this.o.store?.addWire({ matchId, game: GAME, conn: this.id, at: this.o.clock.now(), dir: 'in', data });
  }

  /** The client's end of the stream (FIN) or a broken socket. */
  remoteClosed(): void {
    this.disconnect('LOST_CONNECTION');
  }

  /**
   * Ends the connection with `cause` and tells the lobby, which ends this client's games. Like
   * the official server, the stream is closed first, so the leaver gets no result.
   */
  disconnect(cause: DisconnectCause): void {
    if (this.closed) return;
    if (cause !== 'PROTOCOL_ERROR')
      this.write(this.sentAny ? STREAM_CLOSE : STREAM_EMPTY, this.o.lobby.matchIdOf(this));
    this.closed = true;
    this.o.transport.end();
    this.log.info({ cause }, 'disconnected');
    this.o.lobby.disconnected(this, cause);
    this.o.onClosed?.(this);
  }

  /** Server stop: CloseConnection and the end of the stream, as the official ClientManager does. */
  shutdown(): void {
    if (this.closed) return;
    this.send({ type: 'closeConnection' }, null);
    this.write(STREAM_CLOSE, null);
    this.closed = true;
    this.o.transport.end();
    this.o.onClosed?.(this);
  }
}
