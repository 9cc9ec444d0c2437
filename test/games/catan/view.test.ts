import { describe, expect, it } from 'vitest';
import { censorEvent, type GameEvent } from '../../../src/games/catan/events.js';
import { view } from '../../../src/games/catan/view.js';
import { afterSetup, mainPhase, must, withHand, withPlayer } from './helpers.js';

const cards = { Ritter: 0, Strassenbau: 0, Monopol: 0, Erfindung: 0, Siegpunkt: 0 };

describe('view', () => {
  const s = withPlayer(mainPhase(), 63, { devCards: { ...cards, Ritter: 1, Siegpunkt: 1 }, boughtThisTurn: { ...cards, Siegpunkt: 1 } });

  it('shows the viewer its own hand, cards and all its points', () => {
    const own = view(s, 63).players.find((p) => p.id === 63)!;
    expect(own.resources).toEqual({ Holz: 0, Lehm: 0, Wolle: 1, Getreide: 1, Erz: 2 });
    expect(own.devCards).toEqual({ ...cards, Ritter: 1, Siegpunkt: 1 });
    expect(own.boughtThisTurn).toEqual({ ...cards, Siegpunkt: 1 });
    expect(own.points).toBe(3);
  });

  it('shows everyone else counts only, and points without hidden Siegpunkt cards', () => {
    for (const viewer of [42, 17, 'spectator'] as const) {
      const other = view(s, viewer).players.find((p) => p.id === 63)!;
      expect(other.resources).toEqual({ Unbekannt: 4 });
      expect(other.devCards).toEqual({ Unbekannt: 2 });
      expect(other.boughtThisTurn).toBe(null);
      expect(other.points).toBe(2);
      expect(other.cards).toBe(4);
    }
  });

  it('never contains the deck, the RNG or the bank by type', () => {
    for (const viewer of [42, 63, 17, 'spectator'] as const) {
      const v = view(s, viewer);
      const text = JSON.stringify(v);
      expect(text).not.toContain(JSON.stringify(s.deck));
      expect(text).not.toContain(JSON.stringify(s.rng));
      expect(Object.keys(v)).not.toContain('bank');
      expect(v.bankCards).toBe(95 - 12);
      expect(v.deckCards).toBe(25);
    }
  });

  it('lists placements with owners, the robber and the open offers', () => {
    const offered = must(s, 42, { type: 'offerTrade', offer: { Holz: 1 }, request: { Wolle: 1 } }).state;
    const v = view(offered, 17);
    expect(v.buildings).toContainEqual({ owner: 42, piece: 'Dorf', at: 'FOP' });
    expect(v.buildings).toContainEqual({ owner: 17, piece: 'Strasse', at: 'KR' });
    expect(v.buildings).toHaveLength(12);
    expect(v.board.robber).toBe('S');
    expect(v.trades).toEqual([{ id: 0, player: 42, offer: { Holz: 1 }, request: { Wolle: 1 }, acceptedBy: [] }]);
    expect(v.turn).toBe(42);
    expect(v.dice).toEqual([2, 4]);
  });

  it('is plain JSON', () => {
    const v = view(s, 42);
    expect(JSON.parse(JSON.stringify(v))).toEqual(v);
  });
});

describe('censorEvent (§2.6)', () => {
  const steal = (): readonly GameEvent[] => {
    const s = must(withHand(afterSetup(), 63, { Wolle: 2 }), 42, { type: 'roll', dice: [3, 4] }).state;
    return must(s, 42, { type: 'moveRobber', hex: 'A', victim: 63 }).events;
  };

  it('shows a steal in clear to each side only for its own side, and as counts to third parties', () => {
    const [moved, paid, gained] = steal();
    expect(censorEvent(moved!, 17)).toEqual(moved);
    expect(censorEvent(paid!, 63)).toEqual({ type: 'paid', player: 63, resources: { Wolle: 1 }, cause: 'steal' });
    expect(censorEvent(gained!, 63)).toEqual({ type: 'gained', player: 42, resources: { Unbekannt: 1 }, cause: 'steal' });
    expect(censorEvent(gained!, 42)).toEqual({ type: 'gained', player: 42, resources: { Wolle: 1 }, cause: 'steal' });
    expect(censorEvent(paid!, 42)).toEqual({ type: 'paid', player: 63, resources: { Unbekannt: 1 }, cause: 'steal' });
    for (const e of [paid!, gained!]) expect(censorEvent(e, 17)).toMatchObject({ resources: { Unbekannt: 1 } });
    expect(censorEvent(gained!, 'spectator')).toMatchObject({ resources: { Unbekannt: 1 } });
  });

  it('censors every Ertrag and Kosten for others, production included', () => {
    const roll = must(afterSetup(), 42, { type: 'roll', dice: [2, 4] }).events;
    const e42 = roll.find((e) => e.type === 'gained' && e.player === 42)!;
    expect(censorEvent(e42, 42)).toEqual(e42);
    expect(censorEvent(e42, 63)).toEqual({ type: 'gained', player: 42, resources: { Unbekannt: 1 }, cause: 'production' });
  });

  it('hides a bought card from everyone but the buyer', () => {
    const s = withHand(mainPhase(), 42, { Wolle: 1, Getreide: 1, Erz: 1 });
    const [bought] = must(s, 42, { type: 'buyDevCard' }).events;
    expect(censorEvent(bought!, 42)).toEqual(bought);
    expect(censorEvent(bought!, 17)).toEqual({ type: 'devCardBought', player: 42, card: 'Unbekannt' });
  });

  it('leaves public events alone', () => {
    const events = must(afterSetup(), 42, { type: 'roll', dice: [2, 4] }).events;
    expect(censorEvent(events[0]!, 17)).toBe(events[0]);
  });
});
