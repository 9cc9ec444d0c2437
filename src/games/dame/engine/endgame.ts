import {
  BLACK,
  BLACK_PROMOTION,
  MOVE_BY_KING,
  MOVE_CAPTURE,
  MOVE_PROMOTES,
  WHITE,
  WHITE_PROMOTION,
  generateMoves,
  hasMove,
  popcount,
} from '../board.js';

/**
 * Exact endgame tables for every position with at most 3 pieces (any kinds), built in memory by
 * retrograde analysis (no files: the course forbids databases). Draw rules are ignored here, as in
 * spec §5.3; every forced win is far shorter than 50 single moves.
 *
 * A value is from the side to move's view: 0 = draw, d + 1 = win in d single moves, -(d + 1) =
 * loss in d single moves (a side to move without moves or pieces has lost in 0).
 *
 * Index: the occupied squares ascending s1 < s2 < s3 ranked as a combination (Σ C(si, i)), the
 * piece kinds (0 white man, 1 white king, 2 black man, 3 black king) as base-4 digits, the side.
 */

export const MAX_TABLE_PIECES = 3;

const BINOM: number[][] = Array.from({ length: 33 }, () => new Array<number>(5).fill(0));
for (let n = 0; n <= 32; n++) {
  BINOM[n]![0] = 1;
  for (let k = 1; k <= 4; k++) BINOM[n]![k] = n === 0 ? 0 : BINOM[n - 1]![k - 1]! + BINOM[n - 1]![k]!;
}
const binom = (n: number, k: number): number => BINOM[n]![k]!;

/** Start of the n-piece block and its size, for n = 0…3. */
const OFFSET = [0, 0, 0, 0, 0];
const BLOCK = [0, 0, 0, 0];
for (let n = 1; n <= MAX_TABLE_PIECES; n++) {
  BLOCK[n] = 2 * 4 ** n * binom(32, n);
  OFFSET[n + 1] = OFFSET[n]! + BLOCK[n]!;
}
const TABLE_SIZE = OFFSET[MAX_TABLE_PIECES + 1]!;

/** The table index of a position with 1–3 pieces, or -1. */
export function tableIndex(white: number, black: number, kings: number, side: number): number {
  let occ = white | black;
  const n = popcount(occ);
  if (n === 0 || n > MAX_TABLE_PIECES) return -1;
  let rank = 0;
  let kinds = 0;
  let digit = 1;
  for (let i = 1; occ !== 0; i++) {
    const s = 31 - Math.clz32(occ & -occ);
    occ &= occ - 1;
    rank += binom(s, i);
    const kind = ((black >> s) & 1) * 2 + ((kings >> s) & 1);
    kinds += kind * digit;
    digit *= 4;
  }
  return OFFSET[n]! + (side * digit + kinds) * binom(32, n) + rank;
}

export interface EndgameTables {
  readonly values: Int8Array;
  /** Milliseconds the build took. */
  readonly buildMs: number;
  readonly positions: number;
}

let tables: EndgameTables | null = null;

/** The tables, built on first use (about a second, once per process). */
export function endgameTables(): EndgameTables {
  tables ??= buildTables();
  return tables;
}

export const tablesReady = (): boolean => tables !== null;

/** The table value of a position, or null when it has more than 3 pieces (or tables aren't built and `build` is false). */
export function probeTable(
  white: number,
  black: number,
  kings: number,
  side: number,
  build = true,
): number | null {
  const i = tableIndex(white, black, kings, side);
  if (i < 0) return null;
  if (tables === null && !build) return null;
  return endgameTables().values[i]!;
}

