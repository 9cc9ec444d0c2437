/**
 * Distributed tournaments (issue #19): matches per minute with 1, 2 and 4 `spielhalle worker`
 * processes on this machine, and what the queue adds to each match against playing it in process.
 *
 *   npx tsx bench/distributed.ts [--workers 1,2,4] [--overhead-runs 2] [--database postgres://postgres@127.0.0.1:5432/test]
 *
 * Throughput: a Dame round robin of six of our bots (two engines at 100 ms a move, depth4, depth2,
 * greedy, random; 2 games a pairing, 30 matches) queued by the coordinator (in this process) and
 * played by N worker processes (`--concurrency 1` each, so N matches at a time); the clock runs
 * from queueing to the last result. Overhead: a round robin of five quick bots (depth2, greedy,
 * three random; 20 matches), once played in process (`runTournament`, one match at a time, records in PostgreSQL)
 * and once through the queue by one worker with `--concurrency 1`; the difference per match is
 * the queue's cost (fetch, claim, record under the claim, complete, the coordinator's polling).
 * The difference of the two wall times is noisy (a match's length varies by ±15 ms a match
 * between runs), so the bench also reads each match's timeline from the database: the time from
 * taking the match (claim, or the job's start) to the game's first record write, from the game's
 * end to the result counting (the job's completion), and from one match's end to taking the next;
 * the queue's overhead is the sum through the queue minus the sum in process.
 * Runs alternate. Each run has a schema of its own, dropped at the end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { silentLogger } from '../src/core/log.js';
import { PgRecordStore } from '../src/core/records-pg.js';
import { createTournament, runTournament } from '../src/tournament/coordinator.js';
import { runQueuedTournament } from '../src/tournament/distributed.js';
import { parseTournament } from '../src/tournament/file.js';
import { jobsSchema, MatchQueue } from '../src/tournament/queue.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const url = flag('database', process.env.SPIELHALLE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
const workerCounts = flag('workers', '1,2,4').split(',').map(Number).filter((n) => n > 0);
const overheadRuns = Number(flag('overhead-runs', '2'));
const root = fileURLToPath(new URL('..', import.meta.url));
const tsx = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const work = mkdtempSync(join(tmpdir(), 'spielhalle-bench-dist-'));

const entrantsYaml = (list: [string, string, string][]) =>
  list.map(([name, bot, options]) => `  - { name: ${name}, bot: ${bot}, options: { ${options} } }`).join('\n');

const THROUGHPUT = `name: Dame-Durchsatz
game: dame
format: round-robin
gamesPerPairing: 2
moveTime: 0.1
seed: 19
entrants:
${entrantsYaml([
  ['engine-a', 'engine', 'timeMs: 100, seed: 1'],
  ['engine-b', 'engine', 'timeMs: 100, seed: 2'],
  ['depth4', 'depth4', 'seed: 1'],
  ['depth2', 'depth2', 'seed: 1'],
  ['greedy', 'greedy', 'seed: 1'],
  ['random', 'random', 'seed: 1'],
])}
`;

const OVERHEAD = `name: Dame-Overhead
game: dame
format: round-robin
gamesPerPairing: 2
moveTime: 0.1
parallel: 1
seed: 20
entrants:
${entrantsYaml([
  ['d2', 'depth2', 'seed: 1'],
  ['gr', 'greedy', 'seed: 1'],
  ['r1', 'random', 'seed: 1'],
  ['r2', 'random', 'seed: 2'],
  ['r3', 'random', 'seed: 3'],
])}
`;

let schemas = 0;
const run = `bd${process.pid}`;

function fresh(): { schema: string; drop: () => Promise<void> } {
  const schema = `${run}_${schemas++}`;
  return {
    schema,
    drop: async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.query(`DROP SCHEMA IF EXISTS ${jobsSchema(schema)} CASCADE`);
      await c.end();
    },
  };
}

function startWorkers(n: number, schema: string): Promise<ChildProcess[]> {
  const children = Array.from({ length: n }, (_, i) =>
    spawn(
      process.execPath,
      ['--import', tsx, join(root, 'src', 'cli.ts'), '--data-dir', join(work, `w${i}`), 'worker', '--concurrency', '1', '--games', 'dame'],
      { env: { ...process.env, SPIELHALLE_DATABASE_URL: url, SPIELHALLE_DATABASE_SCHEMA: schema }, stdio: ['ignore', 'ignore', 'pipe'] },
    ),
  );
  return Promise.all(
    children.map(
      (c) =>
        new Promise<ChildProcess>((resolve, reject) => {
          let err = '';
          c.stderr.on('data', (d: Buffer) => {
            err += d.toString();
            if (/^worker \S+: /m.test(err)) resolve(c);
          });
          c.on('exit', (code) => reject(new Error(`a worker exited (${String(code)}): ${err}`)));
        }),
    ),
  );
}

async function stopWorkers(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null) return resolve();
          c.on('exit', () => resolve());
          c.kill('SIGTERM');
        }),
    ),
  );
}

/** Plays the tournament through the queue with `n` worker processes; returns seconds and matches. */
async function queued(text: string, n: number): Promise<{ seconds: number; matches: number; spans: Spans }> {
  const { schema, drop } = fresh();
  const store = await PgRecordStore.open({ url, schema, mode: 'write' });
  const queue = await MatchQueue.open({ url, schema: jobsSchema(schema) }, ['dame']);
  const workers = await startWorkers(n, schema);
  try {
    const parsed = parseTournament(text, { file: 'bench.yaml' });
    if (!parsed.ok) throw new Error('bad bench tournament');
    const id = await createTournament(store, parsed.spec, text);
    const t0 = performance.now();
    const outcome = await runQueuedTournament(store, id, { queue, url, log: silentLogger, pollMs: 20 });
    const seconds = (performance.now() - t0) / 1000;
    if (outcome !== 'finished') throw new Error(`the queued tournament ${outcome}`);
    // Per match, by the clocks of this machine: from taking the job to the game's start, and from
    // the game's end to the job's completion; and from one completion to the next take.
    const spans = await timeline(
      `SELECT (extract(epoch FROM j.started_on) * 1000)::float8 AS taken, (extract(epoch FROM j.completed_on) * 1000)::float8 AS released,
              m.started_at::float8 AS game_start, m.ended_at::float8 AS game_end
         FROM ${jobsSchema(schema)}.job j
         JOIN ${schema}.tournament_matches t ON t.tournament_id = j.data->>'tournament' AND t.id = j.data->>'match'
         JOIN ${schema}.matches m ON m.id = t.records::jsonb->>0
        WHERE j.state = 'completed' ORDER BY j.started_on`,
    );
    return { seconds, matches: (await store.getTournament(id))?.total ?? 0, spans };
  } finally {
    await stopWorkers(workers);
    await queue.close();
    await store.close();
    await drop();
  }
}

