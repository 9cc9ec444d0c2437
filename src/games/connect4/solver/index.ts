import { err, ok, type Result } from '../../../core/result.js';
import { fromMoves, status, type SequenceError } from '../rules.js';
import { Book } from './book.js';
import { BOOK_TEXT } from './book-data.js';
import { Position } from './position.js';
import { Solver } from './solver.js';

export { Book, canonicalKey } from './book.js';
export { CELLS, MAX_SCORE, MIN_SCORE, Position } from './position.js';
export { SearchAborted, Solver, type Engine, type SolverOptions } from './solver.js';
export { wasmPath } from './search-wasm.js';
export { TranspositionTable } from './table.js';

let book: Book | null = null;
let shared: Solver | null = null;

/** The opening book shipped with the solver (parsed on first use). */
export function openingBook(): Book {
  book ??= Book.parse(BOOK_TEXT);
  return book;
}

/**
 * One solver with the opening book for the whole process: its 64 MB table is worth keeping warm
 * between calls (a game's positions share most of their subtrees), and JavaScript runs one search
 * at a time. Set `deadline` around a call to bound it (see SearchAborted).
 */
export function defaultSolver(): Solver {
  shared ??= new Solver({ book: openingBook() });
  return shared;
}

export type PositionError = SequenceError | { code: 'finished'; message: string; index?: number };

/**
 * A position in Pons' notation that can still be solved: valid (spec §6.1) and not yet won. A
 * full board without a four is fine (its score is 0).
 */
export function solvablePosition(notation: string): Result<Position, PositionError> {
  const parsed = fromMoves(notation);
  if (!parsed.ok) return err(parsed.error);
  const st = status(parsed.value);
  if (st.kind === 'won') {
    const index = parsed.value.moves.length - 1;
    return err({ code: 'finished', message: `the game is already won (a four at position ${index + 1})`, index });
  }
  return ok(Position.ofMoves(parsed.value.moves));
}
