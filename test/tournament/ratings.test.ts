import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.js';
import {
  averageRanks,
  bradleyTerry,
  elo,
  information,
  multiplayerRatings,
  spearman,
  type PairGame,
} from '../../src/tournament/ratings.js';

function byName<T extends { name: string }>(list: readonly T[], name: string): T {
  const found = list.find((x) => x.name === name);
  if (!found) throw new Error(`no ${name}`);
  return found;
}

describe('Elo', () => {
  it('matches a hand computation, game by game', () => {
    const r = elo(
      [
        { a: 'x', b: 'y', score: 1 },
        { a: 'x', b: 'y', score: 0 },
      ],
      { k: 32 },
    );
    // game 1: both 1500, expected 0.5 → ±16; game 2: y expected 1/(1+10^(32/400)) = 0.454, gains 32·0.546
    const gain = 32 * (1 - 1 / (1 + 10 ** (32 / 400)));
    expect(r.get('y')).toBeCloseTo(1484 + gain, 10);
    expect(r.get('x')).toBeCloseTo(1516 - gain, 10);
    expect(elo([{ a: 'x', b: 'y', score: 0.5 }]).get('x')).toBe(1500);
  });

  it('conserves the rating sum', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            a: fc.constantFrom('p', 'q', 'r'),
            b: fc.constantFrom('s', 't'),
            score: fc.constantFrom(0, 0.5, 1),
          }),
        ),
        (games) => {
          const r = elo(games);
          expect([...r.values()].reduce((s, v) => s + v, 0)).toBeCloseTo(1500 * r.size, 6);
        },
      ),
    );
  });
});

describe('Bradley–Terry', () => {
  const threeOne: PairGame[] = [
    { a: 'x', b: 'y', score: 1 },
    { a: 'y', b: 'x', score: 0 },
    { a: 'x', b: 'y', score: 1 },
    { a: 'x', b: 'y', score: 0 },
  ];

  it('gives strength ratio 3 for a 3–1 score without prior, with the textbook standard error', () => {
    const r = bradleyTerry(threeOne, { prior: 0 });
    const x = byName(r, 'x');
    const y = byName(r, 'y');
    expect(x.strength / y.strength).toBeCloseTo(3, 9);
    expect(x.strength * y.strength).toBeCloseTo(1, 9); // geometric mean fixed at 1
    // Var(θx − θy) = 1/(n·p·(1−p)) = 1/(4·0.75·0.25) = 4/3; centred, each θ has a quarter of it
    expect(x.se).toBeCloseTo(Math.sqrt(1 / 3), 9);
    expect(x.rating - y.rating).toBeCloseTo(400 * Math.log10(3), 9);
    expect(x.high - x.rating).toBeCloseTo(1.959964 * (400 / Math.LN10) * Math.sqrt(1 / 3), 4);
  });

  it('counts a draw as half a win to each side', () => {
    const r = bradleyTerry(
      [
        { a: 'x', b: 'y', score: 1 },
        { a: 'x', b: 'y', score: 0.5 },
        { a: 'x', b: 'y', score: 0.5 },
        { a: 'x', b: 'y', score: 0 },
        { a: 'x', b: 'y', score: 1 },
        { a: 'x', b: 'y', score: 1 },
      ],
      { prior: 0 },
    );
    expect(byName(r, 'x').strength / byName(r, 'y').strength).toBeCloseTo(4 / 2, 9);
  });

  it('keeps an unbeaten entrant finite with the prior, and matches a hand-solved MAP', () => {
    const r = bradleyTerry([{ a: 'x', b: 'y', score: 1 }], { prior: 1 });
    const x = byName(r, 'x');
    const y = byName(r, 'y');
    expect(Number.isFinite(x.rating) && Number.isFinite(x.high)).toBe(true);
    expect(x.rating).toBeGreaterThan(y.rating);
    // symmetric solution γy = 1/γx = 1/g: score equation for x is 1.5 = g/(g+1/g) + 0.5·... solved:
    // x: 1 + 0.5 = g/(g + 1/g) + g/(g + 1); with g² = t: t/(t+1) + g/(g+1) = 1.5
    const g = x.strength;
    expect(y.strength).toBeCloseTo(1 / g, 9);
    expect(g / (g + 1 / g) + g / (g + 1)).toBeCloseTo(1.5, 9);
  });

  it('solves the score equations (observed = expected wins) on random data', () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 2, max: 6 }), (seed, n) => {
        const rng = Rng.seeded(seed);
        const games: PairGame[] = Array.from({ length: 40 }, () => {
          const a = rng.int(0, n - 1);
          const b = (a + rng.int(1, n - 1)) % n;
          return { a: `p${a}`, b: `p${b}`, score: rng.int(0, 2) / 2 };
        });
        const prior = 1;
        const r = bradleyTerry(games, { prior });
        for (const p of r) {
          let observed = prior / 2;
          let expected = (prior * p.strength) / (p.strength + 1);
          for (const g of games) {
            if (g.a !== p.name && g.b !== p.name) continue;
            const other = byName(r, g.a === p.name ? g.b : g.a);
            observed += g.a === p.name ? g.score : 1 - g.score;
            expected += p.strength / (p.strength + other.strength);
          }
          expect(expected).toBeCloseTo(observed, 6);
          expect(p.se).toBeGreaterThan(0);
          expect(p.low).toBeLessThan(p.rating);
        }
      }),
      { numRuns: 50 },
    );
  });

  it('orders entrants of known strength', () => {
    const rng = Rng.seeded(3);
    const truth = [4, 2, 1, 0.5];
    const games: PairGame[] = [];
    for (let k = 0; k < 200; k++) {
      const i = rng.int(0, 3);
      const j = (i + rng.int(1, 3)) % 4;
      const p = truth[i]! / (truth[i]! + truth[j]!);
      games.push({ a: `s${i}`, b: `s${j}`, score: rng.float() < p ? 1 : 0 });
    }
    const r = bradleyTerry(games);
    const ratings = truth.map((_, i) => byName(r, `s${i}`).rating);
    expect(spearman(truth, ratings)).toBe(1);
  });
});

