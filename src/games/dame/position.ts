import {
  BLACK,
  MOVE_BY_KING,
  MOVE_CAPTURE,
  MOVE_CAPTURES_KING,
  MOVE_PROMOTES,
  SQUARE_COUNT,
  WHITE,
  generateMoves,
  hasMove,
} from './board.js';

/**
 * The mutable position behind the pure surface: make/unmake on int32 bitboards with an incremental
 * Zobrist key, for search, perft and the endgame tables.
 */

// Zobrist keys as two 32-bit halves: 4 piece kinds × 32 squares, then the side to move.
const ZOBRIST = ((): Int32Array => {
  const keys = new Int32Array(2 * (4 * SQUARE_COUNT + 1));
  let x = 0x9e3779b9 | 0;
  for (let i = 0; i < keys.length; i++) {
    // xorshift32 from a fixed seed, so keys are the same in every process
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    keys[i] = x;
  }
  return keys;
})();
export const ZOBRIST_LO = ZOBRIST.subarray(0, 4 * SQUARE_COUNT);
export const ZOBRIST_HI = ZOBRIST.subarray(4 * SQUARE_COUNT, 8 * SQUARE_COUNT);
export const SIDE_LO = ZOBRIST[8 * SQUARE_COUNT]!;
export const SIDE_HI = ZOBRIST[8 * SQUARE_COUNT + 1]!;

/** Piece kind for the Zobrist tables: 0 white man, 1 white king, 2 black man, 3 black king. */
export const pieceKind = (side: number, king: boolean): number => side * 2 + (king ? 1 : 0);

/**
 * A mutable position for search and perft: make/unmake on int32 bitboards with an incremental
 * Zobrist key. After a capture the mover keeps the move if the opponent still has pieces and the
 * mover has a legal single move (rules §3); otherwise the turn passes.
 */
export class Position {
  white = 0;
  black = 0;
  kings = 0;
  side = WHITE;
  /** Consecutive single king moves without capture (the 50-move rule). */
  quiet = 0;
  hashLo = 0;
  hashHi = 0;
  private readonly undo = new Int32Array(1024);
  private sp = 0;

  set(white: number, black: number, kings: number, side: number, quiet: number): void {
    this.white = white | 0;
    this.black = black | 0;
    this.kings = kings & (white | black);
    this.side = side;
    this.quiet = quiet;
    this.sp = 0;
    let lo = side === BLACK ? SIDE_LO : 0;
    let hi = side === BLACK ? SIDE_HI : 0;
    for (let s = 0; s < SQUARE_COUNT; s++) {
      const bit = 1 << s;
      if (!((white | black) & bit)) continue;
      const kind = pieceKind(white & bit ? WHITE : BLACK, (kings & bit) !== 0);
      lo ^= ZOBRIST_LO[kind * 32 + s]!;
      hi ^= ZOBRIST_HI[kind * 32 + s]!;
    }
    this.hashLo = lo;
    this.hashHi = hi;
  }

  copyFrom(other: Position): void {
    this.set(other.white, other.black, other.kings, other.side, other.quiet);
  }

