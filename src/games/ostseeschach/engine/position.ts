import { AMBERS_TO_WIN, PIECE_TYPES, TURN_LIMIT, forward, vectors, type Move, type Team } from '../board.js';
import type { State } from '../rules.js';

/**
 * The engine's board: a mailbox of piece codes plus two 32-bit occupancy halves per team, with
 * incremental 64-bit Zobrist hashing (two int32 halves) and make/unmake. Everything here is
 * mutable and allocation-free on the hot path; rules.ts stays the pure reference.
 *
 * Square index sq = x·8 + y. Piece code = 16 | team<<3 | tall<<2 | type, where team 0 = ONE,
 * tall = count 2, type 0 Herzmuschel, 1 Moewe, 2 Seestern, 3 Robbe; 0 is an empty square.
 * A move is the int from | to<<6.
 */

export const HERZMUSCHEL = 0;
export const MOEWE = 1;
export const SEESTERN = 2;
export const ROBBE = 3;
export const ONE = 0;
export const TWO = 1;

export const MAX_MOVES = 64;
export const MAX_PLY = 128;

export const moveFrom = (m: number): number => m & 63;
export const moveTo = (m: number): number => (m >> 6) & 63;
export const makeMoveCode = (from: number, to: number): number => from | (to << 6);

export const codeTeam = (c: number): number => (c >> 3) & 1;
export const codeType = (c: number): number => c & 3;
export const codeCount = (c: number): number => 1 + ((c >> 2) & 1);
export const pieceCode = (team: number, type: number, count: number): number =>
  16 | (team << 3) | (count === 2 ? 4 : 0) | type;

/** Targets per (team, type, square): up to 8 squares each. */
const TARGETS = new Int8Array(2 * 4 * 64 * 8);
const TARGET_COUNT = new Uint8Array(2 * 4 * 64);
for (let team = 0; team < 2; team++) {
  const t: Team = team === 0 ? 'ONE' : 'TWO';
  for (let type = 0; type < 4; type++) {
    const vs = vectors(PIECE_TYPES[type]!, t);
    for (let sq = 0; sq < 64; sq++) {
      const x = sq >> 3;
      const y = sq & 7;
      const base = (team * 4 + type) * 64 + sq;
      let n = 0;
      for (const [dx, dy] of vs) {
        const tx = x + dx;
        const ty = y + dy;
        if (tx < 0 || tx > 7 || ty < 0 || ty > 7) continue;
        TARGETS[base * 8 + n] = tx * 8 + ty;
        n++;
      }
      TARGET_COUNT[base] = n;
    }
  }
}
export { TARGETS, TARGET_COUNT };

/** Deterministic Zobrist keys (xorshift32), so hashes are stable across runs. */
const ZOBRIST = (() => {
  let s = 0x9e3779b9 | 0;
  const next = (): number => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s | 0;
  };
  const size = 32 * 64 + 2 * 16 + TURN_LIMIT + 2;
  const lo = new Int32Array(size);
  const hi = new Int32Array(size);
  for (let i = 0; i < size; i++) {
    lo[i] = next();
    hi[i] = next();
  }
  return { lo, hi };
})();
const Z_AMBER = 32 * 64;
const Z_TURN = Z_AMBER + 32;
const zAmber = (team: number, n: number): number => Z_AMBER + team * 16 + Math.min(n, 15);

export class Position {
  readonly board = new Int8Array(64);
  /** Occupancy: [ONE low 32 squares, ONE high, TWO low, TWO high]. */
  readonly occ = new Int32Array(4);
  readonly ambers = new Int32Array(2);
  turn = 0;
  hashLo = 0;
  hashHi = 0;
  /** Undo stack, one record per ply: move, mover, captured, gained, hashLo, hashHi. */
  private readonly undo = new Int32Array(MAX_PLY * 6);
  private sp = 0;

  static fromState(s: State): Position {
    const p = new Position();
    for (const e of s.pieces) {
      const type = PIECE_TYPES.indexOf(e.piece.type);
      p.board[e.coordinates.x * 8 + e.coordinates.y] = pieceCode(e.piece.team === 'ONE' ? ONE : TWO, type, e.piece.count);
    }
    p.ambers[ONE] = s.ambers.ONE;
    p.ambers[TWO] = s.ambers.TWO;
    p.turn = s.turn;
    p.rebuild();
    return p;
  }

