import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.js';
import type { Format } from '../../src/tournament/file.js';
import {
  catanSeatings,
  miaTables,
  roundRobin,
  schedule,
  swissRound,
  type ScheduleSpec,
  type ScheduledMatch,
  type SwissGame,
} from '../../src/tournament/schedule.js';

function field(n: number): { name: string }[] {
  return Array.from({ length: n }, (_, i) => ({ name: `e${i}` }));
}

function make(format: Format, n: number, extra: Partial<ScheduleSpec> = {}): ScheduleSpec {
  return { format, seed: 7, gamesPerPairing: 2, rounds: 3, tableSize: 2, entrants: field(n), ...extra };
}

function count<T>(items: readonly T[], key: (t: T) => string): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of items) m.set(key(t), (m.get(key(t)) ?? 0) + 1);
  return m;
}

function expectCommonShape(matches: readonly ScheduledMatch[]): void {
  expect(new Set(matches.map((m) => m.id)).size).toBe(matches.length);
  for (const m of matches) {
    expect(m.id).toBe(`${m.round}-${m.index}`);
    expect(new Set(m.seats).size).toBe(m.seats.length); // nobody plays themselves
  }
}

describe('round robin', () => {
  it('is deterministic for a seed and differs for another', () => {
    const a = roundRobin(make('round-robin', 6));
    expect(roundRobin(make('round-robin', 6))).toEqual(a);
    expect(roundRobin(make('round-robin', 6, { seed: 'other' }))).not.toEqual(a);
    expect(schedule(make('round-robin', 6))).toEqual(a);
  });

  it('plays every pairing gamesPerPairing times, each seed from both sides', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 11 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer(),
        (n, half, seed) => {
          const g = 2 * half;
          const matches = roundRobin(make('round-robin', n, { gamesPerPairing: g, seed }));
          expectCommonShape(matches);
          expect(matches).toHaveLength((n * (n - 1) * g) / 2);
          const pairs = count(matches, (m) => [...m.seats].sort().join('|'));
          expect(pairs.size).toBe((n * (n - 1)) / 2);
          for (const c of pairs.values()) expect(c).toBe(g);
          // each ordered pair (colours) g/2 times
          for (const c of count(matches, (m) => m.seats.join('|')).values()) expect(c).toBe(half);
          // each seed exactly twice, seats swapped
          const bySeed = new Map<number, ScheduledMatch[]>();
          for (const m of matches) bySeed.set(m.seed, [...(bySeed.get(m.seed) ?? []), m]);
          for (const [, ms] of bySeed) {
            if (ms.length !== 2) continue; // two random seeds may collide; the pairs are still checked below
            expect(ms[1]?.seats).toEqual([...(ms[0]?.seats ?? [])].reverse());
          }
          for (let i = 0; i < matches.length; i += 2) {
            expect(matches[i + 1]?.seed).toBe(matches[i]?.seed);
            expect(matches[i + 1]?.seats).toEqual([...(matches[i]?.seats ?? [])].reverse());
          }
          // colour balance and nobody twice in a round (apart from the two sides of one seed)
          const first = count(matches, (m) => m.seats[0] ?? '');
          const second = count(matches, (m) => m.seats[1] ?? '');
          for (const e of field(n)) expect(first.get(e.name)).toBe(second.get(e.name));
          for (const c of count(matches, (m) => `${m.round}:${m.seats[0] ?? ''}`).values()) expect(c).toBe(1);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('rejects an odd gamesPerPairing', () => {
    expect(() => roundRobin(make('round-robin', 4, { gamesPerPairing: 3 }))).toThrow(RangeError);
  });
});

describe('Catan seatings', () => {
  it('is deterministic for a seed', () => {
    const spec = make('seatings', 7, { tableSize: 3, rounds: 4 });
    expect(schedule(spec)).toEqual(catanSeatings(spec));
    expect(catanSeatings({ ...spec, seed: 8 })).not.toEqual(catanSeatings(spec));
  });

  it('gives every entrant every seat position equally often and replays each seed rotated', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 13 }),
        fc.constantFrom(3, 4),
        fc.integer({ min: 1, max: 8 }),
        fc.integer(),
        (n, k, rounds, seed) => {
          fc.pre(k <= n);
          const matches = catanSeatings(make('seatings', n, { tableSize: k, rounds, seed }));
          expectCommonShape(matches);
          expect(matches).toHaveLength(rounds * Math.floor(n / k) * k);
          for (const e of field(n)) {
            const seatCounts = Array.from(
              { length: k },
              (_, s) => matches.filter((m) => m.seats[s] === e.name).length,
            );
            expect(new Set(seatCounts).size).toBe(1);
          }
          for (let i = 0; i < matches.length; i += k) {
            const group = matches.slice(i, i + k);
            const base = group[0]!;
            group.forEach((m, shift) => {
              expect(m.seed).toBe(base.seed);
              expect(m.seats).toEqual(base.seats.map((_, s) => base.seats[(s + shift) % k]));
            });
          }
          // tables per round: everyone at most once; games spread within one round of each other
          for (const c of count(
            matches.filter((m) => m.index % k === 0).flatMap((m) => m.seats.map((s) => `${m.round}:${s}`)),
            (x) => x,
          ).values()) {
            expect(c).toBe(1);
          }
          const games = field(n).map((e) => matches.filter((m) => m.seats[0] === e.name).length / 1);
          expect(Math.max(...games) - Math.min(...games)).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('Mia tables', () => {
  it('seats R rounds of tables of N evenly', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 12 }),
        fc.integer({ min: 2, max: 6 }),
        fc.integer({ min: 1, max: 9 }),
        (n, size, rounds) => {
          fc.pre(size <= n);
          const spec = make('tables', n, { tableSize: size, rounds });
          const matches = miaTables(spec);
          expect(miaTables(spec)).toEqual(matches);
          expectCommonShape(matches);
          expect(matches).toHaveLength(rounds * Math.floor(n / size));
          for (const m of matches) expect(m.seats).toHaveLength(size);
          const games = count(
            matches.flatMap((m) => m.seats),
            (s) => s,
          );
          const values = field(n).map((e) => games.get(e.name) ?? 0);
          expect(Math.max(...values) - Math.min(...values)).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 60 },
    );
  });
});

