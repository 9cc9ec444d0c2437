/**
 * Standings at season scale (issue 38):
 *
 *   npx tsx bench/standings.ts [--entrants 200] [--results 80000] [--requests 20] [--database postgres://postgres@127.0.0.1:5432/test]
 *
 * Synthetic round-robin results of `--entrants` entrants (circle method; win/loss by a hidden
 * strength, 5 % draws, seeded) are fed one by one through the coordinator's code path on SQLite:
 * the match is recorded (finishTournamentMatch, not timed), then timed: the live standings read the
 * new result back by cursor and fold it in (StandingsTracker.catchUp), the leader for the progress
 * line (the warm-started Bradley–Terry fit), and the save to the store at most every second. Then:
 * the full standings with intervals (from the live state, and from a reader's saved state), the
 * from-scratch computeStandings of all results, and the dashboard's requests (`GET
 * /api/tournaments/:id` with the standings, and `/history`) against a store holding them — on
 * SQLite (a file) and PostgreSQL (a schema of its own, filled by one INSERT per 1,000 rows and
 * VACUUM ANALYZE as autovacuum would do it, dropped at the end): cold (a dashboard process that just started) and after each of `--requests` more
 * finished matches (the 2 s refresh of a running tournament).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { silentLogger } from '../src/core/log.js';
import type { Records } from '../src/core/record-backend.js';
import { RecordStore } from '../src/core/records.js';
import { PgRecordStore } from '../src/core/records-pg.js';
import { LiveStandings } from '../src/tournament/live-standings.js';
import { StandingsTracker } from '../src/tournament/standings-store.js';
import { computeStandings, type MatchResult, type SeatOutcome } from '../src/tournament/standings.js';
import { registerTournamentRoutes } from '../src/web/tournaments.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const ENTRANTS = Number(flag('entrants', '200'));
const RESULTS = Number(flag('results', '80000'));
const REQUESTS = Number(flag('requests', '20'));
const url = flag('database', process.env.SPIELHALLE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
const ID = 't-bench-standings';

/** mulberry32 */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const names = Array.from({ length: ENTRANTS }, (_, i) => `e${String(i).padStart(3, '0')}`);

/** `count` matches of a repeated round robin (circle method), with their schedule ids. */
function season(count: number): { id: string; round: number; index: number; seats: [string, string]; result: MatchResult }[] {
  const random = rng(38);
  const strength = names.map(() => random() * 4 - 2);
  const n = ENTRANTS % 2 === 0 ? ENTRANTS : ENTRANTS + 1;
  const matches: ReturnType<typeof season> = [];
  for (let round = 0; matches.length < count; round++) {
    const rot = round % (n - 1);
    const circle = [0, ...Array.from({ length: n - 1 }, (_, k) => 1 + ((k + rot) % (n - 1)))];
    for (let k = 0; k < n / 2 && matches.length < count; k++) {
      let [i, j] = [circle[k] as number, circle[n - 1 - k] as number];
      if (i >= ENTRANTS || j >= ENTRANTS) continue; // a bye in an odd field
      if (round % 2 === 1) [i, j] = [j, i];
      const p = 1 / (1 + Math.exp((strength[j] as number) - (strength[i] as number)));
      const outcome: SeatOutcome = random() < 0.05 ? 'draw' : random() < p ? 'win' : 'loss';
      const other: SeatOutcome = outcome === 'win' ? 'loss' : outcome === 'loss' ? 'win' : 'draw';
      const pts = (o: SeatOutcome) => (o === 'win' ? 1 : o === 'draw' ? 0.5 : 0);
      const id = `${round + 1}-${k}`;
      const seats: [string, string] = [names[i] as string, names[j] as string];
      matches.push({
        id,
        round: round + 1,
        index: k,
        seats,
        result: {
          id,
          round: round + 1,
          seats: [
            { name: seats[0], outcome, points: pts(outcome), crashed: random() < 0.01 },
            { name: seats[1], outcome: other, points: pts(other), timedOut: random() < 0.01 },
          ],
          reason: 'bench',
        },
      });
    }
  }
  return matches;
}

const quantile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
const ms = (x: number): string => (x < 10 ? x.toFixed(2) : x.toFixed(0));
function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
}
function timed<T>(fn: () => T): [T, number] {
  const t0 = performance.now();
  const value = fn();
  return [value, performance.now() - t0];
}
async function timedAsync<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const value = await fn();
  return [value, performance.now() - t0];
}

const rows: [string, string][] = [];
const report = (what: string, value: string) => {
  rows.push([what, value]);
  process.stderr.write(`${what}: ${value}\n`);
};

const all = season(RESULTS + REQUESTS);
const main = all.slice(0, RESULTS);
const extra = all.slice(RESULTS);
const spec = { name: 'bench', game: 'dame', format: 'round-robin', entrants: names.map((name) => ({ name, kind: 'bot', bot: 'random' })) };