describe('observed information', () => {
  it('equals the negative Hessian of the log posterior (finite differences)', () => {
    const counts = [Float64Array.from([0, 3, 1]), Float64Array.from([3, 0, 2]), Float64Array.from([1, 2, 0])];
    const wins = [2.5, 1, 3.5];
    const prior = 1;
    const logPosterior = (theta: number[]): number => {
      let l = 0;
      for (let i = 0; i < 3; i++) {
        l += (wins[i]! + prior / 2) * theta[i]! - prior * Math.log(Math.exp(theta[i]!) + 1);
        for (let j = i + 1; j < 3; j++)
          l -= counts[i]![j]! * Math.log(Math.exp(theta[i]!) + Math.exp(theta[j]!));
      }
      return l;
    };
    const theta = [0.3, -0.2, 0.5];
    const info = information(Float64Array.from(theta, Math.exp), counts, prior);
    const h = 1e-4;
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) {
        const at = (di: number, dj: number): number => {
          const t = [...theta];
          t[i]! += di;
          t[j]! += dj;
          return logPosterior(t);
        };
        const second = (at(h, h) - at(h, -h) - at(-h, h) + at(-h, -h)) / (4 * h * h);
        expect(info[i]![j]).toBeCloseTo(-second, 4);
      }
    }
  });
});

describe('multiplayer ratings (openskill)', () => {
  it('moves the winner up and the last down, and learns a fixed order', () => {
    const one = multiplayerRatings([
      {
        placings: [
          { name: 'a', place: 2 },
          { name: 'b', place: 1 },
          { name: 'c', place: 3 },
        ],
      },
    ]);
    expect(byName(one, 'b').mu).toBeGreaterThan(25);
    expect(byName(one, 'c').mu).toBeLessThan(25);
    expect(byName(one, 'b').low).toBeLessThan(byName(one, 'b').mu);
    // the order of the placings list must not matter, only the places
    const games = Array.from({ length: 30 }, (_, k) => ({
      placings: (k % 2 === 0 ? ['w', 'x', 'y', 'z'] : ['z', 'y', 'x', 'w']).map((name) => ({
        name,
        place: 'wxyz'.indexOf(name) + 1,
      })),
    }));
    const r = multiplayerRatings(games);
    const mus = ['w', 'x', 'y', 'z'].map((n) => byName(r, n).mu);
    expect(spearman([4, 3, 2, 1], mus)).toBe(1);
    expect(byName(r, 'w').sigma).toBeLessThan(25 / 3);
  });

  it('treats equal placings as a tie', () => {
    const r = multiplayerRatings([
      {
        placings: [
          { name: 'a', place: 1 },
          { name: 'b', place: 1 },
        ],
      },
    ]);
    expect(byName(r, 'a').mu).toBeCloseTo(byName(r, 'b').mu, 9);
  });
});

describe('Spearman', () => {
  it('is 1 for the same order, −1 reversed, and handles ties with average ranks', () => {
    expect(spearman([1, 2, 3, 4], [10, 20, 30, 400])).toBe(1);
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).toBe(-1);
    expect(averageRanks([10, 20, 20, 5])).toEqual([2, 3.5, 3.5, 1]);
    // hand: ranks x = [1,2,3,4,5], y = [2,1,4,3,5]: Σd² = 4, ρ = 1 − 6·4/(5·24) = 0.8
    expect(spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5])).toBeCloseTo(0.8, 12);
    expect(() => spearman([1], [1, 2])).toThrow(RangeError);
  });
});