/** Plays Swiss rounds with random results and returns every round's schedule. */
function playSwiss(n: number, rounds: number, seed: number): ScheduledMatch[][] {
  const spec = make('swiss', n, { seed });
  const rng = Rng.seeded(seed);
  const history: SwissGame[] = [];
  const out: ScheduledMatch[][] = [];
  for (let r = 1; r <= rounds; r++) {
    const matches = swissRound(spec, r, history);
    out.push(matches);
    for (const m of matches) {
      if (m.bye) history.push({ seats: m.seats, points: [spec.gamesPerPairing / 2] });
      else {
        const w = rng.int(0, 2) / 2;
        history.push({ seats: m.seats, points: [w, 1 - w] });
      }
    }
  }
  return out;
}

describe('Swiss', () => {
  it('avoids rematches whenever a rematch-free pairing exists, with a bye for an odd field', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 24 }), fc.integer(), (n, seed) => {
        // with n even and at most n/2 rounds a rematch-free pairing always exists (Dirac)
        const rounds = Math.max(1, Math.floor(n / 2) - (n % 2));
        const all = playSwiss(n, rounds, seed);
        expect(playSwiss(n, rounds, seed)).toEqual(all);
        const metIn = new Map<string, number>();
        const byes = new Set<string>();
        all.forEach((matches, r) => {
          expectCommonShape(matches);
          const players = matches.filter((m) => m.index % 2 === 0 || m.bye).flatMap((m) => m.seats);
          expect(new Set(players).size).toBe(n); // everyone exactly once per round
          const bye = matches.filter((m) => m.bye);
          expect(bye).toHaveLength(n % 2);
          for (const b of bye) {
            expect(byes.has(b.seats[0]!)).toBe(false);
            byes.add(b.seats[0]!);
          }
          for (const m of matches.filter((x) => !x.bye)) {
            const key = [...m.seats].sort().join('|');
            const before = metIn.get(key);
            expect(before === undefined || before === r).toBe(true);
            metIn.set(key, r);
          }
          for (let i = 0; i + 1 < matches.length; i += 2) {
            if (matches[i]?.bye) continue;
            expect(matches[i + 1]?.seats).toEqual([...(matches[i]?.seats ?? [])].reverse());
            expect(matches[i + 1]?.seed).toBe(matches[i]?.seed);
          }
        });
      }),
      { numRuns: 40 },
    );
  });

  it('pairs by score: leaders meet leaders', () => {
    const spec = make('swiss', 4);
    const r1 = swissRound(spec, 1, []);
    const pairs = r1.filter((m) => m.index % 2 === 0).map((m) => m.seats);
    expect(pairs).toHaveLength(2);
    // the first-seated entrant of each pairing wins both games
    const winners = pairs.map((p) => p[0]!);
    const history: SwissGame[] = r1.map((m) => ({
      seats: m.seats,
      points: m.seats.map((s) => (winners.includes(s) ? 1 : 0)),
    }));
    const r2 = swissRound(spec, 2, history).filter((m) => m.index % 2 === 0);
    expect([...(r2[0]?.seats ?? [])].sort()).toEqual([...winners].sort());
    expect(r2[0]?.id).toBe('2-0');
  });

  it('allows a rematch only when nothing else is possible', () => {
    const spec = make('swiss', 2);
    const r1 = swissRound(spec, 1, []);
    const r2 = swissRound(
      spec,
      2,
      r1.map((m) => ({ seats: m.seats, points: [1, 0] })),
    );
    expect(r2).toHaveLength(2);
  });

  it('balances who starts: the entrant who moved first less often starts the pairing', () => {
    const spec = make('swiss', 2);
    const r2 = swissRound(spec, 2, [
      { seats: ['e0', 'e1'], points: [1, 0] },
      { seats: ['e0', 'e1'], points: [1, 0] },
    ]);
    expect(r2[0]?.seats).toEqual(['e1', 'e0']);
  });

  it('pairs a large field quickly and without rematches', () => {
    const started = performance.now();
    const all = playSwiss(129, 8, 5);
    expect(performance.now() - started).toBeLessThan(5000);
    const keys = all.flatMap((ms) =>
      ms.filter((m) => !m.bye && m.index % 2 === 0).map((m) => [...m.seats].sort().join('|')),
    );
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toHaveLength(8 * 64);
  });

  it('is refused by schedule(), which only knows whole schedules', () => {
    expect(() => schedule(make('swiss', 4))).toThrow(/swissRound/);
  });
});
