import type { Rng } from '../../../core/rng.js';
import type { Move } from '../board.js';
import { legalMoves, type State } from '../rules.js';
import { noMoveFallback } from './fallback.js';

/** Uniformly random legal move. */
export function randomBot(state: State, _budgetMs: number, rng: Rng): Move {
  const moves = legalMoves(state);
  return moves.length > 0 ? rng.pick(moves) : noMoveFallback(state);
}