  clone(): Position {
    const p = new Position();
    p.board.set(this.board);
    p.ambers.set(this.ambers);
    p.turn = this.turn;
    p.rebuild();
    return p;
  }

  /** Recomputes occupancy and hash from board, ambers and turn. */
  rebuild(): void {
    this.occ.fill(0);
    let lo = 0;
    let hi = 0;
    for (let sq = 0; sq < 64; sq++) {
      const c = this.board[sq]!;
      if (c === 0) continue;
      this.toggle(codeTeam(c), sq);
      lo ^= ZOBRIST.lo[c * 64 + sq]!;
      hi ^= ZOBRIST.hi[c * 64 + sq]!;
    }
    for (let t = 0; t < 2; t++) {
      lo ^= ZOBRIST.lo[zAmber(t, this.ambers[t]!)]!;
      hi ^= ZOBRIST.hi[zAmber(t, this.ambers[t]!)]!;
    }
    lo ^= ZOBRIST.lo[Z_TURN + this.turn]!;
    hi ^= ZOBRIST.hi[Z_TURN + this.turn]!;
    this.hashLo = lo;
    this.hashHi = hi;
    this.sp = 0;
  }

  private toggle(team: number, sq: number): void {
    if (sq < 32) this.occ[team * 2] = this.occ[team * 2]! ^ (1 << sq);
    else this.occ[team * 2 + 1] = this.occ[team * 2 + 1]! ^ (1 << (sq - 32));
  }

  get sideToMove(): number {
    return this.turn & 1;
  }

  /** The official end check: only after TWO's move. */
  isOver(): boolean {
    return (this.turn & 1) === 0 && (this.turn >= TURN_LIMIT || this.ambers[0]! >= AMBERS_TO_WIN || this.ambers[1]! >= AMBERS_TO_WIN);
  }

  /** Writes the side to move's legal moves to `out` from `offset`; returns how many. */
  generate(out: Int32Array, offset: number): number {
    const team = this.turn & 1;
    const own = 2 | team;
    const board = this.board;
    let k = offset;
    for (let h = 0; h < 2; h++) {
      let b = this.occ[team * 2 + h]!;
      while (b !== 0) {
        const low = b & -b;
        const sq = h * 32 + 31 - Math.clz32(low);
        b ^= low;
        const base = (team * 4 + (board[sq]! & 3)) * 64 + sq;
        const n = TARGET_COUNT[base]!;
        for (let i = 0; i < n; i++) {
          const to = TARGETS[base * 8 + i]!;
          if (board[to]! >> 3 === own) continue;
          out[k++] = sq | (to << 6);
        }
      }
    }
    return k - offset;
  }

  /** Number of legal moves, without writing them. */
  countMoves(): number {
    const team = this.turn & 1;
    const own = 2 | team;
    const board = this.board;
    let k = 0;
    for (let h = 0; h < 2; h++) {
      let b = this.occ[team * 2 + h]!;
      while (b !== 0) {
        const low = b & -b;
        const sq = h * 32 + 31 - Math.clz32(low);
        b ^= low;
        const base = (team * 4 + (board[sq]! & 3)) * 64 + sq;
        const n = TARGET_COUNT[base]!;
        for (let i = 0; i < n; i++) if (board[TARGETS[base * 8 + i]!]! >> 3 !== own) k++;
      }
    }
    return k;
  }

  /** Ambers the move would score (0, 1 or 2) on the current board. */
  amberGain(m: number): number {
    const mover = this.board[m & 63]!;
    const to = (m >> 6) & 63;
    const cap = this.board[to]!;
    const count = 1 + ((mover >> 2) & 1) + (cap === 0 ? 0 : 1 + ((cap >> 2) & 1));
    const team = (mover >> 3) & 1;
    return (count >= 3 ? 1 : 0) + ((mover & 3) !== ROBBE && to >> 3 === (team === 0 ? 7 : 0) ? 1 : 0);
  }

