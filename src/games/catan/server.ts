import { connect, type Socket } from 'node:net';
import { hostOf } from '../../core/hosts.js';
import { TcpEndpoint } from '../../core/tcp.js';
import { systemClock, type Clock } from '../../core/clock.js';
import { EventHub, type GameServer, type ServerInfo, type SpectatorEvent } from '../../core/game-server.js';
import type { Logger } from '../../core/log.js';
import type { Records } from '../../core/record-backend.js';
import { Connection } from './connection.js';
import type { CatanBot } from './bots/bot.js';
import type { BotSeat } from './house-bot.js';
import { censorEvent, type GameEvent, type SeenEvent, type Viewer } from './events.js';
import type { CatanLadderDoor } from './ladder-door.js';
import { Hall } from './lobby.js';
import type { HistoryStep, Match } from './match.js';
import { TEXT } from './messages.js';
import { MELDUNG_SERVER, Outgoing } from './protocol.js';
import type { Board } from './rules/index.js';
import type { Lobby, Reservation } from './session.js';
import type { CatanSnapshot } from './snapshot.js';

/**
 * The Catan protocol 0.3 server (catan.md): one TCP port, one open lobby, any number of games at
 * once, each its own `Match`. Sockets only move bytes (connection.ts); the hall (lobby.ts) does
 * handshakes and lobbies; our house bots can fill empty seats.
 */

export interface CatanServerOptions {
  host: string;
  /** 6000 by default; 0 picks a free port. */
  port: number;
  seed: string | number;
  log: Logger;
  store: Records | null;
  clock?: Clock | undefined;
  /** D10: per-decision timeout in games with a human; null (default): none. */
  turnTimeoutMs?: number | null | undefined;
  /** D10: per-decision timeout in games of AI clients and bots only (default 10 s). */
  aiTurnTimeoutMs?: number | null | undefined;
  /** House bots fill the open lobby this long after a player there sent `Spiel starten`; null: never. */
  botFillMs?: number | null | undefined;
  /** Pause of house bots before each message (0: none; a few hundred ms makes games watchable). */
  botThinkMs?: number | undefined;
  /** The house bots' strategy (default: baseline R). */
  botStrategy?: ((seed: string) => CatanBot) | undefined;
  maxConnections?: number | undefined;
  /**
   * Open connections one remote IP may hold (0: no cap); one more gets `Spiel ist voll` and is
   * closed. The dashboard's own seats (`connectGateway`) are not counted.
   */
  maxConnectionsPerHost?: number | undefined;
  /** Bytes a second one client IP may send (0: no budget); see TcpListenOptions. */
  maxInputBytesPerSecondPerHost?: number | undefined;
  /** Games at once (running plus lobbies); more Hallos get `Spiel ist voll`. */
  maxGames?: number | undefined;
  /** Lobbies and running games one remote IP's connections may sit in (0: no cap); a Hallo beyond gets `Spiel ist voll`. */
  maxLobbiesPerHost?: number | undefined;
  /** A lobby nobody has joined for this long is closed (those not ready, or all if fewer than 3 are); null: never. */
  idleLobbyTimeoutMs?: number | null | undefined;
  /** Per connection: messages per second (burst twice that). */
  floodPerSecond?: number | undefined;
  maxOutputBytes?: number | undefined;
  helloTimeoutMs?: number | undefined;
  lingerMs?: number | undefined;
  /** Metrics hook: time from reading a client's bytes to having written every line they caused. */
  onHandled?: ((ms: number) => void) | undefined;
  /** Test hooks: player ids, fixed boards, turn orders and dice, the full history, a different censor. */
  ids?: (() => number) | undefined;
  board?: ((game: number) => { readonly board: Board; readonly robber: number } | undefined) | undefined;
  order?: ((ids: readonly number[]) => readonly number[] | undefined) | undefined;
  dice?: (() => readonly [number, number] | undefined) | undefined;
  onStep?: ((matchId: string, step: HistoryStep) => void) | undefined;
  censor?: ((event: GameEvent, viewer: Viewer) => SeenEvent) | undefined;
}

