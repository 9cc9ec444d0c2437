/**
 * Ostseeschach move generation speed: perft on the spec's positions, printed as markdown, with the
 * fastest public bot's figures beside ours.
 *
 *   npx tsx bench/ostseeschach-perft.ts [--depth 5] [--repeat 15] [--rust-bot PATH]
 *
 * Two figures per position: "bulk" perft nodes/s counts the last ply from the move count (how
 * perft is usually quoted); "make/unmake" plays every move of the tree, leaves included, and
 * counts moves made per second (each one made and unmade), which is what a search pays per node.
 * Counts are checked against the official ones, so a fast wrong generator cannot pass.
 *
 * Times are process CPU time, best of --repeat per position: on a shared machine wall time
 * measures the other jobs too; CPU time of a single-threaded loop barely moves with the load.
 *
 * The public bot: nikohass/rust-socha2022 (Rust, bitboards, make/undo), the fastest public
 * Software-Challenge 2022 client whose move generator we found. It publishes no speed figure; its
 * test prints one (`nps`) but the repository records none. --rust-bot runs it here, in the same
 * run, on the same positions and with the same end rule, counting the same two things: build it
 * from its game_sdk with a harness of your own, outside the repository (it reads lines
 * `name|turn b0 … b7 stacked ambers` — the eight piece bitboards ONE Herzmuschel, Möwe, Seestern,
 * Robbe, then TWO's, bit x + 8·y; ambers ONE | TWO<<4 — and prints `name|leaves|moves made|bulk
 * seconds|make/unmake seconds`, CPU time, best of the repeats), and pass the binary. Without
 * it the figure measured here last is printed, labelled as such.
 */
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import type { State } from '../src/games/ostseeschach/rules.js';
import { perft } from '../src/games/ostseeschach/engine/perft.js';
import { MAX_MOVES, Position } from '../src/games/ostseeschach/engine/position.js';
import { rustFen, specPositions } from './ostseeschach-positions.js';


/** The public bot's figures as last measured here (see docs/benchmarks.md for the run). */
const RUST_MEASURED = { date: '2026-11-29', bulk: 338e6, makeUnmake: 88.4e6 };

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}


const depth = Number(flag('depth', '5'));
const repeat = Number(flag('repeat', '15'));
const rustBot = flag('rust-bot', '');
const positions = specPositions();

const buffers = Array.from({ length: 16 }, () => new Int32Array(MAX_MOVES));
/** Perft that makes and unmakes every move, leaves included; returns the leaves. */
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

/** Process CPU time in ms. */
const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

interface Row {
  nodes: number;
  made: number;
  bulkMs: number;
  fullMs: number;
}

function ours(state: State): Row {
  let bulkMs = Infinity;
  let fullMs = Infinity;
  let nodes = 0;
  let made = 0;
  const p = Position.fromState(state);
  for (let r = 0; r < repeat; r++) {
    let t0 = cpu();
    nodes = perft(state, depth);
    bulkMs = Math.min(bulkMs, cpu() - t0);
    const counter = { n: 0 };
    t0 = cpu();
    const full = perftFull(p, depth, 0, counter);
    fullMs = Math.min(fullMs, cpu() - t0);
    made = counter.n;
    if (full !== nodes) throw new Error(`make/unmake perft ${full} ≠ bulk perft ${nodes}`);
  }
  return { nodes, made, bulkMs, fullMs };
}

