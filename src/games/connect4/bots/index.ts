import type { Rng } from '../../../core/rng.js';
import { legalMoves, type C4State } from '../rules.js';
import { Position } from '../solver/position.js';
import { easyMove } from './easy.js';
import { perfectMove } from './perfect.js';
import { strongMove } from './strong.js';

export type BotLevel = 'perfect' | 'strong' | 'easy';
export const BOT_LEVELS: readonly BotLevel[] = ['perfect', 'strong', 'easy'];

export interface BotOptions {
  /**
   * For 'perfect': the longest the move may take. The exact search gets the budget minus a reserve
   * (a fifth, at least 150 ms, at most half); if it runs out (possible only in positions the opening
   * book does not cover, in the first dozen moves or so), the bot plays the strong bot's move
   * instead. Without a budget the search always finishes, however long that takes.
   */
  timeBudgetMs?: number;
}

/** Time kept back from the perfect bot's budget for the strong move it falls back on. */
const FALLBACK_RESERVE_MS = 150;

/** A bot is `(state, budget) => column`: this picks a 1-based column for the side to move. */
export type Bot = (state: C4State, options?: BotOptions) => number;

/**
 * The column (1–7) a bot of the given level plays. Deterministic for a given rng state; the rng
 * only breaks ties (perfect, strong) or picks at random (easy). Throws RangeError if the game is
 * over.
 */
export function chooseMove(state: C4State, level: BotLevel, rng: Rng, options: BotOptions = {}): number {
  if (legalMoves(state).length === 0) throw new RangeError('the game is over: no move to choose');
  const position = Position.ofMoves(state.moves);
  switch (level) {
    case 'easy':
      return easyMove(position, rng);
    case 'strong':
      return strongMove(position, rng);
    case 'perfect': {
      const budget = options.timeBudgetMs;
      // The fallback needs time too (the strong bot's search takes up to ~100 ms), so the exact
      // search gets the budget minus a reserve and the answer still comes within the budget.
      const deadline = budget === undefined ? Infinity : Date.now() + budget - Math.min(budget / 2, Math.max(FALLBACK_RESERVE_MS, budget / 5));
      return perfectMove(position, rng, deadline) ?? strongMove(position, rng);
    }
  }
}

/** A bot bound to a level and an rng. */
export function createBot(level: BotLevel, rng: Rng): Bot {
  return (state, options) => chooseMove(state, level, rng, options);
}

export { easyMove } from './easy.js';
export { perfectMove } from './perfect.js';
export { strongMove, STRONG_DEPTH } from './strong.js';
