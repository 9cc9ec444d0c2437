import { connect, type Socket } from 'node:net';
import { connectionLogger, logWire, silentLogger, type Logger } from '../../core/log.js';
import { Rng } from '../../core/rng.js';
import { moveName, type Move, type Team } from './board.js';
import { noMoveFallback } from './bots/fallback.js';
import type { AsyncBot } from './bots/types.js';
import {
  formatClient,
  STREAM_OPEN,
  type ClientPacket,
  type GameResult,
  type ServerPacket,
} from './protocol.js';
import { parseServer } from './protocol-read.js';
import { legalMoves, type State } from './rules.js';
import { XmlStreamParser, type XmlLimits } from './xml/parser.js';

/**
 * Connects a bot to any Software-Challenge 2022 server (ours or the official one) over TCP: it
 * joins, answers every `moveRequest` from the latest memento, and after `<left>` says goodbye with
 * `<sc.protocol.CloseConnection/>` as the official clients do (spec §6 "Client robustness"). It
 * reads a stream, not lines, and trusts nothing: packets it cannot read are logged and skipped.
 */

export type JoinRequest =
  | { readonly kind: 'join'; readonly gameType?: string | undefined }
  | { readonly kind: 'room'; readonly roomId: string }
  | { readonly kind: 'prepared'; readonly reservationCode: string };

export interface OstseeschachClientOptions {
  host: string;
  port: number;
  join: JoinRequest;
  /** A bot of bots/, or one that thinks in a worker thread (engine-thread.ts) and answers later. */
  bot: AsyncBot;
  /** What the bot may use per move, from the moveRequest's arrival; the official limit is 2000 ms. */
  budgetMs?: number | undefined;
  seed?: string | number | undefined;
  log?: Logger | undefined;
  /** Say goodbye after `<left>` (default true); false keeps the connection for another join. */
  leaveAfterGame?: boolean | undefined;
  /** Every packet received, after the client handled it. */
  onPacket?: ((packet: ServerPacket) => void) | undefined;
  limits?: Partial<XmlLimits> | undefined;
}

export interface ClientOutcome {
  roomId: string | null;
  team: Team | null;
  result: GameResult | null;
  /** Our Siegpunkte (2 win, 1 draw, 0 loss); null without a result. */
  points: number | null;
  /** Messages of errorpackets and room errors, in order. */
  errors: string[];
  /** Moves sent. */
  moves: number;
  /** `closed`: the server ended the stream; `stopped`: we did; `error`: the socket failed. */
  end: 'closed' | 'stopped' | 'error';
}

export const DEFAULT_BUDGET_MS = 1700;
/**
 * The longest server packet our client reads. Not the server's 64 Ki limit for client packets: a
 * result names both players, and an administrator's prepare may carry display names of nearly
 * 64 Ki characters between them, so a result can be longer than that (check-client
 * `large-messages`). The server is the side we trust; this only bounds a broken stream.
 */
export const MAX_SERVER_PACKET_CHARS = 1024 * 1024;
/** After our goodbye, the server has this long to close before we do. */
const GOODBYE_MS = 2000;

export class OstseeschachClient {
  readonly finished: Promise<ClientOutcome>;
  private resolveFinished!: (outcome: ClientOutcome) => void;
  private socket: Socket | null = null;
  private readonly parser: XmlStreamParser;
  private readonly log: Logger;
  private readonly rng: Rng;
  private state: State | null = null;
  private done = false;
  private saidGoodbye = false;
  /**
   * Counts the moments a move owed becomes void: a new moveRequest, the result, `<left>`, a
   * goodbye, the end of the connection. A move thought out in another epoch is never sent.
   */
  private epoch = 0;
  private goodbyeTimer: NodeJS.Timeout | null = null;
  private readonly outcome: ClientOutcome = {
    roomId: null,
    team: null,
    result: null,
    points: null,
    errors: [],
    moves: 0,
    end: 'closed',
  };

  constructor(private readonly o: OstseeschachClientOptions) {
    this.finished = new Promise((resolve) => (this.resolveFinished = resolve));
    this.parser = new XmlStreamParser({ maxPacketChars: MAX_SERVER_PACKET_CHARS, ...o.limits });
    this.log = connectionLogger(o.log ?? silentLogger, { game: 'ostseeschach', conn: `${o.host}:${o.port}` });
    this.rng = Rng.seeded(o.seed ?? 'ostseeschach-client');
  }