function rust(): Map<string, Row> | null {
  if (rustBot === '') return null;
  const input = positions.map(({ name, state }) => `${name}|${rustFen(state)}\n`).join('');
  const r = spawnSync(rustBot, [String(depth), String(repeat)], { input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${rustBot}: exit ${r.status}\n${r.stderr}`);
  const rows = new Map<string, Row>();
  for (const line of r.stdout.trim().split('\n')) {
    const [name, nodes, made, bulkS, fullS] = line.split('|');
    rows.set(name!, {
      nodes: Number(nodes),
      made: Number(made),
      bulkMs: Number(bulkS) * 1000,
      fullMs: Number(fullS) * 1000,
    });
  }
  return rows;
}

const fmt = (x: number): string => `${(x / 1e6).toFixed(1)} M/s`;
const rate = (count: number, ms: number): number => (count / ms) * 1000;

const load0 = loadavg()[0]!;
// Alternate: the public bot, ours, the public bot again, so both see the same load.
const rustRuns = [rust()];
const ourRows = positions.map(({ state }) => ours(state));
rustRuns.push(rust());
const rustRows =
  rustRuns[0] === null
    ? null
    : new Map(
        [...rustRuns[0]!].map(([k, a]) => {
          const b = rustRuns[1]!.get(k)!;
          return [k, { ...a, bulkMs: Math.min(a.bulkMs, b.bulkMs), fullMs: Math.min(a.fullMs, b.fullMs) }];
        }),
      );

console.log(`# Ostseeschach perft, depth ${depth}, best of ${repeat} (process CPU time)`);
console.log(
  `node ${process.version}, ${cpus()[0]?.model ?? 'cpu'} ×${cpus().length}, load ${load0.toFixed(2)} → ${loadavg()[0]!.toFixed(2)}\n`,
);
const head = rustRows ? ' bulk, public bot | make/unmake, public bot |' : '';
console.log(`| position | nodes | ok | bulk | make/unmake |${head}`);
console.log(`|---|---:|:-:|---:|---:|${rustRows ? '---:|---:|' : ''}`);
let allOk = true;
const sum = { nodes: 0, made: 0, bulkMs: 0, fullMs: 0 };
const rsum = { nodes: 0, made: 0, bulkMs: 0, fullMs: 0 };
for (const [i, { name, counts }] of positions.entries()) {
  const o = ourRows[i]!;
  const expected = counts[depth - 1];
  const ok = expected === undefined || expected === o.nodes;
  allOk &&= ok;
  for (const k of ['nodes', 'made', 'bulkMs', 'fullMs'] as const) sum[k] += o[k];
  let extra = '';
  if (rustRows) {
    const r = rustRows.get(name)!;
    allOk &&= r.nodes === o.nodes;
    for (const k of ['nodes', 'made', 'bulkMs', 'fullMs'] as const) rsum[k] += r[k];
    extra = ` ${fmt(rate(r.nodes, r.bulkMs))} | ${fmt(rate(r.made, r.fullMs))} |`;
  }
  console.log(
    `| ${name} | ${o.nodes} | ${ok ? '✓' : '✗'} | ${fmt(rate(o.nodes, o.bulkMs))} | ${fmt(rate(o.made, o.fullMs))} |${extra}`,
  );
}
const ourBulk = rate(sum.nodes, sum.bulkMs);
const ourFull = rate(sum.made, sum.fullMs);
const pubBulk = rustRows ? rate(rsum.nodes, rsum.bulkMs) : RUST_MEASURED.bulk;
const pubFull = rustRows ? rate(rsum.made, rsum.fullMs) : RUST_MEASURED.makeUnmake;
const extra = rustRows ? ` **${fmt(pubBulk)}** | **${fmt(pubFull)}** |` : '';
console.log(
  `| **all** | ${sum.nodes} | ${allOk ? '✓' : '✗'} | **${fmt(ourBulk)}** | **${fmt(ourFull)}** |${extra}`,
);
const label = rustRows
  ? `measured here in this run (${rustBot}; same positions and counts)`
  : `measured here on ${RUST_MEASURED.date}, not in this run (pass --rust-bot to measure it)`;
console.log(
  `\nPublic bot nikohass/rust-socha2022, ${label}: bulk ${fmt(pubBulk)}, make/unmake ${fmt(pubFull)}.`,
);
console.log(
  `Ours against it: bulk ${(ourBulk / pubBulk).toFixed(2)}×, make/unmake ${(ourFull / pubFull).toFixed(2)}×.`,
);
if (!allOk) process.exit(1);
