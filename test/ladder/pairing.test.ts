import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canPair,
  houseSeat,
  isRematch,
  pairNow,
  rematchDue,
  seatOfFirst,
  waitedMs,
  windowOf,
  type Pairing,
  type PairingOptions,
  type Waiter,
} from '../../src/ladder/pairing.js';

const NOW = 1_000_000;
const OPTIONS: PairingOptions = {
  window: 100,
  widenPerSecond: 10,
  houseAfterMs: 60_000,
  sameHostAllowed: false,
};

let counter = 0;
function waiter(overrides: Partial<Waiter> = {}): Waiter {
  counter++;
  return {
    ticket: `t${String(counter).padStart(3, '0')}`,
    entryId: `e_${String(counter).padStart(10, '0')}`,
    rating: 1500,
    rd: 100,
    since: NOW,
    seat: null,
    lastOpponent: null,
    seats: [0, 0],
    host: `10.0.0.${counter}`,
    ...overrides,
  };
}

/** A pairing in tickets only, for readable expectations. */
function summary(p: Pairing): { pairs: string[]; house: string[] } {
  return {
    pairs: p.pairs.map((x) => `${x.a.ticket}:${x.seatOfA}-${x.b.ticket}`),
    house: p.house.map((h) => `${h.waiter.ticket}:${h.seat}`),
  };
}

