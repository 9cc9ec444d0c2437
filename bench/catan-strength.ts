/**
 * Strength of the Catan bots (issue 8): seeded 4-player games in-process through the CatanBot
 * interface, every bot seeing only its client view (src/games/catan/bots/arena.ts), on a pool of
 * worker threads.
 *
 *   npx tsx bench/catan-strength.ts [--games 1000] [--vs search:weighted,search:random]
 *       [--workers 2] [--seed S] [--depth 3] [--beam 4] [--samples 6] [--opening 8]
 *       [--accept-margin 40] [--width 3] [--next-depth 0] [--offers 4]
 *       [--search '{"offerPlan":3}'] [--no-trades] [--weights '{"enemy":0.3}']
 *
 * The search options not given keep their defaults (SEARCH_DEFAULTS, DEFAULT_WEIGHTS).
 *
 * A matchup `A:B` seats one A against three B. Game i puts A at turn position i mod 4 (the order
 * is fixed, so positions rotate evenly), on the board of seed `<seed>/<i>`, the same boards for
 * every matchup. Reports A's win rate with a 95 % Wilson interval, games per second (wall, all
 * workers together), average turns, refusals (Fehler a server would send) and driver fallbacks,
 * and decision times p50/p99/max per strategy. `greedy` is the search bot one ply deep.
 */
import { cpus, loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { SEARCH_DEFAULTS } from '../src/games/catan/bots/search.js';
import type { Weights } from '../src/games/catan/bots/value.js';
import { workerUrl } from '../src/core/worker-url.js';
import type { StrengthJob, StrengthResult } from './catan-strength-worker.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const games = Number(flag('games', '1000'));
const workers = Number(flag('workers', '2'));
const seed = flag('seed', 'catan-strength');
const matchups = flag('vs', 'search:weighted,search:random')
  .split(',')
  .filter((m) => m !== '')
  .map((m) => {
    const [a, b] = m.split(':');
    if (!a || !b) throw new Error(`--vs wants A:B, got ${m}`);
    return { hero: a, foe: b };
  });
/** The search budget: SEARCH_DEFAULTS, with what the flags change (`--search '{…}'` for any option). */
const numeric = (name: string, key: keyof typeof SEARCH_DEFAULTS): Record<string, number> => (process.argv.includes(`--${name}`) ? { [key]: Number(flag(name, '0')) } : {});
const search: StrengthJob['search'] = {
  ...SEARCH_DEFAULTS,
  ...numeric('depth', 'depth'),
  ...numeric('beam', 'beam'),
  ...numeric('samples', 'samples'),
  ...numeric('opening', 'opening'),
  ...numeric('accept-margin', 'acceptMargin'),
  ...numeric('width', 'width'),
  ...numeric('next-depth', 'nextDepth'),
  ...numeric('offers', 'offers'),
  ...(JSON.parse(flag('search', '{}')) as Record<string, number>),
  trades: !process.argv.includes('--no-trades'),
  weights: JSON.parse(flag('weights', '{}')) as Partial<Weights>,
};

/** Wilson score interval, 95 %. */
function wilson(wins: number, n: number): [number, number] {
  if (n === 0) return [0, 0];
  const z = 1.96;
  const p = wins / n;
  const d = 1 + (z * z) / n;
  const c = p + (z * z) / (2 * n);
  const m = z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return [(c - m) / d, (c + m) / d];
}

function quantile(sorted: Float64Array, q: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;

async function run(url: URL, jobs: StrengthJob[], onResult: (r: StrengthResult) => void): Promise<void> {
  let next = 0;
  const pool = Array.from({ length: Math.min(workers, jobs.length) }, () => new Worker(url));
  await Promise.all(
    pool.map(
      (w) =>
        new Promise<void>((resolve, reject) => {
          const feed = (): void => {
            const job = jobs[next++];
            if (job) w.postMessage(job);
            else void w.terminate().then(() => resolve());
          };
          w.on('message', (r: StrengthResult) => {
            onResult(r);
            feed();
          });
          w.on('error', reject);
          feed();
        }),
    ),
  );
}

async function main(): Promise<void> {
  const url = await workerUrl(import.meta.url, 'catan-strength-worker');
  console.log(
    `catan-strength: ${games} games per matchup, ${workers} workers, seed ${seed}; ${cpus().length} × ${cpus()[0]?.model ?? '?'}, ` +
      `Node ${process.version}, load ${loadavg().map((l) => l.toFixed(1)).join(' / ')}, ${new Date().toISOString()}`,
  );
  console.log(`search options: ${JSON.stringify(search)}`);
  console.log();
  console.log('| matchup | games | A wins | A win rate (95 % CI) | capped | turns/game | games/s | refused | fallbacks |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  const times = new Map<string, number[]>();
  const refusals = new Map<string, number>();
  const nodes = new Map<string, number>();
  for (const { hero, foe } of matchups) {
    const jobs: StrengthJob[] = Array.from({ length: games }, (_, i) => {
      const at = i % 4;
      return { id: i, seed: `${seed}/${i}`, lineup: [0, 1, 2, 3].map((k) => (k === at ? hero : foe)), search };
    });
    let wins = 0;
    let capped = 0;
    let turns = 0;
    let refused = 0;
    let fallbacks = 0;
    const t0 = performance.now();
    await run(url, jobs, (r) => {
      const at = r.id % 4;
      if (r.winner === at) wins++;
      if (r.winner === null) capped++;
      turns += r.turns;
      r.seats.forEach((s, k) => {
        const name = k === at ? hero : foe;
        let list = times.get(name);
        if (!list) times.set(name, (list = []));
        for (const t of s.times) list.push(t);
        refused += s.refused;
        nodes.set(name, (nodes.get(name) ?? 0) + s.nodes);
        for (const [code, count] of Object.entries(s.refusedCodes)) refusals.set(`${name}: ${code}`, (refusals.get(`${name}: ${code}`) ?? 0) + count);
        fallbacks += s.fallbacks;
      });
    });
    const wall = (performance.now() - t0) / 1000;
    const [lo, hi] = wilson(wins, games);
    console.log(
      `| ${hero} vs 3 × ${foe} | ${games} | ${wins} | ${pct(wins / games)} (${pct(lo)} – ${pct(hi)}) | ${capped} | ${(turns / games).toFixed(1)} | ` +
        `${(games / wall).toFixed(2)} | ${refused} | ${fallbacks} |`,
    );
  }
  if (refusals.size > 0) console.log(`\nrefused: ${[...refusals].map(([k, n]) => `${k} × ${n}`).join(', ')}`);
  console.log();
  console.log('| strategy | decisions | p50 ms | p99 ms | max ms | positions valued per decision |');
  console.log('|---|---|---|---|---|---|');
  for (const [name, list] of times) {
    const sorted = Float64Array.from(list).sort();
    const perDecision = (nodes.get(name) ?? 0) / Math.max(1, sorted.length);
    console.log(
      `| ${name} | ${sorted.length} | ${quantile(sorted, 0.5).toFixed(2)} | ${quantile(sorted, 0.99).toFixed(2)} | ${quantile(sorted, 1).toFixed(2)} | ${perDecision > 0 ? perDecision.toFixed(0) : '–'} |`,
    );
  }
}

await main();
