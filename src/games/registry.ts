import type { GameModule } from './types.js';
import { mia } from './mia/index.js';

/** Every implemented game, in the order the dashboard lists them. */
export const GAMES: readonly GameModule[] = [mia];

export function findGame(name: string): GameModule | undefined {
  return GAMES.find((g) => g.name === name);
}