  make(m: number): void {
    const from = m & 31;
    const to = (m >> 5) & 31;
    const side = this.side;
    const move = (1 << from) | (1 << to);
    const base = side * 64;
    const kind = m & MOVE_BY_KING ? base + 32 : base;
    let lo = this.hashLo ^ ZOBRIST_LO[kind + from]!;
    let hi = this.hashHi ^ ZOBRIST_HI[kind + from]!;
    this.undo[this.sp++] = side | (this.quiet << 1);
    if (side === WHITE) this.white ^= move;
    else this.black ^= move;
    if (m & MOVE_BY_KING) {
      this.kings ^= move;
      lo ^= ZOBRIST_LO[kind + to]!;
      hi ^= ZOBRIST_HI[kind + to]!;
    } else if (m & MOVE_PROMOTES) {
      this.kings |= 1 << to;
      lo ^= ZOBRIST_LO[base + 32 + to]!;
      hi ^= ZOBRIST_HI[base + 32 + to]!;
    } else {
      lo ^= ZOBRIST_LO[base + to]!;
      hi ^= ZOBRIST_HI[base + to]!;
    }
    let next = side ^ 1;
    if (m & MOVE_CAPTURE) {
      const victim = (m >> 10) & 31;
      const bit = 1 << victim;
      const victimKind = (side ^ 1) * 64 + (m & MOVE_CAPTURES_KING ? 32 : 0) + victim;
      lo ^= ZOBRIST_LO[victimKind]!;
      hi ^= ZOBRIST_HI[victimKind]!;
      let opp: number;
      if (side === WHITE) opp = this.black ^= bit;
      else opp = this.white ^= bit;
      this.kings &= ~bit;
      this.quiet = 0;
      if (opp !== 0 && hasMove(this.white, this.black, this.kings, side)) next = side;
    } else {
      this.quiet = m & MOVE_BY_KING ? this.quiet + 1 : 0;
    }
    if (next !== side) {
      lo ^= SIDE_LO;
      hi ^= SIDE_HI;
    }
    this.side = next;
    this.hashLo = lo;
    this.hashHi = hi;
  }

  /** Takes back `m`, which must be the last move made. */
  unmake(m: number): void {
    const saved = this.undo[--this.sp]!;
    const side = saved & 1;
    const from = m & 31;
    const to = (m >> 5) & 31;
    const move = (1 << from) | (1 << to);
    const base = side * 64;
    let lo = this.hashLo;
    let hi = this.hashHi;
    if (this.side !== side) {
      lo ^= SIDE_LO;
      hi ^= SIDE_HI;
    }
    if (side === WHITE) this.white ^= move;
    else this.black ^= move;
    if (m & MOVE_BY_KING) {
      this.kings ^= move;
      lo ^= ZOBRIST_LO[base + 32 + from]! ^ ZOBRIST_LO[base + 32 + to]!;
      hi ^= ZOBRIST_HI[base + 32 + from]! ^ ZOBRIST_HI[base + 32 + to]!;
    } else if (m & MOVE_PROMOTES) {
      this.kings &= ~(1 << to);
      lo ^= ZOBRIST_LO[base + from]! ^ ZOBRIST_LO[base + 32 + to]!;
      hi ^= ZOBRIST_HI[base + from]! ^ ZOBRIST_HI[base + 32 + to]!;
    } else {
      lo ^= ZOBRIST_LO[base + from]! ^ ZOBRIST_LO[base + to]!;
      hi ^= ZOBRIST_HI[base + from]! ^ ZOBRIST_HI[base + to]!;
    }
    if (m & MOVE_CAPTURE) {
      const victim = (m >> 10) & 31;
      const bit = 1 << victim;
      if (side === WHITE) this.black |= bit;
      else this.white |= bit;
      if (m & MOVE_CAPTURES_KING) this.kings |= bit;
      const victimKind = (side ^ 1) * 64 + (m & MOVE_CAPTURES_KING ? 32 : 0) + victim;
      lo ^= ZOBRIST_LO[victimKind]!;
      hi ^= ZOBRIST_HI[victimKind]!;
    }
    this.side = side;
    this.quiet = saved >> 1;
    this.hashLo = lo;
    this.hashHi = hi;
  }
}

/** Counts sequences of `depth` single moves (rules §5.1): draw rules ignored, leaves bulk-counted. */
export function perftPosition(pos: Position, depth: number, buffers: Int32Array): number {
  return perftAt(pos, depth, buffers, 0);
}

function perftAt(pos: Position, depth: number, buf: Int32Array, at: number): number {
  if (depth === 0) return 1;
  const end = generateMoves(pos.white, pos.black, pos.kings, pos.side, buf, at);
  if (depth === 1) return end - at;
  let nodes = 0;
  for (let i = at; i < end; i++) {
    const m = buf[i]!;
    pos.make(m);
    nodes += perftAt(pos, depth - 1, buf, end);
    pos.unmake(m);
  }
  return nodes;
}
