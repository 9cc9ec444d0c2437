import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import type { RawData, WebSocket } from 'ws';
import { guard } from '../../core/guard.js';
import { logWire, type Logger } from '../../core/log.js';
import { legalFromView, stateFromView } from './client-legal.js';
import { ClientGame } from './client-view.js';
import { JsonObjectReader } from './json-reader.js';
import {
  MAX_MESSAGE_BYTES,
  PROTOCOL,
  formatAction,
  formatClient,
  parseServer,
  type ClientMessage,
  type ServerMessage,
} from './protocol.js';
import { COLOURS, tradeRates, type Colour, type LegalActions } from './rules/index.js';
import type { CatanServer } from './server.js';
import { commandSchema } from './web-commands.js';
import type {
  CatanBrowserPlayer,
  CatanPlayCommand,
  CatanPlayMessage,
  CatanPlayPhase,
  CatanPlayState,
} from './web-views.js';

/**
 * One person's seat: a protocol 0.3 TCP client of the Catan server on loopback, driven by the
 * browser over a WebSocket. The client keeps its own view from the messages it receives
 * (`ClientGame`, as our bots do), offers the person exactly the legal actions the rules core
 * works out from that view (`legalFromView`), sends one message at a time and reports every
 * `Fehler`. The server sees an ordinary client (version `CatanTS-Web 0.3`, a human), which the
 * per-host caps do not count (`CatanServer.connectGateway`). Every event of the seat (WebSocket,
 * TCP, timers) runs behind an error boundary: an exception closes this seat only.
 *
 * The seat outlives its WebSocket: when the browser goes (a reload, a lost network) the TCP client
 * stays for `reconnectMs`, and a WebSocket that brings the seat's token (`attach`) gets the seat,
 * its recent lines and its current view back. Only then, or on `leave`, does the TCP connection
 * close (and D9 aborts a running game, as for any client).
 */

export const WEB_VERSION = 'CatanTS-Web 0.3';
const OPEN = 1;
const MAX_BUFFERED = 1 << 20;
const ANSWER_TIMEOUT_MS = 15_000;
/** Other players' moves reach the browser at most this often (each state is a few kB of JSON). */
const PUSH_MS = 40;
/** Lines kept for a browser that comes back (the page shows at most as many). */
const BACKLOG = 500;
/** Close code for a WebSocket whose seat another page took over with the token. */
export const TAKEN_OVER = 4001;

export interface SeatOptions {
  readonly server: CatanServer;
  /** Where the seat's TCP client connects (loopback for a wildcard listen address). */
  readonly host: string;
  readonly name: string;
  readonly colour: Colour | null;
  readonly log: Logger;
  /** How long the seat waits for its browser to come back. */
  readonly reconnectMs: number;
  /** The other seats of this gateway: who is away, and telling them when this seat goes or comes. */
  readonly book: SeatBook;
}

/** What a seat needs to know of the gateway's other seats. */
export interface SeatBook {
  /** Ids of the seats among `ids` whose browser is away. */
  away(ids: readonly number[]): number[];
  /** This seat's browser went or came back: the seats that share its lobby or game push again. */
  changed(seat: BrowserSeat): void;
}

