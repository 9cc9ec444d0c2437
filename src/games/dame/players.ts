import { Rng } from '../../core/rng.js';
import type { DameBot } from './bots/types.js';
import type { DamePlayer } from './client.js';
import type { DameMoveSource } from './engine-pool.js';

/**
 * Players for the protocol client. The client has already kept its margin back from the MOVE
 * time, so the engine gets the rest whole (margin 0).
 */

/** Any bot of bots/ (random, greedy, fixed depth, engine) with a seeded RNG. */
export function botPlayer(bot: DameBot, seed: string | number): DamePlayer {
  const rng = Rng.seeded(seed);
  return (state, budgetMs) => bot(state, budgetMs, rng);
}

/**
 * The engine in a worker thread (engine-pool.ts): the client goes on reading while it thinks, and a
 * server of the same process goes on answering.
 */
export function workerPlayer(source: DameMoveSource, seed = 'dame-client'): DamePlayer {
  let n = 0;
  return (state, budgetMs) => source.choose(state, budgetMs, `${seed}:${n++}`, 0);
}
