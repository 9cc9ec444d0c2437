import { AMBERS_TO_WIN, PIECE_TYPES, TURN_LIMIT, forward, vectors, type Move, type Team } from '../board.js';
import type { State } from '../rules.js';

/**
 * The engine's board: a mailbox of piece codes plus two 32-bit occupancy halves per team, with
 * incremental 64-bit Zobrist hashing (two int32 halves) and make/unmake. Everything here is
 * mutable and allocation-free on the hot path; rules.ts stays the pure reference. Mailbox,
 * occupancy, ambers and the undo stack share one Int32Array (see Position); the tables are
 * module constants, which V8 compiles to fixed addresses. Perft (engine/perft.ts, bench
 * ostseeschach-perft) checks every change against the official counts.
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

/** Local copies of the imported limits (an imported binding may be a getter on the hot path). */
const TURNS = TURN_LIMIT;
const TO_WIN = AMBERS_TO_WIN;

/**
 * Deterministic Zobrist keys (xorshift32), so hashes are stable across runs: key i is the pair
 * (Z[2i], Z[2i + 1]) = (low, high half), interleaved so that both halves share one array.
 */
const Z_SIZE = 32 * 64 + 2 * 16 + TURN_LIMIT + 2;
const Z = new Int32Array(Z_SIZE * 2);
{
  let s = 0x9e3779b9 | 0;
  const next = (): number => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s | 0;
  };
  for (let i = 0; i < Z_SIZE * 2; i++) Z[i] = next();
}
const Z_AMBER = 32 * 64;
const Z_TURN = Z_AMBER + 32;
const zAmber = (team: number, n: number): number => (Z_AMBER + team * 16 + Math.min(n, 15)) << 1;
/**
 * The turn key's change from turn t to t + 1 (one xor instead of two), interleaved like Z. Turn
 * keys exist for turns 0…TURN_LIMIT + 1; a missing one counts as 0, as it did when make xored both.
 */
const ZSTEP = new Int32Array((TURN_LIMIT + 2) * 2);
for (let t = 0; t <= TURN_LIMIT + 1; t++) {
  ZSTEP[2 * t] = Z[2 * (Z_TURN + t)]! ^ (Z[2 * (Z_TURN + t + 1)] ?? 0);
  ZSTEP[2 * t + 1] = Z[2 * (Z_TURN + t) + 1]! ^ (Z[2 * (Z_TURN + t + 1) + 1] ?? 0);
}

/** Move codes per (team, type, square) in the rules' vector order: MOVES[base·8 + i], i < TARGET_COUNT[base]. */
const MOVES = new Int32Array(TARGETS.length);
for (let i = 0; i < TARGETS.length; i++) MOVES[i] = ((i >> 3) & 63) | (TARGETS[i]! << 6);

/** Target squares per (team, type, square) as a bitboard: ATTACKS[2·base] low half, ATTACKS[2·base + 1] high half. */
export const ATTACKS = new Int32Array(TARGET_COUNT.length * 2);
for (let base = 0; base < TARGET_COUNT.length; base++) {
  for (let i = 0; i < TARGET_COUNT[base]!; i++) {
    const to = TARGETS[base * 8 + i]!;
    ATTACKS[2 * base + (to >> 5)] = ATTACKS[2 * base + (to >> 5)]! | (1 << to);
  }
}

/** 1 where a light piece of the code's team scores by stepping onto the square: LINE_GAIN[(code & 15) << 6 | sq]. */
const LINE_GAIN = new Uint8Array(16 * 64);
for (let c = 0; c < 16; c++) {
  for (let sq = 0; sq < 64; sq++)
    LINE_GAIN[(c << 6) | sq] = (c & 3) !== ROBBE && sq >> 3 === (c & 8 ? 0 : 7) ? 1 : 0;
}

