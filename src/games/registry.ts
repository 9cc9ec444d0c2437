import type { GameModule } from './types.js';
import { catan } from './catan/index.js';
import { connect4 } from './connect4/index.js';
import { dame } from './dame/index.js';
import { mia } from './mia/index.js';
import { ostseeschach } from './ostseeschach/index.js';

/** Every implemented game, in the order the dashboard lists them. */
export const GAMES: readonly GameModule[] = [catan, mia, connect4, dame, ostseeschach];

export function findGame(name: string): GameModule | undefined {
  return GAMES.find((g) => g.name === name);
}
