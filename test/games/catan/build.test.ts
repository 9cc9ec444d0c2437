import { describe, expect, it } from 'vitest';
import { COST, placementSpots, tradeRates, type Action, type State } from '../../../src/games/catan/rules/index.js';
import { mainPhase, must, player, refused, types, withHand, withPlayer, withSettlement } from './helpers.js';

const at = (piece: 'Strasse' | 'Dorf' | 'Stadt', where: string): Action => ({ type: 'build', piece, at: where });
const rich = (s: State, id = 42): State => withHand(s, id, { Holz: 5, Lehm: 5, Wolle: 5, Getreide: 5, Erz: 5 });

describe('building', () => {
  it('builds a Strasse from an own road end or an own building, for Holz and Lehm', () => {
    const s = rich(mainPhase());
    const step = must(s, 42, at('Strasse', 'SO')); // OS: touches the end of 42's road OP
    expect(types(step.events)).toEqual(['built', 'paid', 'playerUpdated']);
    expect(step.events[0]).toEqual({ type: 'built', player: 42, piece: 'Strasse', at: 'OS' });
    expect(step.events[1]).toEqual({ type: 'paid', player: 42, resources: COST.Strasse, cause: 'build' });
    expect(player(step.state, 42).resources).toMatchObject({ Holz: 4, Lehm: 4 });
    expect(player(step.state, 42).roadsLeft).toBe(12);
    expect(must(s, 42, at('Strasse', 'FO')).state.roads.filter((r) => r === 0)).toHaveLength(3); // from the Dorf at FOP
  });

  it('does not connect a Strasse through an opponent building', () => {
    const s = withSettlement(rich(mainPhase()), 63, 'OPS');
    refused(s, 42, at('Strasse', 'OS'), 'not-connected');
    refused(s, 42, at('Strasse', 'AB'), 'not-connected');
    refused(s, 42, at('Strasse', 'OP'), 'occupied');
    refused(s, 42, at('Strasse', 'Oa'), 'invalid-place');
  });

  it('needs pieces and resources for a Strasse', () => {
    refused(withHand(mainPhase(), 42, { Holz: 1 }), 42, at('Strasse', 'OS'), 'not-enough-resources');
    refused(withPlayer(rich(mainPhase()), 42, { roadsLeft: 0 }), 42, at('Strasse', 'OS'), 'no-pieces');
  });

  it('builds a Dorf on an own road, obeying the distance rule', () => {
    let s = rich(mainPhase());
    s = must(s, 42, at('Strasse', 'OS')).state;
    refused(s, 42, at('Dorf', 'OPS'), 'distance-rule');
    refused(s, 42, at('Dorf', 'HIQ'), 'not-connected');
    refused(s, 42, at('Dorf', 'ALM'), 'occupied');
    refused(s, 42, at('Dorf', 'AB'), 'invalid-place');
    const step = must(s, 42, at('Dorf', 'SNO'));
    expect(types(step.events)).toEqual(['built', 'paid', 'playerUpdated']);
    expect(step.events[0]).toEqual({ type: 'built', player: 42, piece: 'Dorf', at: 'NOS' });
    const p = player(step.state, 42);
    expect(p.points).toBe(3);
    expect(p.settlementsLeft).toBe(2);
    expect(p.resources).toEqual({ Holz: 3, Lehm: 3, Wolle: 4, Getreide: 4, Erz: 5 });
    refused(withHand(s, 42, { Holz: 1, Lehm: 1, Wolle: 1 }), 42, at('Dorf', 'NOS'), 'not-enough-resources');
    refused(withPlayer(s, 42, { settlementsLeft: 0 }), 42, at('Dorf', 'NOS'), 'no-pieces');
  });

  it('upgrades an own Dorf to a Stadt, returning the Dorf to the supply', () => {
    const s = rich(mainPhase());
    const step = must(s, 42, at('Stadt', 'OFP'));
    expect(step.events[0]).toEqual({ type: 'built', player: 42, piece: 'Stadt', at: 'FOP' });
    expect(step.events[1]).toEqual({ type: 'paid', player: 42, resources: { Getreide: 2, Erz: 3 }, cause: 'build' });
    const p = player(step.state, 42);
    expect([p.points, p.citiesLeft, p.settlementsLeft]).toEqual([3, 3, 4]);
    refused(step.state, 42, at('Stadt', 'FOP'), 'occupied');
    refused(s, 42, at('Stadt', 'ALM'), 'occupied');
    refused(s, 42, at('Stadt', 'ABM'), 'no-settlement-to-upgrade');
    refused(withPlayer(s, 42, { citiesLeft: 0 }), 42, at('Stadt', 'FOP'), 'no-pieces');
    refused(withHand(s, 42, { Getreide: 2, Erz: 2 }), 42, at('Stadt', 'FOP'), 'not-enough-resources');
  });

  it('lists the spots where a player could build, whatever it costs', () => {
    const s = mainPhase();
    const spots = placementSpots(s, 42);
    expect(spots.cities.sort()).toEqual(['DEO', 'FOP']);
    expect(spots.roads.sort()).toEqual(['DE', 'DO', 'EF', 'FO', 'FP', 'OS', 'PS']);
    expect(spots.settlements).toEqual([]);
    expect(placementSpots(must(s, 42, { type: 'endTurn' }).state, 63).settlements).toEqual([]);
    expect(tradeRates(s, 42)).toEqual({ Holz: 4, Lehm: 4, Wolle: 4, Getreide: 4, Erz: 4 });
  });

  it('builds only in the own main phase', () => {
    const s = rich(rich(mainPhase()), 63);
    refused(s, 63, at('Strasse', 'HI'), 'not-your-turn');
  });

  it('sells development cards from the deck for Wolle, Getreide and Erz: purchase before cost', () => {
    const s = rich(mainPhase());
    const step = must(s, 42, { type: 'buyDevCard' });
    const card = s.deck[0]!;
    expect(step.events.slice(0, 2)).toEqual([
      { type: 'devCardBought', player: 42, card },
      { type: 'paid', player: 42, resources: COST.Entwicklungskarte, cause: 'devCard' },
    ]);
    const p = player(step.state, 42);
    expect(p.devCards[card]).toBe(1);
    expect(p.boughtThisTurn[card]).toBe(1);
    expect(step.state.drawn).toBe(1);
    refused(withHand(s, 42, { Wolle: 1, Getreide: 1 }), 42, { type: 'buyDevCard' }, 'not-enough-resources');
    refused({ ...s, drawn: 25 }, 42, { type: 'buyDevCard' }, 'deck-empty');
  });
});