/** The same tournament played in this process, one match at a time, records in PostgreSQL. */
async function inProcess(text: string): Promise<{ seconds: number; matches: number; spans: Spans }> {
  const { schema, drop } = fresh();
  const store = await PgRecordStore.open({ url, schema, mode: 'write' });
  try {
    const parsed = parseTournament(text, { file: 'bench.yaml' });
    if (!parsed.ok) throw new Error('bad bench tournament');
    const id = await createTournament(store, parsed.spec, text);
    const t0 = performance.now();
    const outcome = await runTournament(store, id, { log: silentLogger, workDir: work, parallel: 1 });
    const seconds = (performance.now() - t0) / 1000;
    if (outcome !== 'finished') throw new Error(`the tournament ${outcome}`);
    const spans = await timeline(
      `SELECT t.started_at::float8 AS taken, t.ended_at::float8 AS released, m.started_at::float8 AS game_start, m.ended_at::float8 AS game_end
         FROM ${schema}.tournament_matches t JOIN ${schema}.matches m ON m.id = t.records::jsonb->>0
        ORDER BY t.started_at`,
    );
    return { seconds, matches: (await store.getTournament(id))?.total ?? 0, spans };
  } finally {
    await store.close();
    await drop();
  }
}

interface Spans {
  /** Mean ms per match outside the game: before it, after it, and between one match and the next. */
  before: number;
  after: number;
  between: number;
}

async function timeline(sql: string): Promise<Spans> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const rows = (await c.query<{ taken: number; released: number; game_start: number; game_end: number }>(sql)).rows;
  await c.end();
  const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
  return {
    before: mean(rows.map((r) => r.game_start - r.taken)),
    after: mean(rows.map((r) => r.released - r.game_end)),
    between: mean(rows.slice(1).map((r, i) => r.taken - rows[i]!.released)),
  };
}

const machine = `${cpus().length}× ${cpus()[0]?.model ?? '?'}, Node ${process.version}`;
const load = () => loadavg()[0]!.toFixed(1);
process.stdout.write(`machine: ${machine}; ${new Date().toISOString()}; load ${load()} at start\n\n`);

try {
  if (workerCounts.length > 0) process.stdout.write('| workers | matches | seconds | matches/min | load (1 min) |\n|---|---|---|---|---|\n');
  for (const n of workerCounts) {
    const r = await queued(THROUGHPUT, n);
    process.stdout.write(`| ${n} | ${r.matches} | ${r.seconds.toFixed(1)} | ${((r.matches * 60) / r.seconds).toFixed(1)} | ${load()} |\n`);
  }
  process.stdout.write(
    '\n| run | matches | in process s | through the queue s | difference ms/match | in process: before + after + between the games, ms/match | queue: before + after + between, ms/match | queue overhead ms/match | load (1 min) |\n|---|---|---|---|---|---|---|---|---|\n',
  );
  const sum = (x: Spans) => x.before + x.after + x.between;
  const parts = (x: Spans) => `${x.before.toFixed(1)} + ${x.after.toFixed(1)} + ${x.between.toFixed(1)} = ${sum(x).toFixed(1)}`;
  for (let i = 1; i <= overheadRuns; i++) {
    const local = await inProcess(OVERHEAD);
    const viaQueue = await queued(OVERHEAD, 1);
    const difference = ((viaQueue.seconds - local.seconds) * 1000) / local.matches;
    process.stdout.write(
      `| ${i} | ${local.matches} | ${local.seconds.toFixed(2)} | ${viaQueue.seconds.toFixed(2)} | ${difference.toFixed(1)} | ${parts(local.spans)} | ${parts(viaQueue.spans)} | ${(sum(viaQueue.spans) - sum(local.spans)).toFixed(1)} | ${load()} |\n`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
