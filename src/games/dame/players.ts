import { Rng } from '../../core/rng.js';
import type { DameBot } from './bots/types.js';
import type { DamePlayer } from './client.js';
import type { DameMoveSource } from './engine-pool.js';
import { DameEngine } from './engine/index.js';
import { initialState } from './rules.js';

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
 * The full engine on this thread (a CLI client does nothing else while it thinks). It thinks once
 * at once: a cold engine (no JIT yet) overruns its first budget by far.
 */
export function enginePlayer(seed: string | number = 'dame-client', ttBits = 20, warmUpMs = 150): DamePlayer {
  const engine = new DameEngine(ttBits);
  const rng = Rng.seeded(seed);
  if (warmUpMs > 0) engine.think(initialState(), { timeMs: warmUpMs, marginMs: 0 });
  return (state, budgetMs) => engine.think(state, { timeMs: budgetMs, marginMs: 0, rng }).move;
}

/** The engine in a worker thread (a process that also runs servers, e.g. tests and house bots). */
export function workerPlayer(source: DameMoveSource, seed = 'dame-client'): DamePlayer {
  let n = 0;
  return (state, budgetMs) => source.choose(state, budgetMs, `${seed}:${n++}`, 0);
}
