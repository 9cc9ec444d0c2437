import { describe, expect, it } from 'vitest';
import { playArenaGame } from '../../../src/games/catan/bots/arena.js';
import { CORNER_COUNT, boardInfo, spotFree } from '../../../src/games/catan/bots/features.js';
import { chooseSetupCorner } from '../../../src/games/catan/bots/opening.js';
import { searchBot } from '../../../src/games/catan/bots/search.js';
import { goalsOf, offerShapes, wouldTake } from '../../../src/games/catan/bots/trading.js';
import { evaluate } from '../../../src/games/catan/bots/value.js';
import { weightedBot } from '../../../src/games/catan/bots/weighted.js';
import { total } from '../../../src/games/catan/rules/resources.js';
import {
  RESOURCES,
  parseCorner,
  parseLandHex,
  seatOf,
  type ResourceCounts,
  type State,
} from '../../../src/games/catan/rules/index.js';
import { exampleGame, mainPhase, must, withHand, withPlayer } from './helpers.js';

/**
 * The search bot's parts one by one (opening, value function, trade model) on the fixture board
 * T1 of the spec (§5), and its trading in a few fast arena games against weighted bots.
 */

describe('search bot: opening', () => {
  it('takes the rich, varied corner over a poor one', () => {
    const s = exampleGame();
    const { cornerPips } = boardInfo(s.board);
    const free = Array.from({ length: CORNER_COUNT }, (_, c) => c).filter(
      (c) => spotFree(s.buildings, c) && cornerPips[c]! > 0,
    );
    const rich = free.reduce((a, b) => (cornerPips[b]! > cornerPips[a]! ? b : a));
    const poor = free.reduce((a, b) => (cornerPips[b]! < cornerPips[a]! ? b : a));
    expect(cornerPips[rich]!).toBeGreaterThan(cornerPips[poor]! + 6);
    expect(chooseSetupCorner(s, 0, [poor, rich])).toBe(rich);
    expect(chooseSetupCorner(s, 0, [rich, poor])).toBe(rich);
  });

  it('completes the first corner with what it lacks', () => {
    // FOP (T1) yields Lehm, Holz and Erz; of two partners with the same pips, the one bringing
    // Getreide and Wolle is worth more than more of the same.
    let s = exampleGame();
    s = must(s, 42, { type: 'build', piece: 'Dorf', at: 'FOP' }).state;
    s = must(s, 42, { type: 'build', piece: 'Strasse', at: 'OP' }).state;
    const seat = seatOf(s, 42);
    const { cornerPips } = boardInfo(s.board);
    // Second placement of seat 0 (setup step 5 of 6 with three players): skip the others.
    const late: State = { ...s, setupStep: 5, turn: seat, phase: 'setupSettlement' };
    const varied = parseCorner('GHP'); // Wolle 9, Getreide 12, Erz 6: 4 + 1 + 5 = 10 pips
    const same = parseCorner('EFO'); // Holz 8, Lehm 10, Holz 5: 5 + 3 + 4 = 12 pips
    expect(cornerPips[same]!).toBeGreaterThan(cornerPips[varied]!);
    expect(chooseSetupCorner(late, seat, [same, varied])).toBe(varied);
  });
});

describe('search bot: value function', () => {
  it('prefers a Stadt to the cards it costs', () => {
    let s = mainPhase();
    s = withHand(s, 42, { Getreide: 2, Erz: 3 });
    const city = must(s, 42, { type: 'build', piece: 'Stadt', at: 'FOP' }).state;
    const seat = seatOf(s, 42);
    expect(evaluate(city, seat)).toBeGreaterThan(evaluate(s, seat) + 500);
  });

  it('puts the robber on the leader, not on the hex with the most pips', () => {
    // T1: M (Weideland 9, 4 pips) touches only 63's ALM, K (Hügelland 8, 5 pips) only 17's KLR.
    const base = mainPhase();
    const seat = seatOf(base, 42);
    const on = (s: State, hex: string): number => evaluate({ ...s, robber: parseLandHex(hex) }, seat);
    const leader63 = withPlayer(withPlayer(base, 63, { points: 8 }), 17, { points: 2 });
    expect(on(leader63, 'M')).toBeGreaterThan(on(leader63, 'K'));
    const leader17 = withPlayer(withPlayer(base, 63, { points: 2 }), 17, { points: 8 });
    expect(on(leader17, 'K')).toBeGreaterThan(on(leader17, 'M'));
  });
});

