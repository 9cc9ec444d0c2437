import { fixedDepthBot } from './alphabeta.js';
import { engineBot } from './engine.js';
import { greedyBot } from './greedy.js';
import { randomBot } from './random.js';
import { DAME_BOTS, type DameBot, type DameBotName } from './types.js';

export { DAME_BOTS, type DameBot, type DameBotName } from './types.js';
export { fixedDepthBot } from './alphabeta.js';
export { engineBot } from './engine.js';
export { greedyBot } from './greedy.js';
export { randomBot } from './random.js';

export const isDameBotName = (name: string): name is DameBotName =>
  (DAME_BOTS as readonly string[]).includes(name);

/** A fresh bot by name (engine bots get their own transposition table). */
export function createDameBot(name: DameBotName): DameBot {
  switch (name) {
    case 'random':
      return randomBot;
    case 'greedy':
      return greedyBot;
    case 'depth2':
      return fixedDepthBot(2);
    case 'depth4':
      return fixedDepthBot(4);
    case 'engine':
      return engineBot();
  }
}
