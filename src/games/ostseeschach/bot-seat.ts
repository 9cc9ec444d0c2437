import type { Logger } from '../../core/log.js';
import { Rng } from '../../core/rng.js';
import type { Move } from './board.js';
import { noMoveFallback } from './bots/fallback.js';
import type { AsyncBot } from './bots/types.js';
import type { LobbyPeer } from './lobby.js';
import type { ClientPacket, ServerPacket } from './protocol.js';
import { legalMoves, type State } from './rules.js';

/**
 * One of our bots in a seat of a room, without a socket (the ladder's house bot): it takes the
 * room's packets as a connection would and answers each `moveRequest` through the lobby with a
 * `move`, so the room judges, times and records it like any client's. It answers on a later turn
 * of the event loop, never inside the room's own call, and drops a move thought out after the
 * game ended. After `<left>` it is closed.
 */

export interface BotSeatOptions {
  /** Its name in logs and the room's record (`address`). */
  id: string;
  bot: AsyncBot;
  /** What the bot may think per move. */
  budgetMs: number;
  seed: string;
  /** Hands a request to the lobby (`lobby.handle(seat, packet)`). */
  submit: (seat: BotSeat, packet: ClientPacket) => void;
  log: Logger;
  /** After `<left>` (or `close`): release what the bot holds (an engine thread). */
  onClosed?: () => void;
}

export class BotSeat implements LobbyPeer {
  readonly id: string;
  readonly host = 'server';
  admin = false;
  private closed = false;
  private state: State | null = null;
  /** Counts the moments a move owed becomes void (a new request, the result, the end). */
  private epoch = 0;
  private readonly rng: Rng;

  constructor(private readonly o: BotSeatOptions) {
    this.id = o.id;
    this.rng = Rng.seeded(o.seed);
  }

  get open(): boolean {
    return !this.closed;
  }

  send(packet: ServerPacket): void {
    if (this.closed) return;
    if (packet.type === 'left' || packet.type === 'closeConnection') return this.close();
    if (packet.type !== 'room') return;
    const data = packet.data;
    if (data.class === 'memento') this.state = data.state;
    else if (data.class === 'result') this.epoch++;
    else if (data.class === 'moveRequest') this.think(packet.roomId);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.epoch++;
    this.o.onClosed?.();
  }

  private think(roomId: string): void {
    const state = this.state;
    if (state === null) return;
    const epoch = ++this.epoch;
    const send = (move: Move): void => {
      if (epoch !== this.epoch || this.closed) return;
      this.o.submit(this, { type: 'room', roomId, data: { class: 'move', move: { from: move.from, to: move.to } } });
    };
    // A failing bot plays the first legal move rather than lose on time.
    const fallback = (err: unknown): Move => {
      this.o.log.error({ err, turn: state.turn, seat: this.id }, 'the house bot failed; playing the first legal move');
      return legalMoves(state)[0] ?? noMoveFallback(state);
    };
    setImmediate(() => {
      if (epoch !== this.epoch || this.closed) return;
      let answer: Move | Promise<Move>;
      try {
        answer = this.o.bot(state, this.o.budgetMs, this.rng);
      } catch (err) {
        answer = fallback(err);
      }
      if (answer instanceof Promise)
        answer.then(send, (err: unknown) => {
          // A thread closed with the game is no failure.
          if (epoch === this.epoch && !this.closed) send(fallback(err));
        });
      else send(answer);
    });
  }
}
