import { describe, expect, it } from 'vitest';
import { CORNER_NAMES, parseEdge, seaRates, type State } from '../../../src/games/catan/rules/index.js';
import { EDGE_CORNERS } from '../../../src/games/catan/rules/geometry.js';
import { afterSetup, mainPhase, must, player, refused, types, withHand, withSettlement } from './helpers.js';

/** A corner of a harbour edge on KARTE_T1 (jE: Holz Hafen, aA: 3:1). */
const harbourCorner = (edge: string): string => CORNER_NAMES[EDGE_CORNERS[parseEdge(edge)]![0]]!;

describe('sea trade', () => {
  it('trades 4:1 without a harbour, Kosten before Ertrag', () => {
    const s = withHand(mainPhase(), 42, { Holz: 9, Erz: 4 });
    expect(seaRates(s, 0)).toEqual({ Holz: 4, Lehm: 4, Wolle: 4, Getreide: 4, Erz: 4 });
    const step = must(s, 42, { type: 'seaTrade', offer: { Holz: 4 }, request: { Lehm: 1 } });
    expect(types(step.events)).toEqual(['paid', 'gained', 'playerUpdated']);
    expect(step.events[0]).toEqual({ type: 'paid', player: 42, resources: { Holz: 4 }, cause: 'seaTrade' });
    expect(step.events[1]).toEqual({ type: 'gained', player: 42, resources: { Lehm: 1 }, cause: 'seaTrade' });
    expect(player(step.state, 42).resources).toMatchObject({ Holz: 5, Lehm: 1 });
    expect(must(s, 42, { type: 'seaTrade', offer: { Holz: 8 }, request: { Lehm: 1, Wolle: 1 } }).state.bank.Holz).toBe(s.bank.Holz + 8);
    expect(must(s, 42, { type: 'seaTrade', offer: { Holz: 4, Erz: 4 }, request: { Lehm: 2 } }).state.bank.Lehm).toBe(s.bank.Lehm - 2);
  });

  it('refuses trades that do not add up', () => {
    const s = withHand(mainPhase(), 42, { Holz: 9, Erz: 4 });
    refused(s, 42, { type: 'seaTrade', offer: { Holz: 3 }, request: { Lehm: 1 } }, 'invalid-trade');
    refused(s, 42, { type: 'seaTrade', offer: { Holz: 8 }, request: { Lehm: 1 } }, 'invalid-trade');
    refused(s, 42, { type: 'seaTrade', offer: { Holz: 4 }, request: { Holz: 1 } }, 'invalid-trade');
    refused(s, 42, { type: 'seaTrade', offer: {}, request: { Lehm: 1 } }, 'invalid-trade');
    refused(s, 42, { type: 'seaTrade', offer: { Holz: 4 }, request: {} }, 'invalid-trade');
    refused(s, 42, { type: 'seaTrade', offer: { Holz: 4.5 }, request: { Lehm: 1 } }, 'invalid-message');
    refused(s, 42, { type: 'seaTrade', offer: { Erz: 8 }, request: { Lehm: 2 } }, 'not-enough-resources');
    refused({ ...s, bank: { ...s.bank, Lehm: 0 } }, 42, { type: 'seaTrade', offer: { Holz: 4 }, request: { Lehm: 1 } }, 'bank-short');
    refused(withHand(afterSetup(), 42, { Holz: 4 }), 42, { type: 'seaTrade', offer: { Holz: 4 }, request: { Lehm: 1 } }, 'wrong-status');
  });

  it('trades 3:1 with a building at a 3:1 harbour and 2:1 at the matching harbour', () => {
    let s = withHand(mainPhase(), 42, { Holz: 6, Erz: 3 });
    s = withSettlement(s, 42, harbourCorner('aA'));
    expect(seaRates(s, 0)).toEqual({ Holz: 3, Lehm: 3, Wolle: 3, Getreide: 3, Erz: 3 });
    must(s, 42, { type: 'seaTrade', offer: { Holz: 3 }, request: { Lehm: 1 } });
    must(s, 42, { type: 'seaTrade', offer: { Erz: 3 }, request: { Lehm: 1 } });
    refused(s, 42, { type: 'seaTrade', offer: { Holz: 2 }, request: { Lehm: 1 } }, 'invalid-trade');
    s = withSettlement(s, 42, harbourCorner('jE'), true);
    expect(seaRates(s, 0)).toEqual({ Holz: 2, Lehm: 3, Wolle: 3, Getreide: 3, Erz: 3 });
    must(s, 42, { type: 'seaTrade', offer: { Holz: 2 }, request: { Lehm: 1 } });
    must(s, 42, { type: 'seaTrade', offer: { Holz: 6 }, request: { Lehm: 1, Wolle: 2 } });
    refused(s, 42, { type: 'seaTrade', offer: { Erz: 2 }, request: { Lehm: 1 } }, 'invalid-trade');
  });
});

