import { Worker } from 'node:worker_threads';
import { silentLogger, type Logger } from '../../core/log.js';
import { workerUrl } from '../../core/worker-url.js';
import type { BotLevel } from './bots/index.js';
import type { EngineRequest, EngineResponse } from './engine-worker.js';
import type { C4State } from './rules.js';
import { WASM_PATH_ENV, wasmPath } from './solver/search-wasm.js';

/**
 * The main thread's handle on the solver worker (engine-worker.ts): asynchronous `choose` and
 * `analyse`, answered in order. A worker that dies fails its pending requests and is started
 * again on the next one.
 */

type Pending = { resolve: (value: EngineResponse) => void };
/** A request without its id, one shape per operation. */
type RequestBody = EngineRequest extends infer R ? (R extends EngineRequest ? Omit<R, 'id'> : never) : never;

/** What the hub needs of an engine: the worker below, or an in-process stand-in in tests. */
export interface C4Engine {
  choose(state: C4State, level: BotLevel, seed: string): Promise<number>;
  analyse(moves: readonly number[], timeoutMs: number): Promise<(number | null)[]>;
  close(): Promise<void>;
}

/**
 * The perfect bot's time per move. Along the opening book's lines (all of perfect self-play) a move
 * took at most 0.11 s of CPU (docs/connect4-solver.md); after an early move the book does not
 * follow, an exact search of a position with fewer than ~12 stones takes seconds to minutes, and
 * 3 s usually lets it finish from about 12 stones on before the strong move stands in.
 */
export const PERFECT_BUDGET_MS = 3000;

export class EngineAborted extends Error {
  override readonly name = 'EngineAborted';
}

export class Connect4Engine implements C4Engine {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;
  private readonly log: Logger;

  constructor(options: { log?: Logger; perfectBudgetMs?: number } = {}) {
    this.log = (options.log ?? silentLogger).child({ game: 'connect4', part: 'engine' });
    this.perfectBudgetMs = options.perfectBudgetMs ?? PERFECT_BUDGET_MS;
  }

  /**
   * For 'perfect': the longest a move may take. The exact search stops early enough for the strong
   * move it then plays instead (see BotOptions.timeBudgetMs), so the answer comes within it.
   */
  readonly perfectBudgetMs: number;

  /** The column the bot of `level` plays; `seed` makes the choice among equal moves repeatable. */
  async choose(state: C4State, level: BotLevel, seed: string): Promise<number> {
    const r = await this.request({ op: 'choose', moves: [...state.moves], level, seed, budgetMs: this.perfectBudgetMs });
    return r as number;
  }

  /** The score of every column (null = full); rejects with EngineAborted after `timeoutMs`. */
  async analyse(moves: readonly number[], timeoutMs: number): Promise<(number | null)[]> {
    const r = await this.request({ op: 'analyse', moves: [...moves], timeoutMs });
    return r as (number | null)[];
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private async request(body: RequestBody): Promise<number | (number | null)[]> {
    if (this.closed) throw new Error('the Connect Four engine is closed');
    const id = this.nextId++;
    const worker = await this.ensureWorker();
    const response = await new Promise<EngineResponse>((resolve) => {
      this.pending.set(id, { resolve });
      const request: EngineRequest = { ...body, id };
      worker.postMessage(request);
    });
    if (!response.ok) throw response.aborted ? new EngineAborted(response.error) : new Error(response.error);
    return response.value;
  }

  private starting: Promise<Worker> | null = null;

  private async ensureWorker(): Promise<Worker> {
    if (this.worker) return this.worker;
    this.starting ??= workerUrl(import.meta.url, 'engine-worker').then((url) => this.spawn(url)).finally(() => (this.starting = null));
    return this.starting;
  }

  private spawn(url: URL): Worker {
    if (this.closed) throw new Error('the Connect Four engine is closed');
    // From the sources the worker is a bundle in a temporary folder: tell it where the core is.
    const worker = new Worker(url, { env: { ...process.env, [WASM_PATH_ENV]: wasmPath() ?? '' } });
    worker.unref();
    worker.on('message', (response: EngineResponse) => {
      const p = this.pending.get(response.id);
      this.pending.delete(response.id);
      p?.resolve(response);
    });
    const fail = (why: string) => {
      if (this.worker === worker) this.worker = null;
      for (const [id, p] of this.pending) p.resolve({ id, ok: false, error: why, aborted: false });
      this.pending.clear();
    };
    worker.on('error', (err) => {
      this.log.error({ err }, 'solver worker failed');
      fail(`the solver failed: ${err.message}`);
    });
    worker.on('exit', (code) => {
      if (!this.closed) this.log.warn({ code }, 'solver worker exited');
      fail('the solver stopped');
    });
    this.worker = worker;
    return worker;
  }
}
