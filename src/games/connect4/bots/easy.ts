import type { Rng } from '../../../core/rng.js';
import { WIDTH } from '../bitboard.js';
import type { Position } from '../solver/position.js';

/**
 * The "easy" bot: wins when it can, blocks the opponent's immediate win, otherwise plays a random
 * legal column. Returns a 1-based column.
 */
export function easyMove(position: Position, rng: Rng): number {
  const legal: number[] = [];
  for (let col = 0; col < WIDTH; col++) if (position.canPlay(col)) legal.push(col);
  if (legal.length === 0) throw new RangeError('no legal move');
  const wins = legal.filter((col) => position.isWinningMove(col));
  if (wins.length > 0) return rng.pick(wins) + 1;
  // The opponent's winning columns, seen from a position where it is their turn.
  const theirs = position.clone();
  theirs.curLo ^= theirs.maskLo;
  theirs.curHi ^= theirs.maskHi;
  const blocks = legal.filter((col) => theirs.isWinningMove(col));
  if (blocks.length > 0) return rng.pick(blocks) + 1;
  return rng.pick(legal) + 1;
}
