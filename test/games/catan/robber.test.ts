import { describe, expect, it } from 'vitest';
import type { State } from '../../../src/games/catan/rules/index.js';
import { afterSetup, brief, handTotal, must, player, refused, types, withHand } from './helpers.js';

const seven = (s: State): State => must(s, 42, { type: 'roll', dice: [3, 4] }).state;

describe('the robber on a 7', () => {
  it('goes straight to moving the robber when nobody holds more than 7 cards', () => {
    const step = must(afterSetup(), 42, { type: 'roll', dice: [6, 1] });
    expect(types(step.events)).toEqual(['rolled', 'playerUpdated']);
    expect(player(step.state, 42).status).toBe('Raeuber versetzen');
    expect(step.state.phase).toBe('robber');
  });

  it('makes everyone over 7 cards discard half, rounded down, the roller included', () => {
    let s = withHand(withHand(afterSetup(), 17, { Holz: 5, Erz: 4 }), 42, { Holz: 8 });
    s = seven(s);
    expect(s.discards).toEqual([4, 0, 4]);
    expect(s.players.map((p) => p.status)).toEqual(['Karten wegen Raeuber abgeben', 'Warten', 'Karten wegen Raeuber abgeben']);
    refused(s, 63, { type: 'discard', cards: { Wolle: 1 } }, 'wrong-status');
    refused(s, 17, { type: 'discard', cards: { Holz: 3 } }, 'wrong-card-count');
    refused(s, 17, { type: 'discard', cards: { Holz: 5 } }, 'wrong-card-count');
    refused(s, 17, { type: 'discard', cards: { Lehm: 4 } }, 'not-enough-resources');
    refused(s, 17, { type: 'discard', cards: { Holz: 5, Erz: -1 } }, 'invalid-message');
    refused(s, 42, { type: 'moveRobber', hex: 'A' }, 'wrong-status');
    const first = must(s, 17, { type: 'discard', cards: { Holz: 2, Erz: 2 } });
    expect(first.events[0]).toEqual({ type: 'paid', player: 17, resources: { Holz: 2, Erz: 2 }, cause: 'discard' });
    expect(first.events.map(brief)).toEqual(['paid', 'SU 17 Warten']);
    expect(first.state.phase).toBe('discard');
    const last = must(first.state, 42, { type: 'discard', cards: { Holz: 4 } });
    expect(last.events.map(brief)).toEqual(['paid', 'SU 42 Raeuber versetzen']);
    expect(last.state.phase).toBe('robber');
  });

  it('gives the roller the robber after the last discard of someone else', () => {
    const s = seven(withHand(afterSetup(), 17, { Holz: 5, Erz: 4 }));
    expect(player(s, 42).status).toBe('Warten');
    const step = must(s, 17, { type: 'discard', cards: { Holz: 4 } });
    expect(step.events.map(brief)).toEqual(['paid', 'SU 17 Warten', 'SU 42 Raeuber versetzen']);
  });

  it('moves the robber to another land hex only', () => {
    const s = seven(afterSetup());
    refused(s, 42, { type: 'moveRobber', hex: 'S' }, 'robber-not-moved');
    refused(s, 42, { type: 'moveRobber', hex: 'a' }, 'invalid-place');
    refused(s, 42, { type: 'moveRobber', hex: 'AB' }, 'invalid-place');
    refused(s, 63, { type: 'moveRobber', hex: 'B' }, 'not-your-turn');
    const step = must(s, 42, { type: 'moveRobber', hex: 'B' });
    expect(step.events[0]).toEqual({ type: 'robberMoved', player: 42, hex: 'B' });
    expect(step.state.robber).toBe(1);
    expect(player(step.state, 42).status).toBe('Handeln oder Bauen');
    expect(step.state.phase).toBe('main');
  });

  it('requires a Ziel with cards next to the hex when there is one', () => {
    const s = seven(afterSetup());
    refused(s, 42, { type: 'moveRobber', hex: 'D' }, 'invalid-target'); // 17 at CDN holds cards
    refused(s, 42, { type: 'moveRobber', hex: 'D', victim: 63 }, 'invalid-target'); // not at D
    refused(s, 42, { type: 'moveRobber', hex: 'D', victim: 42 }, 'invalid-target'); // oneself
    refused(s, 42, { type: 'moveRobber', hex: 'B', victim: 63 }, 'invalid-target'); // nobody at B
    refused(s, 42, { type: 'moveRobber', hex: 'D', victim: 5 }, 'invalid-target'); // no such player
    const empty = withHand(s, 17, {});
    refused(empty, 42, { type: 'moveRobber', hex: 'L', victim: 17 }, 'invalid-target'); // 63 at ALM has cards, 17 has none
    expect(must(empty, 42, { type: 'moveRobber', hex: 'C' }).events[0]).toEqual({ type: 'robberMoved', player: 42, hex: 'C' });
    const named = must(empty, 42, { type: 'moveRobber', hex: 'C', victim: 17 });
    expect(types(named.events)).toEqual(['robberMoved', 'playerUpdated']);
  });

  it('steals one random card from the Ziel: Kosten of the victim, then Ertrag of the thief', () => {
    const s = seven(withHand(afterSetup(), 63, { Wolle: 2 }));
    const step = must(s, 42, { type: 'moveRobber', hex: 'A', victim: 63 });
    expect(step.events.slice(0, 3)).toEqual([
      { type: 'robberMoved', player: 42, hex: 'A', victim: 63 },
      { type: 'paid', player: 63, resources: { Wolle: 1 }, cause: 'steal' },
      { type: 'gained', player: 42, resources: { Wolle: 1 }, cause: 'steal' },
    ]);
    expect(step.events.slice(3).map(brief)).toEqual(['SU 42 Handeln oder Bauen', 'SU 63 Warten']);
  });

  it('steals each card with equal chance', () => {
    const tally = new Map<string, number>();
    for (let i = 0; i < 300; i++) {
      const s = seven(withHand(afterSetup(`steal${i}`), 63, { Holz: 1, Erz: 3 }));
      const step = must(s, 42, { type: 'moveRobber', hex: 'A', victim: 63 });
      const got = step.events.flatMap((e) => (e.type === 'gained' ? Object.keys(e.resources) : []));
      const kind = got[0] ?? 'none';
      tally.set(kind, (tally.get(kind) ?? 0) + 1);
      expect(handTotal(player(step.state, 63).resources)).toBe(3);
    }
    // 1 Holz in 4 cards: about 75 of 300.
    expect(tally.get('Holz')).toBeGreaterThan(45);
    expect(tally.get('Holz')).toBeLessThan(110);
  });
});
