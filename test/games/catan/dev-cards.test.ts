import { describe, expect, it } from 'vitest';
import { censorEvent } from '../../../src/games/catan/events.js';
import type { DevCards, State } from '../../../src/games/catan/rules/index.js';
import { afterSetup, mainPhase, must, player, refused, run, types, withHand, withPlayer, withRoads } from './helpers.js';

const cards = (c: Partial<DevCards>): DevCards => ({ Ritter: 0, Strassenbau: 0, Monopol: 0, Erfindung: 0, Siegpunkt: 0, ...c });
const holding = (s: State, id: number, c: Partial<DevCards>): State => withPlayer(s, id, { devCards: cards(c) });

/** Ends turns with non-7 rolls until `id` is to roll again. */
function roundTo(s: State, id: number): State {
  let state = must(s, s.players[s.turn]!.id, { type: 'endTurn' }).state;
  while (state.players[state.turn]!.id !== id) {
    const active = state.players[state.turn]!.id;
    state = run(state, [
      [active, { type: 'roll', dice: [1, 1] }],
      [active, { type: 'endTurn' }],
    ]);
  }
  return state;
}

describe('development cards', () => {
  it('may play a Ritter before rolling; the status stays Wuerfeln', () => {
    const s = holding(withHand(afterSetup(), 63, { Wolle: 1 }), 42, { Ritter: 2 });
    const step = must(s, 42, { type: 'playKnight', hex: 'A', victim: 63 });
    expect(types(step.events)).toEqual(['knightPlayed', 'robberMoved', 'paid', 'gained', 'playerUpdated', 'playerUpdated']);
    expect(step.events[0]).toEqual({ type: 'knightPlayed', player: 42, hex: 'A', victim: 63 });
    const p = player(step.state, 42);
    expect([p.status, p.knights, p.devCards.Ritter, p.resources.Wolle]).toEqual(['Wuerfeln', 1, 1, 1]);
    refused(step.state, 42, { type: 'playKnight', hex: 'B' }, 'card-not-playable');
    must(step.state, 42, { type: 'roll', dice: [2, 2] });
  });

  it('validates the Ritter robber move like a 7', () => {
    const s = holding(afterSetup(), 42, { Ritter: 1 });
    refused(s, 42, { type: 'playKnight', hex: 'S' }, 'robber-not-moved');
    refused(s, 42, { type: 'playKnight', hex: 'A' }, 'invalid-target');
    refused(s, 42, { type: 'playKnight', hex: 'q' }, 'invalid-place');
    refused(afterSetup(), 42, { type: 'playKnight', hex: 'B' }, 'card-not-playable');
    refused(s, 63, { type: 'playKnight', hex: 'B' }, 'not-your-turn');
  });

  it('refuses a card bought this turn and allows it on the next', () => {
    let s = withHand(mainPhase(), 42, { Wolle: 1, Getreide: 1, Erz: 1 });
    s = { ...s, deck: ['Ritter', ...s.deck.slice(1)] };
    s = must(s, 42, { type: 'buyDevCard' }).state;
    refused(s, 42, { type: 'playKnight', hex: 'B' }, 'card-not-playable');
    s = roundTo(s, 42);
    expect(player(s, 42).boughtThisTurn).toEqual(cards({}));
    expect(player(s, 42).status).toBe('Wuerfeln');
    must(s, 42, { type: 'playKnight', hex: 'B' });
  });

  it('gives Größte Rittermacht at 3 knights and moves it only for strictly more', () => {
    let s = holding(withPlayer(afterSetup(), 42, { knights: 2 }), 42, { Ritter: 1 });
    const third = must(s, 42, { type: 'playKnight', hex: 'B' });
    expect(third.events).toContainEqual({ type: 'largestArmy', player: 42 });
    expect(types(third.events).indexOf('largestArmy')).toBeLessThan(types(third.events).indexOf('playerUpdated'));
    expect(player(third.state, 42).points).toBe(4);
    s = must(third.state, 42, { type: 'roll', dice: [1, 2] }).state;
    s = must(s, 42, { type: 'endTurn' }).state;
    s = holding(withPlayer(s, 63, { knights: 2 }), 63, { Ritter: 2 });
    const tie = must(s, 63, { type: 'playKnight', hex: 'I' });
    expect(types(tie.events)).not.toContain('largestArmy');
    s = roundTo(must(tie.state, 63, { type: 'roll', dice: [1, 2] }).state, 63);
    const more = must(s, 63, { type: 'playKnight', hex: 'B' });
    expect(more.events).toContainEqual({ type: 'largestArmy', player: 63 });
    expect([player(more.state, 42).points, player(more.state, 63).points]).toEqual([2, 4]);
  });

  it('allows one card per turn', () => {
    const s = holding(mainPhase(), 42, { Monopol: 1, Erfindung: 1 });
    const step = must(s, 42, { type: 'playMonopoly', resource: 'Wolle' });
    refused(step.state, 42, { type: 'playYearOfPlenty', resources: { Holz: 2 } }, 'card-not-playable');
  });

  it('Strassenbau: two free roads, the second may build on the first', () => {
    const s = holding(mainPhase(), 42, { Strassenbau: 1 });
    const step = must(s, 42, { type: 'playRoadBuilding', road1: 'SO', road2: 'NS' });
    expect(step.events.slice(0, 3)).toEqual([
      { type: 'roadBuildingPlayed', player: 42, road1: 'OS', road2: 'NS' },
      { type: 'built', player: 42, piece: 'Strasse', at: 'OS' },
      { type: 'built', player: 42, piece: 'Strasse', at: 'NS' },
    ]);
    expect(player(step.state, 42).resources).toEqual(player(s, 42).resources);
    expect(player(step.state, 42).roadsLeft).toBe(11);
    refused(s, 42, { type: 'playRoadBuilding', road1: 'NS', road2: 'SO' }, 'not-connected');
    refused(s, 42, { type: 'playRoadBuilding', road1: 'OS' }, 'second-road-required');
    refused(s, 42, { type: 'playRoadBuilding', road1: 'XY', road2: 'NS' }, 'invalid-place');
    refused(s, 42, { type: 'playRoadBuilding', road1: 'OS', road2: 'OS' }, 'occupied');
  });

  it('Strassenbau: one road with one piece left, none with none or nowhere to build', () => {
    const s = holding(mainPhase(), 42, { Strassenbau: 1 });
    const one = withPlayer(s, 42, { roadsLeft: 1 });
    expect(types(must(one, 42, { type: 'playRoadBuilding', road1: 'OS' }).events).slice(0, 2)).toEqual(['roadBuildingPlayed', 'built']);
    refused(one, 42, { type: 'playRoadBuilding', road1: 'OS', road2: 'NS' }, 'no-pieces');
    refused(withPlayer(s, 42, { roadsLeft: 0 }), 42, { type: 'playRoadBuilding', road1: 'OS', road2: 'NS' }, 'no-pieces');
    const boxed = withRoads(s, 63, ['FO', 'FP', 'DE', 'DO', 'OS', 'PS', 'EF']);
    refused(boxed, 42, { type: 'playRoadBuilding', road1: 'HI', road2: 'IQ' }, 'no-road-spot');
    // With exactly one spot left, the card builds it alone.
    const last = withRoads(s, 63, ['FO', 'FP', 'DE', 'DO', 'PS', 'EF', 'NS', 'RS']);
    expect(must(withRoads(last, 17, ['NO']), 42, { type: 'playRoadBuilding', road1: 'OS' }).state.roads.filter((r) => r === 0)).toHaveLength(3);
  });

  it('Monopol: every opponent hands over all cards of the type, in turn order', () => {
    const s = holding(mainPhase(), 42, { Monopol: 1 });
    const step = must(s, 42, { type: 'playMonopoly', resource: 'Erz' });
    expect(step.events.slice(0, 4)).toEqual([
      { type: 'monopolyPlayed', player: 42, resource: 'Erz' },
      { type: 'paid', player: 63, resources: { Erz: 2 }, cause: 'monopoly' },
      { type: 'paid', player: 17, resources: { Erz: 1 }, cause: 'monopoly' },
      { type: 'gained', player: 42, resources: { Erz: 3 }, cause: 'monopoly' },
    ]);
    expect(types(step.events.slice(4))).toEqual(['playerUpdated', 'playerUpdated', 'playerUpdated']);
    expect(player(step.state, 42).resources.Erz).toBe(5);
    expect(types(must(s, 42, { type: 'playMonopoly', resource: 'Lehm' }).events)).toEqual(['monopolyPlayed', 'playerUpdated']);
  });

  it('Erfindung: exactly 2 cards from the bank, or what it has if fewer', () => {
    const s = holding(mainPhase(), 42, { Erfindung: 1 });
    const step = must(s, 42, { type: 'playYearOfPlenty', resources: { Lehm: 1, Wolle: 1 } });
    expect(step.events.slice(0, 2)).toEqual([
      { type: 'yearOfPlentyPlayed', player: 42, resources: { Lehm: 1, Wolle: 1 } },
      { type: 'gained', player: 42, resources: { Lehm: 1, Wolle: 1 }, cause: 'yearOfPlenty' },
    ]);
    must(s, 42, { type: 'playYearOfPlenty', resources: { Lehm: 2 } });
    refused(s, 42, { type: 'playYearOfPlenty', resources: { Lehm: 1 } }, 'wrong-card-count');
    refused(s, 42, { type: 'playYearOfPlenty', resources: { Lehm: 3 } }, 'wrong-card-count');
    refused({ ...s, bank: { ...s.bank, Lehm: 1 } }, 42, { type: 'playYearOfPlenty', resources: { Lehm: 2 } }, 'bank-short');
    const poor = { ...s, bank: { Holz: 0, Lehm: 1, Wolle: 0, Getreide: 0, Erz: 0 } };
    refused(poor, 42, { type: 'playYearOfPlenty', resources: { Lehm: 2 } }, 'wrong-card-count');
    must(poor, 42, { type: 'playYearOfPlenty', resources: { Lehm: 1 } });
  });

  it('plays cards only in Wuerfeln or Handeln oder Bauen', () => {
    let s = holding(withHand(afterSetup(), 17, { Holz: 8 }), 17, { Monopol: 1 });
    s = holding(s, 42, { Monopol: 1 });
    s = must(s, 42, { type: 'roll', dice: [5, 2] }).state;
    refused(s, 42, { type: 'playMonopoly', resource: 'Holz' }, 'wrong-status');
    refused(s, 17, { type: 'playMonopoly', resource: 'Holz' }, 'not-your-turn');
  });
});

