/**
 * The Catan rules core: random self-play throughput, and (with --check) the rule invariants and
 * the leak oracle over many seeded games.
 *
 *   npx tsx bench/catan-rules.ts [--games 1000] [--players 4] [--seed S]
 *   npx tsx bench/catan-rules.ts --check 1000 [--view-every 10]
 *
 * Throughput is counted in CPU seconds of this process (process.cpuUsage), so other work on a
 * shared machine slows the wall clock but not the figure; both are printed.
 * Anchor (catan.md §6, G0): catanatron plays about 30 four-player random games per second.
 */
import { playRandomGame, type RandomGame, type RandomPolicy } from '../src/games/catan/bots/random.js';
import type { Viewer } from '../src/games/catan/events.js';
import { deliveriesFor, findLeaks, type HistoryEntry } from '../src/games/catan/leak-oracle.js';
import { gameProblems } from '../src/games/catan/rules/invariants.js';
import { view } from '../src/games/catan/view.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const players = Number(flag('players', '4'));
const seed = flag('seed', 'catan-rules');
const cpuSeconds = (since: NodeJS.CpuUsage): number => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1e6;
};

function throughput(games: number): void {
  console.log(`| policy | players | games | actions/game | turns/game | won | games per CPU s | actions per CPU s | games per wall s |`);
  console.log(`|---|---|---|---|---|---|---|---|---|`);
  for (const policy of ['uniform', 'builder'] as RandomPolicy[]) {
    const trades = policy === 'builder';
    // Warm up the JIT on games that are not counted.
    for (let i = 0; i < 30; i++) playRandomGame({ seed: `${seed}/warm/${i}`, players, policy, trades });
    let actions = 0;
    let turns = 0;
    let won = 0;
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < games; i++) {
      const g = playRandomGame({ seed: `${seed}/${i}`, players, policy, trades });
      actions += g.actions.length;
      turns += g.state.turnNumber;
      if (g.winner !== null) won++;
    }
    const cpu = cpuSeconds(cpu0);
    const wall = (performance.now() - t0) / 1000;
    const label = policy === 'uniform' ? 'uniform (R)' : 'builder + trades';
    console.log(
      `| ${label} | ${players} | ${games} | ${(actions / games).toFixed(0)} | ${(turns / games).toFixed(0)} | ${won} | ` +
        `${(games / cpu).toFixed(1)} | ${((actions / cpu) / 1000).toFixed(0)}k | ${(games / wall).toFixed(1)} |`,
    );
  }
}

function check(games: number, viewEvery: number): void {
  let problems = 0;
  let leaks = 0;
  let actions = 0;
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < games; i++) {
    const policy: RandomPolicy = i % 4 === 3 ? 'uniform' : 'builder';
    const n = i % 5 === 4 ? 3 : players;
    const g: RandomGame = playRandomGame({ seed: `${seed}/check/${i}`, players: n, policy, trades: policy === 'builder', record: true });
    actions += g.actions.length;
    const found = gameProblems(g.start, g.steps);
    if (g.winner === null) found.push('no winner');
    for (const p of found.slice(0, 3)) console.log(`game ${i}: ${p}`);
    problems += found.length;
    const history: HistoryEntry[] = [{ state: g.start, events: g.startEvents }, ...g.steps];
    const viewers: Viewer[] = [...g.start.players.map((p) => p.id), 'spectator'];
    for (const v of viewers) {
      const deliveries = deliveriesFor(history, v, false).map((d, k) => (k % viewEvery === 0 ? { ...d, view: view(history[k]!.state, v) } : d));
      const findings = findLeaks(history, v, deliveries);
      for (const f of findings.slice(0, 3)) console.log(`game ${i}, viewer ${String(v)}, entry ${f.at}: ${f.what}`);
      leaks += findings.length;
    }
    if ((i + 1) % 100 === 0) console.error(`${i + 1} games checked`);
  }
  console.log(
    `checked ${games} games (${actions} actions; 3/4 builders with trades, 1/4 uniform; every 5th game 3 players), ` +
      `views every ${viewEvery} actions, ${(cpuSeconds(cpu0) / 60).toFixed(1)} CPU min: ${problems} invariant problems, ${leaks} leak findings`,
  );
  if (problems + leaks > 0) process.exitCode = 1;
}

const checkGames = Number(flag('check', '0'));
if (checkGames > 0) check(checkGames, Number(flag('view-every', '10')));
else throughput(Number(flag('games', '1000')));