function buildTables(): EndgameTables {
  const started = performance.now();
  const values = new Int8Array(TABLE_SIZE);
  const moves = new Int32Array(256);

  // Forward edges (child index * 2 + 1 when the mover moves again) of every placement with at most
  // 3 pieces, minus men on their own promotion rank and positions where only the side to move has
  // pieces (the game ended before such a turn could start).
  let edges = new Int32Array(1 << 22);
  let edgeCount = 0;
  const edgeStart = new Int32Array(TABLE_SIZE + 1).fill(-1);
  const degree = new Int16Array(TABLE_SIZE);
  const queue = new Int32Array(TABLE_SIZE);
  let tail = 0;
  let positions = 0;
  const squares = [0, 0, 0];
  const visit = (n: number): void => {
    for (let kinds = 0; kinds < 4 ** n; kinds++) {
      let white = 0;
      let black = 0;
      let kings = 0;
      let bad = false;
      for (let i = 0; i < n; i++) {
        const kind = (kinds >> (2 * i)) & 3;
        const bit = 1 << squares[i]!;
        if (kind >= 2) black |= bit;
        else white |= bit;
        if (kind & 1) kings |= bit;
        else if (bit & (kind >= 2 ? BLACK_PROMOTION : WHITE_PROMOTION)) bad = true;
      }
      if (bad) continue;
      for (let side = WHITE; side <= BLACK; side++) {
        const own = side === WHITE ? white : black;
        const opp = side === WHITE ? black : white;
        const index = tableIndex(white, black, kings, side);
        const end = own === 0 ? 0 : opp === 0 ? -1 : generateMoves(white, black, kings, side, moves, 0);
        if (end < 0) continue;
        positions++;
        if (end === 0) {
          values[index] = -1;
          queue[tail++] = index;
          continue;
        }
        if (edgeCount + end > edges.length) {
          const bigger = new Int32Array(edges.length * 2);
          bigger.set(edges);
          edges = bigger;
        }
        edgeStart[index] = edgeCount;
        degree[index] = end;
        for (let i = 0; i < end; i++) edges[edgeCount++] = childLink(white, black, kings, side, moves[i]!);
      }
    }
  };
  for (let n = 1; n <= MAX_TABLE_PIECES; n++) {
    const combos = (k: number, from: number): void => {
      if (k === n) {
        visit(n);
        return;
      }
      for (let s = from; s < 32; s++) {
        squares[k] = s;
        combos(k + 1, s + 1);
      }
    };
    combos(0, 0);
  }

  // Reverse edges, then a breadth-first sweep from the lost terminal positions: distances grow by
  // one single move per edge, so the first win found for a parent is its shortest, and the last
  // losing child that resolves a loss is its longest.
  const parentStart = new Int32Array(TABLE_SIZE + 1);
  for (let e = 0; e < edgeCount; e++) parentStart[(edges[e]! >> 1) + 1]!++;
  for (let i = 0; i < TABLE_SIZE; i++) parentStart[i + 1]! += parentStart[i]!;
  const parents = new Int32Array(edgeCount);
  const fill = parentStart.slice(0, TABLE_SIZE);
  for (let p = 0; p < TABLE_SIZE; p++) {
    const first = edgeStart[p]!;
    if (first < 0) continue;
    for (let e = first; e < first + degree[p]!; e++) {
      const edge = edges[e]!;
      parents[fill[edge >> 1]!++] = p * 2 + (edge & 1);
    }
  }
  for (let head = 0; head < tail; head++) {
    const child = queue[head]!;
    const v = values[child]!;
    const d = v < 0 ? -v : v; // the parent's distance + 1 in the encoding
    for (let j = parentStart[child]!; j < parentStart[child + 1]!; j++) {
      const link = parents[j]!;
      const p = link >> 1;
      if (values[p] !== 0) continue;
      const outcome = link & 1 ? v : -v;
      if (outcome > 0) values[p] = d + 1;
      else if (--degree[p]! === 0) values[p] = -(d + 1);
      else continue;
      queue[tail++] = p;
    }
  }
  return { values, buildMs: performance.now() - started, positions };
}

/** The table index of the position after move `m`, times 2, plus 1 when the mover moves again. */
function childLink(white: number, black: number, kings: number, side: number, m: number): number {
  const to = (m >> 5) & 31;
  const path = (1 << (m & 31)) | (1 << to);
  if (side === WHITE) white ^= path;
  else black ^= path;
  if (m & MOVE_BY_KING) kings ^= path;
  else if (m & MOVE_PROMOTES) kings |= 1 << to;
  let next = side ^ 1;
  if (m & MOVE_CAPTURE) {
    const bit = 1 << ((m >> 10) & 31);
    if (side === WHITE) black &= ~bit;
    else white &= ~bit;
    kings &= ~bit;
    if ((side === WHITE ? black : white) !== 0 && hasMove(white, black, kings, side)) next = side;
  }
  return tableIndex(white, black, kings, next) * 2 + (next === side ? 1 : 0);
}
