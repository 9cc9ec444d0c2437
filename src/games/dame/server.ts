import type { Socket } from 'node:net';
import { hostOf } from '../../core/hosts.js';
import { TcpEndpoint } from '../../core/tcp.js';
import { systemClock, type Clock } from '../../core/clock.js';
import { EventHub, type GameServer, type ServerInfo, type SpectatorEvent } from '../../core/game-server.js';
import type { Logger } from '../../core/log.js';
import type { Records } from '../../core/record-backend.js';
import { Connection } from './connection.js';
import { DameEnginePool, type DameMoveSource } from './engine-pool.js';
import { DameGames, type CreateGameError, type CreateGameOptions } from './games.js';
import type { DameLadderDoor } from './ladder-door.js';
import type { Match } from './match.js';
import { DEFAULT_MOTD, DEFAULT_PORT, type ProtocolMode } from './protocol.js';
import type { DameGameRow, DameSnapshot } from './snapshot.js';

/**
 * The Dame server: the MNM Gameserver protocol for `Checkers` over TCP (spec §2), port 1357 by
 * default. Sockets only move bytes: connections run the prolog, matches run the games.
 */

export interface DameServerOptions {
  host: string;
  /** 1357 by default; 0 picks a free port. */
  port: number;
  /** `auto` (default): MOTD only after `motdDelayMs` of client silence; majors 2 and 3. */
  mode: ProtocolMode;
  /** An unknown valid game id creates the game; off: `- Game does not exist`. */
  autoCreate: boolean;
  /** `+ MOVE <ms>` of games created without a move time. */
  defaultMoveTimeMs: number;
  waitIdleMs: number;
  okwaitTimeoutMs: number;
  /** Per prolog line. */
  prologTimeoutMs: number;
  /** Added to the move time before THINKING/PLAY time out. */
  graceMs: number;
  motdDelayMs: number;
  motd: string;
  /** Least time between two groups with no client line between them (§2.6). */
  groupGapMs: number;
  /** Engine seats' think time per single move; null or 0 = the game's move time. */
  engineTimeMs: number | null;
  /** Worker threads for engine seats. */
  engineThreads: number;
  /** Games held in memory (ended ones are dropped first). */
  maxGames: number;
  maxConnections: number;
  /** Open connections one client IP may hold (0: no cap); one more is closed at once, without a line. */
  maxConnectionsPerHost: number;
  /** Bytes a second one client IP may send (0: no budget); see TcpListenOptions. */
  maxInputBytesPerSecondPerHost?: number | undefined;
  /**
   * Waiting games one client IP may have created with `ID` (0: no cap): an `ID` that would create
   * one more gets `- Game does not exist`. Games it joins do not count.
   */
  maxGamesPerHost: number;
  /**
   * A game that has not started this long after a client took a seat (or after a client's `ID`
   * created it) is closed: its seated clients are disconnected without a line (the protocol has
   * none for it), and a game created by `ID` is removed. 0: never.
   */
  idleSeatTimeoutMs: number;
  /** A client that lets this much output pile up unread is dropped. */
  maxOutputBytes: number;
  /** How long a closed connection may stay half-open before its socket is destroyed. */
  lingerMs: number;
  log: Logger;
  store: Records | null;
  clock?: Clock | undefined;
  /** Fresh game ids (tests); default random lower-case `[a-z0-9]{13}`. */
  idFactory?: (() => string) | undefined;
  /** The engine seats' move source; default a pool of `engineThreads` worker threads. */
  engine?: DameMoveSource | undefined;
}

