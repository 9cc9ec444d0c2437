import { depth2Bot } from './depth2.js';
import { createEngineBot, type EngineBotOptions } from './engine.js';
import { randomBot } from './random.js';
import { BOT_NAMES, type Bot, type BotName } from './types.js';

export type { Bot, BotName } from './types.js';
export { BOT_NAMES } from './types.js';
export { createEngineBot, type EngineBot, type EngineBotOptions } from './engine.js';
export { depth2Bot, simpleEvaluate } from './depth2.js';
export { randomBot } from './random.js';

export const isBotName = (name: string): name is BotName => (BOT_NAMES as readonly string[]).includes(name);

/** A fresh bot; `engine` keeps a transposition table, so use one instance per seat and game. */
export function createBot(name: BotName, options: EngineBotOptions = {}): Bot {
  switch (name) {
    case 'random':
      return randomBot;
    case 'depth2':
      return depth2Bot;
    case 'engine':
      return createEngineBot(options);
  }
}
