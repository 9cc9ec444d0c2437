import { Worker } from 'node:worker_threads';
import type { Stoppable } from '../../core/lifecycle.js';
import type { Logger } from '../../core/log.js';
import type { HouseGame } from './house-loop.js';
import type { HouseWorkerData, HouseWorkerMessage } from './house-worker.js';
import { workerUrl } from '../../core/worker-url.js';

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

export async function startHouseGames(o: HouseGamesOptions): Promise<Stoppable[]> {
  if (o.games <= 0) return [];
  const url = await workerUrl(import.meta.url, 'house-worker');
  const host = o.host === '0.0.0.0' || o.host === '::' ? '127.0.0.1' : o.host;
  const parts: Stoppable[] = [];
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
    const worker = new Worker(url, { workerData: data });
    let stopped: (() => void) | null = null;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.on('message', (message: HouseWorkerMessage) => {
      if (message.type === 'log') log[message.level](message.fields, message.msg);
      else if (message.type === 'game') o.onGame?.(message.game);
      else stopped?.();
    });
    worker.on('error', (err) => log.error({ err }, 'house game thread failed'));
    parts.push({
      name: `ostseeschach ${name.toLowerCase()}`,
      stop: async () => {
        const clean = new Promise<void>((resolve) => (stopped = resolve));
        worker.postMessage('stop');
        const timer = setTimeout(() => void worker.terminate(), STOP_GRACE_MS);
        await Promise.race([clean, exited]);
        clearTimeout(timer);
        await worker.terminate();
      },
    });
  }
  return parts;
}
