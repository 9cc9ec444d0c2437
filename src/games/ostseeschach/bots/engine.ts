import type { Rng } from '../../../core/rng.js';
import type { Move } from '../board.js';
import { Position, codeToMove } from '../engine/position.js';
import { Searcher, type SearchOptions, type SearchResult } from '../engine/search.js';
import { planTime } from '../engine/time.js';
import type { State } from '../rules.js';
import type { Bot } from './types.js';
import { noMoveFallback } from './fallback.js';

export interface EngineBotOptions extends SearchOptions {
  /** Fixed depth instead of the clock (tests, tuning); the budget still caps the time. */
  readonly maxDepth?: number;
  readonly maxNodes?: number;
  /** Called after every decision, e.g. to log depth and nodes. */
  readonly onSearch?: (result: SearchResult, state: State) => void;
  readonly now?: () => number;
}

export interface EngineBot extends Bot {
  /** The last search's figures. */
  readonly last: () => SearchResult | null;
}

/**
 * The full engine as a bot. It keeps its transposition table between moves, so create one per
 * game seat.
 */
export function createEngineBot(options: EngineBotOptions = {}): EngineBot {
  const searcher = new Searcher(options);
  const now = options.now ?? (() => performance.now());
  let last: SearchResult | null = null;
  const bot = (state: State, budgetMs: number, _rng: Rng): Move => {
    const start = now();
    const plan = planTime(start, budgetMs);
    const result = searcher.search(Position.fromState(state), {
      deadline: plan.deadline,
      softDeadline: plan.softDeadline,
      extendedDeadline: plan.extendedDeadline,
      now,
      ...(options.maxDepth !== undefined ? { maxDepth: options.maxDepth } : {}),
      ...(options.maxNodes !== undefined ? { maxNodes: options.maxNodes } : {}),
    });
    last = result;
    options.onSearch?.(result, state);
    return result.move === 0 ? noMoveFallback(state) : codeToMove(result.move);
  };
  return Object.assign(bot, { last: () => last });
}
