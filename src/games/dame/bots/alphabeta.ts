import { generateMoves } from '../board.js';
import type { Position } from '../position.js';
import { MATERIAL_ONLY, evaluate } from '../engine/eval.js';
import { packedMoves, positionOf, unpackMove } from '../rules.js';
import type { DameBot } from './types.js';

/**
 * The baselines: plain fixed-depth alpha-beta over single moves with material only (men 100,
 * kings 300), no quiescence, no tables, no draw rules. A follow-up after a capture keeps the window
 * and the sign, as in the engine. Equal root moves are chosen at random.
 */
export function fixedDepthBot(depth: number): DameBot {
  const buffer = new Int32Array(64 * 256);
  const WIN = 100000;

  const search = (pos: Position, d: number, alpha: number, beta: number, ply: number): number => {
    const from = ply * 256;
    const end = generateMoves(pos.white, pos.black, pos.kings, pos.side, buffer, from);
    if (end === from) return -(WIN - ply);
    if (d === 0) return evaluate(pos.white, pos.black, pos.kings, pos.side, MATERIAL_ONLY);
    const side = pos.side;
    let best = -Infinity;
    for (let i = from; i < end; i++) {
      const m = buffer[i]!;
      pos.make(m);
      const score =
        pos.side === side
          ? search(pos, d - 1, alpha, beta, ply + 1)
          : -search(pos, d - 1, -beta, -alpha, ply + 1);
      pos.unmake(m);
      if (score > best) best = score;
      if (best > alpha) alpha = best;
      if (alpha >= beta) break;
    }
    return best;
  };

  return (state, _budgetMs, rng) => {
    const pos = positionOf(state);
    const moves = packedMoves(state);
    let best: number[] = [];
    let bestScore = -Infinity;
    for (const m of moves) {
      const side = pos.side;
      pos.make(m);
      const score =
        pos.side === side
          ? search(pos, depth - 1, -Infinity, Infinity, 1)
          : -search(pos, depth - 1, -Infinity, Infinity, 1);
      pos.unmake(m);
      if (score > bestScore) {
        bestScore = score;
        best = [m];
      } else if (score === bestScore) best.push(m);
    }
    return unpackMove(rng.pick(best));
  };
}
