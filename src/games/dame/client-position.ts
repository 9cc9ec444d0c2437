import { popcount } from './board.js';
import type { Board } from './notation.js';
import { apply, createState, positionKey, type DameState, type Side, type SingleMove } from './rules.js';

/**
 * What a client knows of the game beyond the board it is sent: the turn-start positions since the
 * last capture or man move (for repetition) and the count of quiet single moves (the 50-move
 * rule). The client sees the board at its own turn starts and knows the board after its own turn;
 * between two such boards with the same men and the same number of pieces exactly one king step
 * was played, so both counts are exact.
 */
export class ClientPosition {
  private last: Board | null = null;
  private history: string[] = [];
  private quiet = 0;

  /** The state for a move request: a turn start, or a follow-up after our capture. */
  state(board: Board, side: Side, followUp: boolean): DameState {
    if (!followUp) this.observe(board, side);
    const base = createState(board, side, { mustContinue: followUp, quietMoves: followUp ? 0 : this.quiet });
    return followUp ? base : { ...base, history: [...this.history] };
  }

  /** Our single move was accepted: when it ended our turn, the opponent's turn starts here. */
  played(state: DameState, move: SingleMove): void {
    const next = apply(state, move);
    if (!next.ok || next.value.mustContinue) return;
    this.observe(next.value, next.value.toMove);
  }

  private observe(board: Board, side: Side): void {
    const key = positionKey(board.white, board.black, board.kings, side);
    if (this.last !== null && reversible(this.last, board)) {
      this.history.push(key);
      this.quiet++;
    } else {
      this.history = [key];
      this.quiet = 0;
    }
    this.last = { white: board.white, black: board.black, kings: board.kings };
  }
}

function reversible(before: Board, after: Board): boolean {
  const men = (b: Board): [number, number] => [(b.white & ~b.kings) >>> 0, (b.black & ~b.kings) >>> 0];
  const [w0, b0] = men(before);
  const [w1, b1] = men(after);
  return w0 === w1 && b0 === b1 && popcount(before.white | before.black) === popcount(after.white | after.black);
}
