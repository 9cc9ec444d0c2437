/**
 * Strength and time discipline of the Dame engine (spec §6.4), in-process (no sockets), printed as
 * markdown.
 *
 *   npx tsx bench/dame-strength.ts [--games 100] [--ms 1000] [--vs random,depth2,greedy,depth4]
 *                                  [--seed S] [--scaling 0] [--endgames 1000] [--opening]
 *
 * Each matchup plays `--games` seeded games with colours alternating; the first 4 single moves
 * (2 per side) are random, so openings vary. The engine gets `--ms` per move as its MOVE time (it
 * keeps min(400, ms/5) back); every think() that takes longer than the MOVE time would be a time
 * loss on the server and is counted. `--scaling N` adds N self-play games of 3000 ms against 750
 * ms per move; `--endgames N` checks N sampled ≤3-piece wins of distance ≥ 9 (one move each, 1 s);
 * `--opening` reports the depth reached from the start position in a 2900 ms move (2.5 s budget).
 */
import { cpus } from 'node:os';
import { Rng } from '../src/core/rng.js';
import { BLACK_PROMOTION, WHITE_PROMOTION } from '../src/games/dame/board.js';
import { playGame, points } from '../src/games/dame/bots/arena.js';
import { createDameBot, isDameBotName, type DameBot } from '../src/games/dame/bots/index.js';
import { endgameTables, probeTable } from '../src/games/dame/engine/endgame.js';
import { DameEngine } from '../src/games/dame/engine/index.js';
import { Position } from '../src/games/dame/position.js';
import { createState, initialState, packedMoves } from '../src/games/dame/rules.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const games = Number(flag('games', '100'));
const ms = Number(flag('ms', '1000'));
const opponents = flag('vs', 'random,depth2,greedy,depth4')
  .split(',')
  .filter((s) => s !== '');
const seed = flag('seed', 'dame-strength');
const scalingGames = Number(flag('scaling', '0'));
const endgameSamples = Number(flag('endgames', '1000'));
const opening = process.argv.includes('--opening');
if (!Number.isInteger(games) || games < 0) throw new Error('--games must be a non-negative integer');
if (!(ms > 0)) throw new Error('--ms must be positive');

interface Clocked {
  bot: DameBot;
  thinks: number;
  nodes: number;
  elapsedMs: number;
  depthSum: number;
  slowestMs: number;
  overMoveTime: number;
}