export const DAME_DEFAULTS = {
  host: '127.0.0.1',
  port: DEFAULT_PORT,
  mode: 'auto',
  autoCreate: true,
  defaultMoveTimeMs: 3000,
  waitIdleMs: 1000,
  okwaitTimeoutMs: 3000,
  prologTimeoutMs: 10_000,
  graceMs: 200,
  motdDelayMs: 2000,
  motd: DEFAULT_MOTD,
  groupGapMs: 50,
  engineTimeMs: null,
  engineThreads: 1,
  maxGames: 1000,
  maxConnections: 1000,
  maxConnectionsPerHost: 100,
  maxGamesPerHost: 10,
  idleSeatTimeoutMs: 600_000,
  maxOutputBytes: 1024 * 1024,
  lingerMs: 2000,
} as const satisfies Omit<DameServerOptions, 'log' | 'store'>;

export class DameGameError extends Error {
  override readonly name = 'DameGameError';
  constructor(readonly code: CreateGameError) {
    super(
      {
        'invalid-id': 'a game id has exactly 13 characters from 0-9, A-Z, a-z',
        exists: 'a game with this id exists',
        full: 'the server holds as many games as it may',
        'invalid-move-time': 'the move time must be a whole number of ms from 1 to 3600000',
        'host-limit': 'this host holds as many waiting games as it may',
      }[code],
    );
  }
}

const GAME = 'dame';

export class DameServer implements GameServer {
  readonly game = GAME;
  private readonly tcp: TcpEndpoint;
  private readonly hub = new EventHub();
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly games: DameGames;
  private readonly sockets = new Map<Socket, Connection>();
  private engine: DameMoveSource | null;
  private connectionCount = 0;
  private ladder: DameLadderDoor | null = null;

  constructor(private readonly o: DameServerOptions) {
    this.clock = o.clock ?? systemClock;
    this.log = o.log.child({ game: GAME });
    this.tcp = new TcpEndpoint({
      host: o.host,
      port: o.port,
      server: { noDelay: true, allowHalfOpen: false },
      maxConnections: o.maxConnections,
      maxConnectionsPerHost: o.maxConnectionsPerHost,
      maxInputBytesPerSecondPerHost: o.maxInputBytesPerSecondPerHost,
      log: this.log,
      onSocket: (socket) => this.accept(socket),
    });
    this.engine = o.engine ?? null;
    this.games = new DameGames({
      defaultMoveTimeMs: o.defaultMoveTimeMs,
      engineTimeMs: o.engineTimeMs,
      timing: { waitIdleMs: o.waitIdleMs, okwaitTimeoutMs: o.okwaitTimeoutMs, graceMs: o.graceMs },
      maxGames: o.maxGames,
      maxGamesPerHost: o.maxGamesPerHost,
      idleSeatTimeoutMs: o.idleSeatTimeoutMs,
      clock: this.clock,
      log: this.log,
      store: o.store,
      engine: () => (this.engine ??= new DameEnginePool({ threads: o.engineThreads, log: o.log })),
      publish: (type, data) => this.hub.publish({ game: GAME, type, at: this.clock.now(), data }),
      ...(o.idFactory ? { idFactory: o.idFactory } : {}),
    });
  }

  async start(): Promise<void> {
    await this.tcp.open();
  }

  async stop(): Promise<void> {
    this.games.stop();
    for (const socket of this.sockets.keys()) socket.destroy();
    await this.tcp.close(() => this.sockets.keys(), { graceMs: 0 });
    if (this.engine && !this.o.engine) await this.engine.close();
    this.engine = this.o.engine ?? null;
    await this.o.store?.drain();
  }

  get port(): number {
    return this.tcp.port;
  }

  /** Creates a game and returns its id; throws a DameGameError for bad options. */
  createGame(options: CreateGameOptions = {}): string {
    return this.createMatch(options).id;
  }

  /** Creates a game and returns it (the ladder seats its connections in it); throws a DameGameError. */
  createMatch(options: CreateGameOptions = {}): Match {
    const created = this.games.create(options);
    if (!created.ok) throw new DameGameError(created.error);
    return created.value;
  }

  /** Opens (or with null closes) the rated ladder's door: a Game-ID that is a ladder code enters it. */
  setLadder(door: DameLadderDoor | null): void {
    this.ladder = door;
  }

