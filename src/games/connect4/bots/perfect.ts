import type { Rng } from '../../../core/rng.js';
import { defaultSolver } from '../solver/index.js';
import type { Position } from '../solver/position.js';
import { SearchAborted } from '../solver/solver.js';

/**
 * An optimal move (1-based column): among all columns with the best score, one chosen with the rng.
 * Uses the process-wide solver and its opening book. Returns null if `deadline` (epoch ms) passed
 * before the search finished.
 */
export function perfectMove(position: Position, rng: Rng, deadline = Infinity): number | null {
  const solver = defaultSolver();
  solver.deadline = deadline;
  try {
    const { columns } = solver.bestMoves(position);
    return rng.pick(columns) + 1;
  } catch (e) {
    if (e instanceof SearchAborted) return null;
    throw e;
  } finally {
    solver.deadline = Infinity;
  }
}