/** The dashboard's routes on a store: a fresh process's (no caches). */
function dashboard(store: Records): FastifyInstance {
  const app: FastifyInstance = Fastify();
  registerTournamentRoutes(app, { store, log: silentLogger });
  return app;
}

/** CPU ms of each request (this process: the route, the store's reads and the JSON). */
const requestCpu: number[] = [];

async function request(app: FastifyInstance, path: string): Promise<number> {
  const t0 = performance.now();
  const cpu = process.cpuUsage();
  const res = await app.inject({ method: 'GET', url: path });
  const t = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  requestCpu.push((used.user + used.system) / 1000);
  if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${res.body}`);
  return t;
}

/** Cold requests, then one more finished match before each request (the refresh of a running tournament). */
async function requests(kind: string, store: Records, finishOne: (m: (typeof extra)[number], at: number) => Promise<void>): Promise<void> {
  const cold = dashboard(store);
  await cold.ready();
  report(`${kind}: GET /api/tournaments/:id, cold (a dashboard just started)`, `${ms(await request(cold, `/api/tournaments/${ID}`))} ms`);
  report(`${kind}: GET /api/tournaments/:id/history, cold`, `${ms(await request(cold, `/api/tournaments/${ID}/history`))} ms`);
  const view: number[] = [];
  const history: number[] = [];
  const viewCpu: number[] = [];
  for (const [k, m] of extra.entries()) {
    await finishOne(m, 2_000_000 + k);
    view.push(await request(cold, `/api/tournaments/${ID}`));
    viewCpu.push(requestCpu.at(-1) ?? 0);
    history.push(await request(cold, `/api/tournaments/${ID}/history`));
  }
  view.sort((a, b) => a - b);
  history.sort((a, b) => a - b);
  viewCpu.sort((a, b) => a - b);
  report(`${kind}: GET /api/tournaments/:id after each new result (${view.length}), p50 / max`, `${ms(quantile(view, 0.5))} / ${ms(view.at(-1) ?? 0)} ms (CPU p50 ${ms(quantile(viewCpu, 0.5))} ms)`);
  report(`${kind}: GET …/history after each new result, p50 / max`, `${ms(quantile(history, 0.5))} / ${ms(history.at(-1) ?? 0)} ms`);
  await cold.close();
}

// ---- SQLite: the coordinator's path, match by match --------------------------------------------
const dir = mkdtempSync(join(tmpdir(), 'spielhalle-bench-standings-'));
const sqlite = new RecordStore(join(dir, 'records.db'));
sqlite.createTournament({ id: ID, name: 'bench', game: 'dame', format: 'round-robin', spec, source: null, status: 'running', createdAt: 1 });
sqlite.addTournamentMatches(ID, all.map((m) => ({ id: m.id, round: m.round, index: m.index, seats: m.seats, seed: 0 })));
const tracker = await StandingsTracker.open(sqlite, ID, names);
const update: number[] = [];
/** CPU time of the same (this process; the machine is shared, so wall time includes waiting for a core). */
const updateCpu: number[] = [];
const fitLeader: number[] = [];
let saves = 0;
let saveMs = 0;
const t0 = performance.now();
for (const [k, m] of main.entries()) {
  sqlite.finishTournamentMatch(ID, m.id, { at: 1_000_000 + k, result: m.result, records: [], output: [] });
  const start = performance.now();
  const cpu = process.cpuUsage();
  await tracker.catchUp();
  const [, fit] = timed(() => tracker.live.leader());
  const beforeSave = performance.now();
  if (await tracker.save(Date.now())) {
    saves++;
    saveMs += performance.now() - beforeSave;
  }
  update.push(performance.now() - start);
  const used = process.cpuUsage(cpu);
  updateCpu.push((used.user + used.system) / 1000);
  fitLeader.push(fit);
}
const feedSeconds = (performance.now() - t0) / 1000;
update.sort((a, b) => a - b);
updateCpu.sort((a, b) => a - b);
fitLeader.sort((a, b) => a - b);
report(`per-match update (cursor read + fold + fit + leader + save ≤ 1/s), ${RESULTS} results: p50 / p99 / max`, `${ms(quantile(update, 0.5))} / ${ms(quantile(update, 0.99))} / ${ms(update.at(-1) ?? 0)} ms`);
report('  the same in CPU time: p50 / p99', `${ms(quantile(updateCpu, 0.5))} / ${ms(quantile(updateCpu, 0.99))} ms`);
report('  of which the warm-started fit and the leader (wall): p50 / p99', `${ms(quantile(fitLeader, 0.5))} / ${ms(quantile(fitLeader, 0.99))} ms`);
report('  fit work', `${(tracker.live.work.steps / RESULTS).toFixed(1)} solves per match, ${tracker.live.work.factorisations} fresh factors`);
report(`  saves (SQLite) during the feed`, `${saves}, ${ms(saveMs / Math.max(1, saves))} ms each`);
report('feeding all results (recording included)', `${feedSeconds.toFixed(1)} s`);

const results = main.map((m) => m.result);
const full = Array.from({ length: 3 }, () => timed(() => tracker.live.standings())[1]);
report('full standings with intervals, from the live state: median of 3', `${ms(median(full))} ms`);
const state = JSON.stringify(tracker.live.toState());
const reader = Array.from({ length: 3 }, () => timed(() => (LiveStandings.fromState(JSON.parse(state), names) as LiveStandings).standings())[1]);
report(`full standings with intervals, from the saved state (${(state.length / 1024).toFixed(0)} KiB JSON): median of 3`, `${ms(median(reader))} ms`);
const scratch = Array.from({ length: 3 }, () => timed(() => computeStandings(results, { entrants: names }))[1]);
report(`computeStandings from scratch (${RESULTS} results, with intervals): median of 3`, `${ms(median(scratch))} ms`);
const live = tracker.live.standings();
const reference = computeStandings(results, { entrants: names });
const maxDiff = Math.max(...reference.rows.map((r) => Math.abs(r.rating - (live.rows.find((x) => x.name === r.name)?.rating ?? Number.NaN))));
report('live vs from scratch: largest rating difference; same order', `${maxDiff.toExponential(1)} Elo; ${String(live.rows.every((r, i) => r.name === reference.rows[i]?.name))}`);

await tracker.save(Date.now(), true);
await requests('SQLite', sqlite, (m, at) => {
  sqlite.finishTournamentMatch(ID, m.id, { at, result: m.result, records: [], output: [] });
  return Promise.resolve();
});
sqlite.close();
rmSync(dir, { recursive: true, force: true });

// ---- PostgreSQL: the same store filled at once ------------------------------------------------
const schema = `bench_standings_${process.pid}`;
let pgStore: PgRecordStore | null = null;
try {
  pgStore = await PgRecordStore.open({ url, schema });
} catch (err) {
  process.stderr.write(`PostgreSQL at ${url} not reachable (${(err as Error).message}): skipped\n`);
}
if (pgStore !== null) {
  const store = pgStore;
  await store.createTournament({ id: ID, name: 'bench', game: 'dame', format: 'round-robin', spec, source: null, status: 'running', createdAt: 1 });
  await store.addTournamentMatches(ID, extra.map((m) => ({ id: m.id, round: m.round, index: m.index, seats: m.seats, seed: 0 })));
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await client.connect();
  const [, fill] = await timedAsync(async () => {
    for (let from = 0; from < main.length; from += 1000) {
      const chunk = main.slice(from, from + 1000);
      const args: unknown[] = [];
      const values = chunk.map((m, k) => {
        args.push(ID, m.id, m.round, m.index, JSON.stringify(m.seats), JSON.stringify(m.result), 1_000_000 + from + k, from + k + 1);
        const b = args.length - 8;
        return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, 0, 0, 'done', $${b + 6}, '[]', '[]', $${b + 7}, $${b + 7}, 'bench', 1, $${b + 8})`;
      });
      await client.query(
        `INSERT INTO tournament_matches (tournament_id, id, round, match_index, seats, seed, bye, status, result, records, output, started_at, ended_at, worker, attempts, finish_seq) VALUES ${values.join(', ')}`,
        args,
      );
    }
  });
  // What autovacuum does to a table that grew this much (the planner's statistics, the visibility map).
  await client.query('VACUUM ANALYZE tournament_matches');
  process.stderr.write(`PostgreSQL: ${main.length} done matches inserted in ${(fill / 1000).toFixed(1)} s\n`);
  const [, save] = await timedAsync(() => store.saveTournamentStandings(ID, { finishSeq: main.length, state: tracker.live.toState(), at: Date.now() }));
  report('PostgreSQL: saving the standings', `${ms(save)} ms`);
  const pgTracker = await StandingsTracker.open(store, ID, names);
  const [, catchUp] = await timedAsync(() => pgTracker.catchUp());
  report('PostgreSQL: a cursor read with nothing new', `${ms(catchUp)} ms`);
  await requests('PostgreSQL', store, async (m, at) => {
    await store.finishTournamentMatch(ID, m.id, { at, result: m.result, records: [], output: [] });
  });
  await client.end();
  await store.close();
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
}

process.stdout.write(
  `\nStandings at season scale: ${ENTRANTS} entrants, ${RESULTS} results (${cpus().length} × ${cpus()[0]?.model ?? '?'}, Node ${process.version}, load ${loadavg()[0]?.toFixed(1) ?? '?'})\n\n`,
);
process.stdout.write('| what | figure |\n|---|---|\n');
for (const [what, value] of rows) process.stdout.write(`| ${what} | ${value} |\n`);
