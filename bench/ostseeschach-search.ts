/**
 * Ostseeschach search speed at the tournament budget, printed as markdown.
 *
 *   npx tsx bench/ostseeschach-search.ts [--ms 1700] [--positions 12] [--seed S]
 *
 * Positions: the spec's three start layouts and its mid-game vector, and positions reached by
 * seeded engine self-play (turns 8–40). Each is searched by a fresh engine bot with the client's
 * budget (1700 ms by default, what `bot ostseeschach` grants per move), as one tournament move.
 */
import { cpus, loadavg } from 'node:os';
import { Rng } from '../src/core/rng.js';
import { createEngineBot } from '../src/games/ostseeschach/bots/index.js';
import type { SearchResult } from '../src/games/ostseeschach/engine/search.js';
import { apply, isOver, type State } from '../src/games/ostseeschach/rules.js';
import { createStart } from '../src/games/ostseeschach/setup.js';
import { specPositions } from './ostseeschach-positions.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}
const ms = Number(flag('ms', '1700'));
const selfPlay = Number(flag('positions', '8'));
const seed = flag('seed', 'ostseeschach-search');

const positions: { name: string; state: State }[] = specPositions();

// Self-play at a small node budget picks realistic positions, reproducibly.
for (let g = 0; positions.length < 4 + selfPlay && g < 10 * selfPlay; g++) {
  const rng = Rng.seeded(`${seed}-${g}`);
  let state = createStart(rng);
  const bot = createEngineBot({ maxNodes: 3000 });
  const stopAt = 8 + 8 * (g % 5);
  while (!isOver(state) && state.turn < stopAt) {
    const next = apply(state, bot(state, 1000, rng));
    if (!next.ok) break;
    state = next.value;
  }
  if (!isOver(state)) positions.push({ name: `self-play ${g}, turn ${state.turn}`, state });
}

console.log(`# Ostseeschach search: ${positions.length} positions, ${ms} ms budget each (one tournament move)`);
console.log(`node ${process.version}, ${cpus()[0]?.model ?? 'cpu'} ×${cpus().length}, load at start ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
console.log('| position | depth | nodes | time | nodes/s |');
console.log('|---|---:|---:|---:|---:|');
let nodes = 0;
let time = 0;
let depth = 0;
let slowest = 0;
const rng = Rng.seeded(seed);
for (const { name, state } of positions) {
  let last: SearchResult | null = null;
  const bot = createEngineBot({ onSearch: (r) => (last = r) });
  const t0 = performance.now();
  bot(state, ms, rng);
  const wall = performance.now() - t0;
  slowest = Math.max(slowest, wall);
  const r = last as SearchResult | null;
  if (!r) continue;
  nodes += r.nodes;
  time += r.elapsedMs;
  depth += r.depth;
  console.log(`| ${name} | ${r.depth} | ${r.nodes} | ${r.elapsedMs.toFixed(0)} ms | ${((r.nodes / r.elapsedMs) * 1000 / 1e6).toFixed(2)} M |`);
}
console.log(`| **all** | ${(depth / positions.length).toFixed(1)} (mean) | ${nodes} | ${time.toFixed(0)} ms | ${((nodes / time) * 1000 / 1e6).toFixed(2)} M |`);
console.log(`\nslowest move (wall, incl. setting up the engine): ${slowest.toFixed(0)} ms; load at end ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