  make(m: number): void {
    const from = m & 63;
    const to = (m >> 6) & 63;
    const board = this.board;
    const mover = board[from]!;
    const cap = board[to]!;
    const team = (mover >> 3) & 1;
    const count = 1 + ((mover >> 2) & 1) + (cap === 0 ? 0 : 1 + ((cap >> 2) & 1));
    const gained = (count >= 3 ? 1 : 0) + ((mover & 3) !== ROBBE && to >> 3 === (team === 0 ? 7 : 0) ? 1 : 0);
    const u = this.sp * 6;
    const undo = this.undo;
    undo[u] = m;
    undo[u + 1] = mover;
    undo[u + 2] = cap;
    undo[u + 3] = gained;
    undo[u + 4] = this.hashLo;
    undo[u + 5] = this.hashHi;
    this.sp++;

    const zl = ZOBRIST.lo;
    const zh = ZOBRIST.hi;
    let lo = this.hashLo ^ zl[mover * 64 + from]! ^ zl[Z_TURN + this.turn]! ^ zl[Z_TURN + this.turn + 1]!;
    let hi = this.hashHi ^ zh[mover * 64 + from]! ^ zh[Z_TURN + this.turn]! ^ zh[Z_TURN + this.turn + 1]!;
    board[from] = 0;
    this.toggle(team, from);
    if (cap !== 0) {
      lo ^= zl[cap * 64 + to]!;
      hi ^= zh[cap * 64 + to]!;
      this.toggle(team ^ 1, to);
    }
    if (gained !== 0) {
      board[to] = 0;
      const a = this.ambers[team]!;
      lo ^= zl[zAmber(team, a)]! ^ zl[zAmber(team, a + gained)]!;
      hi ^= zh[zAmber(team, a)]! ^ zh[zAmber(team, a + gained)]!;
      this.ambers[team] = a + gained;
    } else {
      const nc = 16 | (team << 3) | (count === 2 ? 4 : 0) | (mover & 3);
      board[to] = nc;
      lo ^= zl[nc * 64 + to]!;
      hi ^= zh[nc * 64 + to]!;
      this.toggle(team, to);
    }
    this.turn++;
    this.hashLo = lo;
    this.hashHi = hi;
  }

  unmake(): void {
    this.sp--;
    const u = this.sp * 6;
    const undo = this.undo;
    const m = undo[u]!;
    const from = m & 63;
    const to = (m >> 6) & 63;
    const mover = undo[u + 1]!;
    const cap = undo[u + 2]!;
    const gained = undo[u + 3]!;
    const team = (mover >> 3) & 1;
    if (gained !== 0) this.ambers[team] = this.ambers[team]! - gained;
    else this.toggle(team, to);
    if (cap !== 0) this.toggle(team ^ 1, to);
    this.toggle(team, from);
    this.board[from] = mover;
    this.board[to] = cap;
    this.turn--;
    this.hashLo = undo[u + 4]!;
    this.hashHi = undo[u + 5]!;
  }

  /** A null move (side to move passes), for the search only; it is not a legal game move. */
  makeNull(): void {
    const u = this.sp * 6;
    this.undo[u] = -1;
    this.undo[u + 4] = this.hashLo;
    this.undo[u + 5] = this.hashHi;
    this.sp++;
    this.hashLo ^= ZOBRIST.lo[Z_TURN + this.turn]! ^ ZOBRIST.lo[Z_TURN + this.turn + 1]!;
    this.hashHi ^= ZOBRIST.hi[Z_TURN + this.turn]! ^ ZOBRIST.hi[Z_TURN + this.turn + 1]!;
    this.turn++;
  }

  unmakeNull(): void {
    this.sp--;
    const u = this.sp * 6;
    this.turn--;
    this.hashLo = this.undo[u + 4]!;
    this.hashHi = this.undo[u + 5]!;
  }
}

export const squareOf = (x: number, y: number): number => x * 8 + y;

export function moveToCode(m: Move): number {
  return makeMoveCode(m.from.x * 8 + m.from.y, m.to.x * 8 + m.to.y);
}

export function codeToMove(m: number): Move {
  const from = m & 63;
  const to = (m >> 6) & 63;
  return { from: { x: from >> 3, y: from & 7 }, to: { x: to >> 3, y: to & 7 } };
}

/** Forward direction of an engine team index, for evaluation tables. */
export const teamForward = (team: number): number => forward(team === ONE ? 'ONE' : 'TWO');
