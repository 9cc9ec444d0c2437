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
 * - `ext:<path>`: an external program (e.g. a bridge to a public SC2022 bot, built outside the
 *   repository) speaking a line protocol on stdin/stdout, one process per worker job:
 *   `new` (a new game: clear its tables; answers `ok`) and
 *   `go <ms> <turn> <b0> … <b7> <stacked> <ambers>` (the position as `rustFen` in
 *   bench/ostseeschach-positions.ts prints it: the piece bitboards of ONE then TWO in the order
 *   Herzmuschel, Moewe, Seestern, Robbe, bit x + 8·y; towers; ambers ONE | TWO << 4), answered by `move <fx> <fy> <tx> <ty>`. Other output lines are
 *   ignored (a search log). Its wall time per move is measured here; an illegal move, a garbled
 *   answer, or no answer within 5·ms + 5 s counts as its loss.
 *
 * Each opponent plays `--games` games (rounded up to pairs): every seeded start layout twice, once
 * with each colour, so that a lopsided layout cancels out. Games are in-process (no sockets), spread
 * over `--jobs` processes; each engine gets `--ms` per move and keeps its table for the game. A
 * win counts 1, a draw ½. Elo difference from the score s: −400·log10(1/s − 1); the interval from
 * the games' own variance (normal approximation of the mean score, 95 %), so it widens with draws
 * rare and games few. LOS: the likelihood that ours is the stronger, from wins and losses.
 */
import { spawn, execFileSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Rng } from '../src/core/rng.js';
import { moveName, type Move, type Team } from '../src/games/ostseeschach/board.js';
import { createEngineBot, depth2Bot, randomBot, type Bot } from '../src/games/ostseeschach/bots/index.js';
import { greedyBot } from '../src/games/ostseeschach/bots/greedy.js';
import { playGame } from '../src/games/ostseeschach/bots/play.js';
import { apply, status, toMove, type State, type Status } from '../src/games/ostseeschach/rules.js';
import { createStart } from '../src/games/ostseeschach/setup.js';
import { rustFen } from './ostseeschach-positions.js';

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
  /** The opponent's slowest move (wall time, ms) and the sides' total think time. */
  readonly theirSlowestMs: number;
  readonly ourTotalMs: number;
  readonly theirTotalMs: number;
  readonly ourMoves: number;
  readonly theirMoves: number;
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
  if (!bot) throw new Error(`unknown opponent ${spec} (rev:<commit>, engine@<ms>, ext:<path>, depth2, greedy, random)`);
  return { make: () => bot, ms };
}


/** An external engine process speaking the `new` / `go` line protocol (see the header). */
class External {
  private child: ChildProcessWithoutNullStreams;
  private buffer = '';
  private waiting: { prefix: string; resolve: (line: string) => void; reject: (e: Error) => void } | null = null;
  private exited: string | null = null;

  constructor(private readonly path: string) {
    this.child = this.start();
  }

  private start(): ChildProcessWithoutNullStreams {
    this.buffer = '';
    this.exited = null;
    const child = spawn(this.path, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdout.on('data', (d: Buffer) => {
      if (child !== this.child) return;
      this.buffer += d.toString();
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, nl).trim();
        this.buffer = this.buffer.slice(nl + 1);
        if (this.waiting && line.startsWith(this.waiting.prefix)) {
          const w = this.waiting;
          this.waiting = null;
          w.resolve(line);
        }
      }
    });
    child.stderr.on('data', (d: Buffer) => process.stderr.write(d));
    child.stdin.on('error', () => undefined);
    child.on('exit', (code, signal) => {
      if (child !== this.child) return;
      this.exited ??= `${this.path} exited ${code ?? signal}`;
      const w = this.waiting;
      this.waiting = null;
      w?.reject(new Error(this.exited));
    });
    child.on('error', (e) => {
      if (child !== this.child) return;
      this.exited ??= `${this.path}: ${e.message}`;
      const w = this.waiting;
      this.waiting = null;
      w?.reject(e);
    });
    return child;
  }

  /**
   * Sends one command and waits for its answer line (`ok` to `new`, `move …` to `go`); rejects on
   * exit or after `timeoutMs`, and then kills the process (the next `newGame` starts a fresh one).
   */
  request(command: string, timeoutMs: number): Promise<string> {
    if (this.exited) return Promise.reject(new Error(this.exited));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = null;
        this.exited = `no answer to "${command.split(' ')[0]}" within ${timeoutMs} ms`;
        this.child.kill('SIGKILL');
        reject(new Error(this.exited));
      }, timeoutMs);
      this.waiting = {
        prefix: command === 'new' ? 'ok' : 'move ',
        resolve: (line) => (clearTimeout(timer), resolve(line)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      };
      this.child.stdin.write(`${command}\n`);
    });
  }

  /** A new game: clears its tables (restarts the process if it died or hung). */
  async newGame(): Promise<void> {
    if (this.exited) {
      this.close();
      this.child = this.start();
    }
    await this.request('new', 30_000);
  }

  close(): void {
    this.child.stdin.end();
    this.child.kill('SIGKILL');
  }
}

