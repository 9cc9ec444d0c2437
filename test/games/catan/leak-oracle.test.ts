import { describe, expect, it } from 'vitest';
import { playRandomGame, type RandomGame } from '../../../src/games/catan/bots/random.js';
import { censorEvent, type GameEvent, type SeenEvent, type Viewer } from '../../../src/games/catan/events.js';
import { deliveriesFor, findLeaks, type Delivery, type HistoryEntry } from '../../../src/games/catan/leak-oracle.js';
import type { State } from '../../../src/games/catan/rules/index.js';
import { view, type View } from '../../../src/games/catan/view.js';

/**
 * The oracle must find nothing in what our view and censoring send, for every player and for
 * spectators, and it must catch each kind of leak when a view or the censoring is made leaky on
 * purpose. (bench/catan-rules.ts --check N runs it over more games.)
 */

const history = (g: RandomGame): HistoryEntry[] => [{ state: g.start, events: g.startEvents }, ...g.steps];
const viewers = (g: RandomGame): Viewer[] => [...g.start.players.map((p) => p.id), 'spectator'];
const game = (i: number): RandomGame => playRandomGame({ seed: `leak/${i}`, policy: 'builder', trades: true, record: true });

/** A transcript built from the given view and censoring functions; views on every `every`-th entry. */
function transcript(
  h: readonly HistoryEntry[],
  viewer: Viewer,
  options: { every?: number; viewOf?: (s: State, v: Viewer) => View; censor?: (e: GameEvent, v: Viewer) => SeenEvent } = {},
): Delivery[] {
  const every = options.every ?? 1;
  const viewOf = options.viewOf ?? view;
  const censor = options.censor ?? censorEvent;
  return h.map((entry, i) => ({
    events: entry.events.map((e) => censor(e, viewer)),
    ...(i % every === 0 ? { view: viewOf(entry.state, viewer) } : {}),
  }));
}

/** The games the leaky transcripts are tried on, played once for all of them. */
const leakyGames: RandomGame[] = [];

/** Findings of a leaky transcript: the first viewer of the first game where something leaks. */
function leaks(options: Parameters<typeof transcript>[2], games = 3): string[] {
  for (let i = 0; i < games; i++) {
    const g = leakyGames[i] ?? game(100 + i);
    leakyGames[i] = g;
    const h = history(g);
    for (const v of viewers(g)) {
      const found = findLeaks(h, v, transcript(h, v, { every: 3, ...options })).map((f) => f.what);
      if (found.length > 0) return found;
    }
  }
  return [];
}

describe('leak oracle', () => {
  it('finds nothing in our views and censored events, for every player and spectators', () => {
    for (let i = 0; i < 6; i++) {
      const g = game(i);
      const h = history(g);
      for (const v of viewers(g)) {
        const every = i === 0 ? 1 : 7;
        expect(findLeaks(h, v, transcript(h, v, { every })), `game ${i}, viewer ${String(v)}`).toEqual([]);
      }
    }
    const g = game(0);
    expect(deliveriesFor(history(g), 17, false)).toHaveLength(g.steps.length + 1);
  }, 120_000);

  it("catches others' hands shown by type", () => {
    const found = leaks({
      viewOf: (s, v) => {
        const honest = view(s, v);
        return { ...honest, players: honest.players.map((p, i) => ({ ...p, resources: s.players[i]!.resources })) };
      },
    });
    expect(found.some((w) => /shows \d+ \w+, which is not public/.test(w))).toBe(true);
  });

  it('does not count as a leak what public events imply: the hands right after setup and the first rolls', () => {
    const g = game(200);
    const h = history(g);
    // Until the first 7, steal, discard or sea trade every hand follows from the board and the dice.
    const firstSecret = h.findIndex((entry) => entry.events.some((e) => (e.type === 'gained' || e.type === 'paid') && ['steal', 'discard', 'seaTrade'].includes(e.cause)));
    expect(firstSecret).toBeGreaterThan(g.start.players.length * 2);
    const early = h.slice(0, firstSecret);
    const clear = (s: State, v: Viewer): View => {
      const honest = view(s, v);
      return { ...honest, players: honest.players.map((p, i) => ({ ...p, resources: s.players[i]!.resources })) };
    };
    for (const v of viewers(g)) expect(findLeaks(early, v, transcript(early, v, { viewOf: clear }))).toEqual([]);
  });

  it('catches a steal shown in clear to third parties', () => {
    const found = leaks({ censor: (e, v) => (e.type === 'gained' && e.cause === 'steal' ? e : censorEvent(e, v)) });
    expect(found.some((w) => w.includes('(steal) shows card types'))).toBe(true);
  });

  it('catches a discard shown in clear', () => {
    const found = leaks({ censor: (e, v) => (e.type === 'paid' && e.cause === 'discard' ? e : censorEvent(e, v)) });
    expect(found.some((w) => w.includes('(discard) shows card types'))).toBe(true);
  });

  it("catches others' development cards or a bought card shown by type", () => {
    const typed = leaks({
      viewOf: (s, v) => {
        const honest = view(s, v);
        return { ...honest, players: honest.players.map((p, i) => ({ ...p, devCards: s.players[i]!.devCards })) };
      },
    });
    expect(typed.some((w) => w.includes('development cards by type'))).toBe(true);
    const bought = leaks({ censor: (e, v) => (e.type === 'devCardBought' ? e : censorEvent(e, v)) });
    expect(bought.some((w) => w.includes('bought development card'))).toBe(true);
  });

  it('catches hidden Siegpunkt cards counted in the points others see', () => {
    const found = leaks({
      viewOf: (s, v) => {
        const honest = view(s, v);
        return { ...honest, players: honest.players.map((p, i) => ({ ...p, points: s.players[i]!.points + s.players[i]!.devCards.Siegpunkt })) };
      },
    });
    expect(found.some((w) => /\d+ points, but \d+ are public/.test(w))).toBe(true);
  });

  it('catches the deck order, the RNG state and the bank by type', () => {
    const deck = leaks({ viewOf: (s, v) => ({ ...view(s, v), secret: { order: s.deck } }) as unknown as View }, 1);
    expect(deck).toContain('reveals the deck order');
    const rng = leaks({ viewOf: (s, v) => ({ ...view(s, v), seedState: s.rng.slice() }) as unknown as View }, 1);
    expect(rng).toContain('reveals the RNG state');
    const bank = leaks({ viewOf: (s, v) => ({ ...view(s, v), bankByType: s.bank }) as unknown as View }, 1);
    expect(bank.some((w) => w.includes("the bank's composition"))).toBe(true);
  });

  it('catches a hand size that differs from the public one', () => {
    const found = leaks({
      censor: (e, v) => {
        const seen = censorEvent(e, v);
        return seen.type === 'gained' && 'Unbekannt' in seen.resources ? { ...seen, resources: { Unbekannt: seen.resources.Unbekannt + 1 } } : seen;
      },
    });
    expect(found.some((w) => /gained: \d+ cards, but \d+ moved/.test(w))).toBe(true);
  });
});
