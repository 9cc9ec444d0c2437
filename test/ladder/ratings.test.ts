import fc from 'fast-check';
import { rate as openskillRate } from 'openskill';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TAU,
  HOUSE_LEVELS,
  OPENSKILL_SCALE,
  fromOpenSkill,
  houseLevel,
  initialRating,
  interval95,
  isEstablished,
  nearestHouseLevel,
  rateAgainstAnchor,
  ratePeriod,
  rateMulti,
  rateTwo,
  ratingSystemOf,
  toOpenSkill,
} from '../../src/ladder/ratings.js';
import { LADDER_GAMES, type Rating } from '../../src/ladder/types.js';

const ratingArb = fc.record({
  rating: fc.double({ min: 0, max: 3000, noNaN: true }),
  rd: fc.double({ min: 30, max: 350, noNaN: true }),
  vol: fc.double({ min: 0.02, max: 0.1, noNaN: true }),
  games: fc.nat({ max: 1000 }),
});
const scoreArb = fc.constantFrom(0, 0.5, 1);
const anchorArb = fc.record({
  rating: fc.double({ min: 0, max: 3000, noNaN: true }),
  rd: fc.double({ min: 30, max: 350, noNaN: true }),
});

const fresh = (): Rating => initialRating();

describe('Glicko-2 starting values', () => {
  it('starts every 2-player entry at 1500 ± 350 with volatility 0.06', () => {
    expect(initialRating()).toEqual({ rating: 1500, rd: 350, vol: 0.06, games: 0 });
    expect(initialRating('dame')).toEqual({ rating: 1500, rd: 350, vol: 0.06, games: 0 });
    expect(DEFAULT_TAU).toBe(0.5);
  });

  it('uses OpenSkill for Catan only, whose entries keep no volatility', () => {
    expect(LADDER_GAMES.map(ratingSystemOf)).toEqual([
      'glicko2',
      'glicko2',
      'glicko2',
      'glicko2',
      'openskill',
    ]);
    expect(initialRating('catan')).toEqual({ rating: 1500, rd: 350, vol: 0, games: 0 });
  });
});

describe('ratePeriod', () => {
  it("reproduces Glickman's worked example (1500/200/0.06 vs 1400/30 W, 1550/100 L, 1700/300 L)", () => {
    const after = ratePeriod({ rating: 1500, rd: 200, vol: 0.06, games: 7 }, [
      { rating: 1400, rd: 30, score: 1 },
      { rating: 1550, rd: 100, score: 0 },
      { rating: 1700, rd: 300, score: 0 },
    ]);
    // The paper rounds its intermediate steps and prints 1464.06 and 0.05999; unrounded they are
    // 1464.0507 and 0.0599960.
    expect(Math.abs(after.rating - 1464.06)).toBeLessThan(0.02);
    expect(after.rd).toBeCloseTo(151.52, 2);
    expect(Math.abs(after.vol - 0.05999)).toBeLessThan(1e-5);
    expect(after.games).toBe(10);
  });

  it('leaves a player without results as they were', () => {
    const p = { rating: 1612, rd: 80, vol: 0.059, games: 4 };
    expect(ratePeriod(p, [])).toEqual(p);
  });

  it('refuses a score outside [0, 1]', () => {
    for (const score of [-0.1, 1.5, Number.NaN]) {
      expect(() => ratePeriod(fresh(), [{ rating: 1500, rd: 350, score }])).toThrow(RangeError);
      expect(() => rateTwo(fresh(), fresh(), score)).toThrow(RangeError);
      expect(() => rateAgainstAnchor(fresh(), { rating: 1500, rd: 50 }, score)).toThrow(RangeError);
    }
  });

  it('passes τ through (a smaller τ holds the volatility back after an upset)', () => {
    const upset = (tau: number) =>
      ratePeriod({ rating: 1200, rd: 60, vol: 0.06, games: 50 }, [{ rating: 2000, rd: 50, score: 1 }], {
        tau,
      }).vol;
    expect(upset(0.3)).toBeLessThan(upset(1.2));
    expect(ratePeriod(fresh(), [{ rating: 1700, rd: 50, score: 1 }])).toEqual(
      ratePeriod(fresh(), [{ rating: 1700, rd: 50, score: 1 }], { tau: 0.5 }),
    );
  });
});

