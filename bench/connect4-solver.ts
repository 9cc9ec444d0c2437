/**
 * Speed of the Connect Four solver on Pons' test sets, against his published C++ figures.
 *
 *   npx tsx bench/connect4-solver.ts [--set end|middle|medium|begin|all] [--limit N] [--table-log L] [--engine wasm|ts|both]
 *   npx tsx bench/connect4-solver.ts --empty [--max-minutes M] [--engine wasm|ts]
 *   npx tsx bench/connect4-solver.ts --selfplay [--games N] [--seed S]
 *
 * `--engine` picks the search: the WebAssembly core (assembly/connect4/, built by `npm run build`
 * into dist/wasm/) or the TypeScript reference; the sets run with both by default and print the
 * ratio of their CPU times. Without the built core only the TypeScript search runs.
 *
 * Per set, two passes:
 * - "fresh table": after a warm-up (the first 200 positions, so the JIT has compiled the search),
 *   every position solved with a freshly reset table and the solve alone timed (wall clock), as
 *   Pons' benchmark does; its mean nodes are comparable with his (they depend on the algorithm,
 *   not the machine);
 * - "continuous": after one table reset, the whole set solved in one go without resets, timed as
 *   wall time and as CPU time of this process (less disturbed by other processes on a shared
 *   machine; the per-position resets of 64 MB would dwarf an End-Easy solve).
 *
 * `--selfplay` plays N (default 100) seeded games of the perfect bot against itself with the
 * opening book and no time budget, and reports the mean and the worst time per move (wall clock
 * and CPU time of this process), and the worst by number of stones.
 *
 * `--empty` solves the empty board without the book, with a progress line every minute; after
 * `--max-minutes` (default 90) of CPU time it stops and prints the lower bound and the node rate.
 */
import { readFileSync } from 'node:fs';
import { Position } from '../src/games/connect4/solver/position.js';
import { Rng } from '../src/core/rng.js';
import { chooseMove } from '../src/games/connect4/bots/index.js';
import { apply, initialState, status } from '../src/games/connect4/rules.js';
import { defaultSolver, openingBook, wasmPath } from '../src/games/connect4/solver/index.js';
import { SearchAborted, Solver, type Engine } from '../src/games/connect4/solver/solver.js';

interface SetInfo {
  key: string;
  file: string;
  name: string;
  ponsMicros: number;
  ponsNodes: number;
}

const SETS: SetInfo[] = [
  { key: 'end', file: 'Test_L3_R1', name: 'End-Easy', ponsMicros: 4.568, ponsNodes: 51.28 },
  { key: 'middle', file: 'Test_L2_R1', name: 'Middle-Easy', ponsMicros: 37.45, ponsNodes: 449.6 },
  { key: 'medium', file: 'Test_L2_R2', name: 'Middle-Medium', ponsMicros: 3212, ponsNodes: 39900 },
  { key: 'begin', file: 'Test_L1_R1', name: 'Begin-Easy', ponsMicros: 254.6, ponsNodes: 3298 },
];

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

interface Case {
  position: Position;
  expected: number;
}

function load(file: string, limit: number): Case[] {
  const text = readFileSync(new URL(`../test/fixtures/connect4/${file}`, import.meta.url), 'utf8');
  return text
    .trim()
    .split('\n')
    .slice(0, limit)
    .map((line) => {
      const [moves = '', score = ''] = line.split(' ');
      const parsed = Position.parse(moves);
      if (!parsed.ok) throw new Error(`${file}: ${parsed.error.message}`);
      return { position: parsed.value, expected: Number(score) };
    });
}

function formatMicros(us: number): string {
  if (us >= 1e6) return `${(us / 1e6).toFixed(3)} s`;
  if (us >= 1e3) return `${(us / 1e3).toFixed(3)} ms`;
  return `${us.toFixed(2)} µs`;
}

interface SetResult {
  line: string;
  cpuMicros: number;
}

function runSet(info: SetInfo, solver: Solver, limit: number): SetResult {
  const cases = load(info.file, limit);
  // Warm-up, so that the JIT has compiled the search before anything is timed.
  for (const c of cases.slice(0, 200)) solver.solve(c.position);
  // Node pass: Pons' protocol, a fresh table per position, the solve alone timed.
  let nodes = 0;
  let exact = 0;
  let freshNs = 0;
  for (const c of cases) {
    solver.reset();
    const t0 = process.hrtime.bigint();
    const score = solver.solve(c.position);
    freshNs += Number(process.hrtime.bigint() - t0);
    if (score === c.expected) exact++;
    nodes += solver.nodeCount;
  }
  // The continuous pass.
  solver.reset();
  const cpu0 = process.cpuUsage();
  const wall0 = process.hrtime.bigint();
  for (const c of cases) solver.solve(c.position);
  const wallUs = Number(process.hrtime.bigint() - wall0) / 1e3;
  const cpu = process.cpuUsage(cpu0);
  const cpuUs = cpu.user + cpu.system;
  const timedNodes = solver.nodeCount;
  const n = cases.length;
  const meanWall = wallUs / n;
  const meanCpu = cpuUs / n;
  const line = [
    info.name,
    solver.engine,
    String(n),
    `${((100 * exact) / n).toFixed(1)}%`,
    (nodes / n).toFixed(2),
    String(info.ponsNodes),
    formatMicros(freshNs / 1e3 / n),
    formatMicros(meanWall),
    formatMicros(meanCpu),
    ((timedNodes / cpuUs) * 1e3).toFixed(0),
    formatMicros(info.ponsMicros),
    `${(meanCpu / info.ponsMicros).toFixed(2)}×`,
  ].join(' | ');
  return { line, cpuMicros: meanCpu };
}

