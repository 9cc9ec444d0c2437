import { connect, type Socket } from 'node:net';
import { systemClock, type Clock, type Timer } from '../../core/clock.js';
import { LineFramer } from '../../core/framing.js';
import { connectionLogger, logWire, silentLogger, type Logger } from '../../core/log.js';
import { type Board } from './notation.js';
import { ClientPosition } from './client-position.js';
import {
  formatClient,
  isErrorLine,
  parseBoardHeader,
  parseGreeting,
  parseMoveRequest,
  parsePlayerEntry,
  parseTotal,
  parseWon,
  parseYou,
  SERVER_LINES,
  GAME_KIND,
  type ClientMessage,
  type Seat,
} from './protocol.js';
import { apply, findMove, initialState, legalMoves, unpackMove, type DameState, type SingleMove } from './rules.js';
import { parseBoardLines, formatMove } from './notation.js';
import { findTurn, type DameTurn, type TurnMove } from './move-lines.js';

/**
 * The MNM protocol client (spec §2, §6.1): connects, runs the prolog, answers WAIT with OKWAIT in
 * any state, and on every move request rebuilds the position from the BOARD, asks its player for
 * one single move within `MOVE ms − margin`, checks it with the rules and sends `PLAY from:to`.
 * A follow-up request after a capture is just another move request.
 */

/** Picks one single move for the side to move within `budgetMs`. */
export type DamePlayer = (state: DameState, budgetMs: number) => SingleMove | Promise<SingleMove>;

export interface DameClientOptions {
  host: string;
  port: number;
  gameId: string;
  /** 0 = White, 1 = Black (`PLAYER n`); null or absent = bare `PLAYER` (lowest free seat). */
  seat?: Seat | null;
  player: DamePlayer;
  /** Kept back from the MOVE time for THINKING/OKTHINK, GC and the network; at most a quarter of it. */
  marginMs?: number;
  log?: Logger;
  clock?: Clock;
  connectTimeoutMs?: number;
  /** A v3 greeting with no MOTD after this long: send VERSION anyway. */
  motdWaitMs?: number;
  /** No server line for this long ends the client (the server sends WAIT every second). */
  silenceTimeoutMs?: number;
  /** Every line in and out, as on the wire. */
  onLine?: (dir: 'in' | 'out', line: string) => void;
  /** Every turn as it is played: ours once it is complete, the opponent's at our next board (move-lines.ts). */
  onTurn?: (turn: DameTurn) => void;
}

export interface DameClientResult {
  outcome: 'won' | 'lost' | 'draw' | 'error';
  seat: Seat | null;
  gameName: string | null;
  winners: [boolean, boolean] | null;
  /** The server's `- ` line, or what went wrong on our side. */
  error: string | null;
  /** The final BOARD rows of the GAMEOVER block. */
  board: string[] | null;
  /** PLAY commands sent. */
  plays: number;
  /** The longest time from `+ MOVE` to our `PLAY`, in ms. */
  slowestMs: number;
}

type Expect =
  | 'greeting'
  | 'motd'
  | 'versionAccepted'
  | 'playing'
  | 'gameName'
  | 'you'
  | 'total'
  | 'players'
  | 'endPlayers'
  | 'idle'
  | 'boardHeader'
  | 'boardRows'
  | 'okThink'
  | 'thinking'
  | 'moveOk'
  | 'won0'
  | 'won1'
  | 'quit'
  | 'done';

export const DEFAULT_MARGIN_MS = 400;

/** Where `+ GAMEOVER` starts the final block: idle, waiting for OKTHINK or MOVEOK, or owing PLAY. */
const OWES_OR_IDLE: readonly Expect[] = ['idle', 'okThink', 'thinking', 'moveOk'];

export class DameClient {
  private readonly log: Logger;
  private readonly clock: Clock;
  private socket: Socket | null = null;
  private readonly framer = new LineFramer(64 * 1024);
  private expect: Expect = 'greeting';
  private timer: Timer | null = null;
  private silence: Timer | null = null;
  private settle: ((result: DameClientResult) => void) | null = null;
  private readonly result: DameClientResult = {
    outcome: 'error',
    seat: null,
    gameName: null,
    winners: null,
    error: null,
    board: null,
    plays: 0,
    slowestMs: 0,
  };
  private serverVersion = '';
  private playersLeft = 0;
  private boardFor: 'move' | 'gameOver' = 'move';
  private rows: string[] = [];
  private moveMs = 0;
  private moveAt = 0;
  /** Our PLAY in flight is a capture. */
  private playedCapture = false;
  /** Our last PLAY was a capture and got MOVEOK: a MOVE right after it is a follow-up. */
  private afterCapture = false;
  private position: DameState | null = null;
  private readonly history = new ClientPosition();
  private winners: [boolean, boolean] = [false, false];
  /** For onTurn: the position after our last complete turn (the opponent to move), our turn so far. */
  private afterOurTurn: DameState | null = null;
  private ourTurn: TurnMove[] = [];
  private ourMs = 0;

