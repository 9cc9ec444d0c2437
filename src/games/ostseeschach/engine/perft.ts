import { moveName } from '../board.js';
import { apply, isOver, legalMoves, type State } from '../rules.js';
import { MAX_MOVES, Position, codeToMove } from './position.js';

/**
 * Perft as the spec counts it (§5): a move that ends the game counts 1 at the last ply; at an
 * earlier ply it counts 0 and is not expanded.
 */

const buffers: Int32Array[] = [];
const buffer = (ply: number): Int32Array => (buffers[ply] ??= new Int32Array(MAX_MOVES));

function count(p: Position, depth: number, ply: number): number {
  if (depth === 1) return p.countMoves();
  const moves = buffer(ply);
  const n = p.generate(moves, 0);
  let nodes = 0;
  for (let i = 0; i < n; i++) {
    p.make(moves[i]!);
    if (!p.isOver()) nodes += count(p, depth - 1, ply + 1);
    p.unmake();
  }
  return nodes;
}

/** Fast perft on the engine's make/unmake board. */
export function perft(state: State, depth: number): number {
  if (depth < 1 || isOver(state)) return 0;
  return count(Position.fromState(state), depth, 0);
}

/** Per-root-move counts (`"xy-xy" → nodes`), for finding a disagreement. */
export function divide(state: State, depth: number): Map<string, number> {
  const out = new Map<string, number>();
  if (depth < 1 || isOver(state)) return out;
  const p = Position.fromState(state);
  const moves = new Int32Array(MAX_MOVES);
  const n = p.generate(moves, 0);
  for (let i = 0; i < n; i++) {
    p.make(moves[i]!);
    out.set(moveName(codeToMove(moves[i]!)), depth === 1 ? 1 : p.isOver() ? 0 : count(p, depth - 1, 1));
    p.unmake();
  }
  return out;
}

/** The same count through the pure rules core (slow; a cross-check of the fast generator). */
export function perftPure(state: State, depth: number): number {
  if (depth < 1 || isOver(state)) return 0;
  const moves = legalMoves(state);
  if (depth === 1) return moves.length;
  let nodes = 0;
  for (const m of moves) {
    const r = apply(state, m);
    if (!r.ok) throw new Error(`listed move ${moveName(m)} was rejected: ${r.error.code}`);
    nodes += perftPure(r.value, depth - 1);
  }
  return nodes;
}
