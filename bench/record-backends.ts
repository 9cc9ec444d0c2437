/**
 * Record-store write throughput of both backends (issue #19): can PostgreSQL keep up with 200
 * concurrent Catan games?
 *
 *   npx tsx bench/record-backends.ts [--games 200] [--rounds 3] [--database postgres://postgres@127.0.0.1:5432/test]
 *
 * First one real Catan game (four weighted bots through our server over loopback) is recorded, to
 * get a real game's wire log (its lines, connections and sizes). Then, per backend, `--games`
 * matches are started at once and that log is replayed into every one of them, interleaved line by
 * line as concurrent games would write it, as fast as the store takes it; every match gets its
 * events and its end; the clock stops when everything is committed (drain). Reported: wire lines/s
 * and complete Catan games' worth of records per second, against what 200 concurrent games need
 * when a game lasts a minute (a fast game between bots; course games with people take far longer).
 * SQLite writes to a file in a temporary directory, PostgreSQL to a schema of its own (dropped).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { silentLogger } from '../src/core/log.js';
import type { Records, WireLine } from '../src/core/record-backend.js';
import { RecordStore } from '../src/core/records.js';
import { PgRecordStore } from '../src/core/records-pg.js';
import { CatanClient, createCatanBot } from '../src/games/catan/client.js';
import { COLOURS } from '../src/games/catan/rules/index.js';
import { createCatanServer } from '../src/games/catan/server.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const games = Number(flag('games', '200'));
const rounds = Number(flag('rounds', '3'));
const url = flag('database', process.env.SPIELHALLE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');

/** One real game's wire log and events. */
async function recordOneGame(): Promise<{ wire: WireLine[]; events: number; seconds: number }> {
  const store = new RecordStore(':memory:');
  const server = createCatanServer({ host: '127.0.0.1', port: 0, seed: 'record-backends', log: silentLogger, store });
  await server.start();
  const clients = COLOURS.slice(0, 4).map(
    (colour, i) => new CatanClient({ host: '127.0.0.1', port: server.port, name: `weighted ${i}`, colour, bot: createCatanBot('weighted', `record-backends/${i}`) }),
  );
  const t0 = performance.now();
  for (const c of clients) await c.start();
  await Promise.all(clients.map((c) => c.done));
  const seconds = (performance.now() - t0) / 1000;
  await server.stop();
  const [match] = store.listMatches({ game: 'catan', limit: 1 });
  const detail = store.getMatch(match!.id)!;
  store.close();
  return { wire: detail.wire.map(({ conn, at, dir, data }) => ({ conn, at, dir, data })), events: detail.events.length, seconds };
}

async function replay(store: Records, wire: readonly WireLine[], events: number): Promise<number> {
  const t0 = performance.now();
  const ids = Array.from({ length: games }, (_, g) =>
    store.startMatch({
      game: 'catan',
      startedAt: Date.now(),
      seats: [0, 1, 2, 3].map((seat) => ({ seat, name: `player ${g}-${seat}`, kind: 'client', address: `127.0.0.1:${40000 + seat}` })),
    }),
  );
  const eventEvery = Math.max(1, Math.floor(wire.length / Math.max(1, events)));
  for (let i = 0; i < wire.length; i++) {
    const line = wire[i]!;
    for (const id of ids) {
      store.addWire({ matchId: id, game: 'catan', ...line });
      if (i % eventEvery === 0) store.addEvent(id, { at: line.at, seat: i % 4, type: 'action', data: { i } });
    }
    // Let the timers run now and then, as a server's event loop would between reads.
    if (i % 50 === 49) await new Promise((resolve) => setImmediate(resolve));
  }
  for (const id of ids) store.finishMatch(id, { status: 'finished', endedAt: Date.now(), result: { winner: 'player 0' } });
  await store.drain();
  return (performance.now() - t0) / 1000;
}

async function main(): Promise<void> {
  console.log(
    `record-backends: ${games} concurrent Catan games, ${rounds} rounds per backend; ${cpus().length} × ${cpus()[0]?.model ?? '?'}, ` +
      `Node ${process.version}, load ${loadavg().map((l) => l.toFixed(1)).join(' / ')}, ${new Date().toISOString()}`,
  );
  const game = await recordOneGame();
  const bytes = game.wire.reduce((n, w) => n + Buffer.byteLength(w.data), 0);
  console.log(`one Catan game (4 weighted bots over loopback): ${game.wire.length} wire lines, ${(bytes / 1024).toFixed(0)} KiB, ${game.events} events, ${game.seconds.toFixed(1)} s`);
  const need = (games * game.wire.length) / 60;
  const dir = mkdtempSync(join(tmpdir(), 'spielhalle-bench-records-'));
  const schema = `bench_${process.pid}`;
  const rows: string[] = [];
  try {
    for (const kind of ['sqlite', 'postgres'] as const) {
      const times: number[] = [];
      for (let r = 0; r < rounds; r++) {
        const store: Records =
          kind === 'sqlite' ? new RecordStore(join(dir, `r${r}.db`)) : await PgRecordStore.open({ url, schema: `${schema}_${r}` });
        times.push(await replay(store, game.wire, game.events));
        await store.close();
      }
      times.sort((a, b) => a - b);
      const median = times[Math.floor(times.length / 2)]!;
      const linesPerS = (games * game.wire.length) / median;
      rows.push(
        `| ${kind} | ${games} × ${game.wire.length} | ${median.toFixed(2)} s | ${Math.round(linesPerS).toLocaleString('en')} | ${(linesPerS / game.wire.length).toFixed(1)} | ${(linesPerS / need).toFixed(1)}× |`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    for (let r = 0; r < rounds; r++) await client.query(`DROP SCHEMA IF EXISTS ${schema}_${r} CASCADE`);
    await client.end();
  }
  console.log();
  console.log(`| backend | lines written | median wall (all committed) | wire lines/s | Catan games/s | vs ${games} games of 1 min (${Math.round(need).toLocaleString('en')} lines/s) |`);
  console.log('|---|---|---|---:|---:|---:|');
  for (const r of rows) console.log(r);
}

await main();
