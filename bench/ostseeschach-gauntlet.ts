/**
 * Ostseeschach gauntlet (issue 35): our engine against earlier versions of itself and the simpler
 * bots, at equal think time, with the Elo difference and its 95 % interval.
 *
 *   npx tsx bench/ostseeschach-gauntlet.ts [--games 40] [--ms 200] [--jobs 2] [--seed S]
 *       [--opponents rev:97becf9,depth2,greedy,random,engine@50]
 *
 * Opponents:
 * - `rev:<commit>`: our engine as it was at that commit (its `src/` taken from git with
 *   `git archive` into a temporary folder and imported from there), at the same time per move.
 *   97becf9 is the engine before issue 35's time management.
 * - `depth2`, `greedy`, `random`: the simple bots.
 * - `engine@<ms>`: today's engine at another time per move (time odds).
 *
 * Each opponent plays `--games` games (rounded up to pairs): every seeded start layout twice, once
 * with each colour, so that a lopsided layout cancels out. Games are in-process (no sockets), spread
 * over `--jobs` processes; each engine gets `--ms` per move and keeps its table for the game. A
 * win counts 1, a draw ½. Elo difference from the score s: −400·log10(1/s − 1); the interval from
 * the games' own variance (normal approximation of the mean score, 95 %), so it widens with draws
 * rare and games few. LOS: the likelihood that ours is the stronger, from wins and losses.
 */
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Rng } from '../src/core/rng.js';
import { createEngineBot, depth2Bot, randomBot, type Bot } from '../src/games/ostseeschach/bots/index.js';
import { greedyBot } from '../src/games/ostseeschach/bots/greedy.js';
import { gameWinner, playGame } from '../src/games/ostseeschach/bots/play.js';
import { createStart } from '../src/games/ostseeschach/setup.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const self = fileURLToPath(import.meta.url);

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

interface GameResult {
  readonly index: number;
  /** Our engine's score: 1, ½ or 0. */
  readonly score: number;
  readonly plies: number;
  readonly invalid: string | null;
  readonly slowestMs: number;
}

type Maker = () => Bot;

/** Our engine at the given commit: its sources from git into a temporary folder. */
async function engineAt(rev: string, dirs: string[]): Promise<(ms: number) => Maker> {
  const dir = mkdtempSync(join(tmpdir(), 'gauntlet-'));
  dirs.push(dir);
  const tar = execFileSync('git', ['-C', root, 'archive', '--format=tar', rev, 'src'], { maxBuffer: 1 << 28 });
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  const mod = (await import(pathToFileURL(join(dir, 'src', 'games', 'ostseeschach', 'bots', 'engine.ts')).href)) as {
    createEngineBot: () => Bot;
  };
  return () => () => mod.createEngineBot();
}

async function opponent(spec: string, ms: number, dirs: string[]): Promise<{ make: Maker; ms: number }> {
  if (spec.startsWith('rev:')) return { make: (await engineAt(spec.slice(4), dirs))(ms), ms };
  if (spec.startsWith('engine@')) return { make: () => createEngineBot(), ms: Number(spec.slice(7)) };
  const simple: Record<string, Bot> = { depth2: depth2Bot, greedy: greedyBot, random: randomBot };
  const bot = simple[spec];
  if (!bot) throw new Error(`unknown opponent ${spec} (rev:<commit>, engine@<ms>, depth2, greedy, random)`);
  return { make: () => bot, ms };
}

/** Plays the given game indices: game i starts from layout ⌊i/2⌋, ours is ONE when i is even. */
async function worker(spec: string, ms: number, seed: string, indices: number[]): Promise<void> {
  const dirs: string[] = [];
  try {
    const other = await opponent(spec, ms, dirs);
    for (const index of indices) {
      const start = createStart(Rng.seeded(`${seed}-${index >> 1}`));
      const ours = createEngineBot();
      const theirs = other.make();
      const oursOne = index % 2 === 0;
      // Each side thinks its own time: the opponent's budget may differ (engine@ms).
      const timed = (bot: Bot, budget: number): Bot => (state, _b, rng) => bot(state, budget, rng);
      const a = timed(ours, ms);
      const b = timed(theirs, other.ms);
      const record = playGame(start, oursOne ? { ONE: a, TWO: b } : { ONE: b, TWO: a }, ms, Rng.seeded(`${seed}-${index}`));
      const winner = gameWinner(record);
      const us = oursOne ? 'ONE' : 'TWO';
      const ourMs = record.moveMs.filter((_, i) => (i % 2 === 0) === (oursOne === (start.turn % 2 === 0)));
      const result: GameResult = {
        index,
        score: winner === null ? 0.5 : winner === us ? 1 : 0,
        plies: record.moves.length,
        invalid: record.invalid ? `${record.invalid.team} ${record.invalid.move} ${record.invalid.code}` : null,
        slowestMs: Math.max(0, ...ourMs),
      };
      process.stdout.write(`${JSON.stringify(result)}\n`);
    }
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

function runJob(spec: string, ms: number, seed: string, indices: number[]): Promise<GameResult[]> {
  return new Promise((resolve, reject) => {
    const args = [...process.execArgv, self, '--worker', JSON.stringify({ spec, ms, seed, indices })];
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`gauntlet worker for ${spec} exited ${code}`));
      resolve(
        out
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as GameResult),
      );
    });
  });
}

