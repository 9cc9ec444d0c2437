import type { Move } from '../board.js';
import type { State } from '../rules.js';
import { toMove } from '../rules.js';

/** The move a bot sends when it has no legal move: any own piece "moving" in place (invalid). */
export function noMoveFallback(state: State): Move {
  const team = toMove(state);
  const own = state.pieces.find((e) => e.piece.team === team);
  const c = own ? own.coordinates : { x: 0, y: 0 };
  return { from: c, to: c };
}