export class BrowserSeat {
  /** The seat's secret: whoever brings it on `/ws/catan/play?seat=` gets the seat. */
  readonly token = randomBytes(24).toString('base64url');
  private ws: WebSocket | null = null;
  private socket: Socket | null = null;
  private readonly backlog: { dir: 'in' | 'out'; line: string }[] = [];
  private awayTimer: NodeJS.Timeout | null = null;
  /** The TCP connection closed (or never opened): the seat ends once no browser waits for it. */
  private tcpDone = false;
  /** The person left (or the browser did not come back): the TCP connection closes, no browser is awaited. */
  private left = false;
  private finish: () => void = () => undefined;
  private readonly finished = new Promise<void>((resolve) => (this.finish = resolve));
  private readonly reader = new JsonObjectReader(MAX_MESSAGE_BYTES);
  private readonly game = new ClientGame();
  private version = 0;
  private commands = 0;
  /** The line sent last whose OK or Fehler has not come yet. */
  private inFlight: string | null = null;
  private answerTimer: NodeJS.Timeout | null = null;
  /** Actions the server refused since the person's status last changed: not offered again (as our bots do). */
  private readonly refusedLines = new Set<string>();
  private matchId: string | null = null;
  private ended: string | null = null;
  private pushing = false;
  private pushTimer: NodeJS.Timeout | null = null;
  /** Set while reading a chunk when something the person waits for came (an answer, their own status). */
  private urgent = false;
  private name: string;
  private colour: Colour | null;
  private closed = false;
  private failed = false;
  readonly since = Date.now();

  constructor(private readonly o: SeatOptions) {
    this.name = o.name;
    this.colour = o.colour;
  }

  listing(): CatanBrowserPlayer {
    return {
      id: this.game.me,
      name: this.name,
      phase: this.phase(),
      matchId: this.matchId,
      since: this.since,
      reconnecting: this.away,
    };
  }

  /** The seat's id on the server, once welcomed. */
  get me(): number | null {
    return this.game.me;
  }

  /** The browser is gone and the seat waits for it (not once the seat is over). */
  get away(): boolean {
    return this.ws === null && !this.tcpDone;
  }

  /** Ids of everyone in the seat's lobby or game. */
  players(): number[] {
    return this.game.view().players.map((p) => p.id);
  }

  /**
   * A browser takes the seat: the first one, or one that came back with the token. A page that
   * still holds it (two tabs) is closed with `TAKEN_OVER`. The browser gets the token, the recent
   * lines and the current state; a seat whose game ended meanwhile shows that and closes.
   */
  attach(ws: WebSocket): void {
    const before = this.ws;
    this.ws = ws;
    if (before !== null && before.readyState === OPEN) before.close(TAKEN_OVER, 'the seat was taken over by another page');
    if (this.awayTimer) clearTimeout(this.awayTimer);
    this.awayTimer = null;
    ws.on(
      'message',
      this.guarded('command', (data: RawData) => {
        if (this.ws === ws) this.command(data);
      }),
    );
    ws.on(
      'close',
      this.guarded('browser close', () => {
        if (this.ws === ws) this.detached();
      }),
    );
    ws.on('error', (err) => this.o.log.debug({ err: err.message }, 'browser socket error'));
    if (!this.tcpDone) this.send({ type: 'seat', token: this.token, reconnectMs: this.o.reconnectMs });
    for (const l of this.backlog) this.send({ type: 'line', dir: l.dir, line: l.line });
    this.push();
    if (this.tcpDone) this.closeWs(1000, 'game over');
    if (before === null) this.o.book.changed(this);
  }

  /** Ends the seat at once (the dashboard stops): the TCP connection closes, no browser is awaited. */
  shutdown(): void {
    if (this.awayTimer) clearTimeout(this.awayTimer);
    this.awayTimer = null;
    this.left = true;
    this.socket?.destroy();
    if (this.tcpDone) this.finish();
  }

  /** The browser went: wait for it (`reconnectMs`), unless the person left or the seat is over. */
  private detached(): void {
    this.ws = null;
    if (this.tcpDone) {
      this.finish();
      return;
    }
    if (this.left) {
      this.socket?.end();
      return;
    }
    this.o.log.info({ reconnectMs: this.o.reconnectMs }, 'browser away: the seat waits for it');
    this.awayTimer = setTimeout(
      this.guarded('away timer', () => {
        this.awayTimer = null;
        if (this.ws !== null) return;
        if (this.tcpDone) {
          this.finish();
          return;
        }
        this.o.log.info('browser did not come back: the seat closes');
        this.left = true;
        this.socket?.end();
      }),
      this.o.reconnectMs,
    );
    this.awayTimer.unref();
    this.o.book.changed(this);
  }