/** Elo from a mean score, clamped away from 0 and 1 so that a clean sweep stays finite. */
export function eloOf(score: number, games: number): number {
  const s = Math.min(1 - 0.5 / games, Math.max(0.5 / games, score));
  return -400 * Math.log10(1 / s - 1);
}

/** Elo difference with a 95 % interval and LOS from W/D/L. */
export function eloSummary(w: number, d: number, l: number): { score: number; elo: number; low: number; high: number; los: number } {
  const n = w + d + l;
  const score = (w + d / 2) / n;
  const own = (w * (1 - score) ** 2 + d * (0.5 - score) ** 2 + l * score ** 2) / n;
  // A clean sweep (or all draws) has no variance of its own: take a win/loss one half a game from the edge.
  const s = Math.min(1 - 0.5 / n, Math.max(0.5 / n, score));
  const variance = own > 0 ? own : s * (1 - s);
  const se = Math.sqrt(variance / n);
  const los = w + l === 0 ? 0.5 : 0.5 * (1 + erf((w - l) / Math.sqrt(2 * (w + l))));
  return { score, elo: eloOf(score, n), low: eloOf(score - 1.96 * se, n), high: eloOf(score + 1.96 * se, n), los };
}

function erf(x: number): number {
  // Abramowitz–Stegun 7.1.26, |error| < 1.5e-7.
  const t = 1 / (1 + 0.3275911 * Math.abs(x));
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return x >= 0 ? y : -y;
}

async function main(): Promise<void> {
  const games = Math.max(2, 2 * Math.ceil(Number(flag('games', '40')) / 2));
  const ms = Number(flag('ms', '200'));
  const jobs = Math.max(1, Number(flag('jobs', String(Math.min(2, cpus().length)))));
  const seed = flag('seed', 'ostseeschach-gauntlet');
  const specs = flag('opponents', 'rev:97becf9,depth2,greedy,random,engine@50').split(',');
  console.log(`# Ostseeschach gauntlet: ${games} games per opponent, ${ms} ms per move, ${jobs} processes`);
  console.log(`node ${process.version}, ${cpus()[0]?.model ?? 'cpu'} ×${cpus().length}, load at start ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
  console.log('| opponent | games | W / D / L | score | Elo diff (95 % interval) | LOS | invalid moves | slowest move of ours | mean plies |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  let failed = false;
  for (const spec of specs) {
    const t0 = performance.now();
    const indices = Array.from({ length: games }, (_, i) => i);
    // Pairs stay together in a job (both colours of a layout see the same machine load).
    const parts = Array.from({ length: jobs }, (_, j) => indices.filter((i) => (i >> 1) % jobs === j)).filter((p) => p.length > 0);
    const results = (await Promise.all(parts.map((p) => runJob(spec, ms, seed, p)))).flat();
    const w = results.filter((r) => r.score === 1).length;
    const d = results.filter((r) => r.score === 0.5).length;
    const l = results.filter((r) => r.score === 0).length;
    const e = eloSummary(w, d, l);
    const invalid = results.filter((r) => r.invalid !== null);
    if (invalid.some((r) => r.score === 0)) failed = true;
    const slowest = Math.max(...results.map((r) => r.slowestMs));
    const plies = results.reduce((a, r) => a + r.plies, 0) / results.length;
    const fmt = (x: number): string => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${x.toFixed(0)}` : x > 0 ? '+∞' : '−∞');
    console.log(
      `| ${spec} | ${results.length} | ${w} / ${d} / ${l} | ${(e.score * 100).toFixed(1)} % | ${fmt(e.elo)} (${fmt(e.low)} … ${fmt(e.high)}) | ${(e.los * 100).toFixed(1)} % | ${invalid.length} | ${slowest.toFixed(0)} ms | ${plies.toFixed(1)} |`,
    );
    if (process.env.GAUNTLET_VERBOSE) console.error(`${spec}: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  console.log(`\nload at end ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  if (failed) process.exitCode = 1;
}

const w = process.argv.indexOf('--worker');
if (w >= 0) {
  const job = JSON.parse(process.argv[w + 1]!) as { spec: string; ms: number; seed: string; indices: number[] };
  await worker(job.spec, job.ms, job.seed, job.indices);
} else if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main();
}
