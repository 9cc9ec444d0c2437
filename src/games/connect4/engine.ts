import { Worker } from 'node:worker_threads';
import { silentLogger, type Logger } from '../../core/log.js';
import { workerUrl } from '../../core/worker-url.js';
import type { BotLevel } from './bots/index.js';
import type { EngineMessage, EngineRequest, EngineResponse, EngineWorkerData } from './engine-worker.js';
import type { C4State } from './rules.js';
import type { AnalyseProgress } from './views.js';
import { WASM_PATH_ENV, wasmPath } from './solver/search-wasm.js';

/**
 * The main thread's handle on the solver worker (engine-worker.ts): asynchronous `choose` and
 * `analyse`, answered in order, one at a time in the worker. An analysis whose caller gives up
 * (its AbortSignal) leaves the queue, or stops its running search, so requests a browser
 * abandoned are not solved one after another. A worker that dies fails its running request and
 * is started again for the next one.
 */

/** A request waiting for the worker or being worked on. */
interface Job {
  readonly id: number;
  readonly body: RequestBody;
  readonly resolve: (value: EngineResponse) => void;
  readonly onProgress: ((progress: AnalyseProgress) => void) | undefined;
  /** Removes the abort listener from the request's signal. */
  detach: () => void;
}
/** A request without its id, one shape per operation. */
type RequestBody = EngineRequest extends infer R ? (R extends EngineRequest ? Omit<R, 'id'> : never) : never;

export interface AnalyseOptions {
  /**
   * Aborting it drops the analysis: a queued one never reaches the solver, a running one stops
   * at its next checkpoint (a few ms); the promise rejects with EngineAborted.
   */
  signal?: AbortSignal;
  /** Called about every 200 ms while the analysis runs, and when it starts on a column. */
  onProgress?: (progress: AnalyseProgress) => void;
}

/** What the hub needs of an engine: the worker below, or an in-process stand-in in tests. */
export interface C4Engine {
  choose(state: C4State, level: BotLevel, seed: string): Promise<number>;
  analyse(moves: readonly number[], timeoutMs: number, options?: AnalyseOptions): Promise<(number | null)[]>;
  close(): Promise<void>;
}

/**
 * The perfect bot's time per move. Along the opening book's lines (all of perfect self-play) a move
 * took at most 0.11 s of CPU (docs/connect4-solver.md); after an early move the book does not
 * follow, an exact search of a position with fewer than ~12 stones takes seconds to minutes, and
 * 3 s usually lets it finish from about 12 stones on before the strong move stands in.
 */
export const PERFECT_BUDGET_MS = 3000;

/** The analysis ran out of time, or (`cancelled`) its caller gave up on it. */
export class EngineAborted extends Error {
  override readonly name = 'EngineAborted';
  constructor(
    message: string,
    readonly cancelled = false,
  ) {
    super(message);
  }
}

export class Connect4Engine implements C4Engine {
  private worker: Worker | null = null;
  /** Requests not yet sent to the worker, oldest first; the worker has at most one at a time. */
  private readonly queue: Job[] = [];
  private running: Job | null = null;
  /** Shared with the worker: the id of the request to cancel (see engine-worker.ts). */
  private readonly control = new Int32Array(new SharedArrayBuffer(4));
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

  /** Requests queued or being worked on (0 when the worker idles). */
  get activeRequests(): number {
    return this.queue.length + (this.running ? 1 : 0);
  }

  /** The column the bot of `level` plays; `seed` makes the choice among equal moves repeatable. */
  async choose(state: C4State, level: BotLevel, seed: string): Promise<number> {
    const r = await this.request({ op: 'choose', moves: [...state.moves], level, seed, budgetMs: this.perfectBudgetMs });
    return r as number;
  }

  /**
   * The score of every column (null = full); rejects with EngineAborted after `timeoutMs` of
   * search, or as soon as `options.signal` aborts.
   */
  async analyse(moves: readonly number[], timeoutMs: number, options: AnalyseOptions = {}): Promise<(number | null)[]> {
    const body: RequestBody = { op: 'analyse', moves: [...moves], timeoutMs, ...(options.onProgress ? { progress: true } : {}) };
    const r = await this.request(body, options);
    return r as (number | null)[];
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
    this.failAll('the Connect Four engine is closed');
  }

  private async request(body: RequestBody, options: AnalyseOptions = {}): Promise<number | (number | null)[]> {
    if (this.closed) throw new Error('the Connect Four engine is closed');
    const { signal, onProgress } = options;
    if (signal?.aborted) throw new EngineAborted('the analysis was cancelled', true);
    const response = await new Promise<EngineResponse>((resolve) => {
      const job: Job = { id: this.nextId++, body, resolve, onProgress, detach: () => undefined };
      if (signal) {
        const onAbort = () => this.cancel(job);
        signal.addEventListener('abort', onAbort, { once: true });
        job.detach = () => signal.removeEventListener('abort', onAbort);
      }
      this.queue.push(job);
      this.pump();
    });
    if (!response.ok) throw response.aborted ? new EngineAborted(response.error, response.cancelled === true) : new Error(response.error);
    return response.value;
  }

  /** Drops a job: from the queue at once, or by telling the running search to stop. */
  private cancel(job: Job): void {
    const at = this.queue.indexOf(job);
    if (at >= 0) {
      this.queue.splice(at, 1);
      this.finish(job, { id: job.id, ok: false, error: 'the analysis was cancelled', aborted: true, cancelled: true });
    } else if (this.running === job) {
      Atomics.store(this.control, 0, job.id);
    }
  }

  private finish(job: Job, response: EngineResponse): void {
    job.detach();
    job.resolve(response);
  }

  /** Sends the next job to the worker when it has none. */
  private pump(): void {
    if (this.running || this.closed) return;
    const job = this.queue.shift();
    if (!job) return;
    this.running = job;
    this.ensureWorker().then(
      (worker) => {
        if (this.running !== job) return;
        const request: EngineRequest = { ...job.body, id: job.id };
        worker.postMessage(request);
      },
      (err: unknown) => {
        if (this.running !== job) return;
        this.running = null;
        this.finish(job, { id: job.id, ok: false, error: err instanceof Error ? err.message : String(err), aborted: false });
        this.pump();
      },
    );
  }

  private failAll(why: string): void {
    const jobs = [...(this.running ? [this.running] : []), ...this.queue.splice(0)];
    this.running = null;
    for (const job of jobs) this.finish(job, { id: job.id, ok: false, error: why, aborted: false });
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
    const workerData: EngineWorkerData = { control: this.control.buffer };
    const worker = new Worker(url, { env: { ...process.env, [WASM_PATH_ENV]: wasmPath() ?? '' }, workerData });
    worker.unref();
    worker.on('message', (message: EngineMessage) => {
      const job = this.running;
      if (!job || job.id !== message.id) return;
      if ('progress' in message) {
        job.onProgress?.({ ...message.progress });
        return;
      }
      this.running = null;
      this.finish(job, message);
      this.pump();
    });
    const fail = (why: string) => {
      if (this.worker === worker) this.worker = null;
      const job = this.running;
      this.running = null;
      if (job) this.finish(job, { id: job.id, ok: false, error: why, aborted: false });
      // The next request starts a new worker.
      this.pump();
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
