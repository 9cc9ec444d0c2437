import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { ATTACKER, sleep, type ServeProcess } from '../../hardening/serve.js';

/**
 * Issue 36's measurement, shared by its test (test/games/mia/flood-table.test.ts) and its soak
 * (bench/mia-flood.ts): against one `serve`, a spectator on 127.0.0.1 counts finished rounds
 * (PLAYER LOST) in a quiet window, while one host (127.0.0.2) floods the Mia port from 1000 UDP
 * ports (test/fixtures/mia/flooder.mjs, a process of its own), and in a quiet window after it.
 */

export type FloodMix = 'register' | 'mixed';

export interface FloodResult {
  mix: FloodMix;
  niced: boolean;
  sent: number;
  quiet: number;
  during: number;
  after: number;
  /** House bots the server unregistered meanwhile (its log). */
  expired: string[];
}

export const FLOOD_RATE = 20_000;

async function spectator(port: number): Promise<{ rounds: () => number; close: () => void }> {
  const socket = createSocket('udp4');
  let rounds = 0;
  socket.on('message', (m) => {
    if (m.toString().startsWith('PLAYER LOST;')) rounds++;
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  socket.send('REGISTER_SPECTATOR;flood-watcher', port, '127.0.0.1');
  return { rounds: () => rounds, close: () => socket.close() };
}

async function count(watch: { rounds: () => number }, seconds: number): Promise<number> {
  const before = watch.rounds();
  await sleep(seconds * 1000);
  return watch.rounds() - before;
}

/** Runs the flooder (under `nice -n 19` if `niced`); resolves with the datagrams it sent. */
function flood(port: number, seconds: number, mix: FloodMix, niced: boolean): Promise<number> {
  const argv = [process.execPath, 'test/fixtures/mia/flooder.mjs', ATTACKER, String(port), String(seconds), String(FLOOD_RATE * seconds), '1000', mix];
  const [file, ...args] = niced ? ['nice', '-n', '19', ...argv] : argv;
  return new Promise((resolve, reject) => {
    const child = spawn(file!, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', () => resolve((JSON.parse(out || '{"sent":0}') as { sent: number }).sent));
  });
}

export async function measureFlood(serve: ServeProcess, seconds: number, mix: FloodMix, niced = false): Promise<FloodResult> {
  const watch = await spectator(serve.ports.mia);
  try {
    await sleep(1500);
    const logStart = readFileSync(serve.logFile, 'utf8').length;
    const quiet = await count(watch, seconds);
    const flooded = count(watch, seconds);
    const sent = await flood(serve.ports.mia, seconds, mix, niced);
    const during = await flooded;
    const after = await count(watch, seconds);
    const expired = readFileSync(serve.logFile, 'utf8')
      .slice(logStart)
      .split('\n')
      .filter((l) => l.includes('"unregistered') && l.includes('house-'));
    return { mix, niced, sent, quiet, during, after, expired };
  } finally {
    watch.close();
  }
}

export const describeFlood = (r: FloodResult, seconds: number): string =>
  `Mia flood (${r.mix}${r.niced ? ', attacker niced' : ''}): ${r.sent} datagrams in ${seconds} s; finished rounds quiet ${r.quiet}, during ${r.during} (${((100 * r.during) / Math.max(1, r.quiet)).toFixed(0)} %), after ${r.after}; house bots unregistered: ${r.expired.length}`;
