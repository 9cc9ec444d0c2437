// `npm run bench -- ladder`: Die Liga under load (issue 34). N students' clients, each with its
// own code, half on Dame and half on Ostseeschach (the servers with the ladder on, in this
// process), play a game and connect again at once, for the given time: how soon a waiting client
// gets its game (pairing latency p50/p99: Dame from its PLAYER to `+ YOU`, Ostseeschach from its
// connect to `joined`), games a minute, the process's CPU, and the cost of one rating update
// (rating + store write, timed in-process). Connect Four (UDP peers) is not in it yet.
//   npx tsx bench/ladder.ts [--clients 200] [--seconds 60] [--move-ms 200]
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { silentLogger } from '../src/core/log.js';
import { RecordStore } from '../src/core/records.js';
import { Rng } from '../src/core/rng.js';
import { createDameBot } from '../src/games/dame/bots/index.js';
import { DameClient } from '../src/games/dame/client.js';
import { createDameServer } from '../src/games/dame/server.js';
import { randomBot } from '../src/games/ostseeschach/bots/random.js';
import { playOnServer } from '../src/games/ostseeschach/client.js';
import { createOstseeschachServer } from '../src/games/ostseeschach/server.js';
import { OstseeschachLadderTable } from '../src/ladder/ostseeschach.js';
import { DameLadderTable } from '../src/ladder/dame.js';
import { Ladder } from '../src/ladder/ladder.js';
import { initialRating, rateTwo } from '../src/ladder/ratings.js';
import { openLadderStore } from '../src/ladder/store.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

const clients = arg('clients', 200);
const seconds = arg('seconds', 60);
const moveMs = arg('move-ms', 200);

const quantile = (xs: number[], q: number): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(s.length * q) - 1)]!;
};

async function main(): Promise<void> {
  const records = new RecordStore(':memory:');
  const server = createDameServer({ port: 0, log: silentLogger, store: records, motdDelayMs: 0, defaultMoveTimeMs: moveMs, maxConnectionsPerHost: 0, maxGamesPerHost: 0 });
  await server.start();
  const store = await openLadderStore(':memory:');
  const entries = await store.addEntries(
    Array.from({ length: clients }, (_, i) => ({ name: `Student ${i + 1}`, group: `T${(i % 10) + 1}` })),
    Date.now(),
  );
  // The house bot only after a long wait: students find each other here.
  const ladder = new Ladder({ store, log: silentLogger, settings: { houseAfterMs: 10_000, tickMs: 100 } });
  const table = new DameLadderTable(ladder, server);
  ladder.addTable(table);
  server.setLadder(table);
  const chess = createOstseeschachServer({ port: 0, log: silentLogger, store: records, seed: 'bench', maxConnectionsPerHost: 0 });
  await chess.start();
  const chessTable = new OstseeschachLadderTable(ladder, chess, { log: silentLogger });
  ladder.addTable(chessTable);
  chess.setLadder(chessTable);
  await ladder.start();

  const latencies: number[] = [];
  const chessLatencies: number[] = [];
  let games = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const cpuBefore = process.cpuUsage();
  const chessLoop = async (i: number): Promise<void> => {
    const entry = entries[i]!;
    while (performance.now() < deadline) {
      const asked = performance.now();
      const r = await playOnServer({
        host: '127.0.0.1',
        port: chess.port,
        join: { kind: 'prepared', reservationCode: entry.reservation },
        bot: randomBot,
        budgetMs: 50,
        seed: `${entry.code}${games}`,
        onPacket: (p) => {
          if (p.type === 'joined') chessLatencies.push(performance.now() - asked);
        },
      });
      if (r.errors.length > 0 || r.result === null) errors++;
      else games++;
    }
  };
  const loop = async (i: number): Promise<void> => {
    if (i % 2 === 1) return chessLoop(i);
    const entry = entries[i]!;
    const bot = createDameBot(i % 2 === 0 ? 'greedy' : 'random');
    const rng = Rng.seeded(i);
    while (performance.now() < deadline) {
      let playerAt = 0;
      const r = await new DameClient({
        host: '127.0.0.1',
        port: server.port,
        gameId: entry.code,
        player: (s, ms) => bot(s, ms, rng),
        silenceTimeoutMs: 60_000,
        onLine: (dir, line) => {
          if (dir === 'out' && line.startsWith('PLAYER')) playerAt = performance.now();
          else if (dir === 'in' && line.startsWith('+ YOU ')) latencies.push(performance.now() - playerAt);
        },
      }).run();
      if (r.error !== null) errors++;
      else games++;
    }
  };
  await Promise.all(entries.map((_, i) => loop(i)));
  const wallS = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  await ladder.settled();
  const all = await store.listGames({ limit: 1_000_000 });
  const rated = all.length;
  const ratedChess = all.filter((g) => g.game === 'ostseeschach').length;

  // One rating update as the ladder does it: Glicko-2 for both sides and the store's transaction.
  const season = (await store.currentSeason('dame')).id;
  const n = 2000;
  const t0 = performance.now();
  for (let k = 0; k < n; k++) {
    const a = entries[k % clients]!;
    const b = entries[(k + 1) % clients]!;
    const ra = (await store.getRating('dame', season, a.id)) ?? initialRating();
    const rb = (await store.getRating('dame', season, b.id)) ?? initialRating();
    const r = rateTwo(ra, rb, k % 3 === 0 ? 0.5 : 1);
    await store.recordGame({
      id: `bench-${k}`,
      game: 'dame',
      season,
      startedAt: 0,
      endedAt: Date.now(),
      recordId: null,
      seats: [
        { side: { kind: 'entry', entryId: a.id }, name: a.name, score: k % 3 === 0 ? 0.5 : 1, before: ra, after: r.a, reason: null },
        { side: { kind: 'entry', entryId: b.id }, name: b.name, score: k % 3 === 0 ? 0.5 : 0, before: rb, after: r.b, reason: null },
      ],
    });
  }
  const updateMs = (performance.now() - t0) / n;

  await ladder.stop();
  await server.stop();
  await chess.stop();
  await store.close();
  records.close();

  const cpuPct = ((cpu.user + cpu.system) / 1e6 / wallS) * 100;
  process.stdout.write(
    [
      `ladder bench (Dame and Ostseeschach): ${clients} clients, ${seconds} s, Dame move time ${moveMs} ms, ${cpus()[0]?.model ?? '?'} × ${cpus().length}, Node ${process.version}`,
      `| clients | client games | ladder games/min (Dame + Ostseeschach) | rated | errors | Dame pairing p50 / p99 | Ostseeschach pairing p50 / p99 | process CPU (servers, ladder and all clients) | rating update |`,
      `|---|---|---|---|---|---|---|---|---|`,
      `| ${clients} | ${games} | ${((rated / wallS) * 60).toFixed(0)} (${(((rated - ratedChess) / wallS) * 60).toFixed(0)} + ${((ratedChess / wallS) * 60).toFixed(0)}) | ${rated} | ${errors} | ${quantile(latencies, 0.5).toFixed(0)} / ${quantile(latencies, 0.99).toFixed(0)} ms | ${quantile(chessLatencies, 0.5).toFixed(0)} / ${quantile(chessLatencies, 0.99).toFixed(0)} ms | ${cpuPct.toFixed(0)} % of one core | ${(updateMs * 1000).toFixed(0)} µs |`,
      '',
    ].join('\n'),
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
