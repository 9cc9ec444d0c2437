/**
 * Dame move generation speed and correctness: perft (spec §5.1) from the start position, checked
 * against the spec's counts, printed as markdown.
 *
 *   npx tsx bench/dame-perft.ts [--depth 9]
 *
 * Leaves are bulk-counted (the last ply only counts moves), so "leaves/s" is perft's usual figure;
 * "make/unmake/s" comes from a run without bulk counting (every node is made and taken back). CPU
 * time is reported next to wall time because the benchmark machine may be shared. Last, the
 * search speed of think() to a fixed depth (tables off) in nodes per CPU second.
 */
import { cpus } from 'node:os';
import { generateMoves } from '../src/games/dame/board.js';
import { Position } from '../src/games/dame/position.js';
import { DameEngine } from '../src/games/dame/engine/index.js';
import { createState, initialState, perft, type DameState } from '../src/games/dame/rules.js';
import { parsePieces } from '../src/games/dame/notation.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const maxDepth = Number(flag('depth', '9'));
if (!Number.isInteger(maxDepth) || maxDepth < 1 || maxDepth > 10) throw new Error('--depth must be 1–10');

const EXPECTED = [7, 49, 379, 2874, 23712, 191730, 1608676, 13381193, 113727342];
const cpuMs = (): number => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const fmt = (n: number): string => n.toLocaleString('en-US');

console.log(
  `Node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'} (${cpus().length} logical cores), ${new Date().toISOString()}\n`,
);
console.log('| depth | nodes | spec | wall ms | CPU ms | leaves/s (CPU) |');
console.log('|---|---|---|---|---|---|');
let failed = false;
const start = initialState();
for (let depth = 1; depth <= maxDepth; depth++) {
  const t0 = performance.now();
  const c0 = cpuMs();
  const nodes = perft(start, depth);
  const wall = performance.now() - t0;
  const cpu = cpuMs() - c0;
  const expected = EXPECTED[depth - 1];
  const ok = expected === undefined || nodes === expected;
  if (!ok) failed = true;
  const rate = cpu > 0 ? fmt(Math.round((nodes / cpu) * 1000)) : '–';
  console.log(
    `| ${depth} | ${fmt(nodes)} | ${expected === undefined ? '–' : ok ? 'ok' : `**${fmt(expected)}**`} | ${wall.toFixed(0)} | ${cpu.toFixed(0)} | ${rate} |`,
  );
}

// every node made and unmade: the cost search pays per node
function walk(pos: Position, depth: number, buf: Int32Array, at: number): number {
  if (depth === 0) return 1;
  const end = generateMoves(pos.white, pos.black, pos.kings, pos.side, buf, at);
  let n = 1;
  for (let i = at; i < end; i++) {
    pos.make(buf[i]!);
    n += walk(pos, depth - 1, buf, end);
    pos.unmake(buf[i]!);
  }
  return n;
}
const pos = new Position();
pos.set(start.white, start.black, start.kings, 0, 0);
const buf = new Int32Array(64 * 256);
const walkDepth = Math.min(maxDepth, 8);
const t0 = performance.now();
const c0 = cpuMs();
const visited = walk(pos, walkDepth, buf, 0);
const cpu = cpuMs() - c0;
console.log(
  `\nWithout bulk counting to depth ${walkDepth}: ${fmt(visited)} nodes made and unmade in ${(performance.now() - t0).toFixed(0)} ms wall, ${cpu.toFixed(0)} ms CPU = ${fmt(Math.round((visited / cpu) * 1000))} make/unmake/s (CPU).`,
);

const p2 = parsePieces('W D4, w F2; b B6 C3 F6');
if (p2.ok) {
  const s = createState(p2.value);
  const counts = [10, 75, 541, 3659, 25174, 165846].map((n, i) => ({ n, got: perft(s, i + 1) }));
  const bad = counts.filter((c) => c.n !== c.got);
  if (bad.length) failed = true;
  console.log(`P2 perft 1–6: ${bad.length === 0 ? 'ok' : `MISMATCH ${JSON.stringify(bad)}`}`);
}
// search speed: fixed-depth think() from the start and from the seed's P6 position
const searchPositions: [string, DameState][] = [['start', start]];
const p6 = parsePieces('w A1 C1 E1 G1 B2 D2 F2 A3 C3 E3 G3 H4; b B8 D8 F8 H8 A7 C7 E7 G7 D6 F6 H6 D4');
if (p6.ok) searchPositions.push(['P6', createState(p6.value)]);
console.log('\n| search | depth | nodes | wall ms | CPU ms | nodes/s (CPU) |');
console.log('|---|---|---|---|---|---|');
for (const [name, state] of searchPositions) {
  const engine = new DameEngine();
  const w0 = performance.now();
  const s0 = cpuMs();
  const r = engine.think(state, { timeMs: 1e9, maxDepth: 11, tables: 'off' });
  const cpuSearch = cpuMs() - s0;
  console.log(
    `| ${name} | ${r.depth} | ${fmt(r.nodes)} | ${(performance.now() - w0).toFixed(0)} | ${cpuSearch.toFixed(0)} | ${fmt(Math.round((r.nodes / cpuSearch) * 1000))} |`,
  );
}

if (failed) {
  console.error('perft mismatch');
  process.exit(1);
}
