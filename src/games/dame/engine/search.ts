import {
  MOVE_BY_KING,
  MOVE_CAPTURE,
  MOVE_CAPTURES_KING,
  MOVE_PROMOTES,
  generateMoves,
  hasMove,
  popcount,
} from '../board.js';
import { Position } from '../position.js';
import { DEFAULT_WEIGHTS, evaluate, type EvalWeights } from './eval.js';
import { probeTable, tablesReady } from './endgame.js';
import { BOUND_EXACT, BOUND_LOWER, BOUND_UPPER, TranspositionTable } from './tt.js';

/**
 * Negamax alpha-beta with PVS (spec §6.2). A child with the same side to move (the follow-up
 * after a capture) is searched with the same window and its score is not negated. Captures do not
 * use up depth (capped per path), quiescence stands pat (capture is optional) over captures and
 * promotions, and draws are scored 0 with a contempt when the root side is ahead.
 */

export const MATE = 30000;
/** Scores beyond this are wins or losses at a known distance. */
export const MATE_BOUND = MATE - 1000;
export const MAX_PLY = 128;
const INF = 32000;
const MOVES_PER_PLY = 256;
const MAX_EXTENSIONS = 12;
const MAX_QSEARCH_PLIES = 16;
const FIFTY = 50;
const CHECK_EVERY = 2048;

export class Stopped extends Error {}

export interface SearchOptions {
  weights?: EvalWeights;
  /** Centi-men a draw costs the root side when it is ahead in material. */
  contempt?: number;
  /** Reduce late quiet moves by one ply (re-searched when they surprise). */
  lateMoveReductions?: boolean;
  /** Probe the ≤3-piece tables (only once they are built). */
  useTables?: boolean;
  /**
   * Take transposition cutoffs only from entries of exactly the node's depth. Slower, but the
   * result is then the plain minimax value at that depth (how the tests check TT and ordering).
   */
  strictTT?: boolean;
}

export class Searcher {
  readonly pos = new Position();
  readonly tt: TranspositionTable;
  nodes = 0;
  private deadline = Infinity;
  private now: () => number = () => performance.now();
  private readonly moves = new Int32Array(MAX_PLY * MOVES_PER_PLY);
  private readonly order = new Int32Array(MAX_PLY * MOVES_PER_PLY);
  private readonly killers = new Int32Array(MAX_PLY * 2);
  private readonly history = new Int32Array(2 * 32 * 32);
  private readonly repLo = new Int32Array(MAX_PLY + 64);
  private readonly repHi = new Int32Array(MAX_PLY + 64);
  private repTop = 0;
  private repStart = 0;
  readonly pvTable = new Int32Array(MAX_PLY * MAX_PLY);
  readonly pvLength = new Int32Array(MAX_PLY);
  private weights: EvalWeights = DEFAULT_WEIGHTS;
  private rootSide = 0;
  private contempt = 0;
  private lmr = true;
  private useTables = true;
  private strictTT = false;

  constructor(ttBits = 20) {
    this.tt = new TranspositionTable(ttBits);
  }

  /**
   * Loads a root: the position, and the Zobrist keys of the turn starts since the last
   * irreversible move (the current one last) for repetition detection.
   */
  setRoot(history: readonly [number, number][], options: SearchOptions): void {
    this.weights = options.weights ?? DEFAULT_WEIGHTS;
    this.lmr = options.lateMoveReductions ?? true;
    this.useTables = options.useTables ?? true;
    this.strictTT = options.strictTT ?? false;
    this.rootSide = this.pos.side;
    const p = this.pos;
    const mine = p.side === 0 ? p.white : p.black;
    const theirs = p.side === 0 ? p.black : p.white;
    const material = (bb: number): number => popcount(bb & ~p.kings) * 100 + popcount(bb & p.kings) * 300;
    this.contempt = material(mine) > material(theirs) ? (options.contempt ?? 15) : 0;
    const keep = history.slice(-60);
    this.repTop = 0;
    for (const [lo, hi] of keep) {
      this.repLo[this.repTop] = lo;
      this.repHi[this.repTop++] = hi;
    }
    if (
      this.repTop === 0 ||
      this.repLo[this.repTop - 1] !== p.hashLo ||
      this.repHi[this.repTop - 1] !== p.hashHi
    ) {
      this.repLo[this.repTop] = p.hashLo;
      this.repHi[this.repTop++] = p.hashHi;
    }
    this.repStart = 0;
    this.killers.fill(0);
    for (let i = 0; i < this.history.length; i++) this.history[i]! >>= 2;
  }

