import { parentPort, Worker } from 'node:worker_threads';
import { guard } from './guard.js';
import { silentLogger, type Logger } from './log.js';
import { workerUrl } from './worker-url.js';

/**
 * Engines that think in worker threads, so the thread that reads the connection never blocks for
 * a move: a server goes on answering in milliseconds, and a client reads the end of the game the
 * moment it arrives, whatever its engine is doing (a move thought out after the end is dropped,
 * never sent). Requests queue when every worker is busy; a worker that dies fails its request and
 * is started again on the next one. The worker script calls `serveThinks` with its handler.
 */

interface Envelope<Request> {
  id: number;
  request: Request;
}

type Reply<Response> = { id: number; ok: true; response: Response } | { id: number; ok: false; error: string };

interface Job<Request, Response> {
  request: Request;
  resolve: (response: Response) => void;
  reject: (error: Error) => void;
}

interface Slot<Request, Response> {
  worker: Worker | null;
  starting: Promise<Worker> | null;
  job: (Job<Request, Response> & { id: number }) | null;
}

export interface ThinkPoolOptions {
  /** `import.meta.url` of the module the worker script sits beside, and the script's name. */
  moduleUrl: string;
  script: string;
  threads?: number | undefined;
  log?: Logger | undefined;
  /** What a refused request says once the pool is closed, e.g. "the Dame engine is closed". */
  closedMessage: string;
}

export class ThinkPool<Request, Response> {
  private readonly slots: Slot<Request, Response>[];
  private readonly queue: Job<Request, Response>[] = [];
  private nextId = 1;
  private closed = false;
  private readonly log: Logger;

  constructor(private readonly o: ThinkPoolOptions) {
    const threads = Math.max(1, Math.floor(o.threads ?? 1));
    this.slots = Array.from({ length: threads }, () => ({ worker: null, starting: null, job: null }));
    this.log = o.log ?? silentLogger;
  }

  ask(request: Request): Promise<Response> {
    if (this.closed) return Promise.reject(new Error(this.o.closedMessage));
    return new Promise<Response>((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      this.dispatch();
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get threads(): number {
    return this.slots.length;
  }

  /** Requests waiting for a free worker. */
  get queued(): number {
    return this.queue.length;
  }

  /** Fails every request and ends the workers, busy ones too (a think in flight is cut off). */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error(this.o.closedMessage));
    await Promise.all(
      this.slots.map(async (slot) => {
        slot.job?.reject(new Error(this.o.closedMessage));
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

  private async run(slot: Slot<Request, Response>, job: Job<Request, Response> & { id: number }): Promise<void> {
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
    try {
      worker.postMessage({ id: job.id, request: job.request } satisfies Envelope<Request>);
    } catch (error) {
      // E.g. a request that cannot be cloned: this request fails, the worker and the queue go on.
      slot.job = null;
      job.reject(error instanceof Error ? error : new Error(String(error)));
      this.dispatch();
    }
  }

  private ensureWorker(slot: Slot<Request, Response>): Promise<Worker> {
    if (slot.worker) return Promise.resolve(slot.worker);
    slot.starting ??= workerUrl(this.o.moduleUrl, this.o.script)
      .then((url) => this.spawn(slot, url))
      .finally(() => (slot.starting = null));
    return slot.starting;
  }

  private spawn(slot: Slot<Request, Response>, url: URL): Worker {
    if (this.closed) throw new Error(this.o.closedMessage);
    const worker = new Worker(url);
    // A busy worker never keeps a finished program alive.
    worker.unref();
    // Worker events are entries from I/O: a bug in handling one is logged, the process goes on.
    worker.on(
      'message',
      guard(this.log, 'think worker message', (reply: Reply<Response>) => {
        const job = slot.job;
        if (job?.id !== reply.id) return;
        slot.job = null;
        if (reply.ok) job.resolve(reply.response);
        else job.reject(new Error(reply.error));
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
      guard(this.log, 'think worker error', (err: Error) => {
        this.log.error({ err }, 'engine worker failed');
        fail(`the engine failed: ${err.message}`);
      }),
    );
    worker.on(
      'exit',
      guard(this.log, 'think worker exit', (code: number) => {
        if (!this.closed) this.log.warn({ code }, 'engine worker exited');
        fail('the engine stopped');
      }),
    );
    slot.worker = worker;
    return worker;
  }
}

/**
 * The worker script's side: answers each request with `handle`, one at a time, in order. The
 * handler's own parameter type says what the pool's requests are.
 */
export function serveThinks(handle: (request: never) => unknown): void {
  parentPort?.on('message', ({ id, request }: Envelope<never>) => {
    let reply: Reply<unknown>;
    try {
      reply = { id, ok: true, response: handle(request) };
    } catch (e) {
      reply = { id, ok: false, error: e instanceof Error ? e.message : String(e) };
    }
    parentPort?.postMessage(reply);
  });
}
