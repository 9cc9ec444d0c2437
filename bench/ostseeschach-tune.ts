/**
 * Self-play tuning of the Ostseeschach evaluation. Node-limited searches make every game
 * reproducible and independent of machine load.
 *
 *   npx tsx bench/ostseeschach-tune.ts match --games 200 --nodes 10000 --a '{"mobility":3}' [--b '{}']
 *   npx tsx bench/ostseeschach-tune.ts spsa --pairs 1000 --nodes 8000 [--start '{…}']
 *
 * `match`: engine A (DEFAULT_PARAMS overridden by --a) against B, each start layout played with
 * both colours; prints A's score. `spsa`: simultaneous perturbation stochastic approximation —
 * each step plays θ+cΔ against θ−cΔ on one layout with both colours and moves θ along Δ by the
 * result; prints θ every 50 pairs and at the end.
 * Search switches can be set with --a/--b too: {"search":{"useReductions":false}}.
 */
import { Rng } from '../src/core/rng.js';
import type { Team } from '../src/games/ostseeschach/board.js';
import { createEngineBot, type Bot } from '../src/games/ostseeschach/bots/index.js';
import { gameWinner, playGame } from '../src/games/ostseeschach/bots/play.js';
import { DEFAULT_PARAMS, type EvalParams } from '../src/games/ostseeschach/engine/params.js';
import type { SearchOptions } from '../src/games/ostseeschach/engine/search.js';
import { createStart } from '../src/games/ostseeschach/setup.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}
const mode = process.argv[2] ?? 'match';
const nodes = Number(flag('nodes', '10000'));
const seed = flag('seed', 'tune');

type Override = Partial<Record<keyof EvalParams, unknown>> & { search?: SearchOptions };

function withOverride(o: Override): { params: EvalParams; search: SearchOptions } {
  const { search, ...rest } = o;
  return { params: { ...DEFAULT_PARAMS, ...(rest as Partial<EvalParams>) }, search: search ?? {} };
}

function engine(params: EvalParams, search: SearchOptions): Bot {
  return createEngineBot({ ...search, params, maxNodes: nodes, ttLog2: 18 });
}

/** Plays one layout with both colours; returns A's points (0…2). */
function pair(index: number, a: () => Bot, b: () => Bot): number {
  let points = 0;
  for (const aTeam of ['ONE', 'TWO'] as const) {
    const start = createStart(Rng.seeded(`${seed}-${index}`));
    const bots: Record<Team, Bot> = aTeam === 'ONE' ? { ONE: a(), TWO: b() } : { ONE: b(), TWO: a() };
    const record = playGame(start, bots, 60_000, Rng.seeded(index));
    const w = gameWinner(record);
    points += w === aTeam ? 1 : w === null ? 0.5 : 0;
  }
  return points;
}

// Flat view of the tunable numbers, with perturbation sizes.
const KEYS: { get: (p: EvalParams) => number; set: (p: Record<string, unknown>, v: number) => void; c: number; name: string }[] = [];
function addScalar(key: keyof EvalParams, c: number): void {
  KEYS.push({ name: key, get: (p) => p[key] as number, set: (p, v) => (p[key] = v), c });
}
function addVector(key: keyof EvalParams, index: number, c: number): void {
  KEYS.push({
    name: `${key}[${index}]`,
    get: (p) => (p[key] as readonly number[])[index]!,
    set: (p, v) => {
      const arr = [...(p[key] as number[])];
      arr[index] = v;
      p[key] = arr;
    },
    c,
  });
}
addScalar('amber', 60);
for (let i = 0; i < 4; i++) addVector('pieceValue', i, 12);
for (let i = 0; i < 4; i++) addVector('towerBonus', i, 12);
for (let i = 0; i < 3; i++) addVector('advanceScale', i, 0.12);
for (let i = 1; i < 7; i++) addVector('advanceCurve', i, 4);
addScalar('robbeCentre', 2);
addScalar('robbeAdvance', 4);
addScalar('furthestLight', 4);
addScalar('mobility', 1);
addScalar('defended', 3);
addScalar('attackedTower', 30);
addScalar('hanging', 10);
addScalar('runner', 60);
addScalar('tempo', 4);

const toVector = (p: EvalParams): number[] => KEYS.map((k) => k.get(p));
function fromVector(v: readonly number[]): EvalParams {
  const p: Record<string, unknown> = { ...DEFAULT_PARAMS };
  KEYS.forEach((k, i) => k.set(p, v[i]!));
  return p as unknown as EvalParams;
}
const show = (p: EvalParams): string => JSON.stringify(p, (_k, v: unknown) => (typeof v === 'number' ? Math.round(v * 100) / 100 : v));

if (mode === 'match') {
  const games = Number(flag('games', '200'));
  const a = withOverride(JSON.parse(flag('a', '{}')) as Override);
  const b = withOverride(JSON.parse(flag('b', '{}')) as Override);
  let points = 0;
  const t0 = performance.now();
  for (let i = 0; i < games / 2; i++) {
    points += pair(i, () => engine(a.params, a.search), () => engine(b.params, b.search));
    if ((i + 1) % 25 === 0) process.stderr.write(`${2 * (i + 1)} games: A ${points} / ${2 * (i + 1)}\n`);
  }
  const score = points / games;
  const margin = 1.96 * Math.sqrt((score * (1 - score)) / games);
  console.log(
    `A ${flag('a', '{}')} vs B ${flag('b', '{}')}: ${points}/${games} = ${(100 * score).toFixed(1)}% ± ${(100 * margin).toFixed(1)} (${nodes} nodes/move, ${((performance.now() - t0) / 1000).toFixed(0)} s)`,
  );
} else if (mode === 'spsa') {
  const pairs = Number(flag('pairs', '1000'));
  const rate = Number(flag('rate', '0.3'));
  let theta = toVector(withOverride(JSON.parse(flag('start', '{}')) as Override).params);
  const rng = Rng.seeded(`${seed}-spsa`);
  for (let k = 0; k < pairs; k++) {
    const delta = KEYS.map(() => (rng.int(0, 1) === 0 ? -1 : 1));
    const plus = fromVector(theta.map((t, i) => t + KEYS[i]!.c * delta[i]!));
    const minus = fromVector(theta.map((t, i) => t - KEYS[i]!.c * delta[i]!));
    const r = pair(100_000 + k, () => engine(plus, {}), () => engine(minus, {})) - 1; // −1…+1
    theta = theta.map((t, i) => t + rate * r * KEYS[i]!.c * delta[i]!);
    if ((k + 1) % 50 === 0) process.stderr.write(`pair ${k + 1}: ${show(fromVector(theta))}\n`);
  }
  console.log(show(fromVector(theta)));
} else {
  throw new Error(`unknown mode ${mode}`);
}