function solveEmpty(): void {
  const maxMinutes = Number(flag('max-minutes') ?? '90');
  const solver = new Solver({ tableLog: Number(flag('table-log') ?? '23'), ...engineOption() });
  console.log(`engine: ${solver.engine}`);
  const start = Date.now();
  const cpu0 = process.cpuUsage();
  let nextReport = start + 60_000;
  const report = (label: string): void => {
    const cpu = process.cpuUsage(cpu0);
    const cpuS = (cpu.user + cpu.system) / 1e6;
    const wallS = (Date.now() - start) / 1000;
    console.log(
      `${label}: ${wallS.toFixed(0)} s wall, ${cpuS.toFixed(0)} s CPU, ${solver.nodeCount} nodes, ` +
        `${(solver.nodeCount / cpuS / 1e3).toFixed(0)} K nodes/s (CPU)`,
    );
  };
  // The search is synchronous, so progress and the time limit come from the solver's periodic
  // checkpoint. The limit counts CPU time: on a shared machine wall time says little.
  solver.onCheckpoint = () => {
    if (Date.now() >= nextReport) {
      nextReport += 60_000;
      report('progress');
    }
    const cpu = process.cpuUsage(cpu0);
    if (cpu.user + cpu.system > maxMinutes * 60e6) throw new SearchAborted();
  };
  try {
    const score = solver.solve(new Position());
    report(`empty board: score ${score}`);
  } catch (e) {
    if (!(e instanceof SearchAborted)) throw e;
    report(`stopped after ${maxMinutes} CPU minutes (a lower bound)`);
  }
}

function selfPlay(): void {
  const games = Number(flag('games') ?? '100');
  const rng = Rng.seeded(flag('seed') ?? 'connect4-selfplay');
  const book = openingBook();
  console.log(`opening book: ${book.size} entries, up to ${book.depth} stones; engine: ${defaultSolver().engine}`);
  const worstByStones = new Map<number, number>();
  const worstCpuByStones = new Map<number, number>();
  let worst = { ms: 0, at: '' };
  let worstCpu = { ms: 0, at: '' };
  let total = 0;
  let moves = 0;
  const results = { first: 0, second: 0, draw: 0 };
  const cpu0 = process.cpuUsage();
  for (let g = 0; g < games; g++) {
    let state = initialState();
    for (;;) {
      const st = status(state);
      if (st.kind !== 'running') {
        if (st.kind === 'drawn') results.draw++;
        else if (st.winner === 0) results.first++;
        else results.second++;
        break;
      }
      const c0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      const col = chooseMove(state, 'perfect', rng);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      const c = process.cpuUsage(c0);
      const cpuMs = (c.user + c.system) / 1e3;
      const stones = state.moves.length;
      total += ms;
      moves++;
      worstByStones.set(stones, Math.max(worstByStones.get(stones) ?? 0, ms));
      worstCpuByStones.set(stones, Math.max(worstCpuByStones.get(stones) ?? 0, cpuMs));
      if (ms > worst.ms) worst = { ms, at: state.moves.join('') };
      if (cpuMs > worstCpu.ms) worstCpu = { ms: cpuMs, at: state.moves.join('') };
      const next = apply(state, col);
      if (!next.ok) throw new Error(next.error.message);
      state = next.value;
    }
  }
  const cpu = process.cpuUsage(cpu0);
  console.log(
    `${games} games (first player wins ${results.first}, second ${results.second}, draws ${results.draw}), ${moves} moves: ` +
      `mean ${(total / moves).toFixed(2)} ms, worst ${worst.ms.toFixed(0)} ms wall (at "${worst.at}"), ` +
      `worst ${worstCpu.ms.toFixed(0)} ms CPU (at "${worstCpu.at}"), CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s in all`,
  );
  const byStones = (m: Map<number, number>): string =>
    [...m.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([n, ms]) => `${n}:${ms.toFixed(0)}`)
      .join(' ');
  console.log(`worst move time (ms, wall) by stones on the board: ${byStones(worstByStones)}`);
  console.log(`worst move time (ms, CPU) by stones on the board: ${byStones(worstCpuByStones)}`);
}

/** `--engine wasm|ts`, for a single solver (empty board). */
function engineOption(): { engine?: Engine } {
  const engine = flag('engine');
  return engine === 'wasm' || engine === 'ts' ? { engine } : {};
}

const which = flag('set') ?? 'all';
const limit = Number(flag('limit') ?? '1000');
if (process.argv.includes('--empty')) {
  solveEmpty();
} else if (process.argv.includes('--selfplay')) {
  selfPlay();
} else {
  const wanted = flag('engine') ?? 'both';
  const engines: Engine[] = wanted === 'both' ? (wasmPath() === null ? ['ts'] : ['wasm', 'ts']) : [wanted === 'ts' ? 'ts' : 'wasm'];
  const solvers = engines.map((engine) => new Solver({ tableLog: Number(flag('table-log') ?? '23'), engine }));
  console.log(
    'set | engine | positions | exact | mean nodes | Pons nodes | fresh table (wall) | continuous (wall) | continuous (CPU) | K nodes/s (CPU) | Pons time | CPU / Pons',
  );
  console.log('---|---|---|---|---|---|---|---|---|---|---|---');
  const ratios: string[] = [];
  for (const info of SETS) {
    if (which !== 'all' && which !== info.key) continue;
    const results = solvers.map((solver) => runSet(info, solver, limit));
    for (const r of results) console.log(r.line);
    const [wasm, ts] = results;
    if (wasm && ts) ratios.push(`${info.name} ${(ts.cpuMicros / wasm.cpuMicros).toFixed(2)}×`);
  }
  if (ratios.length > 0) console.log(`\nwasm speed-up over TypeScript (continuous, CPU): ${ratios.join(', ')}`);
}
