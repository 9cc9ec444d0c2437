import { TURN_LIMIT } from '../board.js';
import { Evaluator, WIN, WIN_BOUND, terminalScore } from './evaluate.js';
import { DEFAULT_PARAMS, type EvalParams } from './params.js';
import { MAX_MOVES, MAX_PLY, Position } from './position.js';
import { UNSTABLE_DROP } from './time.js';
import { BOUND_EXACT, BOUND_LOWER, BOUND_UPPER, TranspositionTable } from './tt.js';

/**
 * Iterative-deepening principal-variation search with a transposition table, quiescence over
 * captures and amber moves, and move ordering by TT move, amber gain, MVV-LVA, killers and
 * history. The time limit is checked every `CHECK_EVERY` nodes; an unfinished iteration only
 * replaces the last finished one's move where it proved a better root move.
 */

export interface SearchLimits {
  /** Stop starting iterations and abort the running one at this `now()` value (ms). */
  readonly deadline?: number;
  /** Do not start a new iteration after this `now()` value (ms). */
  readonly softDeadline?: number;
  /**
   * Abort here instead of at `deadline` while the best move is in doubt: the running iteration's
   * first root move (the previous best) fell by `UNSTABLE_DROP` or more (time.ts).
   */
  readonly extendedDeadline?: number;
  readonly maxDepth?: number;
  readonly maxNodes?: number;
  readonly now?: () => number;
}

export interface SearchResult {
  /** Best move code (from | to<<6); 0 when the side to move has no move. */
  readonly move: number;
  readonly score: number;
  /** Depth of the last finished iteration. */
  readonly depth: number;
  readonly nodes: number;
  readonly elapsedMs: number;
  readonly pv: readonly number[];
  /** Whether the last iteration ran past `deadline` into `extendedDeadline` (the best move in doubt). */
  readonly extended?: boolean;
}

export interface SearchOptions {
  readonly params?: EvalParams;
  readonly ttLog2?: number;
  /** Switches for the equivalence test: a plain alpha-beta is PVS without these. */
  readonly useTT?: boolean;
  readonly useOrdering?: boolean;
  readonly useReductions?: boolean;
  readonly useQuiescence?: boolean;
  /** Null-move pruning (R = 2, 3 from depth 7) at non-PV nodes whose static value is ≥ beta. */
  readonly useNullMove?: boolean;
  /** Futility pruning of quiet moves at depth 1–2 when the static value is far below alpha. */
  readonly useFutility?: boolean;
  /**
   * Root-only bonus for a move that banks an amber now. Without it a safe amber can be postponed
   * forever when the search sees it stays available (equal values, the first move found wins).
   */
  readonly rootAmberBonus?: number;
}

const CHECK_EVERY = 1023;
const INF = WIN + 1;
/** Ordering bands. */
const S_TT = 1 << 30;
const S_AMBER = 1 << 28;
const S_CAPTURE = 1 << 26;
const S_KILLER1 = 1 << 25;
const S_KILLER2 = S_KILLER1 - 1;
const VICTIM = [100, 100, 110, 120];
const FUTILITY_MARGIN = [0, 150, 300];

export class Searcher {
  readonly evaluator: Evaluator;
  readonly tt: TranspositionTable;
  private readonly useTT: boolean;
  private readonly useOrdering: boolean;
  private readonly useReductions: boolean;
  private readonly useQuiescence: boolean;
  private readonly rootAmberBonus: number;
  private readonly useNullMove: boolean;
  private readonly useFutility: boolean;
  private readonly moves = new Int32Array(MAX_PLY * MAX_MOVES);
  private readonly orderScore = new Int32Array(MAX_PLY * MAX_MOVES);
  private readonly killers = new Int32Array(MAX_PLY * 2);
  /** History by [team][from][to]. */
  private readonly history = new Int32Array(2 * 64 * 64);
  private readonly pvTable = new Int32Array(MAX_PLY * MAX_PLY);
  private readonly pvLength = new Int32Array(MAX_PLY);
  private pos = new Position();
  private nodes = 0;
  private stopped = false;
  private deadline = Infinity;
  private maxNodes = Infinity;
  private now: () => number = () => performance.now();

