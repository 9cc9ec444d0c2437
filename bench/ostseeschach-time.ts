/**
 * Ostseeschach: the time our engine uses per move, as the server sees it, under load (issue 35).
 *
 *   npx tsx bench/ostseeschach-time.ts [--games 4] [--hogs 2] [--start-turn 0 [--full-material]] [--time-ms 1700]
 *
 * Our server (the official limits: a move read later than 2000 ms after its `moveRequest` is a
 * SOFT_TIMEOUT) and two `node dist/cli.js bot ostseeschach` processes per game — the command
 * students and tournaments run, with its default budget — while `--hogs` processes spin on the
 * two cores. Every move's time is the server's: from writing the `moveRequest` to reading the
 * move (the room's `move` events). Prints mean, p50, p95 and max, soft timeouts, and how many moves
 * came within 150 ms of the limit. Needs dist/ (`node scripts/build.mjs --server-only`).
 *
 * `--start-turn N` starts each game from a position reached by seeded quick self-play (the heavy
 * test uses a late start, to keep its run short); with `--full-material`, from the seeded start
 * layout with the turn counter at N instead (every move of the short game needs thought).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Rng } from '../src/core/rng.js';
import { silentLogger } from '../src/core/log.js';
import { RecordStore } from '../src/core/records.js';
import { createEngineBot } from '../src/games/ostseeschach/bots/index.js';
import { apply, isOver, type State } from '../src/games/ostseeschach/rules.js';
import { createOstseeschachServer } from '../src/games/ostseeschach/server.js';
import { createStart, fromPosition } from '../src/games/ostseeschach/setup.js';

const root = fileURLToPath(new URL('..', import.meta.url));

export interface TimedMove {
  readonly game: number;
  readonly team: string;
  readonly turn: number;
  readonly elapsedMs: number;
}

export interface TimedRun {
  readonly moves: TimedMove[];
  readonly softTimeouts: number;
  /** Each client's last stdout line (its outcome) and exit code. */
  readonly clients: { code: number | null; line: string; stderr: string }[];
  readonly games: number;
}

export interface TimedRunOptions {
  readonly games: number;
  readonly hogs: number;
  readonly budgetMs?: number | undefined;
  readonly startTurn?: number | undefined;
  /** Start from the seeded start layout with the turn counter at `startTurn` (full material, no ambers) instead of self-play. */
  readonly fullMaterial?: boolean | undefined;
  readonly seed?: string | undefined;
  /** Per client process; it is killed after this (default 10 minutes). */
  readonly clientTimeoutMs?: number | undefined;
}

/** The seeded start layout, all pieces on their first rows, with the turn counter at `turn`: a short game whose moves all need thought. */
export function lateStart(seed: string, turn: number): State {
  const start = createStart(Rng.seeded(seed));
  const r = fromPosition({ turn: turn - (turn % 2), ambers: { ONE: 0, TWO: 0 }, pieces: start.pieces });
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

/** A position `turn` plies into a seeded game of quick self-play (the engine at 3000 nodes a move). */
export function selfPlayPosition(seed: string, turn: number): State {
  const rng = Rng.seeded(seed);
  let state = createStart(rng);
  const bot = createEngineBot({ maxNodes: 3000 });
  while (!isOver(state) && state.turn < turn) {
    const next = apply(state, bot(state, 1000, rng));
    if (!next.ok) break;
    state = next.value;
  }
  return state;
}

function runClient(port: number, budgetMs: number | undefined, timeoutMs: number): Promise<{ code: number | null; line: string; stderr: string }> {
  const args = [join(root, 'dist', 'cli.js'), 'bot', 'ostseeschach', '-h', '127.0.0.1', '-p', String(port)];
  if (budgetMs !== undefined) args.push('--time-ms', String(budgetMs));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, line: out.trim().split('\n').at(-1) ?? '', stderr: err });
    });
  });
}

