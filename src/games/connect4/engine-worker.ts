import { parentPort, workerData } from 'node:worker_threads';
import { Rng } from '../../core/rng.js';
import { chooseMove, type BotLevel } from './bots/index.js';
import { defaultSolver, Position, SearchAborted } from './solver/index.js';
import type { AnalyseProgress } from './views.js';

/**
 * The solver in a worker thread: a perfect move or a full analysis can take seconds, and the
 * game servers of the same process answer in milliseconds. One request at a time, in order.
 *
 * While a search runs this thread reads no messages, so the main thread cancels through shared
 * memory: it writes the id of the request to drop into `control[0]`, and the search looks at it
 * at every checkpoint (every 2^16 nodes, a few ms). An analysis that asked for it posts its
 * progress between checkpoints, at most every PROGRESS_INTERVAL_MS.
 */

export type EngineRequest =
  | { id: number; op: 'choose'; moves: number[]; level: BotLevel; seed: string; budgetMs: number }
  | { id: number; op: 'analyse'; moves: number[]; timeoutMs: number; progress?: boolean };

export type EngineResponse =
  | { id: number; ok: true; value: number | (number | null)[] }
  | { id: number; ok: false; error: string; aborted: boolean; cancelled?: boolean };

/** What the worker posts: a final response, or a progress report of the running request. */
export type EngineMessage = EngineResponse | { id: number; progress: AnalyseProgress };

export interface EngineWorkerData {
  /** An Int32Array's buffer of one slot: the id of the request to cancel (0: none). */
  control: SharedArrayBuffer;
}

export const PROGRESS_INTERVAL_MS = 200;

/** Thrown out of a search whose request the main thread cancelled. */
class SearchCancelled extends SearchAborted {
  constructor() {
    super();
    this.message = 'the analysis was cancelled';
  }
}

const data = workerData as EngineWorkerData | null | undefined;
const control = data?.control instanceof SharedArrayBuffer ? new Int32Array(data.control) : null;

function handle(request: EngineRequest): EngineResponse {
  const solver = defaultSolver();
  const started = Date.now();
  const startNodes = solver.nodeCount;
  const progress: AnalyseProgress = { nodes: 0, column: null, columnsDone: 0, columns: 0, elapsedMs: 0 };
  let posted = started;
  const report = (): void => {
    const now = Date.now();
    posted = now;
    progress.nodes = solver.nodeCount - startNodes;
    progress.elapsedMs = now - started;
    parentPort?.postMessage({ id: request.id, progress } satisfies EngineMessage);
  };
  solver.onCheckpoint = () => {
    if (control !== null && Atomics.load(control, 0) === request.id) throw new SearchCancelled();
    if (request.op === 'analyse' && request.progress === true && Date.now() - posted >= PROGRESS_INTERVAL_MS) report();
  };
  try {
    if (control !== null && Atomics.load(control, 0) === request.id) throw new SearchCancelled();
    if (request.op === 'choose') {
      const column = chooseMove({ moves: request.moves }, request.level, Rng.seeded(request.seed), { timeBudgetMs: request.budgetMs });
      return { id: request.id, ok: true, value: column };
    }
    solver.deadline = started + request.timeoutMs;
    const value = solver.analyse(Position.ofMoves(request.moves), false, (column, done, count) => {
      progress.column = column + 1;
      progress.columnsDone = done;
      progress.columns = count;
      if (request.progress === true) report();
    });
    return { id: request.id, ok: true, value };
  } catch (e) {
    const cancelled = e instanceof SearchCancelled;
    return { id: request.id, ok: false, error: e instanceof Error ? e.message : String(e), aborted: e instanceof SearchAborted, cancelled };
  } finally {
    solver.deadline = Infinity;
    solver.onCheckpoint = null;
  }
}

parentPort?.on('message', (request: EngineRequest) => {
  parentPort?.postMessage(handle(request) satisfies EngineMessage);
});