  constructor(options: SearchOptions = {}) {
    this.evaluator = new Evaluator(options.params ?? DEFAULT_PARAMS);
    this.tt = new TranspositionTable(options.ttLog2 ?? 20);
    this.useTT = options.useTT ?? true;
    this.useOrdering = options.useOrdering ?? true;
    this.useReductions = options.useReductions ?? true;
    this.useQuiescence = options.useQuiescence ?? true;
    this.rootAmberBonus = options.rootAmberBonus ?? 40;
    this.useNullMove = options.useNullMove ?? false;
    this.useFutility = options.useFutility ?? false;
  }

  search(root: Position, limits: SearchLimits = {}): SearchResult {
    this.now = limits.now ?? (() => performance.now());
    const start = this.now();
    const deadline = limits.deadline ?? Infinity;
    const extended = Math.max(deadline, limits.extendedDeadline ?? deadline);
    // No iteration starts after the soft deadline (the deadline when none is given).
    const soft = Math.min(deadline, limits.softDeadline ?? deadline);
    this.maxNodes = limits.maxNodes ?? Infinity;
    this.pos = root.clone();
    this.nodes = 0;
    this.stopped = false;
    this.tt.newSearch();
    this.killers.fill(0);
    for (let i = 0; i < this.history.length; i++) this.history[i] = this.history[i]! >> 3;

    const rootMoves = new Int32Array(MAX_MOVES);
    const n = this.pos.generate(rootMoves, 0);
    if (n === 0 || this.pos.isOver()) {
      return { move: 0, score: this.pos.isOver() ? terminalScore(this.pos, 0) : -WIN, depth: 0, nodes: 0, elapsedMs: 0, pv: [] };
    }
    // Beyond the remaining plies the tree is exact; deeper iterations would only repeat it.
    const horizon = Math.min(limits.maxDepth ?? MAX_PLY - 8, TURN_LIMIT - this.pos.turn);
    let best = rootMoves[0]!;
    let bestScore = -INF;
    let depthDone = 0;
    let pv: number[] = [best];
    let wentLong = false;
    this.prevRootScore = null;
    for (let depth = 1; depth <= Math.max(1, horizon); depth++) {
      // One legal move needs no thought; otherwise search on until the deadline (time.ts).
      if (depth > 1 && (n === 1 || this.now() >= soft)) break;
      this.deadline = deadline;
      this.normalDeadline = deadline;
      this.extendedDeadline = extended;
      const score = this.negamax(depth, -INF, INF, 0, true);
      wentLong = this.deadline > deadline;
      const rootMove = this.pvLength[0]! > 0 ? this.pvTable[0]! : 0;
      if (this.aborted()) {
        // A partial iteration searched the previous best first; a move that beat it is better.
        if (rootMove !== 0 && rootMove !== best && this.partialImproved) {
          best = rootMove;
          pv = [rootMove];
        }
        break;
      }
      if (rootMove !== 0) {
        best = rootMove;
        bestScore = score;
        this.prevRootScore = score;
        depthDone = depth;
        pv = Array.from(this.pvTable.subarray(0, this.pvLength[0]));
      }
      if (Math.abs(score) > WIN_BOUND) break;
    }
    return { move: best, score: bestScore, depth: depthDone, nodes: this.nodes, elapsedMs: this.now() - start, pv, extended: wentLong };
  }

  /** Set at the root when an unfinished iteration found a move above its first move's score. */
  private partialImproved = false;
  /** The last finished iteration's score, to see the previous best fail low (null before one). */
  private prevRootScore: number | null = null;
  private extendedDeadline = Infinity;
  private normalDeadline = Infinity;

  /** Two null moves in a row would search the same position again at lower depth. */
  private readonly nullAt = new Uint8Array(MAX_PLY);
  private lastMoveNotNull(ply: number): boolean {
    return this.nullAt[ply - 1] === 0;
  }

  /** The abort flag, read through a call: the search sets it deep inside recursive calls. */
  private aborted(): boolean {
    return this.stopped;
  }

  private checkTime(): void {
    if (this.now() >= this.deadline || this.nodes >= this.maxNodes) this.stopped = true;
  }

