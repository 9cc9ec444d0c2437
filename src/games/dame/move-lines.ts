import type { Board } from './notation.js';
import { squareName } from './notation.js';
import { apply, legalMoves, type DameState, type Side, type SingleMove } from './rules.js';

/**
 * The turns of a game as `spielhalle bot dame` prints them while it plays (docs/dame.md, "bot dame
 * on a terminal"). A turn is one side's single moves up to the change of side (after a capture the
 * same side moves again, spec §2.4), spelled as a PLAY command spells them: a piece's moves as one
 * colon chain, another piece's after a `;` (`E3:C5:A7`, `D4:F6;G3:H4`). Our own turns the client
 * knows; the opponent's it never sees on the wire (the MNM protocol sends only boards), so they are
 * found from the board after our turn and the board at our next move request.
 */

export type TurnMove = Pick<SingleMove, 'from' | 'to'>;

export interface DameTurn {
  side: Side;
  /** Played by this client (false: the opponent's, found from the boards). */
  mine: boolean;
  /** Its single moves in order; null when it could not be told. */
  moves: readonly TurnMove[] | null;
  /** Our think time for the turn (all its single moves), in ms; null for the opponent's. */
  ms: number | null;
}

const sameBoard = (a: Board, b: Board): boolean => a.white === b.white && a.black === b.black && a.kings === b.kings;

/** Positions the search for a turn may visit: captures are few per turn, so this is never reached in play. */
const SEARCH_LIMIT = 200_000;

/**
 * The opponent's turn that leads from `before` (the opponent to move) to `after`: its single
 * moves, or null when no legal turn gives that board. A turn ends where the side changes or the
 * game ends.
 */
export function findTurn(before: DameState, after: Board): TurnMove[] | null {
  if (before.result !== null) return null;
  let budget = SEARCH_LIMIT;
  const search = (state: DameState, done: TurnMove[]): TurnMove[] | null => {
    for (const move of legalMoves(state)) {
      if (--budget < 0) return null;
      const next = apply(state, move);
      if (!next.ok) continue;
      const moves = [...done, { from: move.from, to: move.to }];
      if (next.value.mustContinue && next.value.result === null) {
        const found = search(next.value, moves);
        if (found) return found;
      } else if (sameBoard(next.value, after)) return moves;
    }
    return null;
  };
  return search(before, []);
}

/** `E3:C5:A7`, `D4:F6;G3:H4` (as a PLAY command), or `?` when the turn could not be told. */
export function turnText(moves: readonly TurnMove[] | null): string {
  if (moves === null || moves.length === 0) return '?';
  let text = '';
  moves.forEach((m, i) => {
    if (i > 0 && moves[i - 1]?.to === m.from) text += `:${squareName(m.to)}`;
    else text += `${i > 0 ? ';' : ''}${squareName(m.from)}:${squareName(m.to)}`;
  });
  return text;
}

/**
 * One printed line: the turn's number in the game as this client counts it (1 = the first turn
 * it saw), the side and whether it is ours, the chain, and our think time:
 * `  7. White (us)  E3:C5:A7  412 ms`, `  8. Black       F6:E5`.
 */
export function formatTurnLine(number: number, turn: DameTurn): string {
  const who = `${turn.side === 'white' ? 'White' : 'Black'}${turn.mine ? ' (us)' : ''}`;
  const time = turn.ms === null ? '' : `  ${Math.round(turn.ms)} ms`;
  return `${String(number).padStart(3)}. ${who.padEnd(10)}  ${turnText(turn.moves)}${time}`;
}
