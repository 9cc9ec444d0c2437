import { BOARD_HI, BOARD_LO, BOTTOM_HI, BOTTOM_LO, LO_BITS, popcount, STRIDE, WIDTH, winningHi, winningLo } from '../bitboard.js';
import type { Book } from './book.js';
import { CELLS, MAX_SCORE, MIN_SCORE, type Position } from './position.js';
import { CHECK_INTERVAL, trunc2, type Checkpoint, type Engine, type Search } from './search.js';
import { TranspositionTable } from './table.js';

/**
 * Pons' exploration order, centre first. His code computes `WIDTH/2 + (1-2*(i%2))*(i+1)/2` in
 * integer arithmetic, which gives 3, 2, 4, 1, 5, 0, 6 (0-based; his comment says 3, 4, 2, …, but
 * the published node counts come from the computed order). Priority is the reverse rank (column 3 →
 * 6 … column 6 → 0), indexed here by bit number across both words (lo bits 0–27, hi bits 28–48).
 */
export const COLUMN_ORDER: readonly number[] = [3, 2, 4, 1, 5, 0, 6];
const PRIORITY_OF_BIT = Int32Array.from({ length: WIDTH * STRIDE }, (_, bit) => WIDTH - 1 - COLUMN_ORDER.indexOf(Math.floor(bit / STRIDE)));

/** Scratch layout per ply: sorted keys, then per priority the move's bits and its threat cells. */
const MOVE_LO = WIDTH;
const MOVE_HI = 2 * WIDTH;
const WIN_LO = 3 * WIDTH;
const WIN_HI = 4 * WIDTH;
const PLY_STRIDE = 5 * WIDTH;

/** Stored value offsets (Pons part 12): upper bounds in 1…37, lower bounds in 38…74. */
const UPPER_OFFSET = 1 - MIN_SCORE;
const LOWER_OFFSET = MAX_SCORE - 2 * MIN_SCORE + 2;
const LOWER_THRESHOLD = MAX_SCORE - MIN_SCORE + 1;

/**
 * The search in TypeScript, the reference implementation (and the fallback when the WebAssembly
 * core is not built): negamax on the two-int32-word bitboards of bitboard.ts. It passes the four
 * position words as int32 arguments and keeps its move lists in one preallocated typed array per
 * ply, so a node allocates nothing.
 */
export class TsSearch implements Search {
  readonly engine: Engine = 'ts';
  readonly table: TranspositionTable;
  /**
   * [negamax calls, count at the next checkpoint]: floats, since the count outgrows V8's small
   * integers on long searches.
   */
  private readonly nodes = Float64Array.of(0, CHECK_INTERVAL);
  private readonly scratch = new Int32Array((CELLS + 1) * PLY_STRIDE);
  private book: Book | null = null;
  private readonly checkpoint: Checkpoint;

  constructor(tableLog: number, checkpoint: Checkpoint) {
    this.table = new TranspositionTable(tableLog);
    this.checkpoint = checkpoint;
  }

  get nodeCount(): number {
    return this.nodes[0]!;
  }

  set nodeCount(value: number) {
    this.nodes[0] = value;
    this.nodes[1] = value + CHECK_INTERVAL;
  }

  checkSoon(): void {
    this.nodes[1] = Math.min(this.nodes[1]!, this.nodes[0]! + 1024);
  }

  clear(): void {
    this.table.reset();
  }

  solve(position: Position, weak: boolean, book: Book | null): number {
    if (position.canWinNext()) return (CELLS + 1 - position.moves) >> 1;
    let min = 0 - ((CELLS - position.moves) >> 1);
    let max = (CELLS + 1 - position.moves) >> 1;
    if (weak) {
      min = -1;
      max = 1;
    }
    while (min < max) {
      let med = min + trunc2(max - min);
      if (med <= 0 && trunc2(min) < med) med = trunc2(min);
      else if (med >= 0 && trunc2(max) > med) med = trunc2(max);
      const r = this.probe(position, med, med + 1, book);
      if (r <= med) max = r;
      else min = r;
    }
    // A weak search may end on a bound beyond ±1; only its sign is meant.
    return weak ? Math.sign(min) : min;
  }

  probe(position: Position, alpha: number, beta: number, book: Book | null): number {
    this.book = book;
    const { curLo, curHi, maskLo, maskHi, moves } = position;
    const wl = winningLo(curLo ^ maskLo, curHi ^ maskHi, maskLo);
    const wh = winningHi(curLo ^ maskLo, curHi ^ maskHi, maskHi);
    return this.negamax(curLo, curHi, maskLo, maskHi, moves, alpha, beta, wl, wh);
  }

  private reachCheckpoint(count: number): void {
    this.nodes[1] = count + CHECK_INTERVAL;
    this.checkpoint(count);
  }