describe('rateTwo', () => {
  it('moves two fresh players apart by the same amount and counts the game for both', () => {
    const { a, b } = rateTwo(fresh(), fresh(), 1);
    expect(a.rating).toBeGreaterThan(1500);
    expect(b.rating).toBeLessThan(1500);
    expect(a.rating - 1500).toBeCloseTo(1500 - b.rating, 9);
    expect(a.rd).toBeLessThan(350);
    expect([a.games, b.games]).toEqual([1, 1]);
  });

  it('leaves equal players where they were after a draw', () => {
    const { a, b } = rateTwo(fresh(), fresh(), 0.5);
    expect(a.rating).toBeCloseTo(1500, 9);
    expect(b.rating).toBeCloseTo(1500, 9);
  });

  it('rates both sides from the ratings before the game (seat order does not matter)', () => {
    fc.assert(
      fc.property(ratingArb, ratingArb, scoreArb, (x, y, s) => {
        const forward = rateTwo(x, y, s);
        const backward = rateTwo(y, x, 1 - s);
        expect(forward.a).toEqual(backward.b);
        expect(forward.b).toEqual(backward.a);
        expect(forward.a).toEqual(rateAgainstAnchor(x, y, s));
      }),
    );
  });

  it('never lowers a winner nor raises a loser, and moves the two sides in opposite directions', () => {
    fc.assert(
      fc.property(ratingArb, ratingArb, fc.constantFrom(0, 1), (x, y, s) => {
        const { a, b } = rateTwo(x, y, s);
        const da = a.rating - x.rating;
        const db = b.rating - y.rating;
        if (s === 1) {
          expect(da).toBeGreaterThanOrEqual(0);
          expect(db).toBeLessThanOrEqual(0);
        } else {
          expect(da).toBeLessThanOrEqual(0);
          expect(db).toBeGreaterThanOrEqual(0);
        }
      }),
    );
  });

  it('is zero-sum between players of equal RD and volatility', () => {
    fc.assert(
      fc.property(ratingArb, fc.double({ min: 0, max: 3000, noNaN: true }), scoreArb, (x, otherRating, s) => {
        const y = { ...x, rating: otherRating };
        const { a, b } = rateTwo(x, y, s);
        expect(a.rating - x.rating + (b.rating - y.rating)).toBeCloseTo(0, 6);
      }),
    );
  });

  it('never pulls the stronger side of a draw up nor the weaker one down', () => {
    fc.assert(
      fc.property(ratingArb, ratingArb, (x, y) => {
        const { a, b } = rateTwo(x, y, 0.5);
        const [strong, weak] =
          x.rating >= y.rating
            ? [a.rating - x.rating, b.rating - y.rating]
            : [b.rating - y.rating, a.rating - x.rating];
        expect(strong).toBeLessThanOrEqual(1e-9);
        expect(weak).toBeGreaterThanOrEqual(-1e-9);
      }),
    );
  });

  it('shrinks the RD after a game while the RD is above its one-game-per-period floor', () => {
    // With one game per rating period the volatility adds back about as much as a game takes away
    // once the RD is near 60 (σ = 0.06), so the property holds from there upwards, with margin:
    // RD ≥ 90, σ ≤ 0.06, opponents within 400 points.
    fc.assert(
      fc.property(
        fc.double({ min: 90, max: 350, noNaN: true }),
        fc.double({ min: 0.02, max: 0.06, noNaN: true }),
        anchorArb,
        fc.double({ min: -400, max: 400, noNaN: true }),
        scoreArb,
        (rd, vol, opponent, gap, s) => {
          const player = { rating: opponent.rating + gap, rd, vol, games: 0 };
          expect(rateAgainstAnchor(player, opponent, s).rd).toBeLessThan(rd);
        },
      ),
    );
  });

  it('lets the RD settle near 60 instead of collapsing when two players meet again and again', () => {
    let a = fresh();
    let b = fresh();
    for (let i = 0; i < 200; i++) ({ a, b } = rateTwo(a, b, i % 2));
    expect(a.rd).toBeGreaterThan(55);
    expect(a.rd).toBeLessThan(65);
    expect(Math.abs(a.rating - 1500)).toBeLessThan(20);
  });

  it('lifts a player who always wins above the loser within a few games, whatever the loser started at', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 700, max: 2500, noNaN: true }),
        fc.double({ min: 50, max: 350, noNaN: true }),
        (rating, rd) => {
          let a = fresh();
          let b: Rating = { rating, rd, vol: 0.06, games: 100 };
          let games = 0;
          while (a.rating <= b.rating && games < 10) {
            const before = a.rating;
            ({ a, b } = rateTwo(a, b, 1));
            expect(a.rating).toBeGreaterThan(before);
            games++;
          }
          expect(a.rating).toBeGreaterThan(b.rating);
        },
      ),
    );
  });

  it('sorts a small pool by strength when the stronger always wins', () => {
    // Four entries, strength in index order; each round everyone meets everyone once.
    let pool = [fresh(), fresh(), fresh(), fresh()];
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < pool.length; i++) {
        for (let j = i + 1; j < pool.length; j++) {
          const { a, b } = rateTwo(pool[i]!, pool[j]!, j > i ? 0 : 1);
          pool = pool.map((r, k) => (k === i ? a : k === j ? b : r));
        }
      }
    }
    const ratings = pool.map((r) => r.rating);
    expect([...ratings].sort((x, y) => x - y)).toEqual(ratings);
    expect(pool.every((r) => r.games === 15)).toBe(true);
  });

  it('stays finite even for absurd gaps', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -20000, max: 30000, noNaN: true }),
        fc.double({ min: -20000, max: 30000, noNaN: true }),
        fc.double({ min: 1, max: 2000, noNaN: true }),
        scoreArb,
        (rating, other, rd, s) => {
          const { a, b } = rateTwo(
            { rating, rd, vol: 0.06, games: 0 },
            { rating: other, rd: 30, vol: 0.06, games: 0 },
            s,
          );
          expect([a.rating, a.rd, a.vol, b.rating, b.rd, b.vol].every(Number.isFinite)).toBe(true);
        },
      ),
    );
  });
});

