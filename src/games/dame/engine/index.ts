import type { Rng } from '../../../core/rng.js';
import { popcount } from '../board.js';
import { Position } from '../position.js';
import { packedMoves, positionOf, unpackMove, type DameState, type SingleMove } from '../rules.js';
import { endgameTables, tablesReady } from './endgame.js';
import type { EvalWeights } from './eval.js';
import { MATE, MATE_BOUND, MAX_PLY, Searcher, Stopped } from './search.js';

/**
 * think(): iterative deepening with aspiration windows under a time budget (spec §6.2). The budget
 * is `timeMs - marginMs`; an iteration that is predicted to overrun is not started, the search
 * checks a hard deadline every 2048 nodes, and the move of the last finished iteration is played.
 */

export interface ThinkOptions {
  /** The whole time for this move (the `MOVE` value), in ms. */
  timeMs: number;
  /** Kept back for THINKING/OKTHINK, GC and the network; default min(400, timeMs / 5). */
  marginMs?: number;
  maxDepth?: number;
  /** Varies the order of equal root moves (openings). */
  rng?: Rng;
  /** The clock (ms); defaults to performance.now. */
  now?: () => number;
  weights?: EvalWeights;
  contempt?: number;
  lateMoveReductions?: boolean;
  /** Transposition cutoffs only at equal depth (verification; see SearchOptions). */
  strictTT?: boolean;
  /** Probe the ≤3-piece tables; `auto` builds them first when the board is thin and time allows. */
  tables?: 'auto' | 'off' | 'ready-only';
  onIteration?: (info: {
    depth: number;
    score: number;
    nodes: number;
    elapsedMs: number;
    pv: SingleMove[];
  }) => void;
}

export interface ThinkResult {
  move: SingleMove;
  /** Centi-men from the mover's view; beyond ±29000 a forced win or loss. */
  score: number;
  /** The last finished iteration. */
  depth: number;
  nodes: number;
  pv: SingleMove[];
  elapsedMs: number;
}

export { MATE, MATE_BOUND };

/** Scores above this mean a forced win for the mover (table or search). */
export const isWinScore = (score: number): boolean => score > MATE_BOUND;

const INF = 32000;
const ASPIRATION = 35;

export class DameEngine {
  private readonly searcher: Searcher;

  constructor(ttBits = 20) {
    this.searcher = new Searcher(ttBits);
  }

  think(state: DameState, options: ThinkOptions): ThinkResult {
    const now = options.now ?? (() => performance.now());
    const start = now();
    const margin = options.marginMs ?? Math.min(400, Math.floor(options.timeMs / 5));
    const budget = Math.max(1, options.timeMs - margin);
    const moves = packedMoves(state);
    if (moves.length === 0) throw new RangeError('think() needs a position with a legal move');
    const pieces = popcount(state.white | state.black);
    const tablesMode = options.tables ?? 'auto';
    const elapsed = (): number => now() - start;
    if (moves.length === 1) {
      const only = unpackMove(moves[0]!);
      return { move: only, score: 0, depth: 0, nodes: 0, pv: [only], elapsedMs: elapsed() };
    }

    if (tablesMode === 'auto' && !tablesReady() && pieces <= 8 && budget - elapsed() >= 2500) endgameTables();
    const s = this.searcher;
    const root = positionOf(state);
    s.pos.copyFrom(root);
    s.setRoot(historyKeys(state), {
      ...(options.weights ? { weights: options.weights } : {}),
      ...(options.contempt !== undefined ? { contempt: options.contempt } : {}),
      ...(options.lateMoveReductions !== undefined ? { lateMoveReductions: options.lateMoveReductions } : {}),
      useTables: tablesMode !== 'off',
      strictTT: options.strictTT ?? false,
    });
    if (options.rng) {
      // nudges the order of root moves, so equal moves vary between games
      for (const m of moves) s.seedHistory(root.side, m, options.rng.int(0, 64));
    }
    s.tt.newSearch();
    s.startClock(start + budget, now);

    let best = moves[0]!;
    let bestScore = 0;
    let depthDone = 0;
    let pv: number[] = [best];
    let lastIteration = 0;
    let previousIteration = 0;
    const maxDepth = Math.min(options.maxDepth ?? MAX_PLY - 32, MAX_PLY - 32);
    const exactRoot = tablesMode !== 'off' && tablesReady() && pieces <= 3;
    for (let depth = 1; depth <= maxDepth; depth++) {
      if (depth > 1) {
        const growth =
          previousIteration > 0 ? Math.min(6, Math.max(2, lastIteration / previousIteration)) : 3;
        if (elapsed() + lastIteration * growth > budget) break;
      }
      const iterationStart = now();
      let score = 0;
      try {
        if (depth >= 4 && Math.abs(bestScore) < MATE_BOUND) {
          let delta = ASPIRATION;
          let alpha = bestScore - delta;
          let beta = bestScore + delta;
          for (;;) {
            score = s.search(depth, alpha, beta, 0, 0);
            if (score <= alpha && alpha > -INF) alpha = Math.max(-INF, score - delta);
            else if (score >= beta && beta < INF) beta = Math.min(INF, score + delta);
            else break;
            delta *= 3;
          }
        } else {
          score = s.search(depth, -INF, INF, 0, 0);
        }
      } catch (e) {
        if (e instanceof Stopped) break;
        throw e;
      } finally {
        s.pos.copyFrom(root);
      }
      if (s.pvLength[0]! > 0) {
        pv = Array.from(s.pvTable.subarray(0, s.pvLength[0]));
        best = pv[0]!;
      }
      bestScore = score;
      depthDone = depth;
      previousIteration = lastIteration;
      lastIteration = now() - iterationStart;
      options.onIteration?.({ depth, score, nodes: s.nodes, elapsedMs: elapsed(), pv: pv.map(unpackMove) });
      if (exactRoot) break;
      if (Math.abs(score) > MATE_BOUND && MATE - Math.abs(score) <= depth) break;
    }
    return {
      move: unpackMove(best),
      score: bestScore,
      depth: depthDone,
      nodes: s.nodes,
      pv: pv.map(unpackMove),
      elapsedMs: elapsed(),
    };
  }
}

/** The Zobrist keys of the state's turn-start history (position keys as rules.ts writes them). */
function historyKeys(state: DameState): [number, number][] {
  const p = new Position();
  const keys: [number, number][] = [];
  for (const key of state.history) {
    const [w, b, k, side] = key.split('/');
    p.set(parseInt(w ?? '0', 16), parseInt(b ?? '0', 16), parseInt(k ?? '0', 16), side === 'b' ? 1 : 0, 0);
    keys.push([p.hashLo, p.hashHi]);
  }
  return keys;
}

let shared: DameEngine | null = null;

/** think() on a process-wide engine (one transposition table of 2^20 entries, reused between moves). */
export function think(state: DameState, options: ThinkOptions): ThinkResult {
  shared ??= new DameEngine();
  return shared.think(state, options);
}

/** Builds the endgame tables now (e.g. when a client or an engine seat starts); returns the ms it took. */
export function prepareEndgameTables(): number {
  return endgameTables().buildMs;
}