  constructor(private readonly o: DameClientOptions) {
    this.log = connectionLogger(o.log ?? silentLogger, { game: 'dame', conn: `${o.host}:${o.port}` });
    this.clock = o.clock ?? systemClock;
  }

  /** Plays one game; resolves at QUIT, at an error line, or when the connection ends. */
  run(): Promise<DameClientResult> {
    if (this.socket) return Promise.reject(new Error('DameClient already running'));
    return new Promise<DameClientResult>((resolve) => {
      this.settle = resolve;
      const socket = connect({ host: this.o.host, port: this.o.port, noDelay: true });
      this.socket = socket;
      this.timer = this.clock.setTimeout(() => this.finish(`no connection to ${this.o.host}:${this.o.port}`), this.o.connectTimeoutMs ?? 5000);
      socket.on('connect', () => {
        this.timer?.cancel();
        this.timer = null;
        this.log.debug('connected');
        this.watch();
      });
      socket.on('data', (chunk: Buffer) => {
        for (const item of this.framer.push(chunk)) {
          if (this.expect === 'done') return;
          if (item.kind === 'overlong') {
            this.finish(`the server sent a line of ${item.bytes} bytes`);
            return;
          }
          try {
            this.line(item.line);
          } catch (error) {
            this.finish(`client error: ${error instanceof Error ? error.message : String(error)}`);
          }
        }
      });
      socket.on('error', (error) => this.finish(`connection error: ${error.message}`));
      socket.on('close', () => this.finish(this.expect === 'quit' || this.expect === 'done' ? null : 'the server closed the connection'));
    });
  }

  /** The local port of its connection (how the server tells it from other clients), once connected. */
  get localPort(): number | null {
    return this.socket?.localPort ?? null;
  }

  /** Gives up: closes the connection (the server counts that as a disconnect). */
  stop(): void {
    this.finish('stopped');
  }

  private watch(): void {
    this.silence?.cancel();
    const ms = this.o.silenceTimeoutMs ?? 60_000;
    this.silence = this.clock.setTimeout(() => this.finish(`no line from the server for ${ms} ms`), ms);
  }

  private send(message: ClientMessage): void {
    // Nothing goes out after the game has ended (QUIT, an error line, a closed connection).
    if (this.settle === null) return;
    const line = formatClient(message);
    logWire(this.log, 'out', line);
    this.o.onLine?.('out', line);
    this.socket?.write(line + '\n');
  }

  private fail(why: string): void {
    this.log.warn({ why }, 'giving up');
    this.finish(why);
  }

