import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { err, ok, type Result } from '../../../core/result.js';
import { hasFour, WIDTH } from '../bitboard.js';
import { fromMoves, type SequenceError } from '../rules.js';
import { Book } from './book.js';
import { Position } from './position.js';
import { wasmPath } from './search-wasm.js';
import { GROW_FROM, GROW_TO, Solver } from './solver.js';

export { Book, canonicalKey } from './book.js';
export { CELLS, MAX_SCORE, MIN_SCORE, Position } from './position.js';
export { GROW_FROM, GROW_TO, SearchAborted, Solver, SPLIT_AFTER, type Engine, type SolverOptions } from './solver.js';
export { wasmPath } from './search-wasm.js';
export { TranspositionTable } from './table.js';

let book: Book | null = null;
let shared: Solver | null = null;

/** The binary book (Book.encode) next to this module: src/ and, copied by scripts/build.mjs, dist/. */
export const BOOK_FILE = 'book.bin';

/**
 * Where the shipped book is: next to this module, else (a bundle of the engine worker runs from a
 * temporary folder) in dist/ beside the core, else in the sources above the working directory.
 */
export function bookPath(): string | null {
  const here = fileURLToPath(new URL(`./${BOOK_FILE}`, import.meta.url));
  if (existsSync(here)) return here;
  const starts = [process.cwd()];
  const wasm = wasmPath();
  if (wasm !== null) starts.unshift(dirname(dirname(dirname(wasm))));
  for (const start of starts) {
    for (let dir = start; ; dir = dirname(dir)) {
      for (const tree of ['dist', 'src']) {
        const candidate = join(dir, tree, 'games', 'connect4', 'solver', BOOK_FILE);
        if (existsSync(candidate)) return candidate;
      }
      if (dirname(dir) === dir) break;
    }
  }
  return null;
}

/**
 * The opening book shipped with the solver, read on first use from its binary form (book.bin, made
 * by bench/connect4-book.ts from the text in book-data.ts, which tests check it against).
 */
export function openingBook(): Book {
  if (book !== null) return book;
  const path = bookPath();
  if (path === null) throw new Error(`the Connect Four opening book ${BOOK_FILE} is missing (run \`npm run build\`)`);
  book = Book.decode(readFileSync(path));
  return book;
}

/**
 * One solver with the opening book for the whole process: its table (2^18 slots growing to 2^19
 * within a long solve, GROW_TO: 4 MB, within the caches) is worth keeping warm between calls (a game's positions share most of their subtrees). On two or more cores a solve
 * that runs longer than ~50 ms (SPLIT_AFTER nodes) gets a helper thread. Set `deadline` around a
 * call to bound it (see SearchAborted).
 */
export function defaultSolver(): Solver {
  shared ??= new Solver({ book: openingBook(), tableLog: GROW_TO, growFrom: GROW_FROM, threads: Math.min(2, availableParallelism()) });
  return shared;
}

export type PositionError = SequenceError | { code: 'finished'; message: string; index?: number };

/**
 * A position in Pons' notation that can still be solved: valid (spec §6.1) and not yet won. A
 * full board without a four is fine (its score is 0).
 */
export function solvablePosition(notation: string): Result<Position, PositionError> {
  // The common case in one pass over the digits, without the rules' board (a test set of 1000
  // positions checks ~35,000 moves, in a process whose code has not warmed up): every digit a
  // column with room, and no four at the end for either side — then no move followed a four
  // either. Anything else takes the rules' way, which says exactly what is wrong.
  const position = new Position();
  for (let i = 0; i < notation.length; i++) {
    const col = notation.charCodeAt(i) - 0x31;
    if (col < 0 || col >= WIDTH || !position.canPlay(col)) return checkedPosition(notation);
    position.playCol(col);
  }
  if (hasFour(position.curLo, position.curHi) || hasFour(position.curLo ^ position.maskLo, position.curHi ^ position.maskHi)) return checkedPosition(notation);
  return ok(position);
}

/** solvablePosition by the rules: the exact error of an invalid or finished sequence. */
function checkedPosition(notation: string): Result<Position, PositionError> {
  const parsed = fromMoves(notation);
  if (!parsed.ok) return err(parsed.error);
  const position = Position.ofMoves(parsed.value.moves);
  // fromMoves refuses a move after a four, so only the last move can have made one: a four of
  // the side that moved last, the one not to move now.
  if (hasFour(position.curLo ^ position.maskLo, position.curHi ^ position.maskHi)) {
    const index = parsed.value.moves.length - 1;
    return err({ code: 'finished', message: `the game is already won (a four at position ${index + 1})`, index });
  }
  return ok(position);
}
