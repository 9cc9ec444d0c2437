import type { Rng } from '../../../core/rng.js';
import type { DameState, SingleMove } from '../rules.js';

/**
 * A Dame bot picks one single move for the side to move (a follow-up after a capture is just
 * another call). `budgetMs` is the whole time for the move (the `MOVE` value); bots that ignore
 * time ignore it. The state must be running.
 */
export type DameBot = (state: DameState, budgetMs: number, rng: Rng) => SingleMove;

export type DameBotName = 'random' | 'greedy' | 'depth2' | 'depth4' | 'engine';

export const DAME_BOTS: readonly DameBotName[] = ['random', 'greedy', 'depth2', 'depth4', 'engine'];
