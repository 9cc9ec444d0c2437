import type { Rng } from '../../../core/rng.js';
import type { Book } from '../solver/book.js';
import { defaultSolver } from '../solver/index.js';
import type { Position } from '../solver/position.js';
import { SearchAborted } from '../solver/solver.js';

/** The columns, 0-based, for the rng to shuffle. */
const COLUMNS = [0, 1, 2, 3, 4, 5, 6] as const;

/**
 * An optimal move (1-based column): among all columns with the best score, one chosen with the rng.
 * Uses the process-wide solver and its opening book; inside the book it prefers the best moves
 * whose position the book has analysed too, so that it stays in the book as long as it can (every
 * one of them is optimal). Outside the book, the best-move-only search (Solver.bestMove): one
 * exact solve, then null-window tests of the columns in an order the rng shuffles, up to the first
 * that reaches the score — the first best column of a uniformly random order, so every best column
 * is as likely as with a pick among all of them, without proving the others (~6% over a bare solve
 * where testing every column cost ~27%, Begin-Medium). Returns null if `deadline` (epoch ms)
 * passed before the search finished.
 */
export function perfectMove(position: Position, rng: Rng, deadline = Infinity): number | null {
  const solver = defaultSolver();
  solver.deadline = deadline;
  try {
    const book = solver.book;
    if (book === null || book.bestColumns(position) === null) return solver.bestMove(position, rng.shuffle(COLUMNS)).column + 1;
    const { columns } = solver.bestMoves(position);
    const staying = columns.filter((col) => staysInBook(book, position, col));
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