  private orderMoves(base: number, n: number, ply: number, ttMove: number): void {
    const p = this.pos;
    const board = p.board;
    const team = p.turn & 1;
    const k1 = this.killers[ply * 2]!;
    const k2 = this.killers[ply * 2 + 1]!;
    for (let i = 0; i < n; i++) {
      const m = this.moves[base + i]!;
      let s: number;
      if (!this.useOrdering) s = 0;
      else if (m === ttMove) s = S_TT;
      else {
        const gain = p.amberGain(m);
        const cap = board[(m >> 6) & 63]!;
        if (gain > 0) s = S_AMBER + gain * 1000 + (cap !== 0 ? 500 : 0);
        else if (cap !== 0) s = S_CAPTURE + VICTIM[cap & 3]! * 10 - VICTIM[board[m & 63]! & 3]!;
        else if (m === k1) s = S_KILLER1;
        else if (m === k2) s = S_KILLER2;
        else s = this.history[team * 4096 + (m & 4095)]!;
      }
      this.orderScore[base + i] = s;
    }
  }

  /** Moves the best remaining move to index i (selection sort, lazily). */
  private pick(base: number, i: number, n: number): number {
    let bi = i;
    let bs = this.orderScore[base + i]!;
    for (let j = i + 1; j < n; j++) {
      const s = this.orderScore[base + j]!;
      if (s > bs) {
        bs = s;
        bi = j;
      }
    }
    const m = this.moves[base + bi]!;
    if (bi !== i) {
      this.moves[base + bi] = this.moves[base + i]!;
      this.orderScore[base + bi] = this.orderScore[base + i]!;
      this.moves[base + i] = m;
      this.orderScore[base + i] = bs;
    }
    return m;
  }

