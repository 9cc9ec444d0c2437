import type { Rng } from '../../../core/rng.js';
import type { Move } from '../board.js';
import { WIN, terminalScore } from '../engine/evaluate.js';
import { MAX_MOVES, Position, ROBBE, codeToMove } from '../engine/position.js';
import type { State } from '../rules.js';
import { noMoveFallback } from './fallback.js';

/**
 * The baseline of issue 6: a plain depth-2 alpha-beta (own move, reply) with a simple evaluation —
 * ambers, piece count and the advancement of light pieces — and random choice among equal moves.
 */

export function simpleEvaluate(p: Position): number {
  let score = 0;
  for (let sq = 0; sq < 64; sq++) {
    const c = p.board[sq]!;
    if (c === 0) continue;
    const team = (c >> 3) & 1;
    let v = 100;
    if ((c & 3) !== ROBBE) v += 5 * (team === 0 ? sq >> 3 : 7 - (sq >> 3));
    score += team === 0 ? v : -v;
  }
  score += 1000 * (p.ambers[0]! - p.ambers[1]!);
  return (p.turn & 1) === 0 ? score : -score;
}

const buffers = [new Int32Array(MAX_MOVES), new Int32Array(MAX_MOVES), new Int32Array(MAX_MOVES)];

function alphaBeta(p: Position, depth: number, alpha: number, beta: number, ply: number): number {
  if (p.isOver()) return terminalScore(p, ply);
  if (depth === 0) return simpleEvaluate(p);
  const moves = buffers[ply]!;
  const n = p.generate(moves, 0);
  if (n === 0) return ply - WIN;
  let best = -Infinity;
  for (let i = 0; i < n; i++) {
    p.make(moves[i]!);
    const s = -alphaBeta(p, depth - 1, -beta, -alpha, ply + 1);
    p.unmake();
    if (s > best) best = s;
    if (s > alpha) alpha = s;
    if (alpha >= beta) break;
  }
  return best;
}

/**
 * A one-move choice at the root: each legal move made and scored by `score` (the position after
 * it, and the best score so far), a random one of the best. depth2 and greedy differ only there.
 */
export function pickBest(state: State, rng: Rng, score: (p: Position, best: number) => number): Move {
  const p = Position.fromState(state);
  const moves = new Int32Array(MAX_MOVES);
  const n = p.isOver() ? 0 : p.generate(moves, 0);
  if (n === 0) return noMoveFallback(state);
  let best = -Infinity;
  let bestMoves: number[] = [];
  for (let i = 0; i < n; i++) {
    p.make(moves[i]!);
    const s = score(p, best);
    p.unmake();
    if (s > best) {
      best = s;
      bestMoves = [moves[i]!];
    } else if (s === best) bestMoves.push(moves[i]!);
  }
  return codeToMove(rng.pick(bestMoves));
}

export function depth2Bot(state: State, _budgetMs: number, rng: Rng): Move {
  // Window (best − 1, ∞) keeps exact values for ties, so equal moves can be told apart fairly.
  return pickBest(state, rng, (p, best) => -alphaBeta(p, 1, -Infinity, -(best - 1), 1));
}
