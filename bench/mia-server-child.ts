// The Mia server in a process of its own, so the benchmark measures its memory alone.
// Reports {port} once listening, then {rounds, rss, heap} whenever asked.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../src/core/log.js';
import { RecordStore } from '../src/core/records.js';
import { MIA_DEFAULTS, MiaServer } from '../src/games/mia/server.js';

const dir = mkdtempSync(join(tmpdir(), 'spielhalle-bench-'));
const store = process.env.NOSTORE ? null : new RecordStore(join(dir, "bench.db"));
const server = new MiaServer({
  ...MIA_DEFAULTS,
  port: 0,
  startEarly: true,
  maxClients: 1000,
  // Every bench bot plays from 127.0.0.1: no per-host cap.
  maxClientsPerHost: 0,
  floodPerSecond: 10_000,
  seed: 'bench',
  log: silentLogger,
  store,
});
await server.start();
process.send?.({ type: 'ready', port: server.port });
process.on('message', (m: { type: string }) => {
  if (m.type === 'stats') {
    const mem = process.memoryUsage();
    process.send?.({ type: 'stats', rounds: server.snapshot().roundsPlayed, rss: mem.rss, heap: mem.heapUsed });
  } else if (m.type === 'stop') {
    void server.stop().then(() => {
      store?.close();
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    });
  }
});
