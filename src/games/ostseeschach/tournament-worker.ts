import { parentPort } from 'node:worker_threads';
import { createBot } from './bots/index.js';
import { OstseeschachClient, type ClientOutcome } from './client.js';

/**
 * A tournament's engine seat in a worker thread (tournament.ts): the engine thinks for whole move
 * times, and the server in the main thread must go on timing every other match's moves. The
 * thread plays one seat at a time through the real client over loopback TCP, and is reused.
 */

export interface SeatPlayRequest {
  type: 'play';
  host: string;
  port: number;
  reservation: string;
  budgetMs: number;
  seed: string;
}

export type SeatWorkerMessage =
  | { type: 'done'; outcome: ClientOutcome }
  | { type: 'failed'; error: string };

const port = parentPort;
let client: OstseeschachClient | null = null;

async function play(request: SeatPlayRequest): Promise<void> {
  const current = new OstseeschachClient({
    host: request.host,
    port: request.port,
    join: { kind: 'prepared', reservationCode: request.reservation },
    bot: createBot('engine'),
    budgetMs: request.budgetMs,
    seed: request.seed,
  });
  client = current;
  try {
    await current.start();
    const outcome = await current.finished;
    port?.postMessage({ type: 'done', outcome } satisfies SeatWorkerMessage);
  } catch (error) {
    port?.postMessage({ type: 'failed', error: error instanceof Error ? error.message : String(error) } satisfies SeatWorkerMessage);
  } finally {
    if (client === current) client = null;
  }
}

port?.on('message', (message: SeatPlayRequest | { type: 'stop' }) => {
  if (message.type === 'stop') client?.stop();
  else void play(message);
});