describe('pairNow, by example', () => {
  it('pairs nobody when nobody waits, and keeps a lone newcomer waiting', () => {
    expect(pairNow([], NOW, OPTIONS)).toEqual({ pairs: [], house: [] });
    expect(pairNow([waiter()], NOW, OPTIONS)).toEqual({ pairs: [], house: [] });
  });

  it('pairs two compatible waiters at once, the longer waiter first and on seat 0', () => {
    const a = waiter({ ticket: 'a', since: NOW - 5000 });
    const b = waiter({ ticket: 'b', rating: 1580 });
    expect(summary(pairNow([b, a], NOW, OPTIONS))).toEqual({ pairs: ['a:0-b'], house: [] });
  });

  it('widens the window with waiting, and the larger of the two windows counts', () => {
    const a = waiter({ ticket: 'a', rating: 1500, since: NOW });
    const b = waiter({ ticket: 'b', rating: 1750, since: NOW });
    expect(pairNow([a, b], NOW, OPTIONS).pairs).toEqual([]);
    // b has waited 15 s: its window is 100 + 150 = 250, a's still 100
    const later = { ...b, since: NOW - 15_000 };
    expect(windowOf(later, NOW, OPTIONS)).toBe(250);
    expect(summary(pairNow([a, later], NOW, OPTIONS)).pairs).toEqual(['b:0-a']);
    expect(pairNow([a, { ...b, since: NOW - 14_999 }], NOW, OPTIONS).pairs).toEqual([]);
  });

  it('gives the longest waiter its nearest partner first', () => {
    const a = waiter({ ticket: 'a', rating: 1500, since: NOW - 3000 });
    const b = waiter({ ticket: 'b', rating: 1560, since: NOW - 2000 });
    const c = waiter({ ticket: 'c', rating: 1610, since: NOW - 1000 });
    const d = waiter({ ticket: 'd', rating: 1530, since: NOW });
    // a takes d (gap 30), b then takes c (gap 50): not the global minimum b–d (gap 30) first
    expect(summary(pairNow([a, b, c, d], NOW, OPTIONS)).pairs).toEqual(['a:0-d', 'b:0-c']);
    // without d, a takes b (gap 60) although b–c is nearer; c waits
    expect(summary(pairNow([a, b, c], NOW, OPTIONS)).pairs).toEqual(['a:0-b']);
  });

  it('breaks equal gaps by waiting time, then by ticket', () => {
    const a = waiter({ ticket: 'a', rating: 1500, since: NOW - 9000 });
    const up = waiter({ ticket: 'x', rating: 1550, since: NOW - 1000 });
    const down = waiter({ ticket: 'y', rating: 1450, since: NOW - 2000 });
    expect(summary(pairNow([a, up, down], NOW, OPTIONS)).pairs).toEqual(['a:0-y']);
    const down2 = { ...down, ticket: 'w', since: NOW - 1000 };
    expect(summary(pairNow([a, up, down2], NOW, OPTIONS)).pairs).toEqual(['a:0-w']);
  });

  it('never pairs an entry with itself (two connections of one entry)', () => {
    const a = waiter({ ticket: 'a', entryId: 'e_same000001' });
    const b = waiter({ ticket: 'b', entryId: 'e_same000001' });
    expect(pairNow([a, b], NOW, OPTIONS).pairs).toEqual([]);
    expect(pairNow([a, b], NOW + 60_000, OPTIONS).house.map((h) => h.waiter.ticket)).toEqual(['a', 'b']);
  });

  it('keeps two waiters of one host apart unless the options allow it', () => {
    const a = waiter({ ticket: 'a', host: 'lab-1' });
    const b = waiter({ ticket: 'b', host: 'lab-1' });
    expect(pairNow([a, b], NOW, OPTIONS).pairs).toEqual([]);
    expect(summary(pairNow([a, b], NOW, { ...OPTIONS, sameHostAllowed: true })).pairs).toEqual(['a:0-b']);
  });

  it('honours seat requests and refuses two requests for the same seat', () => {
    const zero = waiter({ ticket: 'a', seat: 0 });
    const zero2 = waiter({ ticket: 'b', seat: 0 });
    const one = waiter({ ticket: 'c', seat: 1 });
    const any = waiter({ ticket: 'd', seat: null, seats: [0, 9] });
    expect(pairNow([zero, zero2], NOW, OPTIONS).pairs).toEqual([]);
    expect(summary(pairNow([zero, one], NOW, OPTIONS)).pairs).toEqual(['a:0-c']);
    expect(summary(pairNow([one, zero], NOW, OPTIONS)).pairs).toEqual(['a:0-c']);
    // d's balance asks for seat 1, but a request outranks balance: d takes the seat left over
    expect(summary(pairNow([one, { ...any, seats: [9, 0] }], NOW, OPTIONS)).pairs).toEqual(['c:1-d']);
    expect(summary(pairNow([{ ...any, since: NOW - 1 }, zero], NOW, OPTIONS)).pairs).toEqual(['d:1-a']);
  });

  it('balances seats when free: more seat-0 games (net) means seat 1; a tie gives the longer waiter seat 0', () => {
    const a = waiter({ ticket: 'a', since: NOW - 10, seats: [5, 2] });
    const b = waiter({ ticket: 'b', seats: [2, 2] });
    expect(summary(pairNow([a, b], NOW, OPTIONS)).pairs).toEqual(['a:1-b']);
    // by difference: 12 seat-0 games against 14 seat-1 games is a deficit of seat 0
    const veteran = waiter({ ticket: 'v', since: NOW - 10, seats: [12, 14] });
    const newcomer = waiter({ ticket: 'n', seats: [1, 0] });
    expect(summary(pairNow([veteran, newcomer], NOW, OPTIONS)).pairs).toEqual(['v:0-n']);
    const tieA = waiter({ ticket: 'p', since: NOW - 10, seats: [3, 3] });
    const tieB = waiter({ ticket: 'q', seats: [1, 1] });
    expect(summary(pairNow([tieB, tieA], NOW, OPTIONS)).pairs).toEqual(['p:0-q']);
  });

  describe('rematches', () => {
    const pair = (sinceA: number, sinceB: number): [Waiter, Waiter] => {
      const a = waiter({ ticket: 'a', since: sinceA });
      const b = waiter({ ticket: 'b', since: sinceB, lastOpponent: a.entryId });
      return [{ ...a, lastOpponent: b.entryId }, b];
    };

    it('does not pair the last two opponents again at once', () => {
      const [a, b] = pair(NOW - 1000, NOW);
      expect(isRematch(a, b)).toBe(true);
      expect(pairNow([a, b], NOW, OPTIONS).pairs).toEqual([]);
      // one-sided memory (the other entry played a house bot since) is still a rematch
      expect(pairNow([{ ...a, lastOpponent: 'greedy' }, b], NOW, OPTIONS).pairs).toEqual([]);
    });

    it('pairs them again once the longer waiter has waited more than half the house wait', () => {
      const [a, b] = pair(NOW - 30_001, NOW);
      expect(rematchDue(a, b, NOW, OPTIONS)).toBe(true);
      expect(summary(pairNow([a, b], NOW, OPTIONS)).pairs).toEqual(['a:0-b']);
      const [c, d] = pair(NOW - 30_000, NOW - 10_000);
      expect(rematchDue(c, d, NOW, OPTIONS)).toBe(false);
      expect(pairNow([c, d], NOW, OPTIONS).pairs).toEqual([]);
    });

    it('prefers anyone else to a rematch', () => {
      const [a, b] = pair(NOW - 40_000, NOW - 40_000);
      const c = waiter({ ticket: 'c', rating: 1590, since: NOW });
      expect(summary(pairNow([a, b, c], NOW, OPTIONS)).pairs).toEqual(['a:0-c']);
    });

    it('still applies the window, host and seat rules to a rematch', () => {
      const [a, b] = pair(NOW - 40_000, NOW - 40_000);
      expect(pairNow([a, { ...b, host: a.host }], NOW, OPTIONS).pairs).toEqual([]);
      expect(
        pairNow(
          [
            { ...a, seat: 1 },
            { ...b, seat: 1 },
          ],
          NOW,
          OPTIONS,
        ).pairs,
      ).toEqual([]);
      expect(pairNow([a, { ...b, rating: 2100 }], NOW, OPTIONS).pairs).toEqual([]);
    });

    it('does not count a house level as an entry', () => {
      const a = waiter({ ticket: 'a', lastOpponent: 'engine' });
      const b = waiter({ ticket: 'b', lastOpponent: 'engine' });
      expect(summary(pairNow([a, b], NOW, OPTIONS)).pairs).toEqual(['a:0-b']);
    });
  });

  describe('house games', () => {
    it('sends an unpaired waiter to the house bot from houseAfterMs on, not before', () => {
      const a = waiter({ ticket: 'a', since: NOW - 60_000, seats: [3, 1] });
      const b = waiter({ ticket: 'b', since: NOW - 59_999, rating: 2500 });
      expect(summary(pairNow([a, b], NOW, OPTIONS))).toEqual({ pairs: [], house: ['a:1'] });
      expect(summary(pairNow([a, b], NOW + 1, OPTIONS))).toEqual({ pairs: [], house: ['a:1', 'b:0'] });
    });

    it('gives the asked seat, else the balancing one (seat 0 when balanced)', () => {
      const old = NOW - 100_000;
      expect(houseSeat(waiter({ seat: 1, seats: [0, 5] }))).toBe(1);
      expect(houseSeat(waiter({ seat: 0, seats: [5, 0] }))).toBe(0);
      expect(houseSeat(waiter({ seats: [5, 0] }))).toBe(1);
      expect(houseSeat(waiter({ seats: [0, 5] }))).toBe(0);
      expect(houseSeat(waiter({ seats: [4, 4] }))).toBe(0);
      const lone = waiter({ ticket: 'a', since: old, seat: 1 });
      expect(pairNow([lone], NOW, OPTIONS).house).toEqual([{ waiter: lone, seat: 1 }]);
    });

    it('prefers a human opponent to the house bot', () => {
      const a = waiter({ ticket: 'a', since: NOW - 90_000 });
      const b = waiter({ ticket: 'b', since: NOW });
      expect(summary(pairNow([a, b], NOW, OPTIONS))).toEqual({ pairs: ['a:0-b'], house: [] });
    });
  });

  it('refuses two waiters with one ticket', () => {
    const a = waiter({ ticket: 'same' });
    expect(() => pairNow([a, { ...waiter(), ticket: 'same' }], NOW, OPTIONS)).toThrow(RangeError);
  });

  it('counts no negative wait for a clock that went backwards', () => {
    const early = waiter({ since: NOW + 5000 });
    expect(waitedMs(early, NOW)).toBe(0);
    expect(windowOf(early, NOW, OPTIONS)).toBe(100);
  });
});