  seedHistory(side: number, m: number, bonus: number): void {
    this.history[side * 1024 + (m & 1023)]! += bonus;
  }

  startClock(deadline: number, now: () => number): void {
    this.deadline = deadline;
    this.now = now;
    this.nodes = 0;
  }

  private drawScore(): number {
    return this.pos.side === this.rootSide ? -this.contempt : this.contempt;
  }

  private tableScore(v: number, ply: number): number {
    if (v > 0) return MATE - (ply + v - 1);
    if (v < 0) return -(MATE - (ply - v - 1));
    return this.drawScore();
  }

  private tick(): void {
    if ((++this.nodes & (CHECK_EVERY - 1)) === 0 && this.now() > this.deadline) throw new Stopped();
  }

  private isRepetition(): boolean {
    const lo = this.pos.hashLo;
    const hi = this.pos.hashHi;
    for (let i = this.repTop - 2; i >= this.repStart; i--)
      if (this.repLo[i] === lo && this.repHi[i] === hi) return true;
    return false;
  }

  private push(m: number): number {
    const saved = this.repStart;
    this.pos.make(m);
    if (m & MOVE_CAPTURE || !(m & MOVE_BY_KING)) this.repStart = this.repTop;
    this.repLo[this.repTop] = this.pos.hashLo;
    this.repHi[this.repTop++] = this.pos.hashHi;
    return saved;
  }

  private pop(m: number, saved: number): void {
    this.repTop--;
    this.repStart = saved;
    this.pos.unmake(m);
  }

  /** Orders moves[from, end) in place, best first, by a one-pass score (selection happens lazily). */
  private scoreMoves(from: number, end: number, ttMove: number, ply: number): void {
    const side = this.pos.side;
    const k1 = this.killers[ply * 2]!;
    const k2 = this.killers[ply * 2 + 1]!;
    for (let i = from; i < end; i++) {
      const m = this.moves[i]!;
      let score: number;
      if (m === ttMove) score = 1 << 30;
      else if (m & MOVE_CAPTURE)
        score = (1 << 28) + (m & MOVE_CAPTURES_KING ? 1 << 20 : 0) + (m & MOVE_PROMOTES ? 1 << 19 : 0);
      else if (m & MOVE_PROMOTES) score = 1 << 27;
      else if (m === k1) score = 1 << 26;
      else if (m === k2) score = (1 << 26) - 1;
      else score = this.history[side * 1024 + (m & 1023)]!;
      this.order[i] = score;
    }
  }

  private pick(i: number, end: number): number {
    let best = i;
    for (let j = i + 1; j < end; j++) if (this.order[j]! > this.order[best]!) best = j;
    if (best !== i) {
      const m = this.moves[best]!;
      const o = this.order[best]!;
      this.moves[best] = this.moves[i]!;
      this.order[best] = this.order[i]!;
      this.moves[i] = m;
      this.order[i] = o;
    }
    return this.moves[i]!;
  }