export async function runTimedGames(o: TimedRunOptions): Promise<TimedRun> {
  const seed = o.seed ?? 'ostseeschach-time';
  const store = new RecordStore(':memory:');
  const server = createOstseeschachServer({
    port: 0,
    seed,
    log: silentLogger,
    store,
    ...(o.startTurn ? { startPosition: (i: number) => (o.fullMaterial ? lateStart : selfPlayPosition)(`${seed}-${i}`, o.startTurn!) } : {}),
  });
  await server.start();
  const port = server.port;
  const hogs: ChildProcess[] = Array.from({ length: o.hogs }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  const clients: TimedRun['clients'] = [];
  try {
    for (let g = 0; g < o.games; g++) {
      const pair = [runClient(port, o.budgetMs, o.clientTimeoutMs ?? 600_000)];
      // The second joins a moment later: both fill the room the first one's join made.
      await new Promise((r) => setTimeout(r, 200));
      pair.push(runClient(port, o.budgetMs, o.clientTimeoutMs ?? 600_000));
      clients.push(...(await Promise.all(pair)));
    }
  } finally {
    for (const h of hogs) h.kill('SIGKILL');
    await server.stop();
  }
  const moves: TimedMove[] = [];
  let softTimeouts = 0;
  const matches = store.listMatches({ game: 'ostseeschach' }).sort((a, b) => a.startedAt - b.startedAt);
  matches.forEach((m, game) => {
    for (const e of store.getMatch(m.id)?.events ?? []) {
      const data = e.data as { turn?: number; elapsedMs?: number };
      if (e.type === 'move' && typeof data.elapsedMs === 'number') {
        moves.push({ game, team: e.seat === 0 ? 'ONE' : 'TWO', turn: data.turn ?? -1, elapsedMs: data.elapsedMs });
      }
      if (e.type === 'softTimeout') softTimeouts++;
    }
  });
  await store.drain();
  store.close();
  return { moves, softTimeouts, clients, games: matches.length };
}

export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function main(): Promise<void> {
  const flag = (name: string, fallback: string): string => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
  };
  const games = Number(flag('games', '4'));
  const hogs = Number(flag('hogs', '2'));
  const startTurn = Number(flag('start-turn', '0'));
  const fullMaterial = process.argv.includes('--full-material');
  const budget = flag('time-ms', '');
  const budgetMs = budget === '' ? undefined : Number(budget);
  console.log(`# Ostseeschach time per move: ${games} games of \`bot ostseeschach\`${budgetMs ? ` --time-ms ${budgetMs}` : ' (default budget)'} against itself, ${hogs} CPU hogs beside`);
  console.log(`node ${process.version}, ${cpus()[0]?.model ?? 'cpu'} ×${cpus().length}, load at start ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
  const t0 = performance.now();
  const run = await runTimedGames({ games, hogs, budgetMs, startTurn, fullMaterial });
  const ms = run.moves.map((m) => m.elapsedMs).sort((a, b) => a - b);
  const mean = ms.reduce((a, b) => a + b, 0) / Math.max(1, ms.length);
  const near = ms.filter((x) => x > 1850).length;
  console.log('| games | moves | mean ms | p50 | p95 | max | > 1850 ms | soft timeouts |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
  console.log(`| ${run.games} | ${ms.length} | ${mean.toFixed(0)} | ${quantile(ms, 0.5).toFixed(0)} | ${quantile(ms, 0.95).toFixed(0)} | ${(ms.at(-1) ?? NaN).toFixed(0)} | ${near} | ${run.softTimeouts} |`);
  const bad = run.clients.filter((c) => c.code !== 0);
  console.log(`\n${(performance.now() - t0) / 1000 | 0} s; load at end ${loadavg().map((l) => l.toFixed(2)).join(' ')}; clients that failed: ${bad.length}`);
  for (const c of bad) console.log(`  exit ${c.code}: ${c.line} ${c.stderr.slice(0, 300)}`);
  if (run.softTimeouts > 0 || bad.length > 0) process.exitCode = 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
