/**
 * Speed of the Connect Four solver on Pons' test sets, against his published C++ figures.
 *
 *   npx tsx bench/connect4-solver.ts [--set end|middle|medium|begin|all] [--limit N] [--table-log L]
 *   npx tsx bench/connect4-solver.ts --empty [--max-minutes M]
 *   npx tsx bench/connect4-solver.ts --selfplay [--games N] [--seed S]
 *
 * Per set, two passes:
 * - nodes: every position solved with a freshly reset table, as Pons' benchmark does, so mean
 *   nodes are comparable with his (they depend on the algorithm, not the machine);
 * - time: after a warm-up on the first 100 positions and one table reset, the whole set solved in
 *   one go (the table is not reset between positions: resetting 64 MB costs far more than an
 *   End-Easy solve, and Pons' timer excludes it too). Reported as wall time and as CPU time of this
 *   process, which is less disturbed by other processes on a shared machine.
 *
 * `--selfplay` plays N (default 100) seeded games of the perfect bot against itself with the
 * opening book and reports the worst and mean time per move, and the worst by number of stones.
 *
 * `--empty` solves the empty board without the book, with a progress line every minute; after
 * `--max-minutes` (default 90) of CPU time it stops and prints the lower bound and the node rate.
 */
import { readFileSync } from 'node:fs';
import { Position } from '../src/games/connect4/solver/position.js';
import { Rng } from '../src/core/rng.js';
import { chooseMove } from '../src/games/connect4/bots/index.js';
import { apply, initialState, status } from '../src/games/connect4/rules.js';
import { openingBook } from '../src/games/connect4/solver/index.js';
import { SearchAborted, Solver } from '../src/games/connect4/solver/solver.js';

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

function runSet(info: SetInfo, solver: Solver, limit: number): string {
  const cases = load(info.file, limit);
  // Node pass: Pons' protocol, a fresh table per position.
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
  // Warm-up, then the timed pass.
  for (const c of cases.slice(0, 100)) solver.solve(c.position);
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
  return [
    info.name,
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
}

function solveEmpty(): void {
  const maxMinutes = Number(flag('max-minutes') ?? '90');
  const solver = new Solver({ tableLog: Number(flag('table-log') ?? '23') });
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
  console.log(`opening book: ${book.size} entries, up to ${book.depth} stones`);
  const worstByStones = new Map<number, number>();
  let worst = { ms: 0, at: '' };
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
      const t0 = process.hrtime.bigint();
      const col = chooseMove(state, 'perfect', rng);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      const stones = state.moves.length;
      total += ms;
      moves++;
      worstByStones.set(stones, Math.max(worstByStones.get(stones) ?? 0, ms));
      if (ms > worst.ms) worst = { ms, at: state.moves.join('') };
      const next = apply(state, col);
      if (!next.ok) throw new Error(next.error.message);
      state = next.value;
    }
  }
  const cpu = process.cpuUsage(cpu0);
  console.log(
    `${games} games (first player wins ${results.first}, second ${results.second}, draws ${results.draw}), ${moves} moves: ` +
      `mean ${(total / moves).toFixed(2)} ms, worst ${worst.ms.toFixed(0)} ms (at "${worst.at}"), CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s`,
  );
  console.log(
    'worst move time by stones on the board: ' +
      [...worstByStones.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([n, ms]) => `${n}:${ms.toFixed(0)}`)
        .join(' '),
  );
}

const which = flag('set') ?? 'all';
const limit = Number(flag('limit') ?? '1000');
if (process.argv.includes('--empty')) {
  solveEmpty();
} else if (process.argv.includes('--selfplay')) {
  selfPlay();
} else {
  const solver = new Solver({ tableLog: Number(flag('table-log') ?? '23') });
  console.log('set | positions | exact | mean nodes | Pons nodes | fresh table (wall) | mean time (wall) | mean time (CPU) | K nodes/s (CPU) | Pons time | CPU / Pons');
  console.log('---|---|---|---|---|---|---|---|---|---|---');
  for (const info of SETS) {
    if (which !== 'all' && which !== info.key) continue;
    console.log(runSet(info, solver, limit));
  }
}
