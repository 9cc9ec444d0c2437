import { parentPort } from 'node:worker_threads';
import { Rng } from '../../core/rng.js';
import { DameEngine } from './engine/index.js';
import type { DameState, SingleMove } from './rules.js';

/**
 * think() in a worker thread: a move takes up to the whole move time, and the game servers of the
 * same process must go on answering in milliseconds. One request at a time, in order.
 */

export interface EngineRequest {
  id: number;
  state: DameState;
  timeMs: number;
  /** Kept back from timeMs; default the engine's own, min(400, timeMs / 5). */
  marginMs?: number;
  seed: string;
}

export type EngineResponse =
  | { id: number; ok: true; move: SingleMove; depth: number; nodes: number; elapsedMs: number }
  | { id: number; ok: false; error: string };

const engine = new DameEngine();

function handle(request: EngineRequest): EngineResponse {
  try {
    const r = engine.think(request.state, {
      timeMs: request.timeMs,
      rng: Rng.seeded(request.seed),
      ...(request.marginMs === undefined ? {} : { marginMs: request.marginMs }),
    });
    return { id: request.id, ok: true, move: r.move, depth: r.depth, nodes: r.nodes, elapsedMs: r.elapsedMs };
  } catch (e) {
    return { id: request.id, ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

parentPort?.on('message', (request: EngineRequest) => {
  parentPort?.postMessage(handle(request));
});
