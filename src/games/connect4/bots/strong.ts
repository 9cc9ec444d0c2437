import { BOARD_HI, BOARD_LO, BOTTOM_HI, BOTTOM_LO, popcount, WIDTH, winningHi, winningLo } from '../bitboard.js';
import type { Rng } from '../../../core/rng.js';
import { CELLS, Position } from '../solver/position.js';

/**
 * The "strong" bot: a depth-limited negamax with alpha-beta and a threat heuristic. It sees every
 * immediate win and loss and any forced sequence within its horizon, and values positions by their
 * threats (empty cells that would complete a four), weighting threats on the rows that favour
 * their owner (odd rows for the first player, even rows for the second: the classic zugzwang
 * rule) and stones in the centre. Beatable: it knows nothing beyond the horizon.
 */

export const STRONG_DEPTH = 7;
const WIN = 1000;

/** Rows 1, 3, 5 (1-based) in each word: the first player's good threat rows. */
const ODD_ROWS_LO = (BOTTOM_LO * 0b010101) & BOARD_LO;
const ODD_ROWS_HI = (BOTTOM_HI * 0b010101) & BOARD_HI;
const CENTRE_LO = 63 << 21; // column 4 (0-based 3)

function threatValue(tl: number, th: number, firstPlayer: boolean): number {
  const goodLo = firstPlayer ? ODD_ROWS_LO : BOARD_LO ^ ODD_ROWS_LO;
  const goodHi = firstPlayer ? ODD_ROWS_HI : BOARD_HI ^ ODD_ROWS_HI;
  return 2 * (popcount(tl) + popcount(th)) + 3 * (popcount(tl & goodLo) + popcount(th & goodHi));
}

/** The side to move's view of a quiet position. */
function evaluate(cl: number, ch: number, ml: number, mh: number, n: number): number {
  const ol = cl ^ ml;
  const oh = ch ^ mh;
  const meFirst = (n & 1) === 0;
  const mine = threatValue(winningLo(cl, ch, ml), winningHi(cl, ch, mh), meFirst);
  const theirs = threatValue(winningLo(ol, oh, ml), winningHi(ol, oh, mh), !meFirst);
  return mine - theirs + 2 * (popcount(cl & CENTRE_LO) - popcount(ol & CENTRE_LO));
}

const ORDER = [3, 2, 4, 1, 5, 0, 6];

function search(cl: number, ch: number, ml: number, mh: number, n: number, depth: number, alpha: number, beta: number): number {
  const pl = (ml + BOTTOM_LO) & BOARD_LO;
  const ph = (mh + BOTTOM_HI) & BOARD_HI;
  // An immediate win ends the search; sooner is better.
  if ((winningLo(cl, ch, ml) & pl) !== 0 || (winningHi(cl, ch, mh) & ph) !== 0) return WIN - n;
  if (n >= CELLS - 1) return 0;
  const ol = cl ^ ml;
  const oh = ch ^ mh;
  const wl = winningLo(ol, oh, ml);
  const wh = winningHi(ol, oh, mh);
  let fl = pl & wl;
  let fh = ph & wh;
  if ((fl | fh) !== 0) {
    if ((fl & (fl - 1)) !== 0 || (fh & (fh - 1)) !== 0 || (fl !== 0 && fh !== 0)) return n + 1 - WIN;
  } else {
    fl = pl;
    fh = ph;
  }
  fl &= ~(wl >>> 1);
  fh &= ~(wh >>> 1);
  if ((fl | fh) === 0) return n + 1 - WIN;
  if (depth === 0) return evaluate(cl, ch, ml, mh, n);
  let best = -Infinity;
  for (const col of ORDER) {
    const mvl = col < 4 ? fl & (63 << (7 * col)) : 0;
    const mvh = col < 4 ? 0 : fh & (63 << (7 * (col - 4)));
    if ((mvl | mvh) === 0) continue;
    const score = 0 - search(ol, oh, ml | mvl, mh | mvh, n + 1, depth - 1, 0 - beta, 0 - alpha);
    if (score > best) best = score;
    if (score > alpha) alpha = score;
    if (alpha >= beta) break;
  }
  return best;
}

/** A 1-based column: the best by the search, ties broken with the rng. */
export function strongMove(position: Position, rng: Rng, depth = STRONG_DEPTH): number {
  const values: { col: number; value: number }[] = [];
  for (let col = 0; col < WIDTH; col++) {
    if (!position.canPlay(col)) continue;
    if (position.isWinningMove(col)) return col + 1;
    const child = position.clone();
    child.playCol(col);
    const value = 0 - search(child.curLo, child.curHi, child.maskLo, child.maskHi, child.moves, depth - 1, -Infinity, Infinity);
    values.push({ col, value });
  }
  if (values.length === 0) throw new RangeError('no legal move');
  const best = Math.max(...values.map((v) => v.value));
  const top = values.filter((v) => v.value === best).map((v) => v.col);
  return rng.pick(top) + 1;
}