  search(depth: number, alpha: number, beta: number, ply: number, extensions: number): number {
    const pos = this.pos;
    this.pvLength[ply] = ply;
    this.tick();
    if (ply > 0) {
      if (pos.quiet >= FIFTY || this.isRepetition()) {
        return hasMove(pos.white, pos.black, pos.kings, pos.side) ? this.drawScore() : -(MATE - ply);
      }
      if (this.useTables && tablesReady()) {
        const v = probeTable(pos.white, pos.black, pos.kings, pos.side, false);
        if (v !== null) return this.tableScore(v, ply);
      }
      if (ply >= MAX_PLY - 2) return evaluate(pos.white, pos.black, pos.kings, pos.side, this.weights);
    }
    if (depth <= 0) return this.quiesce(alpha, beta, ply, 0);

    const lo = pos.hashLo;
    const hi = pos.hashHi;
    let ttMove = 0;
    if (this.tt.probe(lo, hi)) {
      ttMove = this.tt.move;
      if (ply > 0 && (this.strictTT ? this.tt.depth === depth : this.tt.depth >= depth)) {
        const s = fromTT(this.tt.score, ply);
        const bound = this.tt.bound;
        if (
          bound === BOUND_EXACT ||
          (bound === BOUND_LOWER && s >= beta) ||
          (bound === BOUND_UPPER && s <= alpha)
        )
          return s;
      }
    }

    const side = pos.side;
    const from = ply * MOVES_PER_PLY;
    const end = generateMoves(pos.white, pos.black, pos.kings, side, this.moves, from);
    if (end === from) return -(MATE - ply);
    this.scoreMoves(from, end, ttMove, ply);

    const alphaIn = alpha;
    let best = -INF;
    let bestMove = 0;
    for (let i = from; i < end; i++) {
      const m = this.pick(i, end);
      const capture = (m & MOVE_CAPTURE) !== 0;
      const extend = capture && extensions < MAX_EXTENSIONS ? 1 : 0;
      const childDepth = depth - 1 + extend;
      const saved = this.push(m);
      const same = pos.side === side;
      let score: number;
      if (i === from) {
        score = same
          ? this.search(childDepth, alpha, beta, ply + 1, extensions + extend)
          : -this.search(childDepth, -beta, -alpha, ply + 1, extensions + extend);
      } else {
        // late quiet moves are first tried one ply shallower
        const reduce =
          this.lmr &&
          !capture &&
          !(m & MOVE_PROMOTES) &&
          depth >= 3 &&
          i - from >= 3 &&
          this.order[i]! < 1 << 26
            ? 1
            : 0;
        score = same
          ? this.search(childDepth - reduce, alpha, alpha + 1, ply + 1, extensions + extend)
          : -this.search(childDepth - reduce, -alpha - 1, -alpha, ply + 1, extensions + extend);
        if (score > alpha && (reduce || score < beta)) {
          score = same
            ? this.search(childDepth, alpha, beta, ply + 1, extensions + extend)
            : -this.search(childDepth, -beta, -alpha, ply + 1, extensions + extend);
        }
      }
      this.pop(m, saved);
      if (score > best) {
        best = score;
        bestMove = m;
        if (score > alpha) {
          alpha = score;
          this.updatePv(ply, m);
          if (alpha >= beta) {
            if (!capture && !(m & MOVE_PROMOTES)) {
              if (this.killers[ply * 2] !== m) {
                this.killers[ply * 2 + 1] = this.killers[ply * 2]!;
                this.killers[ply * 2] = m;
              }
              this.history[side * 1024 + (m & 1023)]! += depth * depth;
            }
            break;
          }
        }
      }
    }
    const bound = best >= beta ? BOUND_LOWER : best > alphaIn ? BOUND_EXACT : BOUND_UPPER;
    this.tt.store(lo, hi, depth, bound, toTT(best, ply), bestMove);
    return best;
  }

  private updatePv(ply: number, m: number): void {
    const row = ply * MAX_PLY;
    const child = (ply + 1) * MAX_PLY;
    this.pvTable[row + ply] = m;
    const len = this.pvLength[ply + 1]!;
    for (let j = ply + 1; j < len; j++) this.pvTable[row + j] = this.pvTable[child + j]!;
    this.pvLength[ply] = Math.max(len, ply + 1);
  }

  quiesce(alpha: number, beta: number, ply: number, qply: number): number {
    const pos = this.pos;
    this.pvLength[ply] = ply;
    this.tick();
    if (this.useTables && tablesReady()) {
      const v = probeTable(pos.white, pos.black, pos.kings, pos.side, false);
      if (v !== null) return this.tableScore(v, ply);
    }
    const side = pos.side;
    if (!hasMove(pos.white, pos.black, pos.kings, side)) return -(MATE - ply);
    let best = evaluate(pos.white, pos.black, pos.kings, side, this.weights);
    if (best >= beta || qply >= MAX_QSEARCH_PLIES || ply >= MAX_PLY - 2) return best;
    if (best > alpha) alpha = best;
    const from = ply * MOVES_PER_PLY;
    const end = generateMoves(pos.white, pos.black, pos.kings, side, this.moves, from, true);
    this.scoreMoves(from, end, 0, ply);
    for (let i = from; i < end; i++) {
      const m = this.pick(i, end);
      const saved = this.push(m);
      const score =
        pos.side === side
          ? this.quiesce(alpha, beta, ply + 1, qply + 1)
          : -this.quiesce(-beta, -alpha, ply + 1, qply + 1);
      this.pop(m, saved);
      if (score > best) {
        best = score;
        if (score > alpha) {
          alpha = score;
          if (alpha >= beta) break;
        }
      }
    }
    return best;
  }
}

function toTT(score: number, ply: number): number {
  if (score > MATE_BOUND) return score + ply;
  if (score < -MATE_BOUND) return score - ply;
  return score;
}

function fromTT(score: number, ply: number): number {
  if (score > MATE_BOUND) return score - ply;
  if (score < -MATE_BOUND) return score + ply;
  return score;
}
