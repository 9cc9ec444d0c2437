/**
 * The 32 dark squares as bitboards, the precomputed diagonals, packed moves, and allocation-free
 * move generation. Everything here is internal machinery: the pure surface is rules.ts.
 *
 * Square index s = rank * 4 + (file >> 1), with file and rank 0-based (A1 = 0, C1 = 1, … H8 = 31).
 * Bitboards are int32 (bit s set = a piece on s); the public state carries them as uint32.
 */

export const SQUARE_COUNT = 32;

/** Direction index: 0 = up-right, 1 = up-left (White's forward), 2 = down-right, 3 = down-left. */
const DIRECTION_STEPS: readonly (readonly [number, number])[] = [
  [1, 1],
  [-1, 1],
  [1, -1],
  [-1, -1],
];

export const squareRank = (s: number): number => s >> 2;
export const squareFile = (s: number): number => 2 * (s & 3) + ((s >> 2) & 1);

/** The square index of a file/rank pair, or -1 for a light square or off the board. */
export function squareAt(file: number, rank: number): number {
  if (file < 0 || file > 7 || rank < 0 || rank > 7 || (file + rank) % 2 !== 0) return -1;
  return rank * 4 + (file >> 1);
}

/** NEIGHBOR[s * 4 + d]: the adjacent square in direction d, or -1. */
export const NEIGHBOR = new Int8Array(SQUARE_COUNT * 4);
/** The squares along direction d from s, nearest first: RAYS[RAY_START[s*4+d] + i], i < RAY_LENGTH[s*4+d]. */
export const RAY_START = new Int16Array(SQUARE_COUNT * 4);
export const RAY_LENGTH = new Int8Array(SQUARE_COUNT * 4);
export const RAYS = new Int8Array(SQUARE_COUNT * 4 * 7);

{
  let at = 0;
  for (let s = 0; s < SQUARE_COUNT; s++) {
    for (let d = 0; d < 4; d++) {
      const [df, dr] = DIRECTION_STEPS[d] as [number, number];
      let f = squareFile(s) + df;
      let r = squareRank(s) + dr;
      NEIGHBOR[s * 4 + d] = squareAt(f, r);
      RAY_START[s * 4 + d] = at;
      let n = 0;
      while (squareAt(f, r) >= 0) {
        RAYS[at + n] = squareAt(f, r);
        n++;
        f += df;
        r += dr;
      }
      RAY_LENGTH[s * 4 + d] = n;
      at += 7;
    }
  }
}

/** White promotes on rank 8 (squares 28–31), Black on rank 1 (squares 0–3). */
export const WHITE_PROMOTION = 0xf0000000 | 0;
export const BLACK_PROMOTION = 0x0000000f;

export const WHITE = 0;
export const BLACK = 1;

// A move is one int32: from | to << 5 | captured << 10 | flags.
export const MOVE_CAPTURE = 1 << 15;
export const MOVE_PROMOTES = 1 << 16;
export const MOVE_CAPTURES_KING = 1 << 17;
export const MOVE_BY_KING = 1 << 18;

export const moveFrom = (m: number): number => m & 31;
export const moveTo = (m: number): number => (m >> 5) & 31;
export const moveCaptured = (m: number): number => (m >> 10) & 31;
export const isCapture = (m: number): boolean => (m & MOVE_CAPTURE) !== 0;

