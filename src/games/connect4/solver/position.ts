import { err, ok, type Result } from '../../../core/result.js';
import {
  BOARD_HI,
  BOARD_LO,
  BOTTOM_HI,
  BOTTOM_LO,
  bottomBit,
  columnBits,
  HEIGHT,
  LO_COLUMNS,
  popcount,
  STRIDE,
  topBit,
  WIDTH,
  winningHi,
  winningLo,
} from '../bitboard.js';
import { fromMoves, type SequenceError } from '../rules.js';

export const CELLS = WIDTH * HEIGHT;
/** Pons' bounds on any score of a position in which nobody can win on the next move. */
export const MIN_SCORE = -(CELLS >> 1) + 3;
export const MAX_SCORE = ((CELLS + 1) >> 1) - 3;

/**
 * A mutable position in Pons' representation: the stones of the side to move (`cur`) and all
 * stones (`mask`), each as lo/hi words (bitboard.ts). Used at the solver's API boundary; the search
 * itself passes the four words as plain int32 arguments.
 */
export class Position {
  curLo = 0;
  curHi = 0;
  maskLo = 0;
  maskHi = 0;
  moves = 0;

  clone(): Position {
    const p = new Position();
    p.curLo = this.curLo;
    p.curHi = this.curHi;
    p.maskLo = this.maskLo;
    p.maskHi = this.maskHi;
    p.moves = this.moves;
    return p;
  }

  /** 0-based column. */
  canPlay(col: number): boolean {
    return ((col < LO_COLUMNS ? this.maskLo : this.maskHi) & topBit(col)) === 0;
  }

  /** Whether playing the 0-based column makes a four for the side to move. */
  isWinningMove(col: number): boolean {
    if (!this.canPlay(col)) return false;
    const bits = col < LO_COLUMNS ? this.winningLo() & this.possibleLo() : this.winningHi() & this.possibleHi();
    return (bits & columnBits(col)) !== 0;
  }

  canWinNext(): boolean {
    return ((this.winningLo() & this.possibleLo()) | (this.winningHi() & this.possibleHi())) !== 0;
  }

  /** Plays a 0-based column (which must be playable). */
  playCol(col: number): void {
    this.curLo ^= this.maskLo;
    this.curHi ^= this.maskHi;
    if (col < LO_COLUMNS) this.maskLo |= (this.maskLo + bottomBit(col)) & columnBits(col);
    else this.maskHi |= (this.maskHi + bottomBit(col)) & columnBits(col);
    this.moves++;
  }

  possibleLo(): number {
    return (this.maskLo + BOTTOM_LO) & BOARD_LO;
  }

  possibleHi(): number {
    return (this.maskHi + BOTTOM_HI) & BOARD_HI;
  }

  winningLo(): number {
    return winningLo(this.curLo, this.curHi, this.maskLo);
  }

  winningHi(): number {
    return winningHi(this.curLo, this.curHi, this.maskHi);
  }

  /** Number of stones of the side to move (for scores: 22 − k). */
  stonesToMove(): number {
    return popcount(this.curLo) + popcount(this.curHi);
  }

  /** Height of a 0-based column. */
  height(col: number): number {
    const word = col < LO_COLUMNS ? this.maskLo : this.maskHi;
    return popcount(word & columnBits(col));
  }

  /**
   * The mirror image (column c ↔ 6 − c). Mirrored positions have the same score; the book stores
   * one of each pair.
   */
  mirrored(): Position {
    const p = new Position();
    p.moves = this.moves;
    for (let col = 0; col < WIDTH; col++) {
      const from = col < LO_COLUMNS ? col : col - LO_COLUMNS;
      const to = WIDTH - 1 - col;
      const toShift = (to < LO_COLUMNS ? to : to - LO_COLUMNS) * STRIDE;
      const cur = ((col < LO_COLUMNS ? this.curLo : this.curHi) >>> (from * STRIDE)) & 0x7f;
      const mask = ((col < LO_COLUMNS ? this.maskLo : this.maskHi) >>> (from * STRIDE)) & 0x7f;
      if (to < LO_COLUMNS) {
        p.curLo |= cur << toShift;
        p.maskLo |= mask << toShift;
      } else {
        p.curHi |= cur << toShift;
        p.maskHi |= mask << toShift;
      }
    }
    return p;
  }

  /** Builds a position from Pons' notation; invalid sequences are the rules' errors. */
  static parse(notation: string): Result<Position, SequenceError> {
    const parsed = fromMoves(notation);
    if (!parsed.ok) return err(parsed.error);
    return ok(Position.ofMoves(parsed.value.moves));
  }

  /** From 1-based columns already known to be a legal sequence. */
  static ofMoves(moves: readonly number[]): Position {
    const p = new Position();
    for (const column of moves) p.playCol(column - 1);
    return p;
  }
}