  private line(line: string): void {
    logWire(this.log, 'in', line);
    this.o.onLine?.('in', line);
    this.watch();
    if (isErrorLine(line)) {
      this.finish(line);
      return;
    }
    // WAIT is answered in any state except inside a block, where it would be a row or a name.
    if (line === SERVER_LINES.wait && !['motd', 'gameName', 'players', 'boardHeader', 'boardRows'].includes(this.expect)) {
      this.afterCapture = false;
      this.send({ type: 'OKWAIT' });
      return;
    }
    // GAMEOVER may come at any point outside a block (spec §2.3, docs/dame.md decision 8): the
    // opponent lost while we owed THINKING or PLAY, or our PLAY crossed the end. What we owed is
    // void; a move still being thought about is never sent.
    if (line === SERVER_LINES.gameOver && OWES_OR_IDLE.includes(this.expect)) {
      if (this.expect !== 'idle') this.log.debug({ owed: this.expect }, 'the game ended while we owed an answer');
      this.boardFor = 'gameOver';
      this.expect = 'boardHeader';
      return;
    }
    switch (this.expect) {
      case 'greeting': {
        const greeting = parseGreeting(line);
        if (!greeting) return this.fail(`not an MNM Gameserver greeting: ${line}`);
        this.serverVersion = `${greeting.major}.${greeting.minor ?? 0}`;
        if (greeting.major >= 3) {
          this.expect = 'motd';
          this.timer = this.clock.setTimeout(() => this.sendVersion(), this.o.motdWaitMs ?? 5000);
        } else this.sendVersion();
        return;
      }
      case 'motd':
        this.log.debug({ motd: line.slice(2) }, 'message of the day');
        this.sendVersion();
        return;
      case 'versionAccepted':
        if (line !== SERVER_LINES.versionAccepted) this.log.warn({ line }, 'unusual version answer');
        this.expect = 'playing';
        this.send({ type: 'ID', gameId: this.o.gameId });
        return;
      case 'playing': {
        const kind = /^\+ PLAYING (.*)$/.exec(line)?.[1];
        if (kind !== GAME_KIND) return this.fail(`not a ${GAME_KIND} game: ${line}`);
        this.expect = 'gameName';
        return;
      }
      case 'gameName':
        this.result.gameName = line.slice(2);
        this.expect = 'you';
        this.send({ type: 'PLAYER', seat: this.o.seat ?? null });
        return;
      case 'you': {
        const you = parseYou(line);
        if (!you || (you.seat !== 0 && you.seat !== 1)) return this.fail(`expected + YOU, got: ${line}`);
        this.result.seat = you.seat;
        this.expect = 'total';
        return;
      }
      case 'total': {
        const total = parseTotal(line);
        if (total === null || total < 1) return this.fail(`expected + TOTAL, got: ${line}`);
        this.playersLeft = total - 1;
        this.expect = this.playersLeft > 0 ? 'players' : 'endPlayers';
        return;
      }
      case 'players':
        this.log.debug({ player: parsePlayerEntry(line) }, 'opponent');
        if (--this.playersLeft === 0) this.expect = 'endPlayers';
        return;
      case 'endPlayers':
        if (line !== SERVER_LINES.endPlayers) return this.fail(`expected + ENDPLAYERS, got: ${line}`);
        this.expect = 'idle';
        return;
      case 'idle': {
        const ms = parseMoveRequest(line);
        if (ms !== null) {
          this.moveMs = ms;
          this.moveAt = this.clock.now();
          this.boardFor = 'move';
          this.expect = 'boardHeader';
        } else this.log.warn({ line }, 'ignoring an unexpected line');
        return;
      }
      case 'boardHeader': {
        const header = parseBoardHeader(line);
        if (header?.columns !== 8 || header.rows !== 8) return this.fail(`expected + BOARD 8,8, got: ${line}`);
        this.rows = [];
        this.expect = 'boardRows';
        return;
      }
      case 'boardRows':
        if (line !== SERVER_LINES.endBoard) {
          if (this.rows.length >= 8) return this.fail(`more than 8 board rows: ${line}`);
          this.rows.push(line);
          return;
        }
        this.boardDone();
        return;
      case 'okThink':
        if (line !== SERVER_LINES.okThink) return this.fail(`expected + OKTHINK, got: ${line}`);
        this.expect = 'thinking';
        this.think();
        return;
      case 'thinking':
        this.log.warn({ line }, 'ignoring a line while thinking');
        return;
      case 'moveOk':
        if (line !== SERVER_LINES.moveOk) return this.fail(`expected + MOVEOK, got: ${line}`);
        this.afterCapture = this.playedCapture;
        this.expect = 'idle';
        return;
      case 'won0':
      case 'won1': {
        const won = parseWon(line);
        const which = this.expect === 'won0' ? 0 : 1;
        if (won?.seat !== which) return this.fail(`expected + PLAYER${which}WON, got: ${line}`);
        this.winners[which] = won.won;
        this.expect = which === 0 ? 'won1' : 'quit';
        return;
      }
      case 'quit':
        if (line !== SERVER_LINES.quit) return this.fail(`expected + QUIT, got: ${line}`);
        this.expect = 'done';
        this.finish(null);
        return;
      case 'done':
        return;
    }
  }

  private sendVersion(): void {
    this.timer?.cancel();
    this.timer = null;
    if (this.expect !== 'motd' && this.expect !== 'greeting') return;
    this.expect = 'versionAccepted';
    this.send({ type: 'VERSION', version: this.serverVersion });
  }

  private boardDone(): void {
    const board = parseBoardLines(this.rows);
    if (!board.ok) return this.fail(`unreadable board: ${board.error}`);
    if (this.boardFor === 'gameOver') {
      this.result.board = this.rows.map((r) => r.slice(2));
      this.expect = 'won0';
      this.opponentTurn(board.value, true);
      return;
    }
    const seat = this.result.seat;
    if (seat === null) return this.fail('a move request before + YOU');
    this.position = this.rebuild(board.value, seat);
    this.expect = 'okThink';
    this.send({ type: 'THINKING' });
  }