describe('victory', () => {
  it('is won at 10 points during one’s own turn, hidden Siegpunkt cards included, and revealed to all', () => {
    let s = withHand(mainPhase(), 42, { Getreide: 2, Erz: 3 });
    s = withPlayer(s, 42, { points: 7, devCards: cards({ Siegpunkt: 2 }) });
    const step = must(s, 42, { type: 'build', piece: 'Stadt', at: 'FOP' });
    expect(types(step.events).slice(-2)).toEqual(['playerUpdated', 'gameWon']);
    expect(step.events.at(-1)).toEqual({ type: 'gameWon', player: 42, name: 'KI Alpha' });
    const su = step.events.at(-2)!;
    expect(censorEvent(su, 63)).toMatchObject({ player: { id: 42, points: 10, devCards: { Unbekannt: 2 } } });
    expect(step.state.winner).toBe(0);
    expect(step.state.phase).toBe('over');
    refused(step.state, 42, { type: 'endTurn' }, 'game-over');
  });

  it('hides Siegpunkt cards from the others until then', () => {
    const s = withPlayer(mainPhase(), 42, { points: 7, devCards: cards({ Siegpunkt: 2 }) });
    const step = must(withHand(s, 42, { Holz: 1, Lehm: 1 }), 42, { type: 'build', piece: 'Strasse', at: 'OS' });
    expect(types(step.events)).not.toContain('gameWon');
    expect(censorEvent(step.events.at(-1)!, 63)).toMatchObject({ player: { id: 42, points: 7 } });
    expect(censorEvent(step.events.at(-1)!, 42)).toMatchObject({ player: { id: 42, points: 9 } });
  });

  it('waits for the player’s own turn when 10 points come on someone else’s', () => {
    const s = withPlayer(mainPhase(), 63, { points: 10 });
    const step = must(withHand(s, 42, { Holz: 1, Lehm: 1 }), 42, { type: 'build', piece: 'Strasse', at: 'OS' });
    expect(types(step.events)).not.toContain('gameWon');
    const turn = must(step.state, 42, { type: 'endTurn' });
    expect(turn.events.map((e) => (e.type === 'playerUpdated' ? `SU ${e.player.id} ${e.player.status} ${String(e.reveal)}` : e.type))).toEqual([
      'SU 42 Warten false',
      'SU 63 Wuerfeln true',
      'gameWon',
    ]);
  });
});
