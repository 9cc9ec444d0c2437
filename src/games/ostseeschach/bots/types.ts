import type { Rng } from '../../../core/rng.js';
import type { Move } from '../board.js';
import type { State } from '../rules.js';

/**
 * Every Ostseeschach bot: given the position, the time it may use (ms, measured from the call) and
 * a seeded RNG, it returns the move to send. With no legal move it still returns a move (which the
 * server rejects), because the official protocol has no pass.
 */
export type Bot = (state: State, budgetMs: number, rng: Rng) => Move;

export type BotName = 'random' | 'depth2' | 'engine';
export const BOT_NAMES: readonly BotName[] = ['random', 'depth2', 'engine'];

/**
 * A bot that thinks elsewhere (a worker thread) and answers later: the client goes on reading
 * meanwhile, and drops the answer when the game ended before it came.
 */
export type AsyncBot = (state: State, budgetMs: number, rng: Rng) => Move | Promise<Move>;
