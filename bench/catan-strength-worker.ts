// One worker thread of bench/catan-strength.ts: plays the games it is sent, in-process through the
// CatanBot interface (bots/arena.ts: each bot sees only its client view), and posts each result.
import { parentPort } from 'node:worker_threads';
import { playArenaGame } from '../src/games/catan/bots/arena.js';
import { searchBot, type SearchOptions } from '../src/games/catan/bots/search.js';
import { DEFAULT_WEIGHTS, type Weights } from '../src/games/catan/bots/value.js';
import { createCatanBot, type CatanBot } from '../src/games/catan/driver.js';

export interface StrengthJob {
  readonly id: number;
  readonly seed: string;
  /** Strategy per seat in turn order. */
  readonly lineup: readonly string[];
  readonly search: Omit<SearchOptions, 'weights'> & { readonly weights?: Partial<Weights> };
}

export interface StrengthResult {
  readonly id: number;
  readonly winner: number | null;
  readonly turns: number;
  readonly points: readonly number[];
  /** Per seat: decision times (ms), refusals, fallbacks. */
  readonly seats: readonly {
    readonly times: readonly number[];
    readonly refused: number;
    readonly refusedCodes: Readonly<Record<string, number>>;
    readonly fallbacks: number;
    /** Positions the search valued (0 for other strategies). */
    readonly nodes: number;
  }[];
  readonly ms: number;
}

/** `greedy` is the search bot one ply deep (the value function alone). */
export function makeBot(name: string, seed: string, search: StrengthJob['search']): CatanBot {
  const options: SearchOptions = { ...search, weights: { ...DEFAULT_WEIGHTS, ...search.weights } };
  if (name === 'greedy') {
    const bot = searchBot(seed, { ...options, depth: 1 });
    return {
      strategy: 'greedy',
      decide: (ctx) => bot.decide(ctx),
      get nodes() {
        return bot.nodes;
      },
    } as CatanBot;
  }
  if (name === 'search') return searchBot(seed, options);
  if (name === 'random' || name === 'builder' || name === 'weighted') return createCatanBot(name, seed);
  throw new Error(`unknown strategy ${name}`);
}

parentPort?.on('message', (job: StrengthJob) => {
  const t0 = performance.now();
  const bots = job.lineup.map((name, i) => makeBot(name, `${job.seed}/${i}`, job.search));
  const r = playArenaGame({ seed: job.seed, bots, timing: true });
  const result: StrengthResult = {
    id: job.id,
    winner: r.winner,
    turns: r.turns,
    points: r.points,
    seats: r.seats.map((s, i) => ({ times: s.times, refused: s.refused, refusedCodes: s.refusedCodes, fallbacks: s.fallbacks, nodes: (bots[i] as { nodes?: number }).nodes ?? 0 })),
    ms: performance.now() - t0,
  };
  parentPort?.postMessage(result);
});
