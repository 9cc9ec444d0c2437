import type { Book } from './book.js';
import type { Position } from './position.js';

/** Where the search runs: the WebAssembly core (assembly/connect4/) or the TypeScript reference. */
export type Engine = 'wasm' | 'ts';

/** Nodes between two checkpoints (looks at the clock, progress reports): a few ms at full speed. */
export const CHECK_INTERVAL = 1 << 16;

/** Called every CHECK_INTERVAL nodes with the node count; it may throw to abort the search. */
export type Checkpoint = (nodes: number) => void;

/**
 * The per-node part of the solver: Pons' negamax with its transposition table and node counter.
 * Both engines implement the same algorithm and visit exactly the same nodes; `Solver` (solver.ts)
 * builds analyse, bestMoves and the deadline on top.
 */
export interface Search {
  readonly engine: Engine;
  /** Negamax calls, counted as Pons counts them. Setting it puts the next checkpoint CHECK_INTERVAL later. */
  nodeCount: number;
  /** Moves the next checkpoint within ~1024 nodes (a deadline has just been set). */
  checkSoon(): void;
  /** Empties the transposition table. */
  clear(): void;
  /** Pons' solve: the exact score of a position nobody has won yet (`weak`: only its sign). */
  solve(position: Position, weak: boolean, book: Book | null): number;
  /** One negamax call with the window [alpha, beta] on a position whose side to move cannot win at once. */
  probe(position: Position, alpha: number, beta: number, book: Book | null): number;
}

/** C++ integer division by 2 (towards zero). */
export function trunc2(x: number): number {
  return (x / 2) | 0;
}
