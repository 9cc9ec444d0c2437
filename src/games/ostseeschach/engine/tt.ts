import { WIN_BOUND } from './evaluate.js';

export const BOUND_EXACT = 1;
export const BOUND_LOWER = 2;
export const BOUND_UPPER = 3;

/**
 * Transposition table on typed arrays: the low hash bits index, the high 32 bits verify. One entry
 * is (check, data, score); data packs move (12 bits), depth + 1 (8 bits), bound (2 bits), age
 * (8 bits). Replacement: a deeper entry from the current search survives a shallower store.
 */
export class TranspositionTable {
  private readonly mask: number;
  private readonly check: Int32Array;
  private readonly data: Int32Array;
  private readonly scores: Int32Array;
  private age = 0;
  /** Results of the last probe (valid when `probe` returned true). */
  move = 0;
  depth = 0;
  bound = 0;
  score = 0;

  constructor(log2Entries = 20) {
    const size = 1 << log2Entries;
    this.mask = size - 1;
    this.check = new Int32Array(size);
    this.data = new Int32Array(size);
    this.scores = new Int32Array(size);
  }

  /** Starts a new search: older entries become preferred victims. */
  newSearch(): void {
    this.age = (this.age + 1) & 0xff;
  }

  clear(): void {
    this.check.fill(0);
    this.data.fill(0);
    this.scores.fill(0);
  }

  probe(lo: number, hi: number, ply: number): boolean {
    const i = lo & this.mask;
    const d = this.data[i]!;
    if (d === 0 || this.check[i] !== hi) return false;
    this.move = d & 0xfff;
    this.depth = ((d >>> 12) & 0xff) - 1;
    this.bound = (d >>> 20) & 3;
    let s = this.scores[i]!;
    // Decided scores are stored relative to the node, read back relative to the root.
    if (s > WIN_BOUND) s -= ply;
    else if (s < -WIN_BOUND) s += ply;
    this.score = s;
    return true;
  }

  store(lo: number, hi: number, ply: number, depth: number, bound: number, score: number, move: number): void {
    const i = lo & this.mask;
    const old = this.data[i]!;
    if (old !== 0 && this.check[i] === hi) {
      // Same position: keep a deeper exact result, and keep its move if we have none.
      const oldDepth = ((old >>> 12) & 0xff) - 1;
      if (depth < oldDepth - 2 && bound !== BOUND_EXACT) return;
      if (move === 0) move = old & 0xfff;
    } else if (old !== 0 && old >>> 24 === this.age && ((old >>> 12) & 0xff) - 1 > depth + 1) {
      return;
    }
    if (score > WIN_BOUND) score += ply;
    else if (score < -WIN_BOUND) score -= ply;
    this.check[i] = hi;
    this.data[i] = (move & 0xfff) | ((Math.max(depth, -1) + 1) << 12) | (bound << 20) | (this.age << 24) | 0;
    this.scores[i] = score;
  }
}
