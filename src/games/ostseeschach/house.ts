import { Worker } from 'node:worker_threads';
import type { Stoppable } from '../../core/lifecycle.js';
import type { Logger } from '../../core/log.js';
import type { HouseGame } from './house-loop.js';
import type { HouseWorkerData, HouseWorkerMessage } from './house-worker.js';
import { workerUrl } from '../../core/worker-url.js';
import { guard } from '../../core/guard.js';

/**
 * The house games of `spielhalle serve`, each in its own worker thread (house-worker.ts) so the
 * engines' thinking never blocks the servers. Stopping asks the loop to cancel its game and close
 * its connections, and terminates the thread if that takes too long.
 */

export interface HouseGamesOptions {
  games: number;
  /** Where the bots connect: the running server (`0.0.0.0` is reached as 127.0.0.1). */
  host: string;
  port: number;
  adminPassword: string;
  moveTimeMs: number;
  pauseMs: number;
  seed: string;
  log: Logger;
  onGame?: ((game: HouseGame) => void) | undefined;
}

const STOP_GRACE_MS = 3000;
/** Pauses before a house game thread that died is started again (then the last one, repeatedly). */
const RESTART_MS = [1000, 5000, 30_000] as const;

/**
 * One house game loop's worker thread. The loop inside catches its own failures and retries; if
 * the thread dies anyway (an exception that escaped, a crash of the engine), it is started again
 * after a pause, so the house games never stop for good while the server runs.
 */
export class HouseWorker implements Stoppable {
  readonly name: string;
  private worker: Worker | null = null;
  private stopping = false;
  private restarts = 0;
  private restartTimer: NodeJS.Timeout | null = null;
  private stopped: (() => void) | null = null;

  constructor(
    private readonly url: URL,
    private readonly data: HouseWorkerData,
    private readonly log: Logger,
    private readonly onGame: ((game: HouseGame) => void) | undefined,
  ) {
    this.name = `ostseeschach ${data.name.toLowerCase()}`;
    this.spawn();
  }

  /** The running thread (null between a crash and its restart). */
  get thread(): Worker | null {
    return this.worker;
  }

  private spawn(): void {
    this.restartTimer = null;
    if (this.stopping) return;
    const worker = new Worker(this.url, { workerData: this.data });
    this.worker = worker;
    // Error boundary for the thread's messages: a bad message or a failing listener is logged.
    worker.on(
      'message',
      guard(this.log, 'ostseeschach house message', (message: HouseWorkerMessage) => {
        if (message.type === 'log') this.log[message.level](message.fields, message.msg);
        else if (message.type === 'game') {
          this.restarts = 0;
          this.onGame?.(message.game);
        } else this.stopped?.();
      }),
    );
    worker.on('error', (err) => this.log.error({ err }, 'house game thread failed'));
    worker.once('exit', (code) => {
      if (this.worker === worker) this.worker = null;
      if (this.stopping) return;
      const wait = RESTART_MS[Math.min(this.restarts, RESTART_MS.length - 1)] ?? 30_000;
      this.restarts++;
      this.log.error({ code, restartInMs: wait }, 'house game thread ended: starting it again');
      this.restartTimer = setTimeout(() => this.spawn(), wait);
      this.restartTimer.unref();
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    const clean = new Promise<void>((resolve) => (this.stopped = resolve));
    worker.postMessage('stop');
    const timer = setTimeout(() => void worker.terminate(), STOP_GRACE_MS);
    await Promise.race([clean, exited]);
    clearTimeout(timer);
    await worker.terminate();
  }
}

export async function startHouseGames(o: HouseGamesOptions): Promise<HouseWorker[]> {
  if (o.games <= 0) return [];
  const url = await workerUrl(import.meta.url, 'house-worker');
  const host = o.host === '0.0.0.0' || o.host === '::' ? '127.0.0.1' : o.host;
  const parts: HouseWorker[] = [];
  for (let i = 0; i < o.games; i++) {
    const name = `House ${i + 1}`;
    const log = o.log.child({ game: 'ostseeschach', house: name });
    const data: HouseWorkerData = {
      host,
      port: o.port,
      adminPassword: o.adminPassword,
      moveTimeMs: o.moveTimeMs,
      pauseMs: o.pauseMs,
      name,
      seed: `${o.seed}:${name}`,
      logLevel: o.log.level,
    };
    parts.push(new HouseWorker(url, data, log, o.onGame));
  }
  return parts;
}
