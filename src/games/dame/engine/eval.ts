import {
  BLACK,
  RAYS,
  RAY_LENGTH,
  RAY_START,
  WHITE,
  captureVictims,
  popcount,
  shift,
  squareFile,
  squareRank,
} from '../board.js';

/**
 * Static evaluation (spec §6.3), in centi-men from the side to move's view. Terms: material, men
 * advancement (tempo), back-rank guard, centre, mobility, runaway men, edge and trapped kings,
 * pieces the opponent can capture next, and a pull toward 0 for men-less endings with a small
 * king edge (extra kings alone rarely win, §5.3).
 */

export interface EvalWeights {
  man: number;
  king: number;
  /** Per rank advanced, for men; grows toward the promotion rank. */
  advance: number;
  backRank: number;
  centre: number;
  mobility: number;
  kingMobility: number;
  runaway: number;
  edgeKing: number;
  trappedKing: number;
  /** Sixteenths of the danger (see threatened) the side to move is in. */
  hanging: number;
  /** Bonus for the side to move having a capture available (a capture also earns another move). */
  initiative: number;
}

export const DEFAULT_WEIGHTS: EvalWeights = {
  man: 100,
  king: 300,
  advance: 3,
  backRank: 8,
  centre: 4,
  mobility: 2,
  kingMobility: 1,
  runaway: 120,
  edgeKing: 6,
  trappedKing: 25,
  hanging: 3,
  initiative: 20,
};

/** MATERIAL_ONLY: the baseline bots' view (men 100, kings 300). */
export const MATERIAL_ONLY: EvalWeights = {
  man: 100,
  king: 300,
  advance: 0,
  backRank: 0,
  centre: 0,
  mobility: 0,
  kingMobility: 0,
  runaway: 0,
  edgeKing: 0,
  trappedKing: 0,
  hanging: 0,
  initiative: 0,
};

/** Rank from the owner's side (0 = own back rank) for a man of each colour on each square. */
const ADVANCE = [new Int8Array(32), new Int8Array(32)] as const;
/** The forward cone of a man: squares it could be stopped from (and those beside it, men capture backward). */
const CONE = [new Int32Array(32), new Int32Array(32)] as const;
let CENTRE_MASK = 0;
let EDGE_MASK = 0;
const BACK_RANK = [0x0000000f, 0xf0000000 | 0] as const;

for (let s = 0; s < 32; s++) {
  const f = squareFile(s);
  const r = squareRank(s);
  ADVANCE[WHITE][s] = r;
  ADVANCE[BLACK][s] = 7 - r;
  if (f >= 2 && f <= 5 && r >= 2 && r <= 5) CENTRE_MASK |= 1 << s;
  if (f === 0 || f === 7) EDGE_MASK |= 1 << s;
  for (const side of [WHITE, BLACK] as const) {
    let cone = 0;
    for (let t = 0; t < 32; t++) {
      const ahead = side === WHITE ? squareRank(t) - r : r - squareRank(t);
      if (ahead >= -1 && Math.abs(squareFile(t) - f) <= Math.max(ahead, 1) && t !== s) cone |= 1 << t;
    }
    CONE[side][s] = cone;
  }
}

/** Single moves (no captures) of one side's kings, plus a penalty for kings that cannot move. */
function kingMobility(own: number, empty: number, kings: number, w: EvalWeights): number {
  let score = 0;
  let pieces = own & kings;
  while (pieces !== 0) {
    const s = 31 - Math.clz32(pieces & -pieces);
    pieces &= pieces - 1;
    let reach = 0;
    for (let d = 0; d < 4; d++) {
      const start = RAY_START[s * 4 + d]!;
      const end = start + RAY_LENGTH[s * 4 + d]!;
      for (let i = start; i < end && (empty >> RAYS[i]!) & 1; i++) reach++;
    }
    score += reach * w.kingMobility;
    if (reach === 0) score -= w.trappedKing;
  }
  return score;
}

/**
 * Danger from the captures `attacker` has now, in quarter-men: the defender can save at most one
 * piece with its move (the most valuable), so the others count four times as much.
 */
function danger(victims: number, kings: number, w: EvalWeights): number {
  if (victims === 0) return 0;
  const total = popcount(victims & ~kings) * w.man + popcount(victims & kings) * w.king;
  const best = victims & kings ? w.king : w.man;
  return 4 * (total - best) + best;
}

export function evaluate(
  white: number,
  black: number,
  kings: number,
  side: number,
  w: EvalWeights = DEFAULT_WEIGHTS,
): number {
  const wk = popcount(white & kings);
  const bk = popcount(black & kings);
  const wm = popcount(white) - wk;
  const bm = popcount(black) - bk;
  let score = (wm - bm) * w.man + (wk - bk) * w.king;
  if (w === MATERIAL_ONLY) return side === WHITE ? score : -score;

  const empty = ~(white | black);
  const menW = white & ~kings;
  const menB = black & ~kings;
  // advancement matters more as the board empties
  const phase = 24 - (wm + bm + wk + bk);
  const advanceWeight = w.advance + (phase >> 3);
  let m = menW;
  while (m !== 0) {
    const s = 31 - Math.clz32(m & -m);
    m &= m - 1;
    const a = ADVANCE[WHITE][s]!;
    score += a * advanceWeight + (a >= 4 ? (a - 3) * w.advance : 0);
    if (!(CONE[WHITE][s]! & black) && bk === 0) score += w.runaway - (7 - a) * 10;
  }
  m = menB;
  while (m !== 0) {
    const s = 31 - Math.clz32(m & -m);
    m &= m - 1;
    const a = ADVANCE[BLACK][s]!;
    score -= a * advanceWeight + (a >= 4 ? (a - 3) * w.advance : 0);
    if (!(CONE[BLACK][s]! & white) && wk === 0) score -= w.runaway - (7 - a) * 10;
  }
  if (bm > 0) score += popcount(menW & BACK_RANK[WHITE]) * w.backRank;
  if (wm > 0) score -= popcount(menB & BACK_RANK[BLACK]) * w.backRank;
  score += (popcount(white & CENTRE_MASK) - popcount(black & CENTRE_MASK)) * w.centre;
  score -= (popcount(white & kings & EDGE_MASK) - popcount(black & kings & EDGE_MASK)) * w.edgeKing;
  score +=
    (popcount(shift(menW, 0) & empty) +
      popcount(shift(menW, 1) & empty) -
      popcount(shift(menB, 2) & empty) -
      popcount(shift(menB, 3) & empty)) *
    w.mobility;
  if (wk + bk > 0) score += kingMobility(white, empty, kings, w) - kingMobility(black, empty, kings, w);

  let own = side === WHITE ? score : -score;
  // our pieces the opponent threatens: we can save at most one with our move
  own -= (danger(captureVictims(white, black, kings, side ^ 1), kings, w) * w.hanging) >> 4;
  if (captureVictims(white, black, kings, side) !== 0) own += w.initiative;

  // men-less endings: a small king edge is usually a draw
  if (wm + bm === 0) {
    const more = Math.max(wk, bk);
    const less = Math.min(wk, bk);
    if (less > 0 && more - less <= 2) own = own >> 3;
  }
  return own;
}