interface AsyncRecord {
  readonly moves: readonly Move[];
  readonly status: Status;
  readonly moveMs: readonly number[];
  readonly invalid: { readonly team: Team; readonly move: string; readonly code: string } | null;
}

/** `playGame` with one side an external process (async); the same rules, a bad answer loses. */
async function playExternal(start: State, ours: Bot, ourTeam: Team, ext: External, ms: number, rng: Rng): Promise<AsyncRecord> {
  let state = start;
  const moves: Move[] = [];
  const moveMs: number[] = [];
  while (status(state).kind === 'running') {
    const team = toMove(state);
    const t0 = performance.now();
    let move: Move;
    if (team === ourTeam) {
      move = ours(state, ms, rng);
      moveMs.push(performance.now() - t0);
    } else {
      let line: string;
      try {
        line = await ext.request(`go ${ms} ${rustFen(state)}`, 5 * ms + 5000);
      } catch (e) {
        moveMs.push(performance.now() - t0);
        return { moves, status: status(state), moveMs, invalid: { team, move: '-', code: `NO_ANSWER ${(e as Error).message}` } };
      }
      moveMs.push(performance.now() - t0);
      const n = line.split(' ').slice(1).map(Number);
      if (n.length !== 4 || n.some((v) => !Number.isInteger(v))) {
        return { moves, status: status(state), moveMs, invalid: { team, move: line, code: 'GARBLED' } };
      }
      move = { from: { x: n[0]!, y: n[1]! }, to: { x: n[2]!, y: n[3]! } };
    }
    const r = apply(state, move);
    if (!r.ok) return { moves, status: status(state), moveMs, invalid: { team, move: moveName(move), code: r.error.code } };
    moves.push(move);
    state = r.value;
  }
  return { moves, status: status(state), moveMs, invalid: null };
}

/** As `gameWinner` (bots/play.ts): by rule violation, else the regular result; null on a draw. */
function winnerOf(g: AsyncRecord): Team | null {
  if (g.invalid) return g.invalid.team === 'ONE' ? 'TWO' : 'ONE';
  return g.status.kind === 'ended' ? g.status.winner : null;
}

function resultOf(index: number, start: State, oursOne: boolean, g: AsyncRecord): GameResult {
  const winner = winnerOf(g);
  const us = oursOne ? 'ONE' : 'TWO';
  // Move i is ONE's when start.turn + i is even.
  const mine = (i: number): boolean => ((start.turn + i) % 2 === 0) === oursOne;
  const ourMs = g.moveMs.filter((_, i) => mine(i));
  const theirMs = g.moveMs.filter((_, i) => !mine(i));
  const sum = (a: number[]): number => a.reduce((x, y) => x + y, 0);
  return {
    index,
    score: winner === null ? 0.5 : winner === us ? 1 : 0,
    plies: g.moves.length,
    invalid: g.invalid ? `${g.invalid.team === us ? 'ours' : 'theirs'} (${g.invalid.team}) ${g.invalid.move} ${g.invalid.code}` : null,
    slowestMs: Math.max(0, ...ourMs),
    theirSlowestMs: Math.max(0, ...theirMs),
    ourTotalMs: sum(ourMs),
    theirTotalMs: sum(theirMs),
    ourMoves: ourMs.length,
    theirMoves: theirMs.length,
  };
}