describe('rateAgainstAnchor', () => {
  it('moves only the player; the anchor object is not touched', () => {
    const anchor = Object.freeze({ rating: 1800, rd: 50 });
    const player = Object.freeze(fresh());
    const after = rateAgainstAnchor(player, anchor, 1);
    expect(after.rating).toBeGreaterThan(1500);
    expect(after.games).toBe(1);
    expect(anchor).toEqual({ rating: 1800, rd: 50 });
    expect(player).toEqual(fresh());
  });

  it('never lowers a win nor raises a loss', () => {
    fc.assert(
      fc.property(ratingArb, anchorArb, fc.constantFrom(0, 1), (p, anchor, s) => {
        const d = rateAgainstAnchor(p, anchor, s).rating - p.rating;
        if (s === 1) expect(d).toBeGreaterThanOrEqual(0);
        else expect(d).toBeLessThanOrEqual(0);
      }),
    );
  });

  it('converges towards the anchor a player scores 50 % against', () => {
    let p: Rating = { rating: 1000, rd: 350, vol: 0.06, games: 0 };
    for (let i = 0; i < 100; i++) p = rateAgainstAnchor(p, { rating: 1800, rd: 50 }, i % 2);
    expect(Math.abs(p.rating - 1800)).toBeLessThan(30);
  });
});