  /**
   * Connects and plays until the game ends, the connection drops, or the person leaves (the
   * `leave` command, or no browser for `reconnectMs`); then until no browser waits for the end.
   */
  async run(ws: WebSocket): Promise<void> {
    const off = this.o.server.subscribe((event) => {
      if (event.type !== 'matchStarted' || this.game.me === null) return;
      const data = event.data as { match: string; players: { id: number }[] };
      if (data.players.some((p) => p.id === this.game.me)) {
        this.matchId = data.match;
        this.schedulePush();
      }
    });
    this.attach(ws);
    try {
      await this.connect();
      if (this.left) this.socket?.end();
      this.push();
      await this.finished;
    } catch (err) {
      this.tcpDone = true;
      this.closed = true;
      this.ended = `cannot reach the Catan server: ${(err as Error).message}`;
      this.send({ type: 'notice', text: this.ended });
      this.push();
      this.closeWs(1011, 'no connection to the game server');
    } finally {
      off();
      if (this.answerTimer) clearTimeout(this.answerTimer);
      if (this.pushTimer) clearTimeout(this.pushTimer);
      if (this.awayTimer) clearTimeout(this.awayTimer);
      this.tcpDone = true;
      this.o.book.changed(this);
    }
  }

  private connect(): Promise<void> {
    const socket = this.o.server.connectGateway(this.o.host);
    this.socket = socket;
    return new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        socket.on('error', (err) => this.o.log.debug({ err: err.message }, 'seat socket error'));
        socket.on(
          'data',
          this.guarded('input', (chunk: Buffer) => this.receive(chunk)),
        );
        socket.on('close', this.guarded('close', () => this.tcpClosed()));
        resolve();
      });
    });
  }

  // ---- from the server ---------------------------------------------------------------------------

  private receive(chunk: Buffer): void {
    for (const item of this.reader.push(chunk)) {
      if (item.kind !== 'object') {
        this.send({ type: 'notice', text: `unreadable input from the server (${item.kind})` });
        continue;
      }
      logWire(this.o.log, 'in', item.text);
      this.line('in', item.text);
      const parsed = parseServer(item.value);
      if (!parsed.ok) continue;
      this.version++;
      this.handle(parsed.value);
    }
    this.schedulePush(this.urgent);
    this.urgent = false;
  }

  private handle(m: ServerMessage): void {
    this.game.apply(m);
    switch (m.type) {
      case 'hello':
        if (m.protocol !== PROTOCOL) {
          this.ended = `the server speaks protocol ${m.protocol}, not ${PROTOCOL}`;
          this.socket?.end();
          return;
        }
        this.write({ type: 'hello', version: WEB_VERSION }, false);
        return;
      case 'welcome':
        // The lobby's Statusupdates follow the Willkommen: choose a colour once they are read.
        setImmediate(this.guarded('register', () => this.register()));
        return;
      case 'status':
        if (m.player.id === this.game.me) {
          this.refusedLines.clear();
          this.urgent = true;
        }
        return;
      case 'answer':
        this.urgent = true;
        if (m.text === 'OK') {
          this.answered();
          this.refusedLines.clear();
        } else this.refused(m.text);
        return;
      case 'error':
        this.urgent = true;
        this.refused(m.message);
        return;
      case 'gameOver':
        this.urgent = true;
        this.ended = m.message;
        return;
      default:
        return;
    }
  }

  private register(): void {
    if (this.closed || this.game.me === null) return;
    const taken = new Set(
      this.game
        .view()
        .players.filter((p) => p.id !== this.game.me)
        .map((p) => p.colour),
    );
    const wish =
      this.colour !== null && !taken.has(this.colour) ? this.colour : COLOURS.find((c) => !taken.has(c));
    if (wish === undefined) return;
    this.colour = wish;
    this.write({ type: 'player', name: this.name, colour: wish });
  }

  private answered(): void {
    this.inFlight = null;
    if (this.answerTimer) clearTimeout(this.answerTimer);
    this.answerTimer = null;
  }

  private refused(meldung: string): void {
    const sent = this.inFlight;
    this.answered();
    if (sent !== null) this.refusedLines.add(sent);
    this.send({ type: 'fehler', meldung, sent });
  }

  private tcpClosed(): void {
    this.closed = true;
    this.tcpDone = true;
    this.answered();
    this.ended ??= 'the connection to the game server closed';
    this.push();
    this.closeWs(1000, 'game over');
    // A browser away meanwhile may still come back within its time to see how the game ended.
    if (this.ws === null && this.awayTimer === null) this.finish();
    this.o.book.changed(this);
  }

  /** A line of the TCP connection: to the browser, and kept for a browser that comes back. */
  private line(dir: 'in' | 'out', line: string): void {
    this.backlog.push({ dir, line });
    if (this.backlog.length > BACKLOG) this.backlog.splice(0, this.backlog.length - BACKLOG);
    this.send({ type: 'line', dir, line });
  }

  // ---- from the browser --------------------------------------------------------------------------

  private command(data: RawData): void {
    this.commands++;
    this.schedulePush(true);
    let command: CatanPlayCommand;
    try {
      const text = Array.isArray(data)
        ? Buffer.concat(data).toString('utf8')
        : data instanceof ArrayBuffer
          ? Buffer.from(data).toString('utf8')
          : data.toString('utf8');
      const parsed = commandSchema.safeParse(JSON.parse(text));
      if (!parsed.success) throw new Error(parsed.error.issues[0]?.message ?? 'unknown command');
      command = parsed.data as CatanPlayCommand;
    } catch (err) {
      this.send({ type: 'notice', text: `not a command: ${(err as Error).message}` });
      return;
    }
    if (this.closed) {
      this.send({ type: 'notice', text: 'the game is over' });
      return;
    }
    switch (command.type) {
      case 'leave':
        this.left = true;
        this.socket?.end();
        return;
      case 'fill':
        this.fill(command.size ?? 4);
        return;
      case 'player':
        this.name = command.name;
        this.colour = command.colour;
        this.write({ type: 'player', name: command.name, colour: command.colour });
        return;
      case 'start':
        this.write({ type: 'startGame' });
        return;
      case 'chat':
        this.write({ type: 'chat', text: command.text });
        return;
      case 'action':
        this.write({ type: 'action', action: command.action });
        return;
    }
  }

  private fill(size: 3 | 4): void {
    const lobby = this.lobby();
    if (lobby === null) {
      this.send({ type: 'notice', text: 'you are not in a lobby' });
      return;
    }
    const filled = this.o.server.fillLobbyWithBots(lobby, size);
    this.send({
      type: 'notice',
      text: filled ? `${filled.added} house bot${filled.added === 1 ? '' : 's'} joined` : 'the lobby is gone',
    });
  }

  /** Sends one message; everything but the Hallo waits for its OK or Fehler before the next. */
  private write(message: ClientMessage, answered = true): void {
    const socket = this.socket;
    if (!socket || socket.destroyed) return;
    if (answered && this.inFlight !== null) {
      this.send({ type: 'notice', text: 'wait for the server to answer the last message' });
      return;
    }
    const line = formatClient(message);
    if (answered) {
      this.inFlight = line;
      this.answerTimer = setTimeout(
        this.guarded('answer timer', () => {
          this.answerTimer = null;
          if (this.inFlight === line) {
            this.inFlight = null;
            this.schedulePush(true);
          }
        }),
        ANSWER_TIMEOUT_MS,
      );
    }
    logWire(this.o.log, 'out', line);
    this.line('out', line);
    socket.write(line + '\n');
    this.schedulePush();
  }

  // ---- to the browser ----------------------------------------------------------------------------

  private phase(): CatanPlayPhase {
    const stage = this.game.view().stage;
    if (this.closed || stage === 'over') return 'over';
    return stage === 'game' ? 'game' : stage === 'lobby' ? 'lobby' : 'connecting';
  }

  private lobby(): string | null {
    const me = this.game.me;
    if (me === null) return null;
    return this.o.server.hall.lobbyRows().find((l) => l.players.some((p) => p.id === me))?.id ?? null;
  }

  /** Soon (`urgent`: in this turn of the event loop's next round), or within `PUSH_MS`. */
  private schedulePush(urgent = false): void {
    if (this.pushing) return;
    if (urgent) {
      if (this.pushTimer) clearTimeout(this.pushTimer);
      this.pushTimer = null;
      this.pushing = true;
      setImmediate(
        this.guarded('push', () => {
          this.pushing = false;
          this.push();
        }),
      );
      return;
    }
    this.pushTimer ??= setTimeout(
      this.guarded('push', () => {
        this.pushTimer = null;
        this.push();
      }),
      PUSH_MS,
    );
  }

  /** Another seat of this lobby or game went or came back: the browser hears of it soon. */
  refresh(): void {
    this.schedulePush();
  }

  /** The state now (while no browser is there, nothing is worked out). */
  private push(): void {
    if (this.pushTimer) clearTimeout(this.pushTimer);
    this.pushTimer = null;
    if (this.ws === null) return;
    const { pieces: _pieces, ...view } = this.game.view();
    const phase = this.phase();
    const me = view.me;
    const inGame = phase === 'game' && me !== null;
    const waiting = this.inFlight !== null;
    let rates: CatanPlayState['rates'] = null;
    if (inGame) {
      const s = stateFromView(this.game.view());
      if (s) rates = tradeRates(s, me);
    }
    const state: CatanPlayState = {
      type: 'state',
      phase,
      name: this.name,
      colour: this.colour,
      me: view.me,
      lobby: phase === 'lobby' ? this.lobby() : null,
      matchId: this.matchId,
      version: this.version,
      commands: this.commands,
      view,
      legal: inGame && !waiting ? this.legal() : null,
      rates,
      waiting,
      ended: phase === 'over' ? (this.ended ?? view.result?.message ?? null) : null,
      reconnecting: phase === 'over' ? [] : this.o.book.away(view.players.map((p) => p.id)),
    };
    this.send(state);
  }

  private legal(): LegalActions {
    const legal = legalFromView(this.game.view());
    if (this.refusedLines.size === 0) return legal;
    return { ...legal, actions: legal.actions.filter((a) => !this.refusedLines.has(formatAction(a))) };
  }

  private send(message: CatanPlayMessage): void {
    const ws = this.ws;
    if (ws?.readyState !== OPEN || ws.bufferedAmount > MAX_BUFFERED) return;
    try {
      ws.send(JSON.stringify(message));
    } catch (err) {
      this.o.log.debug({ err }, 'browser send failed');
    }
  }

  /** `fn` behind this seat's error boundary. */
  private guarded<A extends unknown[]>(what: string, fn: (...args: A) => unknown): (...args: A) => void {
    return guard(this.o.log, `browser seat ${what}`, fn, () => this.fail());
  }

  /** An exception in the seat: the person is told, the TCP connection and the WebSocket close. */
  private fail(): void {
    if (this.failed) return;
    this.failed = true;
    this.closed = true;
    this.left = true;
    this.ended = 'internal error in the gateway';
    this.send({ type: 'notice', text: this.ended });
    this.socket?.destroy();
    this.closeWs(1011, 'internal error');
  }

  private closeWs(code: number, reason: string): void {
    if (this.ws?.readyState === OPEN) this.ws.close(code, reason);
  }
}
