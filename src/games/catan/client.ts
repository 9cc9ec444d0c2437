import { connect, type Socket } from 'node:net';
import { systemClock, type Clock, type Timer } from '../../core/clock.js';
import { connectionLogger, logWire, silentLogger, type Logger } from '../../core/log.js';
import type { ClientView } from './client-view.js';
import type { CatanBot } from './bots/bot.js';
import { BotDriver, type DriverStats } from './driver.js';
import { JsonObjectReader } from './json-reader.js';
import { MAX_MESSAGE_BYTES, formatClient, parseServer, type ServerMessage } from './protocol.js';
import type { Colour } from './rules/index.js';

export type { CatanBot, DecisionContext } from './bots/bot.js';
export { CATAN_STRATEGIES, createCatanBot, randomBot, type CatanStrategy } from './bots/strategies.js';
export type { ClientPlayer, ClientTrade, ClientView } from './client-view.js';
export { legalFromView, stateFromView } from './client-legal.js';

/**
 * Connects a bot to any protocol-0.3 server over TCP (`spielhalle bot catan`). The socket only
 * moves bytes; `BotDriver` (driver.ts) does the protocol and keeps the client's own view, built
 * from the messages received and nothing else, which the bot gets with every decision.
 */

export interface CatanClientOptions {
  host: string;
  port: number;
  name: string;
  bot: CatanBot;
  /** The colour to ask for first (then the next free one). */
  colour?: Colour | undefined;
  /** The Hallo version (default `CatanTS-KI 0.3 (KI)`). */
  version?: string | undefined;
  log?: Logger | undefined;
  clock?: Clock | undefined;
  /** Every line in and out, before it is handled. */
  onLine?: ((dir: 'in' | 'out', line: string) => void) | undefined;
  /** Every message received, after the view took it in. */
  onMessage?: ((message: ServerMessage, view: ClientView) => void) | undefined;
  /** Wait for OK/Fehler at most this long before deciding again (default 10 s). */
  answerTimeoutMs?: number | undefined;
  /** Pause before each message the client sends (default 0: the next turn of the event loop). */
  thinkMs?: number | undefined;
  /**
   * Leave when no game has started this long after connecting (a lobby that never fills); the
   * result then says `lobbyTimedOut`. Default: wait for ever.
   */
  lobbyTimeoutMs?: number | undefined;
}

export interface ClientResult {
  /** The final `Spiel beendet`, or null if the connection ended without one. */
  readonly message: string | null;
  readonly winner: number | null;
  readonly me: number | null;
  readonly won: boolean;
  readonly view: ClientView;
  readonly stats: DriverStats & { readonly unreadable: number };
  /** The client left because no game started within `lobbyTimeoutMs`. */
  readonly lobbyTimedOut: boolean;
}

export class CatanClient {
  private socket: Socket | null = null;
  private readonly driver: BotDriver;
  private readonly reader = new JsonObjectReader(MAX_MESSAGE_BYTES);
  private log: Logger;
  private unreadable = 0;
  private resolveDone!: (r: ClientResult) => void;
  /** Settles when the game is over or the connection has ended. */
  readonly done: Promise<ClientResult>;
  private settled = false;
  private lobbyTimer: Timer | null = null;
  private lobbyTimedOut = false;

  constructor(private readonly o: CatanClientOptions) {
    this.log = o.log ?? silentLogger;
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    this.driver = new BotDriver({
      name: o.name,
      colour: o.colour,
      version: o.version,
      bot: o.bot,
      send: (m) => this.write(formatClient(m)),
      schedule: (fn) => {
        const ms = o.thinkMs ?? 0;
        if (ms > 0) setTimeout(fn, ms);
        else setImmediate(fn);
      },
      clock: o.clock ?? systemClock,
      log: this.log,
      answerTimeoutMs: o.answerTimeoutMs ?? 10_000,
      onGiveUp: () => this.socket?.end(),
    });
  }

  /** Connects; resolves once the TCP connection stands. */
  async start(): Promise<void> {
    const socket = connect({ host: this.o.host, port: this.o.port, noDelay: true });
    this.socket = socket;
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve();
      });
      socket.once('error', reject);
    });
    this.log = connectionLogger(this.o.log ?? silentLogger, { game: 'catan', conn: `${socket.localAddress ?? ''}:${socket.localPort ?? ''}` });
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (err) => this.log.debug({ err: err.message }, 'socket error'));
    socket.on('close', () => this.settle());
    const lobbyMs = this.o.lobbyTimeoutMs;
    if (lobbyMs !== undefined && lobbyMs > 0) {
      this.lobbyTimer = (this.o.clock ?? systemClock).setTimeout(() => this.leaveLobby(lobbyMs), lobbyMs);
    }
  }

  /** No game in time: leave the lobby (the server tells the others, D9) and settle as timed out. */
  private leaveLobby(ms: number): void {
    this.lobbyTimer = null;
    if (this.settled || this.driver.game.inGame) return;
    this.lobbyTimedOut = true;
    this.log.info({ ms }, 'no game started in time: leaving the lobby');
    this.driver.stop();
    this.socket?.end();
    this.settle();
  }

  get view(): ClientView {
    return this.driver.view;
  }

  /** The local port of its connection (how the server tells it from other clients), once connected. */
  get localPort(): number | null {
    return this.socket?.localPort ?? null;
  }

  get id(): number | null {
    return this.driver.game.me;
  }

  /** Whether its connection has ended (after `Spiel beendet` our server closes it). */
  get closed(): boolean {
    return this.socket?.closed ?? false;
  }

  async stop(): Promise<void> {
    this.lobbyTimer?.cancel();
    this.driver.stop();
    const socket = this.socket;
    if (!socket || socket.destroyed) return;
    await new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      socket.end();
      setTimeout(() => socket.destroy(), 500).unref();
    });
  }

  /** Drops the connection without a word (tests: a client vanishing mid-game). */
  vanish(): void {
    this.driver.stop();
    this.socket?.destroy();
  }

  private write(line: string): void {
    const socket = this.socket;
    if (!socket || socket.destroyed) return;
    logWire(this.log, 'out', line);
    this.o.onLine?.('out', line);
    socket.write(line + '\n');
  }

  private receive(chunk: Buffer): void {
    for (const item of this.reader.push(chunk)) {
      if (item.kind !== 'object') {
        this.unreadable++;
        this.log.warn({ item }, 'unreadable input from the server');
        continue;
      }
      logWire(this.log, 'in', item.text);
      this.o.onLine?.('in', item.text);
      const parsed = parseServer(item.value);
      if (!parsed.ok) {
        // Unknown or broken messages of other servers are skipped, not fatal.
        this.unreadable++;
        this.log.debug({ error: parsed.error.detail }, 'skipped a message');
        continue;
      }
      this.driver.receive(parsed.value);
      if (parsed.value.type === 'gameStarted') {
        this.lobbyTimer?.cancel();
        this.lobbyTimer = null;
      }
      this.o.onMessage?.(parsed.value, this.driver.view);
      if (parsed.value.type === 'gameOver') this.settle();
    }
  }

  private settle(): void {
    if (this.settled) return;
    this.settled = true;
    this.lobbyTimer?.cancel();
    this.lobbyTimer = null;
    const view = this.driver.view;
    this.resolveDone({
      message: view.result?.message ?? null,
      winner: view.result?.winner ?? null,
      me: view.me,
      won: view.result !== null && view.result.winner === view.me,
      view,
      stats: { ...this.driver.stats, unreadable: this.unreadable },
      lobbyTimedOut: this.lobbyTimedOut,
    });
  }
}