/**
 * One Int32Array holds the whole mutable board, so make/unmake touch a single typed array (one
 * bounds and pointer set-up instead of one per array): [0, 64) the mailbox, [64, 68) occupancy,
 * [68, 70) ambers, from 72 the undo stack of 3-int records (move | mover << 12 | captured << 17 |
 * gained << 22, hashLo, hashHi before the move). `board`, `occ` and `ambers` are views of it.
 */
const OCC = 64;
const AMB = 68;
const UNDO0 = 72;
const UNDO = 3;

/** a[i] ^= v, for the typed-array elements (the compound form needs a non-null assertion). */
const xorAt = (a: Int32Array, i: number, v: number): void => {
  a[i] = a[i]! ^ v;
};

/**
 * Toggles squares from and to in an occupancy pair, o being from's word: one word when both lie in
 * the same half, else o and its partner o ^ 1. A function of its own so that make stays within
 * V8's inlining limit (460 bytes of bytecode): past it, make is called, not inlined, and the
 * make/unmake perft drops by about 15 %.
 */
const flip = (mem: Int32Array, o: number, from: number, to: number): void => {
  if (((from ^ to) & 32) === 0) mem[o] = mem[o]! ^ (1 << from) ^ (1 << to);
  else {
    mem[o] = mem[o]! ^ (1 << from);
    mem[o ^ 1] = mem[o ^ 1]! ^ (1 << to);
  }
};

export class Position {
  private readonly mem = new Int32Array(UNDO0 + MAX_PLY * UNDO);
  /** The mailbox (a view of the board memory): piece code per square, 0 empty. */
  readonly board = this.mem.subarray(0, 64);
  /** Occupancy: [ONE low 32 squares, ONE high, TWO low, TWO high]. */
  readonly occ = this.mem.subarray(OCC, OCC + 4);
  readonly ambers = this.mem.subarray(AMB, AMB + 2);
  turn = 0;
  hashLo = 0;
  hashHi = 0;
  /** Index in `mem` of the next undo record. */
  private sp = UNDO0;