  /**
   * Assumes nobody has won and the side to move cannot win at once (the caller checks). Returns
   * the exact score if it lies in [alpha, beta], else a bound on the far side of the window.
   * `wl`/`wh` are the cells where the opponent would make a four (Pons'
   * opponent_winning_position): the parent computed them anyway when it scored this move for its
   * sorter, so they are passed down instead of computed twice.
   */
  private negamax(
    cl: number,
    ch: number,
    ml: number,
    mh: number,
    n: number,
    alpha: number,
    beta: number,
    wl: number,
    wh: number,
  ): number {
    const nodes = this.nodes;
    const count = nodes[0]! + 1;
    nodes[0] = count;
    if (count >= nodes[1]!) this.reachCheckpoint(count);

    // Start the table probe first: its cache miss overlaps with the bit work below.
    const table = this.table;
    const entries = table.entries;
    const keyLo = cl + ml;
    const keyHi = ch + mh;
    const key = keyHi * 268435456 + keyLo;
    let slot = (key - Math.floor(key * table.inverse) * table.size) | 0;
    if (slot < 0) slot += table.size;
    else if (slot >= table.size) slot -= table.size;
    slot <<= 1;
    const storedKey = entries[slot]!;
    const storedValue = entries[slot + 1]!;
    const partialKey = (keyLo + (keyHi << 28)) | 0;

    // Possible non-losing moves.
    let pl = (ml + BOTTOM_LO) & BOARD_LO;
    let ph = (mh + BOTTOM_HI) & BOARD_HI;
    const fl = pl & wl;
    const fh = ph & wh;
    if ((fl | fh) !== 0) {
      // Two opponent wins at once cannot both be stopped.
      if ((fl & (fl - 1)) !== 0 || (fh & (fh - 1)) !== 0 || (fl !== 0 && fh !== 0)) return 0 - ((CELLS - n) >> 1);
      pl = fl;
      ph = fh;
    }
    pl &= ~(wl >>> 1);
    ph &= ~(wh >>> 1);
    if ((pl | ph) === 0) return 0 - ((CELLS - n) >> 1);

    if (n >= CELLS - 2) return 0;

    let min = 0 - ((CELLS - 2 - n) >> 1);
    if (alpha < min) {
      alpha = min;
      if (alpha >= beta) return alpha;
    }
    let max = (CELLS - 1 - n) >> 1;
    if (beta > max) {
      beta = max;
      if (alpha >= beta) return beta;
    }

    if (storedKey === partialKey && storedValue !== 0) {
      if (storedValue > LOWER_THRESHOLD) {
        min = storedValue - LOWER_OFFSET;
        if (alpha < min) {
          alpha = min;
          if (alpha >= beta) return alpha;
        }
      } else {
        max = storedValue - UPPER_OFFSET;
        if (beta > max) {
          beta = max;
          if (alpha >= beta) return beta;
        }
      }
    }

    const book = this.book;
    if (book !== null && n <= book.depth) {
      const score = book.lookup(cl, ch, ml, mh);
      if (score !== null) return score;
    }

    // Move sorter. Each candidate gets the key score · 8 + priority, where priority is 6 for the
    // centre column down to 0 for the outer ones, so sorting the keys gives Pons' order exactly:
    // higher score first, and among equal scores the more central column. Per-candidate data sits
    // at its priority's index, so sorting moves single ints. The threat cells computed for the
    // score are the child's opponent_winning_position.
    const scratch = this.scratch;
    const base = n * PLY_STRIDE;
    let size = 0;
    let bits = pl;
    while (bits !== 0) {
      const mvl = bits & -bits;
      bits ^= mvl;
      const al = cl | mvl;
      const nwl = winningLo(al, ch, ml);
      const nwh = winningHi(al, ch, mh);
      const prio = PRIORITY_OF_BIT[31 - Math.clz32(mvl)]!;
      const key = ((popcount(nwl) + popcount(nwh)) << 3) | prio;
      scratch[base + MOVE_LO + prio] = mvl;
      scratch[base + MOVE_HI + prio] = 0;
      scratch[base + WIN_LO + prio] = nwl;
      scratch[base + WIN_HI + prio] = nwh;
      insertKey(scratch, base, size++, key);
    }
    bits = ph;
    while (bits !== 0) {
      const mvh = bits & -bits;
      bits ^= mvh;
      const ah = ch | mvh;
      const nwl = winningLo(cl, ah, ml);
      const nwh = winningHi(cl, ah, mh);
      const prio = PRIORITY_OF_BIT[31 - Math.clz32(mvh) + LO_BITS]!;
      const key = ((popcount(nwl) + popcount(nwh)) << 3) | prio;
      scratch[base + MOVE_LO + prio] = 0;
      scratch[base + MOVE_HI + prio] = mvh;
      scratch[base + WIN_LO + prio] = nwl;
      scratch[base + WIN_HI + prio] = nwh;
      insertKey(scratch, base, size++, key);
    }

    const ol = cl ^ ml;
    const oh = ch ^ mh;
    for (let k = base + size - 1; k >= base; k--) {
      const at = base + (scratch[k]! & 7);
      const cml = ml | scratch[at + MOVE_LO]!;
      const cmh = mh | scratch[at + MOVE_HI]!;
      // The child's mask now covers the move's cell, so drop it from the threat cells.
      // `0 - x`, not `-x`: -0 would turn V8's int32 scores into doubles.
      const score =
        0 - this.negamax(ol, oh, cml, cmh, n + 1, 0 - beta, 0 - alpha, scratch[at + WIN_LO]! & ~cml, scratch[at + WIN_HI]! & ~cmh);
      if (score >= beta) {
        entries[slot] = partialKey;
        entries[slot + 1] = score + LOWER_OFFSET;
        return score;
      }
      if (score > alpha) alpha = score;
    }

    entries[slot] = partialKey;
    entries[slot + 1] = alpha + UPPER_OFFSET;
    return alpha;
  }
}

/** Sorts `key` into the ascending run of `size` keys at scratch[base…]. */
function insertKey(scratch: Int32Array, base: number, size: number, key: number): void {
  let pos = base + size;
  while (pos > base && scratch[pos - 1]! > key) {
    scratch[pos] = scratch[pos - 1]!;
    pos--;
  }
  scratch[pos] = key;
}