/** The engine as a bot that keeps statistics of its think() calls. */
function clockedEngine(): Clocked {
  const engine = new DameEngine();
  const stats: Clocked = {
    bot: () => undefined as never,
    thinks: 0,
    nodes: 0,
    elapsedMs: 0,
    depthSum: 0,
    slowestMs: 0,
    overMoveTime: 0,
  };
  stats.bot = (state, budgetMs, rng) => {
    const started = performance.now();
    const r = engine.think(state, { timeMs: budgetMs, rng });
    const took = performance.now() - started;
    stats.thinks++;
    stats.nodes += r.nodes;
    stats.elapsedMs += took;
    stats.depthSum += r.depth;
    stats.slowestMs = Math.max(stats.slowestMs, took);
    if (took > budgetMs) stats.overMoveTime++;
    return r.move;
  };
  return stats;
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

console.log(
  `Node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'} (${cpus().length} logical cores), ${new Date().toISOString()}`,
);
const tablesMs = endgameTables().buildMs;
console.log(
  `Endgame tables built in ${tablesMs.toFixed(0)} ms (before the games, as a client does at start).\n`,
);

if (games > 0 && opponents.length > 0) {
  console.log(
    `Engine at ${ms} ms per move, ${games} games per opponent, 4 random opening plies, seed "${seed}".\n`,
  );
  console.log(
    '| opponent | W-D-L | points | avg plies | engine moves | avg depth | nodes/s | slowest think | over MOVE time |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const name of opponents) {
    if (!isDameBotName(name)) throw new Error(`unknown bot ${name}`);
    const engine = clockedEngine();
    let w = 0;
    let d = 0;
    let l = 0;
    let score = 0;
    let plies = 0;
    for (let g = 0; g < games; g++) {
      const opponent = createDameBot(name);
      const white = g % 2 === 0;
      const r = playGame(white ? engine.bot : opponent, white ? opponent : engine.bot, {
        budgetMs: ms,
        rng: Rng.seeded(`${seed}-${name}-${Math.floor(g / 2)}`),
        randomPlies: 4,
      });
      const p = points(r.result, white ? 'white' : 'black');
      score += p;
      plies += r.plies;
      if (p === 1) w++;
      else if (p === 0) l++;
      else d++;
      if ((g + 1) % 10 === 0) process.stderr.write(`  ${name}: ${g + 1}/${games} games, ${score} points\n`);
    }
    console.log(
      `| ${name} | ${w}-${d}-${l} | ${pct(score / games)} | ${(plies / games).toFixed(0)} | ${engine.thinks} | ${(engine.depthSum / Math.max(1, engine.thinks)).toFixed(1)} | ${fmt((engine.nodes / Math.max(1, engine.elapsedMs)) * 1000)} | ${engine.slowestMs.toFixed(0)} ms | ${engine.overMoveTime} |`,
    );
  }
}

if (scalingGames > 0) {
  const strong = clockedEngine();
  const weak = clockedEngine();
  let score = 0;
  for (let g = 0; g < scalingGames; g++) {
    const white = g % 2 === 0;
    // each side gets its own time: the arena's budget is per call, so wrap the weaker side
    const slow: DameBot = (s, _b, rng) => strong.bot(s, 3000, rng);
    const fast: DameBot = (s, _b, rng) => weak.bot(s, 750, rng);
    const r = playGame(white ? slow : fast, white ? fast : slow, {
      budgetMs: 3000,
      rng: Rng.seeded(`${seed}-scaling-${Math.floor(g / 2)}`),
      randomPlies: 4,
    });
    score += points(r.result, white ? 'white' : 'black');
  }
  console.log(
    `\nScaling: 3000 ms vs 750 ms per move: ${score}/${scalingGames} = ${pct(score / scalingGames)} for the slower engine (over MOVE time: ${strong.overMoveTime + weak.overMoveTime}).`,
  );
}

if (endgameSamples > 0) {
  // §6.4 item 7: sampled ≤3-piece wins with distance ≥ 9, one move each within 1 s
  const rng = Rng.seeded(`${seed}-endgames`);
  const engine = new DameEngine();
  let kept = 0;
  let slowest = 0;
  let tried = 0;
  const pos = new Position();
  while (tried < endgameSamples) {
    let white = 0;
    let black = 0;
    let kings = 0;
    for (let i = 0; i < 3; i++) {
      const bit = 1 << rng.int(0, 31);
      if ((white | black) & bit) continue;
      const isBlack = i === 1 || (i === 2 && rng.chance(0.5));
      const promotionRank = isBlack ? BLACK_PROMOTION : WHITE_PROMOTION;
      if (isBlack) black |= bit;
      else white |= bit;
      if (rng.chance(0.4) || bit & promotionRank) kings |= bit;
    }
    if (white === 0 || black === 0) continue;
    const v = probeTable(white, black, kings, 0) ?? 0;
    if (v - 1 < 9) continue;
    tried++;
    const state = createState({ white, black, kings }, 'white');
    const started = performance.now();
    const r = engine.think(state, { timeMs: 1000 });
    slowest = Math.max(slowest, performance.now() - started);
    const m = packedMoves(state).find((x) => (x & 31) === r.move.from && ((x >> 5) & 31) === r.move.to)!;
    pos.set(white, black, kings, 0, 0);
    pos.make(m);
    const c = probeTable(pos.white, pos.black, pos.kings, pos.side) ?? 0;
    if ((pos.side === 0 ? c : -c) > 0) kept++;
  }
  console.log(
    `\nEndgames: ${kept}/${tried} sampled 3-piece wins (distance ≥ 9) kept winning; slowest move ${slowest.toFixed(0)} ms.`,
  );
}

if (opening) {
  const engine = new DameEngine();
  const r = engine.think(initialState(), { timeMs: 2900 });
  console.log(
    `\nOpening: depth ${r.depth} (single moves) from the start position in ${r.elapsedMs.toFixed(0)} ms (MOVE 2900, budget 2500); ${fmt(r.nodes)} nodes.`,
  );
}
