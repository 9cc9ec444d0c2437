import { describe, expect, it } from 'vitest';
import { abort, apply, legalActions, newGame, status, type Action } from '../../../src/games/catan/rules/index.js';
import { seatedPlayers } from '../../../src/games/catan/bots/random.js';
import { EXAMPLE_SETUP, afterSetup, brief, exampleGame, mainPhase, must, player, refused, run, types, withHand, withSettlement } from './helpers.js';

const dorf = (at: string): Action => ({ type: 'build', piece: 'Dorf', at });
const strasse = (at: string): Action => ({ type: 'build', piece: 'Strasse', at });

describe('setup', () => {
  it('places in snake order p1…pn, pn…p1, then p1 rolls', () => {
    const started = newGame({ seed: 'snake', players: seatedPlayers(4), fixedOrder: true });
    if (!started.ok) throw new Error(started.error);
    let s = started.value.state;
    const placers: number[] = [];
    while (s.phase === 'setupSettlement' || s.phase === 'setupRoad') {
      const id = s.players[s.turn]!.id;
      expect(s.players.filter((p) => p.status !== 'Warten').map((p) => p.id)).toEqual([id]);
      placers.push(id);
      const legal = legalActions(s, id);
      s = must(s, id, legal.actions[0]!).state;
      s = must(s, id, legalActions(s, id).actions[0]!).state;
    }
    expect(placers).toEqual([101, 108, 115, 122, 122, 115, 108, 101]);
    expect(s.phase).toBe('roll');
    expect(player(s, 101).status).toBe('Wuerfeln');
    expect(s.players.map((p) => p.settlementsLeft)).toEqual([3, 3, 3, 3]);
    expect(s.players.map((p) => p.roadsLeft)).toEqual([13, 13, 13, 13]);
  });

  it('draws the turn order from the seed unless it is fixed', () => {
    const orders = new Set<string>();
    for (let seed = 0; seed < 30; seed++) {
      const g = newGame({ seed, players: seatedPlayers(4) });
      if (!g.ok) throw new Error(g.error);
      orders.add(g.value.state.players.map((p) => p.id).join());
    }
    expect(orders.size).toBeGreaterThan(5);
  });

  it('refuses bad setup placements', () => {
    let s = exampleGame();
    refused(s, 63, dorf('ALM'), 'not-your-turn');
    refused(s, 42, strasse('OP'), 'wrong-status');
    refused(s, 42, { type: 'build', piece: 'Stadt', at: 'FOP' }, 'wrong-status');
    refused(s, 42, { type: 'roll' }, 'wrong-status');
    refused(s, 42, dorf('ABC'), 'invalid-place');
    refused(s, 42, dorf('abc'), 'invalid-place');
    s = must(s, 42, dorf('FOP')).state;
    refused(s, 42, dorf('ALM'), 'wrong-status');
    refused(s, 42, strasse('AM'), 'not-connected');
    refused(s, 42, strasse('XY'), 'invalid-place');
    s = must(s, 42, strasse('PO')).state;
    refused(s, 63, dorf('FOP'), 'occupied');
    refused(s, 63, dorf('FGP'), 'distance-rule');
    s = must(s, 63, dorf('DEO')).state;
    refused(s, 63, strasse('OP'), 'occupied');
  });

  it('yields for the round-2 Dorf only, as far as the bank can pay', () => {
    let s = run(exampleGame(), EXAMPLE_SETUP.slice(0, 6));
    expect(s.players.every((p) => p.resources.Getreide + p.resources.Erz === 0)).toBe(true);
    s = { ...s, bank: { ...s.bank, Getreide: 1 } };
    const step = must(s, 17, dorf('CDN'));
    expect(step.events.find((e) => e.type === 'gained')).toEqual({ type: 'gained', player: 17, resources: { Getreide: 1, Erz: 1 }, cause: 'setup' });
  });
});

