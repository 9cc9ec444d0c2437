import { DameEngine, type ThinkOptions } from '../engine/index.js';
import type { DameBot } from './types.js';

/** The full engine as a bot, with a transposition table of its own. */
export function engineBot(options: Omit<ThinkOptions, 'timeMs' | 'rng'> = {}, ttBits = 20): DameBot {
  const engine = new DameEngine(ttBits);
  return (state, budgetMs, rng) => engine.think(state, { ...options, timeMs: budgetMs, rng }).move;
}
