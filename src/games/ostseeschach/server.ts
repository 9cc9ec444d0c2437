import type { Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { TcpEndpoint } from '../../core/tcp.js';
import { guard } from '../../core/guard.js';
import { hostOf } from '../../core/hosts.js';
import { systemClock, type Clock } from '../../core/clock.js';
import {
  EventHub,
  type GameServer,
  type ServerInfo,
  type SpectatorEvent,
} from '../../core/game-server.js';
import type { Logger } from '../../core/log.js';
import type { Records } from '../../core/record-backend.js';
import { Connection, type Transport } from './connection.js';
import type { OstseeschachLadderDoor } from './ladder-door.js';
import { Lobby } from './lobby.js';
import type { State } from './rules.js';
import type { OstseeschachSnapshot } from './snapshot.js';
import type { XmlLimits } from './xml/parser.js';

/**
 * The Ostseeschach TCP server: byte-compatible with the official Software-Challenge 2022 server
 * (spec §3). Sockets only move bytes; the lobby, the rooms and their timers do the rest.
 */

export interface OstseeschachServerOptions {
  host: string;
  /** 13050 officially; 0 picks a free port. */
  port: number;
  /** server.properties `password`; the official default is `examplepassword`. */
  adminPassword: string;
  /** A late move is a SOFT_TIMEOUT (official: 2000 ms). */
  softTimeoutMs: number;
  /** No move at all ends the game (official: 10000 ms). */
  hardTimeoutMs: number;
  /** server.properties `paused`: rooms created by `join` start paused. */
  paused: boolean;
  seed: string | number;
  log: Logger;
  store: Records | null;
  clock?: Clock | undefined;
  /** Connections at once; more are refused. */
  maxConnections?: number | undefined;
  /** Connections one remote IP may hold at once (0: no cap); more are closed without a word. */
  maxConnectionsPerHost?: number | undefined;
  /** Bytes a second one client IP may send (0: no budget); see TcpListenOptions. */
  maxInputBytesPerSecondPerHost?: number | undefined;
  /** Rooms at once; a join or prepare beyond gets an errorpacket. */
  maxRooms?: number | undefined;
  /** Open rooms one remote IP may have created by join or prepare (0: no cap); beyond: an errorpacket. */
  maxRoomsPerHost?: number | undefined;
  /** A connection that has not joined, redeemed a code or authenticated by then is closed (0: never). */
  joinTimeoutMs?: number | undefined;
  /** A prepared room no player has joined by then is closed (0: never). */
  preparedRoomTimeoutMs?: number | undefined;
  /** A client that lets this much output pile up unread is disconnected. */
  maxOutputBytes?: number | undefined;
  /** How long an ended connection may stay half-open before its socket is destroyed. */
  lingerMs?: number | undefined;
  limits?: Partial<XmlLimits> | undefined;
  /** Test hooks: room ids and reservation codes (random UUIDs otherwise) and start positions. */
  roomIds?: (() => string) | undefined;
  reservationCodes?: (() => string) | undefined;
  startPosition?: ((roomIndex: number) => State | undefined) | undefined;
}

export const OSTSEESCHACH_DEFAULTS = {
  host: '127.0.0.1',
  port: 13050,
  adminPassword: 'examplepassword',
  softTimeoutMs: 2000,
  hardTimeoutMs: 10_000,
  paused: false,
  maxConnections: 500,
  /** 10 % of maxConnections. */
  maxConnectionsPerHost: 50,
  maxRooms: 250,
  /** 10 % of maxRooms. */
  maxRoomsPerHost: 25,
  joinTimeoutMs: 30_000,
  preparedRoomTimeoutMs: 600_000,
  maxOutputBytes: 4 * 1024 * 1024,
  lingerMs: 2000,
} as const;

const GAME = 'ostseeschach';

export class OstseeschachServer implements GameServer {
  readonly game = GAME;
  private readonly tcp: TcpEndpoint;
  private readonly hub = new EventHub();
  private readonly clock: Clock;
  private readonly log: Logger;
  readonly lobby: Lobby;
  /** The house games' administrator password: random, in this process only (see LobbyOptions). */
  readonly housePassword = randomBytes(24).toString('base64url');
  private readonly connections = new Set<Connection>();
  private readonly sockets = new Set<Socket>();
  private connectionCount = 0;

  constructor(private readonly o: OstseeschachServerOptions) {
    this.clock = o.clock ?? systemClock;
    this.log = o.log.child({ game: GAME });
    // Half-open: a client's FIN is a LOST_CONNECTION; its socket is ended by the connection, not by Node.
    this.tcp = new TcpEndpoint({
      host: o.host,
      port: o.port,
      server: { allowHalfOpen: true, noDelay: true },
      maxConnections: o.maxConnections ?? OSTSEESCHACH_DEFAULTS.maxConnections,
      // The official server has no message for a refused connection: it is just closed, at once.
      // A refused socket left to linger still counts against maxConnections, so a host hammering
      // its cap would lock everyone else out (the house games' own connections among them).
      maxConnectionsPerHost: o.maxConnectionsPerHost ?? OSTSEESCHACH_DEFAULTS.maxConnectionsPerHost,
      onRefused: (socket) => socket.destroy(),
      maxInputBytesPerSecondPerHost: o.maxInputBytesPerSecondPerHost,
      log: this.log,
      onSocket: (socket) => this.accept(socket),
    });
    this.lobby = new Lobby({
      adminPassword: o.adminPassword,
      housePassword: this.housePassword,
      softTimeoutMs: o.softTimeoutMs,
      hardTimeoutMs: o.hardTimeoutMs,
      paused: o.paused,
      maxRooms: o.maxRooms ?? OSTSEESCHACH_DEFAULTS.maxRooms,
      maxRoomsPerHost: o.maxRoomsPerHost ?? OSTSEESCHACH_DEFAULTS.maxRoomsPerHost,
      preparedRoomTimeoutMs: o.preparedRoomTimeoutMs ?? OSTSEESCHACH_DEFAULTS.preparedRoomTimeoutMs,
      seed: String(o.seed),
      clock: this.clock,
      log: this.log,
      store: o.store,
      roomIds: o.roomIds,
      reservationCodes: o.reservationCodes,
      startPosition: o.startPosition,
      publish: (type, data) => this.hub.publish({ game: GAME, type, at: this.clock.now(), data }),
    });
  }

  async start(): Promise<void> {
    // `serve` logs the one `listening` line of every server.
    await this.tcp.open();
  }

  async stop(): Promise<void> {
    this.lobby.stop();
    for (const c of [...this.connections]) {
      try {
        c.shutdown();
      } catch (err) {
        this.log.error({ err, conn: c.id }, 'could not end a connection on stop');
        c.fail();
      }
    }
    // Clients get a moment to read the end of their stream, then the sockets go.
    await this.tcp.close(() => this.sockets, { graceMs: 500 });
    await this.o.store?.drain();
  }

  get port(): number {
    return this.tcp.port;
  }

  /** A late move is a SOFT_TIMEOUT after this (the think time of the server's own bots follows it). */
  get softTimeoutMs(): number {
    return this.o.softTimeoutMs;
  }

  /**
   * Opens (or with null closes) the rated ladder's door: a reservation code that is no prepared
   * room's but a ladder code waits for its ladder game (ladder-door.ts).
   */
  setLadder(door: OstseeschachLadderDoor | null): void {
    this.lobby.setLadder(door);
  }

  /**
   * Serves one connection over any transport (a socket, or an in-memory pipe in tests); the
   * caller feeds the client's bytes to `receive` and reports its end with `remoteClosed`.
   */
  attach(
    transport: Transport,
    address: string,
    host?: string,
    defer?: (rest: () => void) => void,
  ): Connection {
    const connection = new Connection({
      id: address,
      host,
      lobby: this.lobby,
      transport,
      log: this.o.log,
      store: this.o.store,
      clock: this.clock,
      limits: this.o.limits,
      joinTimeoutMs: this.o.joinTimeoutMs ?? OSTSEESCHACH_DEFAULTS.joinTimeoutMs,
      onClosed: (c) => this.connections.delete(c),
      defer,
    });
    this.connections.add(connection);
    return connection;
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    const n = ++this.connectionCount;
    const address = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? n}`;
    const limit = this.o.maxOutputBytes ?? OSTSEESCHACH_DEFAULTS.maxOutputBytes;
    const what = 'ostseeschach socket';
    const lingerMs = this.o.lingerMs ?? OSTSEESCHACH_DEFAULTS.lingerMs;
    const connection = this.attach(
      {
        write: (data) => {
          if (socket.destroyed || !socket.writable) return;
          socket.write(data);
          if (socket.writableLength > limit) {
            // Never a reentrant disconnect mid-broadcast: the 'close' event reports it.
            this.log.warn(
              { conn: address, buffered: socket.writableLength },
              'client does not read: dropping it',
            );
            socket.destroy();
          }
        },
        end: () => {
          if (socket.destroyed) return;
          socket.end();
          // A client that never closes its side of an ended stream must not linger.
          setTimeout(() => socket.destroy(), lingerMs).unref();
        },
      },
      address,
      hostOf(socket.remoteAddress),
      // The rest of a long run of packets waits for the next turn of the event loop (issue #15).
      (rest) => void setImmediate(guard(this.log, what, rest, fail)),
    );
    // Error boundary: a bug while serving this socket ends this connection (and aborts its
    // games as an internal error), never the server.
    const fail = (): void => {
      connection.fail();
      socket.destroy();
    };
    socket.on('data', guard(this.log, what, (chunk: Buffer) => connection.receive(chunk), fail));
    socket.on('end', guard(this.log, what, () => connection.remoteClosed(true), fail));
    socket.on('error', (err) => this.log.debug({ err, conn: address }, 'socket error'));
    socket.on(
      'close',
      guard(
        this.log,
        what,
        () => {
          this.sockets.delete(socket);
          connection.remoteClosed();
        },
        () => connection.fail(),
      ),
    );
  }

  info(): ServerInfo {
    const info: ServerInfo = {
      game: GAME,
      title: 'Ostseeschach (Software-Challenge 2022)',
      protocol: 'Software-Challenge XML over TCP',
      transport: 'tcp',
      host: this.o.host,
      port: this.tcp.port,
      status: this.tcp.status,
      clients: this.connections.size,
      liveMatches: this.lobby.liveMatches,
    };
    if (this.tcp.error !== undefined) info.error = this.tcp.error;
    return info;
  }

  snapshot(): OstseeschachSnapshot {
    return {
      game: GAME,
      port: this.tcp.port,
      connections: this.connections.size,
      rooms: this.lobby.roomRows(),
      recent: this.lobby.recentResults(),
      gamesPlayed: this.lobby.gamesPlayed,
    };
  }

  subscribe(listener: (event: SpectatorEvent) => void): () => void {
    return this.hub.subscribe(listener);
  }
}

export type OstseeschachServerInput = Partial<Omit<OstseeschachServerOptions, 'log' | 'store'>> & {
  log: Logger;
  store: Records | null;
};

/** A server with the official defaults for everything not given. */
export function createOstseeschachServer(options: OstseeschachServerInput): OstseeschachServer {
  return new OstseeschachServer({
    host: options.host ?? OSTSEESCHACH_DEFAULTS.host,
    port: options.port ?? OSTSEESCHACH_DEFAULTS.port,
    adminPassword: options.adminPassword ?? OSTSEESCHACH_DEFAULTS.adminPassword,
    softTimeoutMs: options.softTimeoutMs ?? OSTSEESCHACH_DEFAULTS.softTimeoutMs,
    hardTimeoutMs: options.hardTimeoutMs ?? OSTSEESCHACH_DEFAULTS.hardTimeoutMs,
    paused: options.paused ?? OSTSEESCHACH_DEFAULTS.paused,
    seed: options.seed ?? Date.now(),
    log: options.log,
    store: options.store,
    clock: options.clock,
    maxConnections: options.maxConnections,
    maxConnectionsPerHost: options.maxConnectionsPerHost,
    maxInputBytesPerSecondPerHost: options.maxInputBytesPerSecondPerHost,
    maxRooms: options.maxRooms,
    maxRoomsPerHost: options.maxRoomsPerHost,
    joinTimeoutMs: options.joinTimeoutMs,
    preparedRoomTimeoutMs: options.preparedRoomTimeoutMs,
    maxOutputBytes: options.maxOutputBytes,
    lingerMs: options.lingerMs,
    limits: options.limits,
    roomIds: options.roomIds,
    reservationCodes: options.reservationCodes,
    startPosition: options.startPosition,
  });
}
