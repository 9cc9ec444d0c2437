import { describe, expect, it } from 'vitest';
import { playArenaGame, type ArenaResult } from '../../../src/games/catan/bots/arena.js';
import { determinize, knowledge } from '../../../src/games/catan/bots/determinize.js';
import { searchBot } from '../../../src/games/catan/bots/search.js';
import { weightedBot } from '../../../src/games/catan/bots/weighted.js';
import type { ClientView } from '../../../src/games/catan/client-view.js';
import { CATAN_STRATEGIES, createCatanBot, randomBot, type CatanBot, type DecisionContext } from '../../../src/games/catan/driver.js';
import { covers, total } from '../../../src/games/catan/rules/resources.js';
import { BANK_START, RESOURCES, type Action, type State } from '../../../src/games/catan/rules/index.js';
import { Rng } from '../../../src/core/rng.js';

/**
 * The bots of issue 8 in seeded in-process games (bots/arena.ts: each sees only the view its wire
 * client would build). A small search budget keeps the file fast; the strength figures at full
 * budget come from bench/catan-strength.ts.
 */

const QUICK = { depth: 2, beam: 3, samples: 3 } as const;

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Whether the action is among the legal ones, or a well-formed member of a structured family. */
function legalIn(ctx: DecisionContext, a: Action): boolean {
  if (ctx.legal.actions.some((x) => same(x, a))) return true;
  if (a.type === 'discard' && ctx.legal.discard) return total(a.cards) === ctx.legal.discard.count && covers(ctx.legal.discard.hand, a.cards);
  if (a.type === 'offerTrade' && ctx.legal.offer) {
    const disjoint = RESOURCES.every((r) => !(a.offer[r] ?? 0) || !(a.request[r] ?? 0));
    return total(a.offer) > 0 && total(a.request) > 0 && disjoint && covers(ctx.legal.offer.hand, a.offer);
  }
  return false;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** The bot, with every action it chooses checked against its (frozen) decision context. */
function checked(bot: CatanBot, problems: string[]): CatanBot {
  return {
    strategy: bot.strategy,
    decide: (ctx) => {
      const a = bot.decide(deepFreeze(ctx));
      if (a && !legalIn(ctx, a)) problems.push(`${bot.strategy}: ${JSON.stringify(a)} in ${ctx.legal.status}`);
      return a;
    },
  };
}

const make = (name: string, seed: string): CatanBot =>
  name === 'search' ? searchBot(seed, QUICK) : name === 'weighted' ? weightedBot(seed) : name === 'builder' ? randomBot(seed, { policy: 'builder', trades: true }) : randomBot(seed);

/** Wins and mean points of `hero` seated once at each turn position against three `foe`. */
function series(hero: string, foe: string, games: number, seed: string): { wins: number; heroPoints: number; foePoints: number } {
  let wins = 0;
  let heroPoints = 0;
  let foePoints = 0;
  for (let g = 0; g < games; g++) {
    const at = g % 4;
    const r = playArenaGame({ seed: `${seed}/${g}`, bots: [0, 1, 2, 3].map((i) => make(i === at ? hero : foe, `${seed}/${g}/${i}`)) });
    if (r.winner === at) wins++;
    r.points.forEach((p, i) => (i === at ? (heroPoints += p) : (foePoints += p / 3)));
  }
  return { wins, heroPoints: heroPoints / games, foePoints: foePoints / games };
}

describe('Catan bots', () => {
  it('offers every strategy through createCatanBot', () => {
    expect([...CATAN_STRATEGIES]).toEqual(['random', 'builder', 'weighted', 'search']);
    for (const s of CATAN_STRATEGIES) expect(createCatanBot(s, 1).strategy).toBe(s);
  });

  it('chooses only legal actions, and the rules accept them', () => {
    const problems: string[] = [];
    const lineup = ['search', 'weighted', 'builder', 'random'];
    for (let g = 0; g < 4; g++) {
      const bots = lineup.map((_, i) => checked(make(lineup[(i + g) % 4]!, `legal/${g}/${i}`), problems));
      const r = playArenaGame({ seed: `legal/${g}`, bots });
      expect(r.winner).not.toBeNull();
      for (const s of r.seats) {
        expect(s.refused, `${s.strategy} refused ${JSON.stringify(s.refusedCodes)}`).toBe(0);
        expect(s.fallbacks).toBe(0);
      }
    }
    expect(problems).toEqual([]);
  });

  it('plays the same game again from the same seeds', () => {
    const run = (): ArenaResult => playArenaGame({ seed: 'again', bots: ['search', 'weighted', 'search', 'weighted'].map((n, i) => make(n, `again/${i}`)) });
    const a = run();
    const b = run();
    expect(b.winner).toBe(a.winner);
    expect(b.turns).toBe(a.turns);
    expect(b.points).toEqual(a.points);
    expect(b.seats.map((s) => s.actions)).toEqual(a.seats.map((s) => s.actions));
  });

  it('does not read hidden cards: another deck order changes nothing until a card is bought', () => {
    // The deck is hidden from everyone; until the first purchase no message depends on its order.
    const play = (prepare?: (s: State) => State): string[] => {
      const log: string[] = [];
      playArenaGame({
        seed: 'hidden',
        bots: ['search', 'weighted', 'search', 'weighted'].map((n, i) => make(n, `hidden/${i}`)),
        turnCap: 40,
        ...(prepare ? { prepare } : {}),
        onAction: (seat, action) => log.push(`${seat} ${JSON.stringify(action)}`),
      });
      return log;
    };
    const plain = play();
    const reversed = play((s) => ({ ...s, deck: [...s.deck].reverse() }));
    const firstBuy = plain.findIndex((l) => l.includes('"buyDevCard"'));
    expect(firstBuy).toBeGreaterThan(30);
    expect(reversed.slice(0, firstBuy + 1)).toEqual(plain.slice(0, firstBuy + 1));
  });

  it('samples hidden cards consistently with the view', () => {
    const views: ClientView[] = [];
    const spy = (bot: CatanBot): CatanBot => ({
      strategy: bot.strategy,
      decide: (ctx) => {
        if (ctx.legal.status === 'Handeln oder Bauen' && views.length < 400) views.push(ctx.view);
        return bot.decide(ctx);
      },
    });
    playArenaGame({ seed: 'sample', bots: ['search', 'weighted', 'weighted', 'search'].map((n, i) => spy(make(n, `sample/${i}`))) });
    expect(views.length).toBeGreaterThan(20);
    const rng = Rng.seeded('sample');
    for (const view of views.filter((_, i) => i % 5 === 0)) {
      const k = knowledge(view)!;
      const s = determinize(k, rng);
      view.players.forEach((p, i) => {
        const q = s.players[i]!;
        expect(total(q.resources)).toBe(p.cards);
        expect(Object.values(q.devCards).reduce((a, b) => a + b, 0)).toBe(p.devCards);
        if (p.id === view.me) {
          expect(q.resources).toEqual(p.resources);
          expect(q.devCards).toEqual(p.devHand);
        }
      });
      expect(s.deck.length - s.drawn).toBe(view.deckCards);
      for (const r of RESOURCES) {
        expect(s.bank[r]).toBeGreaterThanOrEqual(0);
        expect(s.bank[r] + s.players.reduce((n, p) => n + p.resources[r], 0)).toBe(BANK_START[r]);
      }
    }
  });

  it('weighted beats random clearly', () => {
    const r = series('weighted', 'random', 8, 'wr');
    expect(r.wins).toBeGreaterThanOrEqual(7);
  });

  it('search beats weighted over a seeded sample', () => {
    // Parity is 1 game in 4; bench/catan-strength.ts measures about 64 % at full budget.
    const r = series('search', 'weighted', 12, 'sw');
    expect(r.wins).toBeGreaterThanOrEqual(5);
    expect(r.heroPoints).toBeGreaterThan(r.foePoints + 1);
  });

  it('search trades with the others both ways', () => {
    let offered = 0;
    let accepted = 0;
    for (let g = 0; g < 4; g++) {
      const events: { tradeId: number; player: number; partner: number }[] = [];
      const r = playArenaGame({
        seed: `trade/${g}`,
        bots: [0, 1, 2, 3].map((i) => make(i === g ? 'search' : 'weighted', `trade/${g}/${i}`)),
        onAction: (_, __, evs) => {
          for (const e of evs) if (e.type === 'tradeCompleted') events.push(e);
        },
      });
      const me = r.state.players[g]!.id;
      offered += events.filter((e) => e.player === me).length;
      accepted += events.filter((e) => e.partner === me).length;
    }
    expect(offered).toBeGreaterThan(0);
    expect(accepted).toBeGreaterThan(0);
  });

  it('spends a budget counted in positions, not time', () => {
    const nodes = (depth: number): number[] => {
      const a = searchBot('budget/0', { ...QUICK, depth });
      const b = searchBot('budget/2', { ...QUICK, depth });
      playArenaGame({ seed: 'budget', bots: [a, weightedBot('budget/1'), b, weightedBot('budget/3')], turnCap: 30 });
      return [a.nodes, b.nodes];
    };
    const one = nodes(1);
    expect(nodes(1)).toEqual(one);
    const three = nodes(3);
    expect(three[0]!).toBeGreaterThan(one[0]!);
    expect(three[1]!).toBeGreaterThan(one[1]!);
  });
});
