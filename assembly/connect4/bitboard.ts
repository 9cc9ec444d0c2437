// Pons' bitboard on one u64: column-major, 7 bits a column (6 rows and an always-empty sentinel
// on top), bit 7·col + row. The TypeScript solver splits the same layout into two int32 words
// (src/games/connect4/bitboard.ts); the JavaScript side passes those words and they are joined
// here: word lo holds columns 0–3 (bits 0–27), word hi columns 4–6 (bits 28–48).

export const WIDTH: i32 = 7;
export const HEIGHT: i32 = 6;
export const CELLS: i32 = 42;
export const LO_BITS: u64 = 28;

/** The bottom cell of every column. */
export const BOTTOM: u64 = 0x0040810204081;
/** Every playable cell (sentinels excluded). */
export const BOARD: u64 = BOTTOM * 63;

/** Joins the two int32 words of the TypeScript layout. */
// @ts-ignore: decorator
@inline export function join(lo: i32, hi: i32): u64 {
  return <u64>(<u32>lo) | (<u64>(<u32>hi) << LO_BITS);
}

/** All cells of a 0-based column. */
// @ts-ignore: decorator
@inline export function columnMask(col: i32): u64 {
  return <u64>63 << (<u64>(col * 7));
}

/**
 * Empty cells where the stones `pos` would complete a four (Pons' compute_winning_position):
 * for each direction, the cells with three of `pos` in line through them.
 */
// @ts-ignore: decorator
@inline export function winning(pos: u64, mask: u64): u64 {
  // vertical: three stones straight below
  let r = (pos << 1) & (pos << 2) & (pos << 3);
  // horizontal (7)
  let p = (pos << 7) & (pos << 14);
  r |= p & (pos << 21);
  r |= p & (pos >> 7);
  p = (pos >> 7) & (pos >> 14);
  r |= p & (pos << 7);
  r |= p & (pos >> 21);
  // diagonal (6)
  p = (pos << 6) & (pos << 12);
  r |= p & (pos << 18);
  r |= p & (pos >> 6);
  p = (pos >> 6) & (pos >> 12);
  r |= p & (pos << 6);
  r |= p & (pos >> 18);
  // diagonal (8)
  p = (pos << 8) & (pos << 16);
  r |= p & (pos << 24);
  r |= p & (pos >> 8);
  p = (pos >> 8) & (pos >> 16);
  r |= p & (pos << 8);
  r |= p & (pos >> 24);
  return r & (BOARD ^ mask);
}

/** The key of the mirror image (column c ↔ 6 − c) of a key `cur + mask`: 7-bit codes reversed. */
export function mirrorKey(key: u64): u64 {
  let m: u64 = 0;
  for (let col = 0; col < WIDTH; col++) {
    m |= ((key >> (<u64>(7 * col))) & 0x7f) << (<u64>(7 * (WIDTH - 1 - col)));
  }
  return m;
}
