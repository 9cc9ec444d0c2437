/**
 * Transposition table in typed arrays: one slot per index (key low bits), the 64-bit Zobrist key
 * kept as two 32-bit halves. A slot is replaced when it is from an older search, or when the new
 * entry is at least as deep, or when it holds the same position.
 */

export const BOUND_EXACT = 1;
export const BOUND_LOWER = 2;
export const BOUND_UPPER = 3;

export class TranspositionTable {
  readonly size: number;
  private readonly mask: number;
  private readonly keyLo: Int32Array;
  private readonly keyHi: Int32Array;
  private readonly moves: Int32Array;
  private readonly scores: Int16Array;
  private readonly depths: Int8Array;
  /** bound in the low 2 bits, age above. */
  private readonly info: Uint8Array;
  private age = 0;

  // the result of the last successful probe
  move = 0;
  score = 0;
  depth = 0;
  bound = 0;

  constructor(bits = 20) {
    this.size = 1 << bits;
    this.mask = this.size - 1;
    this.keyLo = new Int32Array(this.size);
    this.keyHi = new Int32Array(this.size);
    this.moves = new Int32Array(this.size);
    this.scores = new Int16Array(this.size);
    this.depths = new Int8Array(this.size);
    this.info = new Uint8Array(this.size);
  }

  /** A new search: older entries become preferred victims. */
  newSearch(): void {
    this.age = (this.age + 1) & 63;
  }

  clear(): void {
    this.info.fill(0);
    this.moves.fill(0);
  }

  probe(lo: number, hi: number): boolean {
    const i = lo & this.mask;
    if (this.info[i] === 0 || this.keyLo[i] !== lo || this.keyHi[i] !== hi) return false;
    this.move = this.moves[i]!;
    this.score = this.scores[i]!;
    this.depth = this.depths[i]!;
    this.bound = this.info[i]! & 3;
    return true;
  }

  store(lo: number, hi: number, depth: number, bound: number, score: number, move: number): void {
    const i = lo & this.mask;
    const info = this.info[i]!;
    const same = this.keyLo[i] === lo && this.keyHi[i] === hi;
    if (info !== 0 && !same && info >> 2 === this.age && depth < this.depths[i]!) return;
    this.keyLo[i] = lo;
    this.keyHi[i] = hi;
    // keep a known best move when the new entry has none (a fail-low)
    if (move !== 0 || !same) this.moves[i] = move;
    this.scores[i] = score;
    this.depths[i] = depth;
    this.info[i] = (this.age << 2) | bound;
  }
}
