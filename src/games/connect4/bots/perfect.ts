import type { Rng } from '../../../core/rng.js';
import type { Book } from '../solver/book.js';
import { defaultSolver } from '../solver/index.js';
import type { Position } from '../solver/position.js';
import { SearchAborted } from '../solver/solver.js';

/**
 * An optimal move (1-based column): among all columns with the best score, one chosen with the rng.
 * Uses the process-wide solver and its opening book; inside the book it prefers the best moves
 * whose position the book has analysed too, so that it stays in the book as long as it can (every
 * one of them is optimal). Returns null if `deadline` (epoch ms) passed before the search finished.
 */
export function perfectMove(position: Position, rng: Rng, deadline = Infinity): number | null {
  const solver = defaultSolver();
  solver.deadline = deadline;
  try {
    const { columns } = solver.bestMoves(position);
    const book = solver.book;
    const staying = book === null || book.bestColumns(position) === null ? [] : columns.filter((col) => staysInBook(book, position, col));
    return rng.pick(staying.length > 0 ? staying : columns) + 1;
  } catch (e) {
    if (e instanceof SearchAborted) return null;
    throw e;
  } finally {
    solver.deadline = Infinity;
  }
}

/** Whether a move ends the game or leads to a position whose best moves the book lists. */
function staysInBook(book: Book, position: Position, col: number): boolean {
  if (position.isWinningMove(col)) return true;
  const child = position.clone();
  child.playCol(col);
  return book.bestColumns(child) !== null;
}
