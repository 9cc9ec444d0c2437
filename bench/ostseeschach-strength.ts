/**
 * Ostseeschach engine strength and speed, printed as markdown.
 *
 *   npx tsx bench/ostseeschach-strength.ts [games] [ms-per-move] [--opponents random,depth2] [--seed S]
 *
 * Each opponent plays `games` seeded games against the engine (default 100, i.e. 50 start layouts,
 * each with both colours). A win counts 1, a draw ½. A "timeout" is any engine move slower than
 * its budget or than the official 2000 ms soft limit; wall time includes everything the bot does.
 */
import { cpus, loadavg } from 'node:os';
import { Rng } from '../src/core/rng.js';
import type { Team } from '../src/games/ostseeschach/board.js';
import { createEngineBot, depth2Bot, randomBot, type Bot } from '../src/games/ostseeschach/bots/index.js';
import { gameWinner, playGame } from '../src/games/ostseeschach/bots/play.js';
import { createStart } from '../src/games/ostseeschach/setup.js';

const positional = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--'));
function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}
const games = Number(positional[0] ?? flag('games', '100'));
const ms = Number(positional[1] ?? flag('ms', '1700'));
const opponents = flag('opponents', 'random,depth2').split(',');
const seed = flag('seed', 'ostseeschach-strength');
const SOFT_LIMIT_MS = 2000;
if (!Number.isInteger(games) || games < 2 || !(ms > 0)) throw new Error('usage: ostseeschach-strength.ts [games ≥ 2] [ms > 0]');

const baselines: Record<string, Bot> = { random: randomBot, depth2: depth2Bot };

console.log(`# Ostseeschach engine strength: ${games} games per opponent, ${ms} ms per move`);
console.log(`node ${process.version}, ${cpus()[0]?.model ?? 'cpu'} ×${cpus().length}, load at start ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
console.log('| opponent | games | W / D / L | score | timeouts (>budget / >2000 ms) | slowest move | engine nodes/s | mean depth | mean plies |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');

for (const name of opponents) {
  const opponent = baselines[name];
  if (!opponent) throw new Error(`unknown opponent ${name}`);
  let w = 0;
  let d = 0;
  let l = 0;
  let overBudget = 0;
  let overSoft = 0;
  let slowest = 0;
  let nodes = 0;
  let searchMs = 0;
  let depthSum = 0;
  let searches = 0;
  let plies = 0;
  const losses: string[] = [];
  const slowMoves: string[] = [];
  for (let g = 0; g < games; g++) {
    const layoutRng = Rng.seeded(`${seed}-${g >> 1}`);
    const start = createStart(layoutRng);
    const engineTeam: Team = g % 2 === 0 ? 'ONE' : 'TWO';
    const searched: { ms: number; depth: number; nodes: number }[] = [];
    const engine = createEngineBot({
      onSearch: (r) => {
        searched.push({ ms: r.elapsedMs, depth: r.depth, nodes: r.nodes });
        nodes += r.nodes;
        searchMs += r.elapsedMs;
        depthSum += r.depth;
        searches++;
      },
    });
    const rng = Rng.seeded(`${seed}-${name}-${g}`);
    const bots: Record<Team, Bot> = engineTeam === 'ONE' ? { ONE: engine, TWO: opponent } : { ONE: opponent, TWO: engine };
    const record = playGame(start, bots, ms, rng);
    record.moveMs.forEach((t, i) => {
      if ((i % 2 === 0) !== (engineTeam === 'ONE')) return;
      slowest = Math.max(slowest, t);
      if (t > ms) {
        overBudget++;
        const s = searched[i >> 1];
        slowMoves.push(`game ${g} ply ${i}: ${t.toFixed(0)} ms wall, search ${s ? `${s.ms.toFixed(0)} ms depth ${s.depth} ${s.nodes} nodes` : '?'}`);
      }
      if (t > SOFT_LIMIT_MS) overSoft++;
    });
    plies += record.moves.length;
    const winner = gameWinner(record);
    if (winner === engineTeam) w++;
    else if (winner === null) d++;
    else {
      l++;
      losses.push(`game ${g} (engine ${engineTeam}, ambers ${record.final.ambers.ONE}:${record.final.ambers.TWO}${record.invalid ? `, invalid ${record.invalid.code}` : ''})`);
    }
    if (process.env.VERBOSE) process.stderr.write(`${name} game ${g}: engine ${engineTeam}, winner ${winner ?? 'draw'}, ${record.moves.length} plies\n`);
  }
  const score = (w + d / 2) / games;
  console.log(
    `| ${name} | ${games} | ${w} / ${d} / ${l} | ${(100 * score).toFixed(1)}% | ${overBudget} / ${overSoft} | ${slowest.toFixed(0)} ms | ${((nodes / searchMs) * 1000 / 1e6).toFixed(2)} M | ${(depthSum / searches).toFixed(1)} | ${(plies / games).toFixed(1)} |`,
  );
  if (losses.length > 0) console.log(`\nlosses vs ${name}: ${losses.join('; ')}\n`);
  if (slowMoves.length > 0) console.log(`\nover budget vs ${name}: ${slowMoves.join('; ')}\n`);
}
console.log(`\nload at end ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
