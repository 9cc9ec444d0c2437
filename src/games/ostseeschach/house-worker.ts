import { parentPort, workerData } from 'node:worker_threads';
import { pino } from 'pino';
import { HouseLoop, type HouseGame } from './house-loop.js';

/**
 * One house game loop in a worker thread: the bots think for whole move times, and the servers in
 * the main thread must go on answering (and timing other players' moves) in milliseconds. Log
 * lines and finished games go to the parent as messages; `stop` ends the loop.
 */

export interface HouseWorkerData {
  host: string;
  port: number;
  adminPassword: string;
  moveTimeMs: number;
  pauseMs: number;
  name: string;
  seed: string;
  logLevel: string;
}

export type HouseWorkerMessage =
  | { type: 'log'; level: 'info' | 'warn' | 'error'; fields: Record<string, unknown>; msg: string }
  | { type: 'game'; game: HouseGame }
  | { type: 'stopped' };

const data = workerData as HouseWorkerData;
const port = parentPort;
const post = (message: HouseWorkerMessage): void => port?.postMessage(message);

/**
 * A logger whose lines go to the parent's logger. The bots' per-game info lines (joined, game
 * over) are only wanted when the parent logs debug lines too.
 */
let stopping = false;
const level = data.logLevel === 'silent' ? 'silent' : data.logLevel === 'debug' || data.logLevel === 'trace' ? 'info' : 'warn';
const log = pino(
  { level, base: null },
  {
    write(line: string) {
      try {
        const { level, msg, time: _time, ...fields } = JSON.parse(line) as Record<string, unknown> & { level: number; msg?: string; time?: unknown };
        // A bot's move that crosses the final cancel is refused, as expected: not worth a warning.
        if (stopping && level < 50) return;
        const name = level >= 50 ? 'error' : level >= 40 ? 'warn' : 'info';
        post({ type: 'log', level: name, fields, msg: typeof msg === 'string' ? msg : '' });
      } catch {
        // A line that does not read is not worth failing the house game for.
      }
    },
  },
);

const loop = new HouseLoop({ ...data, log, onGame: (game) => post({ type: 'game', game }) });

// Error boundary for the parent's messages: whatever fails while stopping, the parent hears
// `stopped` and the thread ends.
port?.on('message', (message: unknown) => {
  if (message !== 'stop' || stopping) return;
  stopping = true;
  void loop
    .stop()
    .catch((err: unknown) => log.error({ err }, 'house game loop did not stop cleanly'))
    .finally(() => {
      post({ type: 'stopped' });
      port.close();
    });
});
