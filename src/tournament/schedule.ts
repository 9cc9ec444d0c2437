import { Rng } from '../core/rng.js';
import type { TournamentSpec } from './file.js';

/**
 * Deterministic schedules: the same spec (entrants, format, seed) always gives the same matches
 * with the same ids, so a resumed tournament can tell which ones it already played.
 */

export interface ScheduledMatch {
  /** `<round>-<index>`, stable across runs of the same spec. */
  id: string;
  round: number;
  index: number;
  /** Entrant names by seat: seat 0 moves first (white, red, …). */
  seats: string[];
  /** The game seed (board, dice, start layout). Matches that replay a seed share it. */
  seed: number;
  /** A Swiss bye: one seat, nothing to play, scored as won. */
  bye?: true;
}

export type ScheduleSpec = Pick<
  TournamentSpec,
  'format' | 'seed' | 'gamesPerPairing' | 'rounds' | 'tableSize'
> & {
  entrants: readonly { name: string }[];
};

function drawSeed(rng: Rng): number {
  return rng.int(0, 0x7fffffff);
}

function rngFor(spec: ScheduleSpec, purpose: string): Rng {
  return Rng.seeded(`${String(spec.seed)}/${purpose}`);
}

/**
 * Circle-method rounds of a single round robin: every pair once, nobody twice in a round;
 * an odd field adds a resting slot (null).
 */
function circleRounds(names: readonly string[]): [string, string][][] {
  const ring: (string | null)[] = [...names];
  if (ring.length % 2 === 1) ring.push(null);
  const m = ring.length;
  const rounds: [string, string][][] = [];
  for (let r = 0; r < m - 1; r++) {
    const pairs: [string, string][] = [];
    for (let i = 0; i < m / 2; i++) {
      const a = ring[i];
      const b = ring[m - 1 - i];
      if (a != null && b != null) pairs.push(r % 2 === 0 ? [a, b] : [b, a]);
    }
    rounds.push(pairs);
    // keep ring[0] fixed and rotate the rest by one
    ring.splice(1, 0, ring.pop() ?? null);
  }
  return rounds;
}

/**
 * Round robin: every pairing gamesPerPairing times; each seed is played twice with the seats
 * swapped, so both entrants see every opening from both sides.
 */
export function roundRobin(spec: ScheduleSpec): ScheduledMatch[] {
  if (spec.gamesPerPairing % 2 !== 0) throw new RangeError('gamesPerPairing must be even');
  const rng = rngFor(spec, 'round-robin');
  const names = rng.shuffle(spec.entrants.map((e) => e.name));
  const cycle = circleRounds(names);
  const out: ScheduledMatch[] = [];
  let round = 0;
  for (let c = 0; c < spec.gamesPerPairing / 2; c++) {
    for (const pairs of cycle) {
      round++;
      let index = 0;
      for (const [a, b] of pairs) {
        const seed = drawSeed(rng);
        for (const seats of [
          [a, b],
          [b, a],
        ]) {
          out.push({ id: `${round}-${index}`, round, index, seats, seed });
          index++;
        }
      }
    }
  }
  return out;
}

/**
 * Picks who plays a round of tables: those with the fewest games so far (ties broken at
 * random), shuffled into tables of `size`. The rest sit this round out.
 */
function tablesForRound(
  names: readonly string[],
  played: Map<string, number>,
  size: number,
  rng: Rng,
): string[][] {
  const order = rng.shuffle(names).sort((a, b) => (played.get(a) ?? 0) - (played.get(b) ?? 0));
  const count = Math.floor(names.length / size) * size;
  const chosen = rng.shuffle(order.slice(0, count));
  const tables: string[][] = [];
  for (let i = 0; i < count; i += size) tables.push(chosen.slice(i, i + size));
  for (const name of chosen) played.set(name, (played.get(name) ?? 0) + 1);
  return tables;
}

/**
 * Catan seatings: each round splits the field into tables of tableSize; each table's board and
 * dice seed is played tableSize times with the seats rotated, so every entrant takes every seat
 * position equally often.
 */
export function catanSeatings(spec: ScheduleSpec): ScheduledMatch[] {
  const rng = rngFor(spec, 'seatings');
  const names = spec.entrants.map((e) => e.name);
  const played = new Map<string, number>();
  const out: ScheduledMatch[] = [];
  for (let round = 1; round <= spec.rounds; round++) {
    let index = 0;
    for (const table of tablesForRound(names, played, spec.tableSize, rng)) {
      const seed = drawSeed(rng);
      for (let shift = 0; shift < table.length; shift++) {
        const seats = table.map((_, s) => table[(s + shift) % table.length] as string);
        out.push({ id: `${round}-${index}`, round, index, seats, seed });
        index++;
      }
    }
  }
  return out;
}