describe('rolling and production', () => {
  it('pays 1 per Dorf and 2 per Stadt on the rolled number, and nothing under the robber', () => {
    let s = afterSetup();
    s = withSettlement(s, 63, 'BCN', true);
    const step = must(s, 42, { type: 'roll', dice: [3, 3] });
    const gained = step.events.filter((e) => e.type === 'gained');
    // C (Ackerland 6): 17's Dorf at CDN, 63's Stadt at BCN; P (Gebirge 6): 42 at FOP, 63 at GHP.
    expect(gained).toEqual([
      { type: 'gained', player: 42, resources: { Erz: 1 }, cause: 'production' },
      { type: 'gained', player: 63, resources: { Getreide: 2, Erz: 1 }, cause: 'production' },
      { type: 'gained', player: 17, resources: { Getreide: 1 }, cause: 'production' },
    ]);
    const robbed = { ...s, robber: 15 }; // P
    const step2 = must(robbed, 42, { type: 'roll', dice: [3, 3] });
    expect(step2.events.filter((e) => e.type === 'gained').map((e) => e.player)).toEqual([63, 17]);
  });

  it('pays nobody a resource the bank cannot cover for everyone, unless one player claims it', () => {
    const s = afterSetup();
    const short = { ...s, bank: { ...s.bank, Erz: 1, Getreide: 1 } };
    const step = must(short, 42, { type: 'roll', dice: [3, 3] });
    // Erz: 42 and 63 claim 1 each, only 1 left: nobody. Getreide: 17 alone claims 1: paid.
    expect(step.events.filter((e) => e.type === 'gained')).toEqual([{ type: 'gained', player: 17, resources: { Getreide: 1 }, cause: 'production' }]);
    const single = withSettlement({ ...s, bank: { ...s.bank, Getreide: 1 } }, 17, 'BCN', true);
    const step2 = must(single, 42, { type: 'roll', dice: [3, 3] });
    expect(step2.events.find((e) => e.type === 'gained' && e.player === 17)).toMatchObject({ resources: { Getreide: 1 } });
  });

  it('rolls two dice from the seeded RNG, replayably', () => {
    const a = must(afterSetup('r1'), 42, { type: 'roll' });
    const b = must(afterSetup('r1'), 42, { type: 'roll' });
    expect(a).toEqual(b);
    const dice = new Set<string>();
    for (let i = 0; i < 60; i++) {
      const d = must(afterSetup(`d${i}`), 42, { type: 'roll' }).state.dice!;
      expect(d.every((x) => x >= 1 && x <= 6)).toBe(true);
      dice.add(d.join());
    }
    expect(dice.size).toBeGreaterThan(15);
  });

  it('refuses rolling twice, out of turn and impossible dice', () => {
    const s = mainPhase();
    refused(s, 42, { type: 'roll' }, 'wrong-status');
    refused(afterSetup(), 63, { type: 'roll' }, 'not-your-turn');
    refused(afterSetup(), 42, { type: 'roll', dice: [0, 7] }, 'invalid-message');
    refused(afterSetup(), 42, { type: 'endTurn' }, 'wrong-status');
  });

  it('ends the turn: open offers lapse, the next player rolls', () => {
    let s = mainPhase();
    s = must(s, 42, { type: 'offerTrade', offer: { Holz: 1 }, request: { Wolle: 1 } }).state;
    const step = must(s, 42, { type: 'endTurn' });
    expect(types(step.events)).toEqual(['tradeCancelled', 'playerUpdated', 'playerUpdated']);
    expect(step.events[0]).toEqual({ type: 'tradeCancelled', player: 42, tradeId: 0 });
    expect(step.state.trades).toEqual([]);
    expect(player(step.state, 42).status).toBe('Warten');
    expect(player(step.state, 63).status).toBe('Wuerfeln');
    expect(status(step.state)).toEqual({ kind: 'running', phase: 'roll', turn: 63, toAct: [63] });
    expect(step.state.turnNumber).toBe(1);
  });

  it('ends the game without a winner when a player loses the connection (D9)', () => {
    const step = abort(mainPhase(), 63);
    if (!step.ok) throw new Error(step.error.code);
    expect(step.value.events.map(brief)).toEqual(['SU 63 Verbindung verloren', 'gameAborted']);
    expect(step.value.events[1]).toEqual({ type: 'gameAborted', player: 63, name: 'KI Beta' });
    expect(status(step.value.state)).toEqual({ kind: 'aborted', disconnected: [63] });
    refused(step.value.state, 42, { type: 'endTurn' }, 'game-over');
    expect(abort(step.value.state, 42).ok).toBe(false);
  });

  it('refuses actions from players that are not seated', () => {
    refused(mainPhase(), 99, { type: 'endTurn' }, 'unknown-player');
  });

  it('only the discarders and the roller act after a 7; nothing is produced', () => {
    let s = mainPhase();
    s = must(s, 42, { type: 'endTurn' }).state;
    s = withHand(s, 17, { Holz: 5, Erz: 4 });
    const step = must(s, 63, { type: 'roll', dice: [3, 4] });
    expect(types(step.events)).toEqual(['rolled', 'playerUpdated', 'playerUpdated']);
    expect(player(step.state, 63).status).toBe('Warten');
    expect(player(step.state, 17).status).toBe('Karten wegen Raeuber abgeben');
    expect(step.state.discards).toEqual([0, 0, 4]);
    expect(apply(step.state, 63, { type: 'moveRobber', hex: 'A' }).ok).toBe(false);
  });
});
