import { serveThinks } from '../../core/think-pool.js';
import { Rng } from '../../core/rng.js';
import type { Move } from './board.js';
import { createEngineBot } from './bots/engine.js';
import type { State } from './rules.js';

/**
 * The engine bot in a worker thread (engine-thread.ts): the client that asked goes on reading
 * while it thinks, so a result or a goodbye that arrives meanwhile ends the game at once. One
 * engine (one transposition table) per thread: a thread serves one game seat at a time.
 */

export interface EngineRequest {
  state: State;
  budgetMs: number;
  seed: string;
}

const bot = createEngineBot();

serveThinks((request: EngineRequest): Move => bot(request.state, request.budgetMs, Rng.seeded(request.seed)));
