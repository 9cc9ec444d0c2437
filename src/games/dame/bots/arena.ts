import type { Rng } from '../../../core/rng.js';
import { apply, initialState, legalMoves, type DameState, type GameResult, type Side } from '../rules.js';
import type { DameBot } from './types.js';

/** In-process games between bots (no sockets): strength benches and tests. */

export interface GameOptions {
  /** The `MOVE` time each bot call gets. */
  budgetMs: number;
  rng: Rng;
  /** Random single moves at the start, before the bots take over (2 per side = 4). */
  randomPlies?: number;
  /** Safety net: a game still running after this many single moves is a draw. */
  maxPlies?: number;
}

export interface GameRecord {
  readonly result: GameResult;
  readonly plies: number;
  /** Bot calls that took longer than the budget, per side (a time loss on the server). */
  readonly overruns: Record<Side, number>;
  /** The slowest bot call per side, in ms. */
  readonly slowestMs: Record<Side, number>;
  readonly final: DameState;
}

export function playGame(white: DameBot, black: DameBot, options: GameOptions): GameRecord {
  let state = initialState();
  const overruns = { white: 0, black: 0 };
  const slowestMs = { white: 0, black: 0 };
  const maxPlies = options.maxPlies ?? 2000;
  while (state.result === null && state.plies < maxPlies) {
    const side = state.toMove;
    let move;
    if (state.plies < (options.randomPlies ?? 0)) move = options.rng.pick(legalMoves(state));
    else {
      const started = performance.now();
      move = (side === 'white' ? white : black)(state, options.budgetMs, options.rng);
      const took = performance.now() - started;
      slowestMs[side] = Math.max(slowestMs[side], took);
      if (took > options.budgetMs) overruns[side]++;
    }
    const next = apply(state, move);
    if (!next.ok) throw new Error(`a bot played an illegal move: ${next.error.message}`);
    state = next.value;
  }
  const result: GameResult = state.result ?? { kind: 'drawn', reason: 'fifty-moves' };
  return { result, plies: state.plies, overruns, slowestMs, final: state };
}

/** Points for `side`: 1 a win, ½ a draw. */
export function points(result: GameResult, side: Side): number {
  if (result.kind === 'drawn') return 0.5;
  return result.winner === side ? 1 : 0;
}