/** Plays the given game indices against an external program (one process for the whole job). */
async function externalWorker(path: string, ms: number, seed: string, indices: number[]): Promise<void> {
  const ext = new External(path);
  try {
    for (const index of indices) {
      const start = createStart(Rng.seeded(`${seed}-${index >> 1}`));
      const oursOne = index % 2 === 0;
      await ext.newGame();
      const g = await playExternal(start, createEngineBot(), oursOne ? 'ONE' : 'TWO', ext, ms, Rng.seeded(`${seed}-${index}`));
      process.stdout.write(`${JSON.stringify(resultOf(index, start, oursOne, g))}\n`);
    }
  } finally {
    ext.close();
  }
}

/** Plays the given game indices: game i starts from layout ⌊i/2⌋, ours is ONE when i is even. */
async function worker(spec: string, ms: number, seed: string, indices: number[]): Promise<void> {
  if (spec.startsWith('ext:')) return externalWorker(spec.slice(4), ms, seed, indices);
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
      process.stdout.write(`${JSON.stringify(resultOf(index, start, oursOne, record))}\n`);
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
  // An external program must exist before games start (else every worker would fail on its own).
  for (const spec of specs) if (spec.startsWith('ext:')) accessSync(spec.slice(4), constants.X_OK);
  console.log(`# Ostseeschach gauntlet: ${games} games per opponent, ${ms} ms per move, ${jobs} processes`);
  console.log(`node ${process.version}, ${cpus()[0]?.model ?? 'cpu'} ×${cpus().length}, load at start ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
  console.log(
    '| opponent | games | W / D / L | score | Elo diff (95 % interval) | LOS | invalid moves | slowest move of ours / theirs | mean move ours / theirs | mean plies |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  let failed = false;
  const notes: string[] = [];
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
    for (const r of invalid) notes.push(`${spec} game ${r.index}: invalid move by ${r.invalid}`);
    const slowest = Math.max(...results.map((r) => r.slowestMs));
    const theirSlowest = Math.max(...results.map((r) => r.theirSlowestMs));
    const mean = (t: number, n: number): string => (n > 0 ? (t / n).toFixed(0) : '-');
    const ourMean = mean(
      results.reduce((a, r) => a + r.ourTotalMs, 0),
      results.reduce((a, r) => a + r.ourMoves, 0),
    );
    const theirMean = mean(
      results.reduce((a, r) => a + r.theirTotalMs, 0),
      results.reduce((a, r) => a + r.theirMoves, 0),
    );
    const plies = results.reduce((a, r) => a + r.plies, 0) / results.length;
    const fmt = (x: number): string => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${x.toFixed(0)}` : x > 0 ? '+∞' : '−∞');
    console.log(
      `| ${spec} | ${results.length} | ${w} / ${d} / ${l} | ${(e.score * 100).toFixed(1)} % | ${fmt(e.elo)} (${fmt(e.low)} … ${fmt(e.high)}) | ${(e.los * 100).toFixed(1)} % | ${invalid.length} | ${slowest.toFixed(0)} / ${theirSlowest.toFixed(0)} ms | ${ourMean} / ${theirMean} ms | ${plies.toFixed(1)} |`,
    );
    if (process.env.GAUNTLET_VERBOSE) {
      console.error(`${spec}: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      // Per game: layout (index >> 1), our colour, our score, plies, both sides' slowest move.
      for (const r of [...results].sort((x, y) => x.index - y.index)) {
        console.error(
          `  game ${r.index} layout ${r.index >> 1} ours ${r.index % 2 === 0 ? 'ONE' : 'TWO'}: ${r.score} in ${r.plies} plies, slowest ${r.slowestMs.toFixed(0)} / ${r.theirSlowestMs.toFixed(0)} ms${r.invalid ? `, invalid: ${r.invalid}` : ''}`,
        );
      }
    }
  }
  for (const n of notes) console.log(`\n- ${n}`);
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