export const CATAN_DEFAULTS = {
  host: '127.0.0.1',
  port: 6000,
  turnTimeoutMs: null,
  aiTurnTimeoutMs: 10_000,
  botFillMs: null,
  botThinkMs: 0,
  maxConnections: 2000,
  /** A tenth of `maxConnections`. */
  maxConnectionsPerHost: 200,
  maxGames: 500,
  maxLobbiesPerHost: 20,
  idleLobbyTimeoutMs: 600_000,
  floodPerSecond: 5000,
  maxOutputBytes: 4 * 1024 * 1024,
  helloTimeoutMs: 30_000,
  lingerMs: 2000,
} as const;

const GAME = 'catan';

export class CatanServer implements GameServer {
  readonly game = GAME;
  readonly hall: Hall;
  private readonly tcp: TcpEndpoint;
  private readonly hub = new EventHub();
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly sockets = new Set<Socket>();
  private connectionCount = 0;
  /** `address:port` of the gateway's own clients (see `connectGateway`). */
  private readonly gateway = new Set<string>();
  /** Listeners of prepared games (`reserve`) still open. */
  private readonly reserved = new Set<ReservedGame>();
  /** The ladder port's listener (openLadderPort). */
  private ladderPort: TcpEndpoint | null = null;

  constructor(private readonly o: CatanServerOptions) {
    this.clock = o.clock ?? systemClock;
    this.log = o.log.child({ game: GAME });
    // The dashboard's seats (all from loopback, bounded by maxBrowserPlayers) are exempt from the
    // per-host caps: they never count against, or are refused by, them.
    this.tcp = new TcpEndpoint({
      host: o.host,
      port: o.port,
      server: { noDelay: true },
      maxConnections: o.maxConnections ?? CATAN_DEFAULTS.maxConnections,
      maxConnectionsPerHost: o.maxConnectionsPerHost ?? CATAN_DEFAULTS.maxConnectionsPerHost,
      maxInputBytesPerSecondPerHost: o.maxInputBytesPerSecondPerHost,
      onRefused: (socket) =>
        socket.write(new Outgoing({ type: 'error', message: MELDUNG_SERVER.gameFull }).line + '\n'),
      exempt: (socket) => this.gateway.delete(`${hostOf(socket.remoteAddress)}:${socket.remotePort}`),
      log: this.log,
      onSocket: (socket, gateway) => this.accept(socket, gateway),
    });
    this.hall = new Hall({
      seed: String(o.seed),
      clock: this.clock,
      log: this.log,
      store: o.store,
      turnTimeoutMs: o.turnTimeoutMs ?? CATAN_DEFAULTS.turnTimeoutMs,
      aiTurnTimeoutMs: o.aiTurnTimeoutMs === undefined ? CATAN_DEFAULTS.aiTurnTimeoutMs : o.aiTurnTimeoutMs,
      botFillMs: o.botFillMs ?? CATAN_DEFAULTS.botFillMs,
      maxGames: o.maxGames ?? CATAN_DEFAULTS.maxGames,
      maxLobbiesPerHost: o.maxLobbiesPerHost ?? CATAN_DEFAULTS.maxLobbiesPerHost,
      idleLobbyTimeoutMs:
        o.idleLobbyTimeoutMs === undefined ? CATAN_DEFAULTS.idleLobbyTimeoutMs : o.idleLobbyTimeoutMs,
      houseBot: {
        thinkMs: o.botThinkMs ?? CATAN_DEFAULTS.botThinkMs,
        strategy: o.botStrategy,
        exactLegal: true,
        clock: this.clock,
        log: this.log,
        store: o.store,
      },
      censor: o.censor ?? censorEvent,
      sameForOthers: o.censor === undefined,
      publish: (type, data) => {
        if (this.hub.size > 0) this.hub.publish({ game: GAME, type, at: this.clock.now(), data });
      },
      ids: o.ids,
      board: o.board,
      order: o.order,
      dice: o.dice,
      onStep: o.onStep,
    });
  }

  async start(): Promise<void> {
    await this.tcp.open();
  }