  /** Connects and sends the join request; rejects when the server cannot be reached. */
  async start(): Promise<void> {
    if (this.socket) throw new Error('OstseeschachClient already started');
    const socket = connect({ host: this.o.host, port: this.o.port, noDelay: true });
    this.socket = socket;
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve();
      });
      socket.once('error', reject);
    });
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('end', () => this.finish('closed'));
    socket.on('error', (error) => {
      this.log.warn({ err: error }, 'connection failed');
      this.finish('error');
    });
    socket.on('close', () => this.finish('closed'));
    const join: ClientPacket =
      this.o.join.kind === 'join'
        ? { type: 'join', gameType: this.o.join.gameType ?? null }
        : this.o.join.kind === 'room'
          ? { type: 'joinRoom', roomId: this.o.join.roomId }
          : { type: 'joinPrepared', reservationCode: this.o.join.reservationCode };
    this.write(STREAM_OPEN + formatClient(join) + '\n');
  }

  /** Says goodbye and closes. */
  stop(): void {
    if (this.done) return;
    this.goodbye();
    this.finish('stopped');
  }

  private write(text: string): void {
    const socket = this.socket;
    if (!socket || socket.destroyed || !socket.writable) return;
    logWire(this.log, 'out', text);
    socket.write(text);
  }

  private receive(chunk: Buffer): void {
    for (const event of this.parser.write(chunk)) {
      if (event.type === 'packet') {
        logWire(this.log, 'in', event.raw);
        const parsed = parseServer(event.element);
        if (!parsed.ok) {
          this.log.warn({ error: parsed.error.message }, 'unreadable packet skipped');
          continue;
        }
        try {
          this.handle(parsed.value);
          this.o.onPacket?.(parsed.value);
        } catch (error) {
          this.log.error({ err: error }, 'failed to handle a packet');
        }
      } else if (event.type === 'close') {
        this.finish('closed');
      } else if (event.type === 'error') {
        this.log.warn({ code: event.code, error: event.message }, 'unreadable server stream');
        this.goodbye();
      }
    }
  }

  private handle(packet: ServerPacket): void {
    switch (packet.type) {
      case 'joined':
        this.outcome.roomId ??= packet.roomId;
        this.log.info({ room: packet.roomId }, 'joined');
        return;
      case 'errorpacket':
        this.outcome.errors.push(packet.message);
        this.log.warn({ message: packet.message }, 'the server refused a request');
        // Without a room there is nothing to wait for (a bad reservation, a full room, …).
        if (this.outcome.roomId === null) this.goodbye();
        return;
      case 'left':
        this.epoch++;
        if (this.o.leaveAfterGame ?? true) this.goodbye();
        return;
      case 'closeConnection':
        this.epoch++;
        this.goodbye();
        return;
      case 'room':
        break;
      default:
        return;
    }
    const data = packet.data;
    switch (data.class) {
      case 'welcomeMessage':
        this.outcome.team = data.color;
        return;
      case 'memento':
        this.state = data.state;
        return;
      case 'moveRequest':
        this.move(packet.roomId);
        return;
      case 'result': {
        this.epoch++;
        this.outcome.result = data.result;
        const own = data.result.scores.find((s) => s.team === this.outcome.team);
        this.outcome.points = own?.parts[0] ?? null;
        this.log.info({ winner: data.result.winner, points: this.outcome.points }, 'game over');
        return;
      }
      case 'error':
        this.outcome.errors.push(data.message);
        this.log.warn({ message: data.message }, 'the server rejected our move');
        return;
      case 'paused':
        return;
    }
  }

  private move(roomId: string): void {
    const state = this.state;
    if (!state) {
      this.log.warn('move requested before any memento');
      return;
    }
    const epoch = ++this.epoch;
    const budget = this.o.budgetMs ?? DEFAULT_BUDGET_MS;
    const started = performance.now();
    // A failing bot must not lose on time: any legal move is better than none.
    const fallback = (error: unknown): Move => {
      this.log.error({ err: error, turn: state.turn }, 'the bot failed; playing the first legal move');
      return legalMoves(state)[0] ?? noMoveFallback(state);
    };
    const send = (move: Move): void => {
      if (epoch !== this.epoch || this.done) {
        this.log.debug({ move: moveName(move), turn: state.turn }, 'the game ended while the bot thought: its move is dropped');
        return;
      }
      this.write(formatClient({ type: 'room', roomId, data: { class: 'move', move } }) + '\n');
      this.outcome.moves++;
      this.log.debug({ move: moveName(move), ms: Math.round(performance.now() - started), turn: state.turn }, 'moved');
    };
    let answer: Move | Promise<Move>;
    try {
      answer = this.o.bot(state, budget, this.rng);
    } catch (error) {
      answer = fallback(error);
    }
    if (answer instanceof Promise) answer.then(send, (error: unknown) => send(fallback(error)));
    else send(answer);
  }

  private goodbye(): void {
    if (this.saidGoodbye || this.done) return;
    this.saidGoodbye = true;
    this.epoch++;
    this.write(formatClient({ type: 'closeConnection' }));
    // The server answers with the end of its stream; if it does not, we close anyway.
    this.goodbyeTimer = setTimeout(() => this.finish('stopped'), GOODBYE_MS);
    this.goodbyeTimer.unref();
  }

  private finish(end: ClientOutcome['end']): void {
    if (this.done) return;
    this.done = true;
    this.epoch++;
    if (this.goodbyeTimer) clearTimeout(this.goodbyeTimer);
    this.outcome.end = end;
    // After the server's end of stream a clean close; otherwise nothing is left to wait for.
    if (end === 'closed') this.socket?.end();
    else this.socket?.destroy();
    this.resolveFinished({ ...this.outcome, errors: [...this.outcome.errors] });
  }
}

/** Connects, plays one game and returns how it went. */
export async function playOnServer(options: OstseeschachClientOptions): Promise<ClientOutcome> {
  const client = new OstseeschachClient(options);
  await client.start();
  return client.finished;
}