  /** The state for the player: the board, our side, and what we know of the game's history. */
  private rebuild(board: Board, seat: Seat): DameState {
    const followUp = this.afterCapture;
    this.afterCapture = false;
    if (!followUp) this.opponentTurn(board, false);
    return this.history.state(board, seat === 0 ? 'white' : 'black', followUp);
  }

  /**
   * The opponent's turn between our last one and `board` (onTurn only). Before our first turn as
   * Black, White's first turn is looked for from the start position. At the end, a board that is
   * still the one after our turn means the game ended without an opponent's move.
   */
  private opponentTurn(board: Board, atEnd: boolean): void {
    if (!this.o.onTurn) return;
    const seat = this.result.seat;
    if (seat === null) return;
    const before = this.afterOurTurn ?? (seat === 1 && !atEnd ? initialState() : null);
    if (before === null) return;
    if (board.white === before.white && board.black === before.black && board.kings === before.kings) return;
    this.afterOurTurn = null;
    this.o.onTurn({ side: seat === 0 ? 'black' : 'white', mine: false, moves: findTurn(before, board), ms: null });
  }

  /** Our single move went out: a turn is complete once it passes the move (or ends the game). */
  private ourMove(state: DameState, move: SingleMove, ms: number): void {
    if (!this.o.onTurn) return;
    this.ourTurn.push({ from: move.from, to: move.to });
    this.ourMs += ms;
    const next = apply(state, move);
    if (next.ok && next.value.mustContinue && next.value.result === null) return;
    this.o.onTurn({ side: state.toMove, mine: true, moves: this.ourTurn, ms: this.ourMs });
    this.afterOurTurn = next.ok ? next.value : null;
    this.ourTurn = [];
    this.ourMs = 0;
  }

  private think(): void {
    const state = this.position;
    if (!state) return this.fail('no position to think about');
    const legal = legalMoves(state);
    if (legal.length === 0) return this.fail('a move request in a position without a legal move');
    const margin = Math.min(this.o.marginMs ?? DEFAULT_MARGIN_MS, this.moveMs / 4);
    const budget = Math.max(1, Math.floor(this.moveMs - margin - (this.clock.now() - this.moveAt)));
    const play = (move: SingleMove): void => {
      if (this.expect !== 'thinking') return;
      const checked = findMove(state, move.from, move.to);
      const chosen = checked.ok ? unpackMove(checked.value) : legal[0]!;
      if (!checked.ok) this.log.error({ move: formatMove(move), error: checked.error }, 'the player chose an illegal move; playing a legal one');
      this.result.plays++;
      this.result.slowestMs = Math.max(this.result.slowestMs, this.clock.now() - this.moveAt);
      this.history.played(state, chosen);
      this.ourMove(state, chosen, this.clock.now() - this.moveAt);
      this.playedCapture = chosen.captured !== null;
      this.expect = 'moveOk';
      this.send({ type: 'PLAY', command: formatMove(chosen) });
    };
    const fallback = (error: unknown): void => {
      this.log.error({ err: error }, 'the player failed; playing a legal move');
      play(legal[0]!);
    };
    try {
      const chosen = this.o.player(state, budget);
      if (chosen instanceof Promise) chosen.then(play, fallback);
      else play(chosen);
    } catch (error) {
      fallback(error);
    }
  }

  private finish(error: string | null): void {
    if (!this.settle) return;
    const settle = this.settle;
    this.settle = null;
    this.expect = 'done';
    this.timer?.cancel();
    this.silence?.cancel();
    this.timer = this.silence = null;
    const r = this.result;
    if (error === null && r.board !== null) {
      r.winners = [...this.winners];
      r.outcome = this.winners[0] && this.winners[1] ? 'draw' : r.seat !== null && this.winners[r.seat] ? 'won' : 'lost';
    } else {
      r.outcome = 'error';
      r.error = error ?? 'the connection ended before the game did';
    }
    const socket = this.socket;
    if (socket && !socket.destroyed) {
      socket.end();
      setTimeout(() => socket.destroy(), 1000).unref();
    }
    this.log.debug({ outcome: r.outcome, error: r.error }, 'game ended');
    settle({ ...r });
  }
}