  async stop(): Promise<void> {
    await this.closeLadderPort();
    await Promise.all([...this.reserved].map((r) => r.close(TEXT.serverStopped)));
    this.hall.stop();
    await this.tcp.close(() => this.sockets, { graceMs: 300, end: true });
    await this.o.store?.drain();
  }

  get port(): number {
    return this.tcp.port;
  }

  info(): ServerInfo {
    const info: ServerInfo = {
      game: GAME,
      title: 'Die Siedler von Catan',
      protocol: 'Catan 0.3 (JSON over TCP)',
      transport: 'tcp',
      host: this.o.host,
      port: this.tcp.port,
      status: this.tcp.status,
      clients: this.hall.sessionCount,
      liveMatches: this.hall.liveMatches,
    };
    if (this.tcp.error !== undefined) info.error = this.tcp.error;
    if (this.ladderPort !== null) info.ladderPort = this.ladderPort.port;
    return info;
  }

  snapshot(): CatanSnapshot {
    const results = this.hall.results();
    return {
      game: GAME,
      port: this.tcp.port,
      connections: this.sockets.size,
      lobbies: this.hall.lobbyRows(),
      matches: this.hall.matchRows(),
      recent: results.recent,
      gamesPlayed: results.finished,
      gamesAborted: results.aborted,
    };
  }

  subscribe(listener: (event: SpectatorEvent) => void): () => void {
    return this.hub.subscribe(listener);
  }

  /**
   * Seats house bots in the open lobby (or the lobby `lobbyId`) up to `size` players; the game
   * starts once the people there have sent `Spiel starten` too. Null if there is no such lobby.
   */
  fillLobbyWithBots(lobbyId?: string, size = 4): { lobby: string; added: number } | null {
    return this.hall.fillLobby(lobbyId, size);
  }

  /**
   * A game of `players` house bots (for the dashboard to watch); resolves with its record id.
   * `seats` names the bots, their colours and strategies in joining order (house-games.ts); by
   * default they are `botStrategy` bots in the first free colours.
   */
  startGameWithBots(players: 3 | 4 = 4, seats: readonly BotSeat[] = []): Promise<string> {
    return this.hall.startBotGame(players, seats);
  }

  /**
   * Prepares a game for exactly `reservation.names` (a tournament match): a listener of its own on
   * a free port of this server's host, whose connections speak the protocol as on the main port but
   * join only this game's lobby (see `Reservation`). `close()` stops that listener (connections it
   * accepted play on) and calls the game off if it has not started. Null when the server is full.
   * `port`: where that listener listens (a tournament's port range); 0: a free one.
   */
  async reserve(reservation: Reservation, port = 0): Promise<ReservedGame | null> {
    const lobby = this.hall.reserve(reservation);
    if (!lobby) return null;
    const started = new Promise<string | null>((resolve) => lobby.waiters.push(resolve));
    const endpoint = new TcpEndpoint({
      host: this.o.host,
      port,
      server: { noDelay: true },
      // A few more than the seats: a client may come back after a broken connection.
      maxConnections: reservation.names.length * 4,
      log: this.log,
      onSocket: (socket) => this.accept(socket, false, lobby),
    });
    try {
      await endpoint.open();
    } catch (err) {
      this.hall.cancel(lobby, TEXT.calledOff);
      throw err;
    }
    let closed = false;
    const game: ReservedGame = {
      port: endpoint.port,
      lobby,
      started,
      close: async (message = TEXT.calledOff) => {
        this.hall.cancel(lobby, message);
        if (closed) return;
        closed = true;
        this.reserved.delete(game);
        await endpoint.close(() => [], { graceMs: 0 });
      },
    };
    this.reserved.add(game);
    return game;
  }

