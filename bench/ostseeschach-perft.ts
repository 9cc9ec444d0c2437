/**
 * Ostseeschach move generation speed: perft on the spec's positions, printed as markdown.
 *
 *   npx tsx bench/ostseeschach-perft.ts [--depth 5] [--repeat 3]
 *
 * Two figures per position: "bulk" counts the last ply from the move count (how perft is usually
 * quoted); "make/unmake" plays every leaf move too, which is what a search pays per node.
 * Counts are checked against the official ones, so a fast wrong generator cannot pass.
 */
import { cpus, loadavg } from 'node:os';
import { perft } from '../src/games/ostseeschach/engine/perft.js';
import { MAX_MOVES, Position } from '../src/games/ostseeschach/engine/position.js';
import { specPositions } from './ostseeschach-positions.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}
const depth = Number(flag('depth', '5'));
const repeat = Number(flag('repeat', '3'));

const positions = specPositions();

const buffers = Array.from({ length: 16 }, () => new Int32Array(MAX_MOVES));
/** Perft that makes and unmakes every move, leaves included; returns [leaves, moves made]. */
function perftFull(p: Position, d: number, ply: number, made: { n: number }): number {
  const buf = buffers[ply]!;
  const n = p.generate(buf, 0);
  let nodes = 0;
  for (let i = 0; i < n; i++) {
    p.make(buf[i]!);
    made.n++;
    if (d === 1) nodes++;
    else if (!p.isOver()) nodes += perftFull(p, d - 1, ply + 1, made);
    p.unmake();
  }
  return nodes;
}

const fmt = (x: number): string => `${(x / 1e6).toFixed(2)} M/s`;
console.log(`# Ostseeschach perft, depth ${depth}, best of ${repeat}`);
console.log(`node ${process.version}, ${cpus()[0]?.model ?? 'cpu'} ×${cpus().length}, load ${loadavg()[0]!.toFixed(2)}\n`);
console.log('| position | nodes | ok | bulk | make/unmake |');
console.log('|---|---:|:-:|---:|---:|');
let allOk = true;
let totalNodes = 0;
let totalBulkMs = 0;
let totalMade = 0;
let totalFullMs = 0;
for (const { name, state, counts } of positions) {
  let bestBulk = Infinity;
  let bestFull = Infinity;
  let nodes = 0;
  let made = 0;
  for (let r = 0; r < repeat; r++) {
    let t0 = performance.now();
    nodes = perft(state, depth);
    bestBulk = Math.min(bestBulk, performance.now() - t0);
    const counter = { n: 0 };
    t0 = performance.now();
    const full = perftFull(Position.fromState(state), depth, 0, counter);
    bestFull = Math.min(bestFull, performance.now() - t0);
    made = counter.n;
    if (full !== nodes) allOk = false;
  }
  const expected = counts[depth - 1];
  const ok = expected === undefined || expected === nodes;
  allOk &&= ok;
  totalNodes += nodes;
  totalBulkMs += bestBulk;
  totalMade += made;
  totalFullMs += bestFull;
  console.log(`| ${name} | ${nodes} | ${ok ? '✓' : '✗'} | ${fmt((nodes / bestBulk) * 1000)} | ${fmt((made / bestFull) * 1000)} |`);
}
console.log(`| **all** | ${totalNodes} | ${allOk ? '✓' : '✗'} | ${fmt((totalNodes / totalBulkMs) * 1000)} | ${fmt((totalMade / totalFullMs) * 1000)} |`);
if (!allOk) process.exit(1);
