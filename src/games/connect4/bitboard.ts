/**
 * Connect Four bitboards without BigInt.
 *
 * Pons' layout: column-major, 7 bits per column (6 rows and an always-empty sentinel bit on top),
 * 49 bits in all, bit `7·col + row` (col 0–6, row 0 = bottom). JavaScript bit operations are 32-bit,
 * so a board is two int32 words split at a column boundary: `lo` holds columns 0–3 (bits 0–27),
 * `hi` holds columns 4–6 (bits 0–20, i.e. full bit 28 + j). A move touches one word only, and the
 * vertical direction never crosses the split; the horizontal and diagonal shifts are emulated with
 * one extra shift and OR where they cross. Functions come in `…Lo`/`…Hi` pairs that return one word
 * each, so the hot paths stay allocation-free (no pair objects) and V8 can inline them.
 *
 * Results may carry garbage above bit 27 (lo) or bit 20 (hi) before the final mask; every function
 * here masks what it returns.
 */

export const WIDTH = 7;
export const HEIGHT = 6;
/** Bits per column: the rows and the sentinel. */
export const STRIDE = HEIGHT + 1;
/** Columns held by the `lo` word. */
export const LO_COLUMNS = 4;
export const LO_BITS = LO_COLUMNS * STRIDE;

/** The bottom cell of every column in a word. */
export const BOTTOM_LO = 0x0204081; // columns 0–3
export const BOTTOM_HI = 0x0004081; // columns 4–6
/** Every playable cell (sentinels excluded). */
export const BOARD_LO = BOTTOM_LO * 63;
export const BOARD_HI = BOTTOM_HI * 63;

/** The word (0 = lo, 1 = hi) and bit of a 0-based column and row. */
export function wordOf(col: number): 0 | 1 {
  return col < LO_COLUMNS ? 0 : 1;
}

export function cellBit(col: number, row: number): number {
  return 1 << ((col < LO_COLUMNS ? col : col - LO_COLUMNS) * STRIDE + row);
}

/** All cells of a 0-based column, in its word. */
export function columnBits(col: number): number {
  return 63 << ((col < LO_COLUMNS ? col : col - LO_COLUMNS) * STRIDE);
}

/** The bottom cell of a column, in its word. */
export function bottomBit(col: number): number {
  return 1 << ((col < LO_COLUMNS ? col : col - LO_COLUMNS) * STRIDE);
}

/** The top playable cell of a column, in its word. */
export function topBit(col: number): number {
  return 1 << ((col < LO_COLUMNS ? col : col - LO_COLUMNS) * STRIDE + HEIGHT - 1);
}

/**
 * Empty cells where the stones `(a, b)` would complete a four (Pons' compute_winning_position),
 * restricted to the `lo` word. `mLo` is the occupied mask of that word.
 * For a target in lo, "shift left by s" reads lo itself; "shift right by s" also reads hi.
 */
export function winningLo(a: number, b: number, mLo: number): number {
  // vertical
  let r = (a << 1) & (a << 2) & (a << 3);
  // horizontal (7)
  let l1 = a << 7;
  let r1 = (a >>> 7) | (b << 21);
  let p = l1 & (a << 14);
  r |= p & ((a << 21) | r1);
  p = r1 & ((a >>> 14) | (b << 14));
  r |= p & (l1 | (a >>> 21) | (b << 7));
  // diagonal (6)
  l1 = a << 6;
  r1 = (a >>> 6) | (b << 22);
  p = l1 & (a << 12);
  r |= p & ((a << 18) | r1);
  p = r1 & ((a >>> 12) | (b << 16));
  r |= p & (l1 | (a >>> 18) | (b << 10));
  // diagonal (8)
  l1 = a << 8;
  r1 = (a >>> 8) | (b << 20);
  p = l1 & (a << 16);
  r |= p & ((a << 24) | r1);
  p = r1 & ((a >>> 16) | (b << 12));
  r |= p & (l1 | (a >>> 24) | (b << 4));
  return r & (BOARD_LO ^ mLo);
}

/** The `hi` word of the same; for a target in hi, "shift left" also reads lo. */
export function winningHi(a: number, b: number, mHi: number): number {
  let r = (b << 1) & (b << 2) & (b << 3);
  // horizontal (7)
  let l1 = (b << 7) | (a >>> 21);
  let r1 = b >>> 7;
  let p = l1 & ((b << 14) | (a >>> 14));
  r |= p & ((b << 21) | (a >>> 7) | r1);
  p = r1 & (b >>> 14);
  r |= p & (l1 | (b >>> 21));
  // diagonal (6)
  l1 = (b << 6) | (a >>> 22);
  r1 = b >>> 6;
  p = l1 & ((b << 12) | (a >>> 16));
  r |= p & ((b << 18) | (a >>> 10) | r1);
  p = r1 & (b >>> 12);
  r |= p & (l1 | (b >>> 18));
  // diagonal (8)
  l1 = (b << 8) | (a >>> 20);
  r1 = b >>> 8;
  p = l1 & ((b << 16) | (a >>> 12));
  r |= p & ((b << 24) | (a >>> 4) | r1);
  p = r1 & (b >>> 16);
  r |= p & (l1 | (b >>> 24));
  return r & (BOARD_HI ^ mHi);
}

/**
 * Lowest cells of every four in direction `step` (1 vertical, 7 horizontal, 6 and 8 diagonal) made
 * by the stones `(a, b)`: a set bit at t means t, t+step, t+2·step, t+3·step are all stones.
 * Steps only go towards higher bits, so a start in hi has its whole four in hi.
 */
export function fourStartsLo(a: number, b: number, step: number): number {
  const m = a & ((a >>> step) | (step === 1 ? 0 : b << (LO_BITS - step)));
  const mHi = b & (b >>> step);
  return m & ((m >>> (2 * step)) | (step === 1 ? 0 : mHi << (LO_BITS - 2 * step)));
}

export function fourStartsHi(b: number, step: number): number {
  const m = b & (b >>> step);
  return m & (m >>> (2 * step));
}

export const STEPS = [1, 7, 6, 8] as const;

/** Whether the stones `(a, b)` hold a four in any direction. */
export function hasFour(a: number, b: number): boolean {
  for (const step of STEPS) {
    if ((fourStartsLo(a, b, step) | fourStartsHi(b, step)) !== 0) return true;
  }
  return false;
}

/** Population count of a 32-bit word. */
export function popcount(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}