describe('search bot: trades', () => {
  const cards = (c: ResourceCounts): ResourceCounts => c;

  it('models a partner as a planner: it gives spare cards for what its build lacks', () => {
    // 63 owns Dörfer (ALM, GHP) and saves for a Stadt: Getreide 2, Erz 2 in hand, 3 Wolle spare.
    const s = withHand(mainPhase(), 63, { Wolle: 3, Getreide: 2, Erz: 2 });
    const seat = seatOf(s, 63);
    const goals = goalsOf(s, seat);
    const hand = s.players[seat]!.resources;
    expect(wouldTake(hand, goals, cards({ Erz: 1 }), cards({ Wolle: 2 }))).toBe(true);
    expect(wouldTake(hand, goals, cards({ Erz: 1 }), cards({ Wolle: 1 }))).toBe(true);
    expect(wouldTake(hand, goals, cards({ Erz: 1 }), cards({ Wolle: 3 }))).toBe(false); // 3 for 1 is too dear
    expect(wouldTake(hand, goals, cards({ Erz: 1 }), cards({ Getreide: 1 }))).toBe(false); // the Stadt needs it
    expect(wouldTake(hand, goals, cards({ Holz: 1 }), cards({ Wolle: 1 }))).toBe(false); // no closer
    expect(wouldTake(hand, goals, cards({ Erz: 1 }), cards({ Lehm: 1 }))).toBe(false); // not held
  });

  it('considers one or two cards for one and one for two, never a type on both sides', () => {
    const shapes = offerShapes({ Holz: 2, Lehm: 1, Wolle: 0, Getreide: 0, Erz: 0 });
    for (const { offer, request } of shapes) {
      expect(RESOURCES.every((r) => !(offer[r] ?? 0) || !(request[r] ?? 0))).toBe(true);
      expect(total(offer) + total(request)).toBeLessThanOrEqual(3);
      expect(offer.Wolle ?? 0).toBe(0);
    }
    const has = (o: ResourceCounts, r: ResourceCounts): boolean =>
      shapes.some(
        (x) =>
          JSON.stringify(x.offer) === JSON.stringify(o) && JSON.stringify(x.request) === JSON.stringify(r),
      );
    expect(has({ Holz: 1 }, { Erz: 2 })).toBe(true);
    expect(has({ Holz: 2 }, { Erz: 1 })).toBe(true);
    expect(has({ Holz: 1, Lehm: 1 }, { Erz: 1 })).toBe(true);
    expect(has({ Lehm: 2 }, { Erz: 1 })).toBe(false);
  });

  it('gets more cards than it gives in its own offers against weighted bots', () => {
    let got = 0;
    let gave = 0;
    let trades = 0;
    for (let g = 0; g < 3; g++) {
      const offers = new Map<number, { offer: ResourceCounts; request: ResourceCounts }>();
      const bots = [0, 1, 2, 3].map((i) =>
        i === g
          ? searchBot(`ratio/${g}/${i}`, { depth: 2, beam: 2, samples: 2 })
          : weightedBot(`ratio/${g}/${i}`),
      );
      const r = playArenaGame({
        seed: `ratio/${g}`,
        bots,
        onAction: (seat, action, events) => {
          for (const e of events) if (e.type === 'tradeOffered') offers.set(e.tradeId, e);
          if (seat === g && action.type === 'completeTrade') {
            const t = offers.get(action.tradeId)!;
            got += total(t.request);
            gave += total(t.offer);
            trades++;
          }
        },
      });
      expect(r.winner).not.toBeNull();
      expect(r.seats[g]!.refused).toBe(0);
    }
    expect(trades).toBeGreaterThan(3);
    expect(got).toBeGreaterThan(gave);
  });
});