  /**
   * Opens the rated ladder's port (issue 34, ladder-door.ts): its connections speak the protocol
   * as on the main port, but give a ladder code as their name and wait in a room of their own
   * until the ladder (`door`) has made their game. Resolves with the port (0: a free one).
   */
  async openLadderPort(door: CatanLadderDoor, port: number): Promise<number> {
    await this.closeLadderPort();
    this.hall.setLadder(door);
    const endpoint = new TcpEndpoint({
      host: this.o.host,
      port,
      server: { noDelay: true },
      maxConnections: this.o.maxConnections ?? CATAN_DEFAULTS.maxConnections,
      maxConnectionsPerHost: this.o.maxConnectionsPerHost ?? CATAN_DEFAULTS.maxConnectionsPerHost,
      maxInputBytesPerSecondPerHost: this.o.maxInputBytesPerSecondPerHost,
      onRefused: (socket) => socket.write(new Outgoing({ type: 'error', message: MELDUNG_SERVER.gameFull }).line + '\n'),
      log: this.log,
      onSocket: (socket) => this.accept(socket, false, null, door),
    });
    try {
      await endpoint.open();
    } catch (err) {
      this.hall.setLadder(null);
      throw err;
    }
    this.ladderPort = endpoint;
    return endpoint.port;
  }

  /** Closes the ladder's port and door; games it made play on, its waiting clients are closed. */
  async closeLadderPort(): Promise<void> {
    const endpoint = this.ladderPort;
    this.ladderPort = null;
    this.hall.setLadder(null);
    if (endpoint !== null) await endpoint.close(() => [], { graceMs: 0 });
  }

  /** Where the ladder port listens, or null when it is not open. */
  get ladderPortNumber(): number | null {
    return this.ladderPort?.port ?? null;
  }

  /** The seed all of this server's randomness comes from. */
  get seed(): string {
    return String(this.o.seed);
  }

  /** A running game, for the lead's web routes (views and legal actions per player). */
  match(id: string): Match | undefined {
    return this.hall.match(id);
  }

  /**
   * A TCP client of this server for the dashboard's gateway (a person's seat, the D15 relay): it
   * is an ordinary client on the wire, but neither its connection nor its lobby counts against the
   * per-host caps (`maxBrowserPlayers` bounds these). It is known by its local address and port,
   * which are bound when Node issues the connect, before this server can accept it.
   */
  connectGateway(host: string): Socket {
    const socket = connect({ host, port: this.tcp.port, noDelay: true });
    let key: string | null = null;
    const forget = (): void => {
      if (key !== null) this.gateway.delete(key);
      key = null;
    };
    socket.on('connectionAttempt', () =>
      process.nextTick(() => {
        forget();
        if (socket.localPort === undefined) return;
        key = `${hostOf(socket.localAddress)}:${socket.localPort}`;
        this.gateway.add(key);
      }),
    );
    socket.once('close', forget);
    return socket;
  }

  private accept(socket: Socket, gateway: boolean, target: Lobby | null = null, ladder?: CatanLadderDoor): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    const n = ++this.connectionCount;
    const address = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? n}`;
    new Connection(socket, address, this.hall, {
      host: gateway ? null : hostOf(socket.remoteAddress),
      log: this.o.log,
      store: this.o.store,
      clock: this.clock,
      target,
      ...(ladder !== undefined ? { ladder } : {}),
      limits: {
        floodPerSecond: this.o.floodPerSecond ?? CATAN_DEFAULTS.floodPerSecond,
        maxOutputBytes: this.o.maxOutputBytes ?? CATAN_DEFAULTS.maxOutputBytes,
        helloTimeoutMs: this.o.helloTimeoutMs ?? CATAN_DEFAULTS.helloTimeoutMs,
        lingerMs: this.o.lingerMs ?? CATAN_DEFAULTS.lingerMs,
        onHandled: this.o.onHandled,
      },
    });
  }
}

/** A prepared game's listener (`CatanServer.reserve`). */
export interface ReservedGame {
  /** Where its players connect. */
  readonly port: number;
  readonly lobby: Lobby;
  /** The game's record id once it has started; null when the lobby went without a game. */
  readonly started: Promise<string | null>;
  /** Stops the listener and calls the game off (its members get `message`) if it has not started. */
  close(message?: string): Promise<void>;
}

export function createCatanServer(options: CatanServerOptions): CatanServer {
  return new CatanServer(options);
}
