import type { GameModule } from './types.js';
import { connect4 } from './connect4/index.js';
import { dame } from './dame/index.js';
import { mia } from './mia/index.js';

/** Every implemented game, in the order the dashboard lists them. */
export const GAMES: readonly GameModule[] = [mia, connect4, dame];

export function findGame(name: string): GameModule | undefined {
  return GAMES.find((g) => g.name === name);
}