  /**
   * Ends a game at once: a waiting one leaves the table, a running one is recorded aborted with
   * `reason`; its clients are disconnected without a line. False when there is no such game.
   */
  closeGame(id: string, reason: string): boolean {
    return this.games.close(id, reason);
  }

  /** The games in memory: waiting and running first (oldest first), then ended ones. */
  listGames(): DameGameRow[] {
    const rows = this.games.all().map((m) => m.row());
    return [...rows.filter((r) => r.status !== 'over'), ...rows.filter((r) => r.status === 'over')];
  }

  getGame(id: string): DameGameRow | undefined {
    return this.games.get(id)?.row();
  }

  info(): ServerInfo {
    const info: ServerInfo = {
      game: GAME,
      title: 'Dame (Checkers)',
      protocol: `MNM Gameserver (${this.o.mode})`,
      transport: 'tcp',
      host: this.o.host,
      port: this.tcp.port,
      status: this.tcp.status,
      clients: this.sockets.size,
      liveMatches: this.games.all().filter((m) => m.status === 'running').length,
    };
    if (this.tcp.error !== undefined) info.error = this.tcp.error;
    return info;
  }

  snapshot(): DameSnapshot {
    const { games, recent } = this.games.rows();
    return { game: GAME, port: this.tcp.port, mode: this.o.mode, games, recent, gamesPlayed: this.games.gamesPlayed };
  }

  subscribe(listener: (event: SpectatorEvent) => void): () => void {
    return this.hub.subscribe(listener);
  }

  private accept(socket: Socket): void {
    try {
      const n = ++this.connectionCount;
      const address = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? n}`;
      const host = hostOf(socket.remoteAddress);
      socket.setNoDelay(true);
      socket.setKeepAlive(true, 10_000);
      let lingering: NodeJS.Timeout | null = null;
      const connection = new Connection({
        id: `${address}#${n}`,
        address,
        host,
        mode: this.o.mode,
        motd: this.o.motd,
        motdDelayMs: this.o.motdDelayMs,
        prologTimeoutMs: this.o.prologTimeoutMs,
        groupGapMs: this.o.groupGapMs,
        autoCreate: this.o.autoCreate,
        ladder: this.ladder,
        games: this.games,
        clock: this.clock,
        log: this.o.log,
        store: this.o.store,
        transport: {
          write: (data) => {
            if (socket.destroyed || !socket.writable) return;
            socket.write(data);
            if (socket.writableLength > this.o.maxOutputBytes) {
              this.log.warn({ conn: address, buffered: socket.writableLength }, 'client does not read: dropping it');
              socket.destroy();
            }
          },
          end: () => {
            if (socket.destroyed) return;
            socket.end();
            // A client that never closes its side must not keep the socket.
            lingering ??= setTimeout(() => socket.destroy(), this.o.lingerMs);
            lingering.unref();
          },
        },
      });
      this.sockets.set(socket, connection);
      socket.on('data', (chunk: Buffer) => {
        try {
          connection.receive(chunk);
        } catch (err) {
          // A bug ends this connection (and the game it sits in, recorded as aborted), nothing more.
          connection.crash(err);
        }
      });
      socket.on('error', (err) => this.log.debug({ err, conn: address }, 'socket error'));
      socket.on('close', () => {
        if (lingering) clearTimeout(lingering);
        this.sockets.delete(socket);
        try {
          connection.closed();
        } catch (err) {
          this.log.error({ err, conn: address }, 'failed to close a connection');
        }
      });
      connection.start();
    } catch (err) {
      this.log.error({ err }, 'failed to accept a connection');
      socket.destroy();
    }
  }
}

/** The server with every option not given taken from DAME_DEFAULTS. */
export function createDameServer(options: Partial<DameServerOptions> & Pick<DameServerOptions, 'log' | 'store'>): DameServer {
  return new DameServer({ ...DAME_DEFAULTS, ...options });
}