describe('OpenSkill on the Glicko scale', () => {
  it('maps a fresh OpenSkill player (25, 25/3) to exactly 1500 ± 350', () => {
    expect(OPENSKILL_SCALE).toBe(42);
    expect(fromOpenSkill(25, 25 / 3, 0)).toEqual(initialRating('catan'));
    expect(toOpenSkill(initialRating('catan'))).toEqual({ mu: 25, sigma: 25 / 3 });
  });

  it('inverts the mapping (up to rounding)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -20, max: 70, noNaN: true }),
        fc.double({ min: 0.01, max: 10, noNaN: true }),
        fc.nat(),
        (mu, sigma, games) => {
          const r = fromOpenSkill(mu, sigma, games);
          const back = toOpenSkill(r);
          expect(back.mu).toBeCloseTo(mu, 10);
          expect(back.sigma).toBeCloseTo(sigma, 10);
          expect(r.games).toBe(games);
          expect(r.vol).toBe(0);
        },
      ),
    );
  });
});

describe('rateMulti', () => {
  const catan = (): Rating => initialRating('catan');

  it('agrees with openskill itself, mapped onto the display scale', () => {
    const start = [
      catan(),
      { rating: 1650, rd: 120, vol: 0, games: 9 },
      catan(),
      { rating: 1300, rd: 200, vol: 0, games: 3 },
    ];
    const places = [2, 1, 4, 3];
    const expected = openskillRate(
      start.map((r) => [toOpenSkill(r)]),
      { rank: places },
    ).map(([r], i) => fromOpenSkill(r!.mu, r!.sigma, start[i]!.games + 1));
    const got = rateMulti(start, places);
    got.forEach((r, i) => {
      expect(r.rating).toBeCloseTo(expected[i]!.rating, 9);
      expect(r.rd).toBeCloseTo(expected[i]!.rd, 9);
      expect(r.games).toBe(expected[i]!.games);
    });
  });

  it('orders four fresh players by their places and counts the game', () => {
    const got = rateMulti([catan(), catan(), catan(), catan()], [3, 1, 4, 2]);
    const byPlace = [1, 3, 0, 2].map((i) => got[i]!.rating);
    expect([...byPlace].sort((x, y) => y - x)).toEqual(byPlace);
    expect(got[1]!.rating).toBeGreaterThan(1500);
    expect(got[2]!.rating).toBeLessThan(1500);
    expect(got.every((r) => r.games === 1 && r.vol === 0)).toBe(true);
  });

  it('treats shared places alike', () => {
    const got = rateMulti([catan(), catan(), catan()], [1, 1, 2]);
    expect(got[0]).toEqual(got[1]);
    expect(got[2]!.rating).toBeLessThan(got[0]!.rating);
  });

  it('keeps a house bot fixed while the others are rated against it as if it were one of them', () => {
    const bot = { rating: 1700, rd: 50, vol: 0, games: 0 };
    const start = [catan(), bot, catan()];
    const got = rateMulti(start, [2, 3, 1], [false, true, false]);
    expect(got[1]).toEqual(bot);
    const unanchored = rateMulti(start, [2, 3, 1]);
    expect(got[0]).toEqual(unanchored[0]);
    expect(got[2]).toEqual(unanchored[2]);
    expect(unanchored[1]!.rating).toBeLessThan(1700);
  });

  it('never lowers the sole winner nor raises the sole last, and permuting seats permutes results', () => {
    const seatsArb = fc.integer({ min: 2, max: 4 }).chain((n) =>
      fc.tuple(
        fc.array(
          fc.record({
            rating: fc.double({ min: 500, max: 2800, noNaN: true }),
            rd: fc.double({ min: 30, max: 350, noNaN: true }),
            vol: fc.constant(0),
            games: fc.nat({ max: 500 }),
          }),
          { minLength: n, maxLength: n },
        ),
        fc.shuffledSubarray(
          Array.from({ length: n }, (_, i) => i + 1),
          { minLength: n, maxLength: n },
        ),
        fc.array(fc.boolean(), { minLength: n, maxLength: n }),
      ),
    );
    fc.assert(
      fc.property(seatsArb, ([ratings, places, anchored]) => {
        const got = rateMulti(ratings, places, anchored);
        got.forEach((r, i) => {
          const before = ratings[i]!;
          if (anchored[i]) {
            expect(r).toEqual(before);
            return;
          }
          expect(r.games).toBe(before.games + 1);
          if (places[i] === 1) expect(r.rating).toBeGreaterThanOrEqual(before.rating);
          if (places[i] === ratings.length) expect(r.rating).toBeLessThanOrEqual(before.rating);
        });
        const reversed = rateMulti([...ratings].reverse(), [...places].reverse(), [...anchored].reverse());
        reversed.reverse().forEach((r, i) => {
          expect(r.rating).toBeCloseTo(got[i]!.rating, 6);
          expect(r.rd).toBeCloseTo(got[i]!.rd, 6);
        });
      }),
      { numRuns: 200 },
    );
  });

  it('refuses malformed games', () => {
    expect(() => rateMulti([catan()], [1])).toThrow(RangeError);
    expect(() => rateMulti([catan(), catan()], [1])).toThrow(RangeError);
    expect(() => rateMulti([catan(), catan()], [1, Number.NaN])).toThrow(RangeError);
    expect(() => rateMulti([catan(), catan()], [1, 2], [false, false, true])).toThrow(RangeError);
  });
});

