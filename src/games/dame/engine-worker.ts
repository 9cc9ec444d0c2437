import { serveThinks } from '../../core/think-pool.js';
import { Rng } from '../../core/rng.js';
import { DameEngine } from './engine/index.js';
import type { DameState, SingleMove } from './rules.js';

/**
 * think() in a worker thread (engine-pool.ts): a move takes up to the whole move time, and the
 * game servers and clients of the same process must go on reading in milliseconds.
 */

export interface EngineRequest {
  state: DameState;
  timeMs: number;
  /** Kept back from timeMs; default the engine's own, min(400, timeMs / 5). */
  marginMs?: number;
  seed: string;
}

export interface EngineResponse {
  move: SingleMove;
  depth: number;
  nodes: number;
  elapsedMs: number;
}

const engine = new DameEngine();

serveThinks((request: EngineRequest): EngineResponse => {
  const r = engine.think(request.state, {
    timeMs: request.timeMs,
    rng: Rng.seeded(request.seed),
    ...(request.marginMs === undefined ? {} : { marginMs: request.marginMs }),
  });
  return { move: r.move, depth: r.depth, nodes: r.nodes, elapsedMs: r.elapsedMs };
});