describe('pairNow, by property', () => {
  const optionsArb = fc.record({
    window: fc.integer({ min: 0, max: 400 }),
    widenPerSecond: fc.double({ min: 0, max: 20, noNaN: true }),
    houseAfterMs: fc.integer({ min: 1000, max: 120_000 }),
    sameHostAllowed: fc.boolean(),
  });
  const entries = ['e_a', 'e_b', 'e_c', 'e_d', 'e_e', 'e_f', 'e_g'];
  const waiterArb = (houseAfterMs: number) =>
    fc.record({
      entryId: fc.constantFrom(...entries),
      rating: fc.integer({ min: 1000, max: 2000 }),
      rd: fc.integer({ min: 30, max: 350 }),
      since: fc.integer({ min: NOW - 2 * houseAfterMs, max: NOW }),
      seat: fc.constantFrom<0 | 1 | null>(0, 1, null, null),
      lastOpponent: fc.option(fc.constantFrom(...entries, 'greedy'), { nil: null }),
      seats: fc.tuple(fc.nat({ max: 6 }), fc.nat({ max: 6 })),
      host: fc.constantFrom('h1', 'h2', 'h3', 'h4'),
    });
  // Waits up to twice houseAfterMs, few entries, hosts and ratings: about half the cases pair
  // someone, and rematches, house games and waiters left waiting all occur.
  const caseArb = optionsArb.chain((options) =>
    fc.record({
      options: fc.constant(options),
      waiting: fc
        .array(waiterArb(options.houseAfterMs), { maxLength: 14 })
        .map((ws) => ws.map((w, i): Waiter => ({ ...w, ticket: `t${String(i).padStart(2, '0')}` }))),
    }),
  );

  const check = (predicate: (waiting: Waiter[], options: PairingOptions, result: Pairing) => void): void => {
    fc.assert(
      fc.property(caseArb, ({ waiting, options }) =>
        predicate(waiting, options, pairNow(waiting, NOW, options)),
      ),
      { numRuns: 300 },
    );
  };

  it('places every waiter at most once', () => {
    check((_, __, { pairs, house }) => {
      const tickets = [
        ...pairs.flatMap((p) => [p.a.ticket, p.b.ticket]),
        ...house.map((h) => h.waiter.ticket),
      ];
      expect(new Set(tickets).size).toBe(tickets.length);
    });
  });

  it('obeys every pairing rule in every pair', () => {
    check((_, options, { pairs }) => {
      for (const { a, b, seatOfA } of pairs) {
        expect(a.entryId).not.toBe(b.entryId);
        if (!options.sameHostAllowed) expect(a.host).not.toBe(b.host);
        if (a.seat !== null) expect(seatOfA).toBe(a.seat);
        if (b.seat !== null) expect(1 - seatOfA).toBe(b.seat);
        const gap = Math.abs(a.rating - b.rating);
        expect(gap).toBeLessThanOrEqual(Math.max(windowOf(a, NOW, options), windowOf(b, NOW, options)));
        if (isRematch(a, b)) expect(rematchDue(a, b, NOW, options)).toBe(true);
        expect(a.since < b.since || (a.since === b.since && a.ticket < b.ticket)).toBe(true);
        if (a.seat === null && b.seat === null) {
          const [zero, one] = seatOfA === 0 ? [a, b] : [b, a];
          const balance = (w: Waiter) => w.seats[0] - w.seats[1];
          expect(balance(zero)).toBeLessThanOrEqual(balance(one));
          if (balance(zero) === balance(one)) expect(zero).toBe(a);
        }
      }
    });
  });

  it('lets nobody wait past houseAfterMs, and sends nobody to the house before', () => {
    check((waiting, options, { pairs, house }) => {
      const placed = new Set([
        ...pairs.flatMap((p) => [p.a.ticket, p.b.ticket]),
        ...house.map((h) => h.waiter.ticket),
      ]);
      for (const w of waiting)
        if (waitedMs(w, NOW) >= options.houseAfterMs) expect(placed.has(w.ticket)).toBe(true);
      for (const { waiter: w, seat } of house) {
        expect(waitedMs(w, NOW)).toBeGreaterThanOrEqual(options.houseAfterMs);
        expect(seat).toBe(houseSeat(w));
      }
    });
  });

  it('leaves no two unpaired waiters who could have been paired', () => {
    check((waiting, options, { pairs }) => {
      const paired = new Set(pairs.flatMap((p) => [p.a.ticket, p.b.ticket]));
      const left = waiting.filter((w) => !paired.has(w.ticket));
      for (const x of left) {
        for (const y of left) {
          if (x === y) continue;
          expect(canPair(x, y, NOW, options, rematchDue(x, y, NOW, options))).toBe(false);
        }
      }
    });
  });

  it('gives the same result whatever order the waiting list comes in', () => {
    fc.assert(
      fc.property(
        caseArb.chain((c) =>
          fc.record({
            c: fc.constant(c),
            shuffled: fc.shuffledSubarray(c.waiting, { minLength: c.waiting.length }),
          }),
        ),
        ({ c, shuffled }) => {
          expect(summary(pairNow(shuffled, NOW, c.options))).toEqual(
            summary(pairNow(c.waiting, NOW, c.options)),
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('chooses seats by seatOfFirst', () => {
    check((_, __, { pairs }) => {
      for (const p of pairs) expect(p.seatOfA).toBe(seatOfFirst(p.a, p.b));
    });
  });
});