describe('establishment and intervals', () => {
  it('counts an entry as established from minGames on', () => {
    expect(isEstablished({ ...fresh(), games: 9 }, 10)).toBe(false);
    expect(isEstablished({ ...fresh(), games: 10 }, 10)).toBe(true);
    expect(isEstablished(fresh(), 0)).toBe(true);
  });

  it('gives rating ± 1.96 RD', () => {
    const [low, high] = interval95({ rating: 1600, rd: 100 });
    expect(low).toBeCloseTo(1404, 9);
    expect(high).toBeCloseTo(1796, 9);
  });
});

describe('house levels', () => {
  it('has the anchors for every ladder game (Dame, Ostseeschach and Connect Four measured), sorted by rating, RD 50', () => {
    const table = Object.fromEntries(
      LADDER_GAMES.map((game) => [game, HOUSE_LEVELS[game].map((l) => `${l.id}:${l.rating}`).join(' ')]),
    );
    expect(table).toEqual({
      dame: 'random:100 greedy:600 depth2:1100 depth4:1500 engine-fast:2000 engine:2300',
      ostseeschach: 'random:200 greedy:750 engine-fast:1500 engine:1900',
      connect4: 'easy:700 strong:1500 perfect:1750',
      mia: 'house:1500',
      catan: 'random:900 weighted:1300 search:1700',
    });
    for (const game of LADDER_GAMES) {
      const levels = HOUSE_LEVELS[game];
      expect(
        levels.every((l) => l.game === game && l.rd === 50 && l.label.length > 0 && !l.id.startsWith('e_')),
      ).toBe(true);
      expect(new Set(levels.map((l) => l.id)).size).toBe(levels.length);
      expect(levels.map((l) => l.rating)).toEqual([...levels.map((l) => l.rating)].sort((x, y) => x - y));
    }
  });

  it('finds a level by id within its game', () => {
    expect(houseLevel('dame', 'depth4')?.rating).toBe(1500);
    expect(houseLevel('connect4', 'depth4')).toBeUndefined();
  });

  it('picks the nearest level, the weaker one on an exact tie', () => {
    expect(nearestHouseLevel('dame', 600).id).toBe('greedy');
    expect(nearestHouseLevel('dame', 850).id).toBe('greedy');
    expect(nearestHouseLevel('dame', 851).id).toBe('depth2');
    expect(nearestHouseLevel('dame', 3000).id).toBe('engine');
    expect(nearestHouseLevel('ostseeschach', -50).id).toBe('random');
    expect(nearestHouseLevel('mia', 2400).id).toBe('house');
    fc.assert(
      fc.property(
        fc.constantFrom(...LADDER_GAMES),
        fc.double({ min: 0, max: 3000, noNaN: true }),
        (game, rating) => {
          const best = nearestHouseLevel(game, rating);
          for (const l of HOUSE_LEVELS[game])
            expect(Math.abs(best.rating - rating)).toBeLessThanOrEqual(Math.abs(l.rating - rating));
        },
      ),
    );
  });
});
