import { describe, expect, it } from 'vitest';
import { MELDUNG, apply, type Action, type RuleErrorCode, type State } from '../../../src/games/catan/rules/index.js';
import { afterSetup, exampleGame, mainPhase, must, withHand, withPlayer, withRoads } from './helpers.js';

/** The Meldung texts catan.md §3 allows for in-game errors (lobby texts belong to the server). */
const SPEC_TEXTS = [
  'Ungueltige Nachricht',
  'Nicht am Zug',
  'Aktion im aktuellen Status nicht erlaubt',
  'Ungueltiger Ort',
  'Ort bereits belegt',
  'Abstandsregel verletzt',
  'Keine Verbindung',
  'Nicht genug Rohstoffe',
  'Keine Bauteile mehr',
  'Bank hat nicht genug Rohstoffe',
  'Keine Entwicklungskarten mehr',
  'Karte nicht spielbar',
  'Falsche Anzahl Karten',
  'Ungueltiges Ziel',
  'Ungueltiger Handel',
  'Handel nicht gefunden',
];

const cards = { Ritter: 0, Strassenbau: 0, Monopol: 0, Erfindung: 0, Siegpunkt: 0 };
const seven = (): State => must(afterSetup(), 42, { type: 'roll', dice: [3, 4] }).state;

/** One refused action per error code. */
const CASES: Record<RuleErrorCode, () => [State, number, Action]> = {
  'unknown-player': () => [mainPhase(), 5, { type: 'endTurn' }],
  'invalid-message': () => [mainPhase(), 42, { type: 'seaTrade', offer: { Holz: -4 }, request: { Lehm: 1 } }],
  'second-road-required': () => [withPlayer(mainPhase(), 42, { devCards: { ...cards, Strassenbau: 1 } }), 42, { type: 'playRoadBuilding', road1: 'OS' }],
  'not-your-turn': () => [mainPhase(), 63, { type: 'endTurn' }],
  'wrong-status': () => [afterSetup(), 42, { type: 'endTurn' }],
  'game-over': () => {
    const s = mainPhase();
    return [{ ...s, phase: 'over', winner: 0 }, 42, { type: 'endTurn' }];
  },
  'invalid-place': () => [exampleGame(), 42, { type: 'build', piece: 'Dorf', at: 'ABC' }],
  'robber-not-moved': () => [seven(), 42, { type: 'moveRobber', hex: 'S' }],
  'no-settlement-to-upgrade': () => [withHand(mainPhase(), 42, { Getreide: 2, Erz: 3 }), 42, { type: 'build', piece: 'Stadt', at: 'ABM' }],
  occupied: () => [withHand(mainPhase(), 42, { Holz: 1, Lehm: 1 }), 42, { type: 'build', piece: 'Strasse', at: 'OP' }],
  'distance-rule': () => [placedAtABM(), 63, { type: 'build', piece: 'Dorf', at: 'ALM' }],
  'not-connected': () => [withHand(mainPhase(), 42, { Holz: 1, Lehm: 1 }), 42, { type: 'build', piece: 'Strasse', at: 'HI' }],
  'no-road-spot': () => [
    withRoads(withPlayer(mainPhase(), 42, { devCards: { ...cards, Strassenbau: 1 } }), 63, ['FO', 'FP', 'DE', 'DO', 'OS', 'PS', 'EF']),
    42,
    { type: 'playRoadBuilding', road1: 'HI', road2: 'IQ' },
  ],
  'not-enough-resources': () => [mainPhase(), 42, { type: 'buyDevCard' }],
  'no-pieces': () => [withPlayer(withHand(mainPhase(), 42, { Holz: 1, Lehm: 1 }), 42, { roadsLeft: 0 }), 42, { type: 'build', piece: 'Strasse', at: 'OS' }],
  'bank-short': () => {
    const s = withHand(mainPhase(), 42, { Holz: 4 });
    return [{ ...s, bank: { ...s.bank, Lehm: 0 } }, 42, { type: 'seaTrade', offer: { Holz: 4 }, request: { Lehm: 1 } }];
  },
  'deck-empty': () => [{ ...withHand(mainPhase(), 42, { Wolle: 1, Getreide: 1, Erz: 1 }), drawn: 25 }, 42, { type: 'buyDevCard' }],
  'card-not-playable': () => [mainPhase(), 42, { type: 'playMonopoly', resource: 'Holz' }],
  'wrong-card-count': () => [must(withHand(afterSetup(), 17, { Holz: 8 }), 42, { type: 'roll', dice: [3, 4] }).state, 17, { type: 'discard', cards: { Holz: 3 } }],
  'invalid-target': () => [seven(), 42, { type: 'moveRobber', hex: 'B', victim: 63 }],
  'invalid-trade': () => [mainPhase(), 42, { type: 'offerTrade', offer: { Holz: 1 }, request: { Holz: 1 } }],
  'trade-not-found': () => [mainPhase(), 63, { type: 'acceptTrade', tradeId: 0 }],
};

/** 42 has placed at ABM; 63 is to place next. */
function placedAtABM(): State {
  const s = must(exampleGame(), 42, { type: 'build', piece: 'Dorf', at: 'ABM' }).state;
  return must(s, 42, { type: 'build', piece: 'Strasse', at: 'AB' }).state;
}

describe('rule errors', () => {
  it.each(Object.entries(CASES))('%s', (code, scenario) => {
    const [state, player, action] = scenario();
    const before = JSON.stringify(state);
    const r = apply(state, player, action);
    expect(r.ok ? 'accepted' : r.error).toEqual({ code, message: MELDUNG[code as RuleErrorCode] });
    expect(JSON.stringify(state)).toBe(before);
  });

  it('uses only Meldung texts the spec lists', () => {
    expect(Object.values(MELDUNG).filter((m) => !SPEC_TEXTS.includes(m))).toEqual([]);
    expect(new Set(Object.values(MELDUNG))).toEqual(new Set(SPEC_TEXTS));
  });
});
