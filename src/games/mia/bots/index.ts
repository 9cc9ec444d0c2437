import { AdaptiveBot } from './adaptive.js';
import { HonestBot } from './honest.js';
import { ProbabilisticBot } from './probabilistic.js';
import { RandomBot } from './random.js';
import { MIA_STRATEGIES, type MiaBot, type MiaStrategy } from './types.js';

export type { MiaBot, MiaStrategy, ObservedEvent, RoundContext } from './types.js';
export { MIA_STRATEGIES } from './types.js';
export { AdaptiveBot, type OpponentInsight } from './adaptive.js';
export { HonestBot } from './honest.js';
export { ProbabilisticBot } from './probabilistic.js';
export { RandomBot } from './random.js';

export function isMiaStrategy(name: string): name is MiaStrategy {
  return (MIA_STRATEGIES as readonly string[]).includes(name);
}

/** A fresh bot; the same strategy and seed always make the same decisions from the same events. */
export function createBot(strategy: MiaStrategy, seed: string | number): MiaBot {
  switch (strategy) {
    case 'random':
      return new RandomBot(seed);
    case 'honest':
      return new HonestBot();
    case 'probabilistic':
      return new ProbabilisticBot(seed);
    case 'adaptive':
      return new AdaptiveBot(seed);
  }
}