describe('domestic trade', () => {
  // After the first roll: 42 holds Holz 2, Erz 2; 63 Wolle 1, Getreide 1, Erz 2; 17 Getreide 3, Erz 1.
  const offered = (): State => must(mainPhase(), 42, { type: 'offerTrade', offer: { Holz: 1 }, request: { Wolle: 1 } }).state;

  it('broadcasts an offer with a Handel id counting up from 0', () => {
    const s = mainPhase();
    const first = must(s, 42, { type: 'offerTrade', offer: { Holz: 1, Lehm: 0 }, request: { Wolle: 1 } });
    expect(first.events).toEqual([{ type: 'tradeOffered', player: 42, tradeId: 0, offer: { Holz: 1 }, request: { Wolle: 1 } }]);
    const second = must(first.state, 42, { type: 'offerTrade', offer: { Erz: 1 }, request: { Getreide: 1 } });
    expect(second.events[0]).toMatchObject({ tradeId: 1 });
    expect(second.state.trades.map((t) => t.id)).toEqual([0, 1]);
  });

  it('refuses offers out of turn, without the cards, or with empty or overlapping sides', () => {
    const s = mainPhase();
    refused(s, 63, { type: 'offerTrade', offer: { Wolle: 1 }, request: { Holz: 1 } }, 'not-your-turn');
    refused(s, 42, { type: 'offerTrade', offer: { Lehm: 1 }, request: { Wolle: 1 } }, 'not-enough-resources');
    refused(s, 42, { type: 'offerTrade', offer: {}, request: { Wolle: 1 } }, 'invalid-trade');
    refused(s, 42, { type: 'offerTrade', offer: { Holz: 1 }, request: {} }, 'invalid-trade');
    refused(s, 42, { type: 'offerTrade', offer: { Holz: 1 }, request: { Holz: 1, Wolle: 1 } }, 'invalid-trade');
    refused(s, 42, { type: 'offerTrade', offer: { Holz: -1 }, request: { Wolle: 1 } }, 'invalid-message');
    refused(afterSetup(), 42, { type: 'offerTrade', offer: { Holz: 1 }, request: { Wolle: 1 } }, 'wrong-status');
  });

  it('lets others accept once each if they hold what is asked', () => {
    const s = offered();
    const step = must(s, 63, { type: 'acceptTrade', tradeId: 0 });
    expect(step.events).toEqual([{ type: 'tradeAccepted', player: 63, tradeId: 0 }]);
    refused(step.state, 63, { type: 'acceptTrade', tradeId: 0 }, 'invalid-trade');
    refused(s, 17, { type: 'acceptTrade', tradeId: 0 }, 'not-enough-resources');
    refused(s, 42, { type: 'acceptTrade', tradeId: 0 }, 'invalid-trade');
    refused(s, 63, { type: 'acceptTrade', tradeId: 7 }, 'trade-not-found');
  });

  it('completes with one acceptor: Handel ausgefuehrt, the offerer’s Kosten and Ertrag, then the partner’s', () => {
    let s = must(offered(), 63, { type: 'acceptTrade', tradeId: 0 }).state;
    s = must(withHand(s, 17, { Wolle: 1 }), 17, { type: 'acceptTrade', tradeId: 0 }).state;
    refused(s, 63, { type: 'completeTrade', tradeId: 0, partner: 63 }, 'not-your-turn');
    refused(s, 42, { type: 'completeTrade', tradeId: 3, partner: 63 }, 'trade-not-found');
    refused(s, 42, { type: 'completeTrade', tradeId: 0, partner: 42 }, 'invalid-trade');
    const step = must(s, 42, { type: 'completeTrade', tradeId: 0, partner: 63 });
    expect(step.events.slice(0, 5)).toEqual([
      { type: 'tradeCompleted', tradeId: 0, player: 42, partner: 63 },
      { type: 'paid', player: 42, resources: { Holz: 1 }, cause: 'trade' },
      { type: 'gained', player: 42, resources: { Wolle: 1 }, cause: 'trade' },
      { type: 'paid', player: 63, resources: { Wolle: 1 }, cause: 'trade' },
      { type: 'gained', player: 63, resources: { Holz: 1 }, cause: 'trade' },
    ]);
    expect(types(step.events.slice(5))).toEqual(['playerUpdated', 'playerUpdated']);
    expect(step.state.trades).toEqual([]);
    expect(step.state.bank).toEqual(s.bank);
    refused(step.state, 42, { type: 'completeTrade', tradeId: 0, partner: 17 }, 'trade-not-found');
  });

  it('re-checks both hands when the trade is completed', () => {
    const s = must(offered(), 63, { type: 'acceptTrade', tradeId: 0 }).state;
    refused(withHand(s, 63, { Erz: 2 }), 42, { type: 'completeTrade', tradeId: 0, partner: 63 }, 'not-enough-resources');
    refused(withHand(s, 42, { Erz: 2 }), 42, { type: 'completeTrade', tradeId: 0, partner: 63 }, 'not-enough-resources');
  });

  it('withdraws an offer, an acceptance, or declines', () => {
    const s = must(offered(), 63, { type: 'acceptTrade', tradeId: 0 }).state;
    const withdrawn = must(s, 63, { type: 'cancelTrade', tradeId: 0 });
    expect(withdrawn.events).toEqual([{ type: 'tradeCancelled', player: 63, tradeId: 0 }]);
    expect(withdrawn.state.trades[0]!.acceptedBy).toEqual([]);
    const declined = must(s, 17, { type: 'cancelTrade', tradeId: 0 });
    expect(declined.events).toEqual([{ type: 'tradeCancelled', player: 17, tradeId: 0 }]);
    expect(declined.state.trades).toEqual(s.trades);
    const cancelled = must(s, 42, { type: 'cancelTrade', tradeId: 0 });
    expect(cancelled.state.trades).toEqual([]);
    refused(cancelled.state, 63, { type: 'acceptTrade', tradeId: 0 }, 'trade-not-found');
    refused(cancelled.state, 42, { type: 'cancelTrade', tradeId: 0 }, 'trade-not-found');
  });
});