  static fromState(s: State): Position {
    const p = new Position();
    for (const e of s.pieces) {
      const type = PIECE_TYPES.indexOf(e.piece.type);
      p.board[e.coordinates.x * 8 + e.coordinates.y] = pieceCode(
        e.piece.team === 'ONE' ? ONE : TWO,
        type,
        e.piece.count,
      );
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

  /** Recomputes occupancy and hash from board, ambers and turn, and empties the undo stack. */
  rebuild(): void {
    const mem = this.mem;
    mem.fill(0, OCC, OCC + 4);
    let lo = 0;
    let hi = 0;
    for (let sq = 0; sq < 64; sq++) {
      const c = mem[sq]!;
      if (c === 0) continue;
      xorAt(mem, OCC + ((codeTeam(c) << 1) | (sq >> 5)), 1 << sq);
      lo ^= Z[(c * 64 + sq) << 1]!;
      hi ^= Z[((c * 64 + sq) << 1) + 1]!;
    }
    for (let t = 0; t < 2; t++) {
      lo ^= Z[zAmber(t, mem[AMB + t]!)]!;
      hi ^= Z[zAmber(t, mem[AMB + t]!) + 1]!;
    }
    lo ^= Z[(Z_TURN + this.turn) << 1]!;
    hi ^= Z[((Z_TURN + this.turn) << 1) + 1]!;
    this.hashLo = lo;
    this.hashHi = hi;
    this.sp = UNDO0;
  }

  get sideToMove(): number {
    return this.turn & 1;
  }

  /** The official end check: only after TWO's move. */
  isOver(): boolean {
    const turn = this.turn;
    return (turn & 1) === 0 && (turn >= TURNS || this.mem[AMB]! >= TO_WIN || this.mem[AMB + 1]! >= TO_WIN);
  }

  /** Writes the side to move's legal moves to `out` from `offset`; returns how many. */
  generate(out: Int32Array, offset: number): number {
    const team = this.turn & 1;
    const mem = this.mem;
    const ownLo = mem[OCC + team * 2]!;
    const ownHi = mem[OCC + team * 2 + 1]!;
    let k = offset;
    for (let h = 0; h < 2; h++) {
      let b = h === 0 ? ownLo : ownHi;
      while (b !== 0) {
        const low = b & -b;
        const sq = h * 32 + 31 - Math.clz32(low);
        b ^= low;
        const base = (team * 4 + (mem[sq]! & 3)) * 64 + sq;
        const end = base * 8 + TARGET_COUNT[base]!;
        for (let i = base * 8; i < end; i++) {
          const c = MOVES[i]!;
          // The target's bit in its half of the own occupancy (a shift count is taken mod 32).
          if ((((c & 0x800 ? ownHi : ownLo) >>> (c >> 6)) & 1) === 0) out[k++] = c;
        }
      }
    }
    return k - offset;
  }

  /** Number of legal moves, without writing them (like generate, it assumes fewer than 256). */
  countMoves(): number {
    const team = this.turn & 1;
    const mem = this.mem;
    const freeLo = ~mem[OCC + team * 2]!;
    const freeHi = ~mem[OCC + team * 2 + 1]!;
    // Per piece, its target squares not held by its own team: a SWAR popcount of both halves at
    // once, kept in byte lanes across the pieces and summed into one byte at the end. A lane
    // (one row of each half) counts moves of this position, so it stays below 256 as the total does.
    let acc = 0;
    for (let h = 0; h < 2; h++) {
      let b = mem[OCC + team * 2 + h]!;
      while (b !== 0) {
        const low = b & -b;
        const sq = h * 32 + 31 - Math.clz32(low);
        b ^= low;
        const a = ((team * 4 + (mem[sq]! & 3)) * 64 + sq) << 1;
        let x = ATTACKS[a]! & freeLo;
        let y = ATTACKS[a + 1]! & freeHi;
        x -= (x >>> 1) & 0x55555555;
        y -= (y >>> 1) & 0x55555555;
        x = (x & 0x33333333) + ((x >>> 2) & 0x33333333) + (y & 0x33333333) + ((y >>> 2) & 0x33333333);
        acc += (x + (x >>> 4)) & 0x0f0f0f0f;
      }
    }
    return Math.imul(acc, 0x01010101) >>> 24;
  }

  /** Ambers the move would score (0, 1 or 2) on the current board. */
  amberGain(m: number): number {
    const mover = this.mem[m & 63]!;
    const to = (m >> 6) & 63;
    const cap = this.mem[to]!;
    return LINE_GAIN[((mover & 15) << 6) | to]! + (cap !== 0 && ((mover | cap) & 4) !== 0 ? 1 : 0);
  }

  /** Plays the move code m (from | to << 6, no higher bits: as generate writes it). */
  make(m: number): void {
    const from = m & 63;
    const to = (m >> 6) & 63;
    const mem = this.mem;
    const mover = mem[from]!;
    // Captures and moves that score take the longer path (not inlined); a quiet move is the common
    // case, and its undo record is just the move and the mover.
    if (mem[to] !== 0 || LINE_GAIN[((mover & 15) << 6) | to] !== 0) {
      this.makeSpecial(m);
      return;
    }
    const u = this.sp;
    this.sp = u + UNDO;
    const turn = this.turn;
    mem[u] = m | (mover << 12);
    mem[u + 1] = this.hashLo;
    mem[u + 2] = this.hashHi;
    const zf = (mover * 64 + from) << 1;
    const zt = (mover * 64 + to) << 1;
    this.hashLo ^= Z[zf]! ^ Z[zt]! ^ ZSTEP[turn << 1]!;
    this.hashHi ^= Z[zf + 1]! ^ Z[zt + 1]! ^ ZSTEP[(turn << 1) + 1]!;
    mem[from] = 0;
    mem[to] = mover;
    flip(mem, OCC + ((mover >> 2) & 2) + (from >> 5), from, to);
    this.turn = turn + 1;
  }

  private makeSpecial(m: number): void {
    const from = m & 63;
    const to = (m >> 6) & 63;
    const mem = this.mem;
    const mover = mem[from]!;
    const cap = mem[to]!;
    const team = (mover >> 3) & 1;
    const o = OCC + (team << 1);
    const turn = this.turn;
    let lo = this.hashLo;
    let hi = this.hashHi;
    const u = this.sp;
    this.sp = u + UNDO;
    mem[u + 1] = lo;
    mem[u + 2] = hi;
    const zf = (mover * 64 + from) << 1;
    lo ^= Z[zf]! ^ ZSTEP[turn << 1]!;
    hi ^= Z[zf + 1]! ^ ZSTEP[(turn << 1) + 1]!;
    mem[from] = 0;
    xorAt(mem, o + (from >> 5), 1 << from);
    // A light piece on the enemy start line scores; so does a stack of three or more.
    let gained = LINE_GAIN[((mover & 15) << 6) | to]!;
    let nc = mover;
    if (cap !== 0) {
      const zc = (cap * 64 + to) << 1;
      lo ^= Z[zc]!;
      hi ^= Z[zc + 1]!;
      xorAt(mem, (o ^ 2) + (to >> 5), 1 << to);
      if (((mover | cap) & 4) !== 0) gained++;
      else nc = mover | 4;
    }
    if (gained !== 0) {
      mem[to] = 0;
      const a = mem[AMB + team]!;
      const za = zAmber(team, a);
      const zb = zAmber(team, a + gained);
      lo ^= Z[za]! ^ Z[zb]!;
      hi ^= Z[za + 1]! ^ Z[zb + 1]!;
      mem[AMB + team] = a + gained;
    } else {
      mem[to] = nc;
      const zn = (nc * 64 + to) << 1;
      lo ^= Z[zn]!;
      hi ^= Z[zn + 1]!;
      xorAt(mem, o + (to >> 5), 1 << to);
    }
    mem[u] = m | (mover << 12) | (cap << 17) | (gained << 22);
    this.turn = turn + 1;
    this.hashLo = lo;
    this.hashHi = hi;
  }

  unmake(): void {
    const u = this.sp - UNDO;
    this.sp = u;
    const mem = this.mem;
    const r = mem[u]!;
    this.hashLo = mem[u + 1]!;
    this.hashHi = mem[u + 2]!;
    this.turn--;
    if (r >> 17 !== 0) {
      this.unmakeSpecial(r);
      return;
    }
    const from = r & 63;
    const to = (r >> 6) & 63;
    const mover = r >> 12;
    mem[from] = mover;
    mem[to] = 0;
    flip(mem, OCC + ((mover >> 2) & 2) + (from >> 5), from, to);
  }

  private unmakeSpecial(r: number): void {
    const from = r & 63;
    const to = (r >> 6) & 63;
    const mover = (r >> 12) & 31;
    const cap = (r >> 17) & 31;
    const gained = r >> 22;
    const t2 = (mover >> 2) & 2;
    const o = OCC + t2;
    const mem = this.mem;
    if (gained !== 0) mem[AMB + (t2 >> 1)] = mem[AMB + (t2 >> 1)]! - gained;
    else xorAt(mem, o + (to >> 5), 1 << to);
    if (cap !== 0) xorAt(mem, (o ^ 2) + (to >> 5), 1 << to);
    xorAt(mem, o + (from >> 5), 1 << from);
    mem[from] = mover;
    mem[to] = cap;
  }

  /** A null move (side to move passes), for the search only; it is not a legal game move. */
  makeNull(): void {
    const u = this.sp;
    this.sp = u + UNDO;
    const mem = this.mem;
    mem[u] = -1;
    mem[u + 1] = this.hashLo;
    mem[u + 2] = this.hashHi;
    this.hashLo ^= ZSTEP[this.turn << 1]!;
    this.hashHi ^= ZSTEP[(this.turn << 1) + 1]!;
    this.turn++;
  }

  unmakeNull(): void {
    const u = this.sp - UNDO;
    this.sp = u;
    this.turn--;
    this.hashLo = this.mem[u + 1]!;
    this.hashHi = this.mem[u + 2]!;
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
