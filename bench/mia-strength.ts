/**
 * Strength of the Mia bots: seeded arena rounds per table setup, printed as markdown.
 *
 *   npx tsx bench/mia-strength.ts [--rounds N] [--seed S]
 *
 * A round is worth +1 to every participant who does not lose it, so "points/round" is the share of
 * rounds a strategy's seat survived; "point share" is its part of all points scored at the table,
 * next to the fair share an equally strong seat would get.
 */
import { cpus } from 'node:os';
import { runArena, type ArenaResult } from '../src/games/mia/arena.js';
import { createBot, type MiaStrategy } from '../src/games/mia/bots/index.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const rounds = Number(flag('rounds', '10000'));
const seed = flag('seed', 'mia-strength');
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds must be a positive integer');

const setups: { label: string; strategies: MiaStrategy[] }[] = [
  { label: 'adaptive vs 3× honest', strategies: ['adaptive', 'honest', 'honest', 'honest'] },
  { label: 'adaptive vs 3× random', strategies: ['adaptive', 'random', 'random', 'random'] },
  { label: 'probabilistic vs 3× honest', strategies: ['probabilistic', 'honest', 'honest', 'honest'] },
  { label: 'probabilistic vs 3× random', strategies: ['probabilistic', 'random', 'random', 'random'] },
  { label: 'adaptive vs 3× probabilistic', strategies: ['adaptive', 'probabilistic', 'probabilistic', 'probabilistic'] },
  { label: 'heads-up adaptive vs honest', strategies: ['adaptive', 'honest'] },
  { label: 'heads-up adaptive vs random', strategies: ['adaptive', 'random'] },
  { label: 'heads-up adaptive vs probabilistic', strategies: ['adaptive', 'probabilistic'] },
  { label: 'one of each', strategies: ['random', 'honest', 'probabilistic', 'adaptive'] },
  { label: 'six seats', strategies: ['random', 'honest', 'probabilistic', 'adaptive', 'random', 'honest'] },
];

const SHORT: Record<string, string> = {
  SEE_BEFORE_FIRST_ROLL: 'see-first',
  LIED_ABOUT_MIA: 'lied-Mia',
  ANNOUNCED_LOSING_DICE: 'losing-dice',
  DID_NOT_ANNOUNCE: 'no-announce',
  DID_NOT_TAKE_TURN: 'no-turn',
  SEE_FAILED: 'see-failed',
  CAUGHT_BLUFFING: 'caught',
  MIA: 'Mia',
};

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

interface Row {
  strategy: string;
  seats: number;
  perRound: number;
  share: number;
  fair: number;
  losses: string;
}

function summarise(result: ArenaResult): Row[] {
  const total = result.seats.reduce((n, s) => n + s.points, 0);
  const strategies = [...new Set(result.seats.map((s) => s.strategy))];
  return strategies.map((strategy) => {
    const seats = result.seats.filter((s) => s.strategy === strategy);
    const points = seats.reduce((n, s) => n + s.points, 0);
    const played = seats.reduce((n, s) => n + s.rounds, 0);
    const byReason = new Map<string, number>();
    for (const s of seats) for (const [reason, n] of Object.entries(s.losses)) byReason.set(reason, (byReason.get(reason) ?? 0) + n);
    const losses = [...byReason]
      .sort((a, b) => b[1] - a[1])
      .map(([reason, n]) => `${SHORT[reason] ?? reason} ${pct(n / played)}`)
      .join(', ');
    return {
      strategy,
      seats: seats.length,
      perRound: points / played,
      share: total > 0 ? points / total : 0,
      fair: seats.length / result.seats.length,
      losses: losses || '–',
    };
  });
}

const out: string[] = [];
out.push(`# Mia bot strength`);
out.push('');
out.push(`- machine: ${cpus()[0]?.model ?? 'unknown CPU'} (${cpus().length} threads), node ${process.version}`);
out.push(`- date: ${new Date().toISOString()}`);
out.push(`- ${rounds} rounds per table, seed \`${seed}\`; losses are per round played by that strategy's seats`);
out.push('');
out.push('| table | strategy | seats | points/round | point share (fair) | losses per round played |');
out.push('|---|---|---:|---:|---:|---|');
const speed: string[] = [];
let allRounds = 0;
let allMs = 0;
for (const setup of setups) {
  const seats = setup.strategies.map((s, i) => ({ name: `${s}-${i}`, bot: createBot(s, `${seed}/${setup.label}/${i}`) }));
  const t0 = performance.now();
  const result = runArena({ seats, rounds, seed: `${seed}/${setup.label}`, keepRounds: false });
  const ms = performance.now() - t0;
  allRounds += rounds;
  allMs += ms;
  speed.push(`| ${setup.label} | ${setup.strategies.length} | ${Math.round((rounds / ms) * 1000).toLocaleString('en')} |`);
  for (const row of summarise(result).sort((a, b) => b.perRound - a.perRound)) {
    out.push(
      `| ${setup.label} | ${row.strategy} | ${row.seats} | ${row.perRound.toFixed(3)} | ${pct(row.share)} (${pct(row.fair)}) | ${row.losses} |`,
    );
  }
}
out.push('');
out.push('| table | players | arena rounds/s |');
out.push('|---|---:|---:|');
out.push(...speed);
out.push(`| all | | ${Math.round((allRounds / allMs) * 1000).toLocaleString('en')} |`);
console.log(out.join('\n'));