/** Mia: R rounds of tables of N, one match per table, everybody playing as evenly as possible. */
export function miaTables(spec: ScheduleSpec): ScheduledMatch[] {
  const rng = rngFor(spec, 'tables');
  const names = spec.entrants.map((e) => e.name);
  const played = new Map<string, number>();
  const out: ScheduledMatch[] = [];
  for (let round = 1; round <= spec.rounds; round++) {
    tablesForRound(names, played, spec.tableSize, rng).forEach((seats, index) => {
      out.push({ id: `${round}-${index}`, round, index, seats, seed: drawSeed(rng) });
    });
  }
  return out;
}

/** The whole schedule for the formats known in advance; Swiss goes round by round (swissRound). */
export function schedule(spec: ScheduleSpec): ScheduledMatch[] {
  switch (spec.format) {
    case 'round-robin':
      return roundRobin(spec);
    case 'seatings':
      return catanSeatings(spec);
    case 'tables':
      return miaTables(spec);
    case 'swiss':
      throw new Error('a Swiss schedule is made one round at a time: use swissRound');
  }
}

/** A finished game as Swiss pairing needs it: who sat where and the points each seat scored. */
export interface SwissGame {
  seats: readonly string[];
  points: readonly number[];
}

/**
 * The next Swiss round from the games played so far (byes included as one-seat games).
 * Rules (docs/tournaments.md): order by score, then by the seeded start order; an odd field
 * gives the bye to the lowest-placed entrant without one; pair the top entrant with the nearest
 * one below it it has not met, backtracking when the rest cannot be paired; only when no
 * rematch-free pairing exists are rematches allowed. Each pairing plays gamesPerPairing games,
 * seed by seed from both sides, and the entrant who moved first less often starts.
 */
export function swissRound(
  spec: ScheduleSpec,
  round: number,
  history: readonly SwissGame[],
): ScheduledMatch[] {
  if (spec.gamesPerPairing % 2 !== 0) throw new RangeError('gamesPerPairing must be even');
  const start = rngFor(spec, 'swiss-order').shuffle(spec.entrants.map((e) => e.name));
  const score = new Map<string, number>(start.map((n) => [n, 0]));
  const firsts = new Map<string, number>(start.map((n) => [n, 0]));
  const met = new Set<string>();
  const hadBye = new Set<string>();
  for (const g of history) {
    g.seats.forEach((name, s) => score.set(name, (score.get(name) ?? 0) + (g.points[s] ?? 0)));
    const [a, b] = g.seats;
    if (a === undefined) continue;
    if (b === undefined) hadBye.add(a);
    else {
      met.add(pairKey(a, b));
      firsts.set(a, (firsts.get(a) ?? 0) + 1);
    }
  }
  const ranked = start
    .map((name, i) => ({ name, i }))
    .sort((x, y) => (score.get(y.name) ?? 0) - (score.get(x.name) ?? 0) || x.i - y.i)
    .map((x) => x.name);

  let byeName: string | undefined;
  let pairs: [string, string][] | undefined;
  if (ranked.length % 2 === 1) {
    const candidates = [...ranked].reverse().filter((n) => !hadBye.has(n));
    if (candidates.length === 0) candidates.push(...[...ranked].reverse());
    for (const allowRematch of [false, true]) {
      for (const c of candidates) {
        pairs = pairUp(
          ranked.filter((n) => n !== c),
          met,
          allowRematch,
        );
        if (pairs) {
          byeName = c;
          break;
        }
      }
      if (pairs) break;
    }
  } else {
    pairs = pairUp(ranked, met, false) ?? pairUp(ranked, met, true);
  }
  const rng = rngFor(spec, `swiss/${round}`);
  const out: ScheduledMatch[] = [];
  let index = 0;
  for (const [p, q] of pairs ?? []) {
    const [a, b] = (firsts.get(p) ?? 0) <= (firsts.get(q) ?? 0) ? [p, q] : [q, p];
    for (let k = 0; k < spec.gamesPerPairing / 2; k++) {
      const seed = drawSeed(rng);
      for (const seats of [
        [a, b],
        [b, a],
      ]) {
        out.push({ id: `${round}-${index}`, round, index, seats, seed });
        index++;
      }
    }
  }
  if (byeName !== undefined)
    out.push({ id: `${round}-${index}`, round, index, seats: [byeName], seed: 0, bye: true });
  return out;
}

function pairKey(a: string, b: string): string {
  return a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;
}

/** Depth-first pairing down the ranked list; gives up (undefined) after a fixed amount of work. */
function pairUp(
  ranked: readonly string[],
  met: ReadonlySet<string>,
  allowRematch: boolean,
): [string, string][] | undefined {
  let budget = 200_000;
  const used = new Set<string>();
  const pairs: [string, string][] = [];
  const solve = (): boolean => {
    const top = ranked.find((n) => !used.has(n));
    if (top === undefined) return true;
    used.add(top);
    for (const other of ranked) {
      if (used.has(other) || (!allowRematch && met.has(pairKey(top, other)))) continue;
      if (--budget < 0) break;
      used.add(other);
      pairs.push([top, other]);
      if (solve()) return true;
      pairs.pop();
      used.delete(other);
    }
    used.delete(top);
    return false;
  };
  return solve() ? pairs : undefined;
}