export function popcount(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** Index of the lowest set bit of a non-zero bitboard. */
export const lowestSquare = (bb: number): number => 31 - Math.clz32(bb & -bb);

// One diagonal step as a shift. On even ranks (files A C E G) the up-right neighbour is s+4 and
// the up-left one s+3; on odd ranks (B D F H) they are s+5 and s+4; downward mirrors this.
const EVEN_RANKS = 0x0f0f0f0f;
const ODD_RANKS = 0xf0f0f0f0 | 0;
const FILE_A = 0x01010101; // A1 A3 A5 A7
const FILE_H = 0x80808080 | 0; // H2 H4 H6 H8

/** The squares one step in direction d from the squares of `bb` (off-board steps vanish). */
export function shift(bb: number, d: number): number {
  switch (d) {
    case 0:
      return ((bb & EVEN_RANKS) << 4) | ((bb & ODD_RANKS & ~FILE_H) << 5);
    case 1:
      return ((bb & EVEN_RANKS & ~FILE_A) << 3) | ((bb & ODD_RANKS) << 4);
    case 2:
      return ((bb & EVEN_RANKS) >>> 4) | ((bb & ODD_RANKS & ~FILE_H) >>> 3);
    default:
      return ((bb & EVEN_RANKS & ~FILE_A) >>> 5) | ((bb & ODD_RANKS) >>> 4);
  }
}

/** The opposite direction: 0 ↔ 3, 1 ↔ 2. */
const back = (d: number): number => 3 - d;

/**
 * Writes every legal single move of `side` into `out` from index `at`; returns the new end index.
 * `capturesOnly` keeps captures and promoting steps (the quiescence set). Order: men steps, men
 * captures, then king moves.
 */
export function generateMoves(
  white: number,
  black: number,
  kings: number,
  side: number,
  out: Int32Array,
  at: number,
  capturesOnly = false,
): number {
  const own = side === WHITE ? white : black;
  const opp = side === WHITE ? black : white;
  const empty = ~(white | black);
  const promotion = side === WHITE ? WHITE_PROMOTION : BLACK_PROMOTION;
  const men = own & ~kings;
  if (men !== 0) {
    const forward = side === WHITE ? 0 : 2;
    for (let d = forward; d < forward + 2; d++) {
      let targets = shift(men, d) & empty;
      if (capturesOnly) targets &= promotion;
      while (targets !== 0) {
        const t = 31 - Math.clz32(targets & -targets);
        targets &= targets - 1;
        out[at++] = NEIGHBOR[t * 4 + back(d)]! | (t << 5) | ((promotion >> t) & 1 ? MOVE_PROMOTES : 0);
      }
    }
    for (let d = 0; d < 4; d++) {
      let landings = shift(shift(men, d) & opp, d) & empty;
      while (landings !== 0) {
        const t = 31 - Math.clz32(landings & -landings);
        landings &= landings - 1;
        const victim = NEIGHBOR[t * 4 + back(d)]!;
        out[at++] =
          NEIGHBOR[victim * 4 + back(d)]! |
          (t << 5) |
          (victim << 10) |
          MOVE_CAPTURE |
          ((kings >> victim) & 1 ? MOVE_CAPTURES_KING : 0) |
          ((promotion >> t) & 1 ? MOVE_PROMOTES : 0);
      }
    }
  }
  let pieces = own & kings;
  while (pieces !== 0) {
    const s = 31 - Math.clz32(pieces & -pieces);
    pieces &= pieces - 1;
    for (let d = 0; d < 4; d++) {
      const start = RAY_START[s * 4 + d]!;
      const end = start + RAY_LENGTH[s * 4 + d]!;
      let i = start;
      while (i < end && (empty >> RAYS[i]!) & 1) {
        if (!capturesOnly) out[at++] = s | (RAYS[i]! << 5) | MOVE_BY_KING;
        i++;
      }
      if (i >= end || !((opp >> RAYS[i]!) & 1)) continue;
      const victim = RAYS[i]!;
      const flags =
        MOVE_CAPTURE | MOVE_BY_KING | (victim << 10) | ((kings >> victim) & 1 ? MOVE_CAPTURES_KING : 0);
      for (i++; i < end && (empty >> RAYS[i]!) & 1; i++) out[at++] = s | (RAYS[i]! << 5) | flags;
    }
  }
  return at;
}

/** The enemy pieces `side` could capture right now (bitboard of victims). */
export function captureVictims(white: number, black: number, kings: number, side: number): number {
  const own = side === WHITE ? white : black;
  const opp = side === WHITE ? black : white;
  const empty = ~(white | black);
  const men = own & ~kings;
  let victims = 0;
  for (let d = 0; d < 4; d++) victims |= shift(shift(shift(men, d) & opp, d) & empty, back(d));
  let pieces = own & kings;
  while (pieces !== 0) {
    const s = 31 - Math.clz32(pieces & -pieces);
    pieces &= pieces - 1;
    for (let d = 0; d < 4; d++) {
      const start = RAY_START[s * 4 + d]!;
      const end = start + RAY_LENGTH[s * 4 + d]! - 1; // the victim needs a square beyond it
      let i = start;
      while (i < end && (empty >> RAYS[i]!) & 1) i++;
      if (i < end && (opp >> RAYS[i]!) & 1 && (empty >> RAYS[i + 1]!) & 1) victims |= 1 << RAYS[i]!;
    }
  }
  return victims;
}

/** Whether `side` has any legal single move. */
export function hasMove(white: number, black: number, kings: number, side: number): boolean {
  const own = side === WHITE ? white : black;
  const opp = side === WHITE ? black : white;
  const empty = ~(white | black);
  const men = own & ~kings;
  const forward = side === WHITE ? 0 : 2;
  if ((shift(men, forward) | shift(men, forward + 1)) & empty) return true;
  const kingBoard = own & kings;
  // a king with an empty neighbour can move; one with none can only capture an adjacent piece
  for (let d = 0; d < 4; d++) {
    if (shift(kingBoard, d) & empty) return true;
    if (shift(shift(own, d) & opp, d) & empty) return true;
  }
  return false;
}
