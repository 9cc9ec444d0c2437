import { Rng } from '../../../core/rng.js';
import type { CatanBot } from './bot.js';
import { randomAction, type RandomBotOptions } from './random.js';
import { searchBot, type SearchOptions } from './search.js';
import { weightedBot } from './weighted.js';

/** The named strategies: what `spielhalle bot catan --strategy`, the settings and the house games choose from. */

/** Baseline R (`uniform`, never trades) or the builder (`builder`, with trades if asked), from bots/random.ts. */
export function randomBot(seed: string | number, options: RandomBotOptions = {}): CatanBot {
  const rng = Rng.seeded(`${String(seed)}/random-bot`);
  return {
    strategy: options.policy === 'builder' ? 'builder' : 'random',
    decide: ({ legal }) => randomAction(legal, rng, options),
  };
}

/** The strategies `spielhalle bot catan --strategy` offers (docs/catan-ai.md). */
export const CATAN_STRATEGIES = ['random', 'builder', 'weighted', 'search'] as const;
export type CatanStrategy = (typeof CATAN_STRATEGIES)[number];

/**
 * `random`: baseline R; `builder`: the builder of bots/random.ts; `weighted`: the rule-based bot of
 * bots/weighted.ts; `search`: the search bot of bots/search.ts, whose budget `search` sets.
 * `trades: false` keeps builder, weighted and search out of domestic trades.
 */
export function createCatanBot(
  strategy: CatanStrategy,
  seed: string | number,
  options: { readonly search?: SearchOptions; readonly trades?: boolean } = {},
): CatanBot {
  const trades = options.trades ?? true;
  switch (strategy) {
    case 'builder':
      return randomBot(seed, { policy: 'builder', trades });
    case 'weighted':
      return weightedBot(seed, { trades });
    case 'search':
      return searchBot(seed, { ...options.search, trades });
    default:
      return randomBot(seed);
  }
}