  private negamax(depth: number, alpha: number, beta: number, ply: number, pvNode: boolean): number {
    const p = this.pos;
    this.pvLength[ply] = 0;
    if ((++this.nodes & CHECK_EVERY) === 0) this.checkTime();
    if (this.stopped) return 0;
    if (p.isOver()) return terminalScore(p, ply);
    if (depth <= 0 || ply >= MAX_PLY - 2) return this.useQuiescence ? this.quiesce(alpha, beta, ply) : this.evaluator.evaluate(p);

    const alphaOrig = alpha;
    let ttMove = 0;
    if (this.useTT && this.tt.probe(p.hashLo, p.hashHi, ply)) {
      ttMove = this.tt.move;
      if (!pvNode && this.tt.depth >= depth) {
        const s = this.tt.score;
        const b = this.tt.bound;
        if (b === BOUND_EXACT || (b === BOUND_LOWER && s >= beta) || (b === BOUND_UPPER && s <= alpha)) return s;
      }
    }

    let staticEval = 0;
    const pruning = !pvNode && ply > 0 && (this.useNullMove || this.useFutility);
    if (pruning) staticEval = this.evaluator.evaluate(p);
    if (
      this.useNullMove &&
      !pvNode &&
      ply > 0 &&
      depth >= 3 &&
      staticEval >= beta &&
      beta < WIN_BOUND &&
      beta > -WIN_BOUND &&
      this.lastMoveNotNull(ply)
    ) {
      const r = depth >= 7 ? 3 : 2;
      p.makeNull();
      this.nullAt[ply] = 1;
      const score = -this.negamax(depth - 1 - r, -beta, -beta + 1, ply + 1, false);
      this.nullAt[ply] = 0;
      p.unmakeNull();
      if (this.aborted()) return 0;
      if (score >= beta && score < WIN_BOUND) return score;
    }
    const futile = this.useFutility && pruning && depth <= 2 && staticEval + FUTILITY_MARGIN[depth]! <= alpha;

    const base = ply * MAX_MOVES;
    const n = p.generate(this.moves, base);
    // No legal move loses: the official server asks anyway, and any answer is invalid.
    if (n === 0) return ply - WIN;
    this.orderMoves(base, n, ply, ttMove);

    const team = p.turn & 1;
    let bestScore = -INF;
    let bestMove = 0;
    if (ply === 0) this.partialImproved = false;
    for (let i = 0; i < n; i++) {
      const m = this.pick(base, i, n);
      const gain = p.amberGain(m);
      const quiet = p.board[(m >> 6) & 63] === 0 && gain === 0;
      const bonus = ply === 0 && gain > 0 ? this.rootAmberBonus : 0;
      if (futile && quiet && i > 0 && m !== this.killers[ply * 2]) continue;
      p.make(m);
      let score: number;
      if (bonus > 0) {
        score = -this.negamax(depth - 1, -beta + bonus, -alpha + bonus, ply + 1, pvNode);
      } else if (i === 0) {
        score = -this.negamax(depth - 1, -beta, -alpha, ply + 1, pvNode);
      } else {
        let r = 0;
        if (this.useReductions && depth >= 3 && i >= 3 && quiet && m !== this.killers[ply * 2] && m !== this.killers[ply * 2 + 1]) {
          r = i >= 8 && depth >= 5 ? 2 : 1;
        }
        score = -this.negamax(depth - 1 - r, -alpha - 1, -alpha, ply + 1, false);
        if (r > 0 && score > alpha && !this.aborted()) score = -this.negamax(depth - 1, -alpha - 1, -alpha, ply + 1, false);
        if (score > alpha && score < beta && !this.aborted()) score = -this.negamax(depth - 1, -beta, -alpha, ply + 1, pvNode);
      }
      p.unmake();
      if (this.aborted()) return 0;
      if (Math.abs(score) < WIN_BOUND) score += bonus;
      // The previous best fell: the move is in doubt, so this iteration may run into the extension.
      if (ply === 0 && i === 0 && this.prevRootScore !== null && score < this.prevRootScore - UNSTABLE_DROP) {
        this.deadline = Math.max(this.deadline, this.extendedDeadline);
      }
      if (score > bestScore) {
        bestScore = score;
        bestMove = m;
        if (score > alpha) {
          alpha = score;
          if (ply === 0 && i > 0) {
            this.partialImproved = true;
            // Another move replaced the fallen best: no more doubt, no more extension.
            this.deadline = this.normalDeadline;
          }
          // Collect the principal variation.
          const row = ply * MAX_PLY;
          const child = (ply + 1) * MAX_PLY;
          const len = this.pvLength[ply + 1]!;
          this.pvTable[row] = m;
          for (let j = 0; j < len; j++) this.pvTable[row + 1 + j] = this.pvTable[child + j]!;
          this.pvLength[ply] = len + 1;
          if (alpha >= beta) {
            if (quiet) {
              if (this.killers[ply * 2] !== m) {
                this.killers[ply * 2 + 1] = this.killers[ply * 2]!;
                this.killers[ply * 2] = m;
              }
              const h = team * 4096 + (m & 4095);
              this.history[h] = Math.min(this.history[h]! + depth * depth, S_KILLER2 - 1);
            }
            break;
          }
        }
      }
    }
    if (this.useTT) {
      const bound = bestScore >= beta ? BOUND_LOWER : bestScore > alphaOrig ? BOUND_EXACT : BOUND_UPPER;
      this.tt.store(p.hashLo, p.hashHi, ply, depth, bound, bestScore, bestMove);
    }
    return bestScore;
  }

  private quiesce(alpha: number, beta: number, ply: number): number {
    const p = this.pos;
    this.pvLength[ply] = 0;
    if ((++this.nodes & CHECK_EVERY) === 0) this.checkTime();
    if (this.stopped) return 0;
    if (p.isOver()) return terminalScore(p, ply);
    const stand = this.evaluator.evaluate(p);
    if (stand >= beta || ply >= MAX_PLY - 2) return stand;
    if (stand > alpha) alpha = stand;
    const base = ply * MAX_MOVES;
    const all = p.generate(this.moves, base);
    // Keep captures and amber moves only.
    let n = 0;
    const board = p.board;
    for (let i = 0; i < all; i++) {
      const m = this.moves[base + i]!;
      const gain = p.amberGain(m);
      const cap = board[(m >> 6) & 63]!;
      if (gain === 0 && cap === 0) continue;
      this.moves[base + n] = m;
      this.orderScore[base + n] = gain * 100000 + (cap !== 0 ? VICTIM[cap & 3]! * 10 : 0) - VICTIM[board[m & 63]! & 3]!;
      n++;
    }
    let best = stand;
    for (let i = 0; i < n; i++) {
      const m = this.pick(base, i, n);
      p.make(m);
      const score = -this.quiesce(-beta, -alpha, ply + 1);
      p.unmake();
      if (this.aborted()) return 0;
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
