// The Catan server in a process of its own, so that bench/catan-server.ts measures its memory and CPU
// alone. Reports {port} once listening, then {rss, heap, cpu, finished, aborted, live} when asked,
// with `detail` also the time each chunk took from reading to its last write, and the event-loop delay.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../src/core/log.js';
import { RecordStore } from '../src/core/records.js';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createCatanServer } from '../src/games/catan/server.js';

const dir = mkdtempSync(join(tmpdir(), 'spielhalle-catan-bench-'));
const handled: number[] = [];
const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();
const store = process.env.NOSTORE ? null : new RecordStore(join(dir, 'bench.db'));
const server = createCatanServer({
  host: '127.0.0.1',
  port: 0,
  seed: process.env.SEED ?? 'bench',
  log: silentLogger,
  store,
  maxConnections: 5000,
  maxGames: 2000,
  floodPerSecond: 100_000,
  // Every bench client connects from 127.0.0.1: no per-host caps.
  maxConnectionsPerHost: 0,
  maxLobbiesPerHost: 0,
  onHandled: (ms) => handled.push(ms),
});
await server.start();
let peakRss = 0;
let peakHeap = 0;
const sample = (): void => {
  const m = process.memoryUsage();
  peakRss = Math.max(peakRss, m.rss);
  peakHeap = Math.max(peakHeap, m.heapUsed);
};
setInterval(sample, 250).unref();
process.send?.({ type: 'ready', port: server.port });
process.on('message', (m: { type: string; detail?: boolean }) => {
  if (m.type === 'stats') {
    sample();
    const mem = process.memoryUsage();
    const cpu = process.cpuUsage();
    const snap = server.snapshot();
    process.send?.({
      type: m.detail ? 'final' : 'stats',
      rss: mem.rss,
      heap: mem.heapUsed,
      peakRss,
      peakHeap,
      cpu: (cpu.user + cpu.system) / 1e6,
      sys: cpu.system / 1e6,
      finished: snap.gamesPlayed,
      aborted: snap.gamesAborted,
      live: snap.matches.length,
      // The per-message times and the event-loop delay only at the end: they are many.
      ...(m.detail ? { handled, loop: { p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 } } : {}),
    });
  } else if (m.type === 'stop') {
    void server.stop().then(() => {
      store?.close();
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    });
  }
});
