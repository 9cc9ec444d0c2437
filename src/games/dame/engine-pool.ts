import { Worker } from 'node:worker_threads';
import { guard } from '../../core/guard.js';
import { silentLogger, type Logger } from '../../core/log.js';
import type { EngineRequest, EngineResponse } from './engine-worker.js';
import { initialState, type DameState, type SingleMove } from './rules.js';
import { workerUrl } from '../../core/worker-url.js';

/**
 * The engine seats' think(): worker threads running engine-worker.ts, so a server never blocks
 * for a move. Requests queue when every worker is busy; a worker that dies fails its request and
 * is started again on the next one.
 */

/** What an engine seat (or a client) needs to get one single move. */
export interface DameMoveSource {
  /** `marginMs`: kept back from `timeMs` (default the engine's own, min(400, timeMs / 5)). */
  choose(state: DameState, timeMs: number, seed: string, marginMs?: number): Promise<SingleMove>;
  close(): Promise<void>;
}

interface Job {
  request: Omit<EngineRequest, 'id'>;
  resolve: (move: SingleMove) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker | null;
  starting: Promise<Worker> | null;
  job: (Job & { id: number }) | null;
}

export class DameEnginePool implements DameMoveSource {
  private readonly slots: Slot[];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private readonly log: Logger;

  constructor(options: { threads?: number; log?: Logger } = {}) {
    const threads = Math.max(1, Math.floor(options.threads ?? 1));
    this.slots = Array.from({ length: threads }, () => ({ worker: null, starting: null, job: null }));
    this.log = (options.log ?? silentLogger).child({ game: 'dame', part: 'engine' });
  }

  choose(state: DameState, timeMs: number, seed: string, marginMs?: number): Promise<SingleMove> {
    if (this.closed) return Promise.reject(new Error('the Dame engine is closed'));
    return new Promise<SingleMove>((resolve, reject) => {
      const request = { state, timeMs, seed, ...(marginMs === undefined ? {} : { marginMs }) };
      this.queue.push({ request, resolve, reject });
      this.dispatch();
    });
  }

  /**
   * Starts every worker and lets it think once: a cold engine (no JIT yet) overruns its first
   * budget by far, which a client with a deadline must not pay for.
   */
  async warm(thinkMs = 150): Promise<void> {
    await Promise.all(this.slots.map(() => this.choose(initialState(), thinkMs, 'warm-up', 0)));
  }

  /** Requests waiting for a free worker. */
  get queued(): number {
    return this.queue.length;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('the Dame engine is closed'));
    await Promise.all(
      this.slots.map(async (slot) => {
        slot.job?.reject(new Error('the Dame engine is closed'));
        slot.job = null;
        const worker = slot.worker;
        slot.worker = null;
        if (worker) await worker.terminate();
      }),
    );
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.job !== null || slot.starting !== null) continue;
      const job = { ...this.queue.shift()!, id: this.nextId++ };
      slot.job = job;
      void this.run(slot, job);
    }
  }

  private async run(slot: Slot, job: Job & { id: number }): Promise<void> {
    let worker: Worker;
    try {
      worker = await this.ensureWorker(slot);
    } catch (error) {
      slot.job = null;
      job.reject(error instanceof Error ? error : new Error(String(error)));
      this.dispatch();
      return;
    }
    if (slot.job !== job) return; // closed meanwhile
    const request: EngineRequest = { ...job.request, id: job.id };
    try {
      worker.postMessage(request);
    } catch (error) {
      // E.g. a state that cannot be cloned: this request fails, the worker and the queue go on.
      slot.job = null;
      job.reject(error instanceof Error ? error : new Error(String(error)));
      this.dispatch();
    }
  }

  private ensureWorker(slot: Slot): Promise<Worker> {
    if (slot.worker) return Promise.resolve(slot.worker);
    slot.starting ??= workerUrl(import.meta.url, 'engine-worker')
      .then((url) => this.spawn(slot, url))
      .finally(() => (slot.starting = null));
    return slot.starting;
  }

  private spawn(slot: Slot, url: URL): Worker {
    if (this.closed) throw new Error('the Dame engine is closed');
    const worker = new Worker(url);
    worker.unref();
    // Worker events are entries from I/O: a bug in handling one is logged, the server goes on.
    worker.on(
      'message',
      guard(this.log, 'engine worker message', (response: EngineResponse) => {
        const job = slot.job;
        if (job?.id !== response.id) return;
        slot.job = null;
        if (response.ok) job.resolve(response.move);
        else job.reject(new Error(response.error));
        this.dispatch();
      }),
    );
    const fail = (why: string): void => {
      if (slot.worker === worker) slot.worker = null;
      const job = slot.job;
      slot.job = null;
      job?.reject(new Error(why));
      if (!this.closed) this.dispatch();
    };
    worker.on(
      'error',
      guard(this.log, 'engine worker error', (err: Error) => {
        this.log.error({ err }, 'engine worker failed');
        fail(`the engine failed: ${err.message}`);
      }),
    );
    worker.on(
      'exit',
      guard(this.log, 'engine worker exit', (code: number) => {
        if (!this.closed) this.log.warn({ code }, 'engine worker exited');
        fail('the engine stopped');
      }),
    );
    slot.worker = worker;
    return worker;
  }
}
