import { parentPort } from 'node:worker_threads';
import { Rng } from '../../core/rng.js';
import { chooseMove, type BotLevel } from './bots/index.js';
import { defaultSolver, Position, SearchAborted } from './solver/index.js';

/**
 * The solver in a worker thread: a perfect move or a full analysis can take seconds, and the
 * game servers of the same process answer in milliseconds. One request at a time, in order.
 */

export type EngineRequest =
  | { id: number; op: 'choose'; moves: number[]; level: BotLevel; seed: string; budgetMs: number }
  | { id: number; op: 'analyse'; moves: number[]; timeoutMs: number };

export type EngineResponse =
  | { id: number; ok: true; value: number | (number | null)[] }
  | { id: number; ok: false; error: string; aborted: boolean };

function handle(request: EngineRequest): EngineResponse {
  try {
    if (request.op === 'choose') {
      const column = chooseMove({ moves: request.moves }, request.level, Rng.seeded(request.seed), { timeBudgetMs: request.budgetMs });
      return { id: request.id, ok: true, value: column };
    }
    const solver = defaultSolver();
    solver.deadline = Date.now() + request.timeoutMs;
    try {
      return { id: request.id, ok: true, value: solver.analyse(Position.ofMoves(request.moves)) };
    } finally {
      solver.deadline = Infinity;
    }
  } catch (e) {
    return { id: request.id, ok: false, error: e instanceof Error ? e.message : String(e), aborted: e instanceof SearchAborted };
  }
}

parentPort?.on('message', (request: EngineRequest) => {
  parentPort?.postMessage(handle(request));
});
