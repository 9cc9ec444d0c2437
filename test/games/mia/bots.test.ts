import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runArena } from '../../../src/games/mia/arena.js';
import { ALL_DICE, formatDice, isMia, parseDice, rank, type Dice } from '../../../src/games/mia/dice.js';
import {
  AdaptiveBot,
  createBot,
  HonestBot,
  MIA_STRATEGIES,
  ProbabilisticBot,
  RandomBot,
  type MiaBot,
  type RoundContext,
} from '../../../src/games/mia/bots/index.js';

const d = (text: string): Dice => {
  const dice = parseDice(text);
  if (!dice) throw new Error(`bad dice ${text}`);
  return dice;
};

/** A context for "me" in a table of `players`, after the given announcements (name, dice). */
function ctx(announcements: [string, string][], players: readonly string[] = ['me', 'x']): RoundContext {
  return { me: 'me', round: 1, players, announcements: announcements.map(([name, dice]) => ({ name, dice: d(dice) })) };
}

const isValid = (dice: Dice): boolean =>
  Number.isInteger(dice.high) && Number.isInteger(dice.low) && dice.low >= 1 && dice.high <= 6 && dice.low <= dice.high;

/** Any moment at which a bot may be asked to act: a table, the claims so far (rising), a roll. */
const moment = fc
  .record({
    players: fc.integer({ min: 2, max: 6 }),
    claims: fc.uniqueArray(fc.integer({ min: 0, max: ALL_DICE.length - 2 }), { maxLength: 6 }),
    roll: fc.integer({ min: 0, max: ALL_DICE.length - 1 }),
    round: fc.integer({ min: 1, max: 1000 }),
  })
  .map(({ players, claims, roll, round }) => {
    const names = Array.from({ length: players }, (_, i) => (i === 0 ? 'me' : `p${i}`));
    const sorted = claims.slice().sort((a, b) => a - b);
    // claims come from the players before "me", most recent last, as in a real round
    const announcements = sorted.map((c, i) => ({
      name: names[(names.length * 8 - (sorted.length - i)) % names.length] ?? 'p1',
      dice: (ALL_DICE[c] ?? ALL_DICE[0]!).dice,
    }));
    const context: RoundContext = { me: 'me', round, players: names, announcements };
    return { context, rolled: (ALL_DICE[roll] ?? ALL_DICE[0]!).dice };
  });

/** An adaptive bot that has already played against honest and random bots. */
function experiencedAdaptive(seed: number): AdaptiveBot {
  const bot = new AdaptiveBot(seed);
  runArena({
    seats: [
      { name: 'me', bot },
      { name: 'p1', bot: new HonestBot() },
      { name: 'p2', bot: new RandomBot(seed) },
    ],
    rounds: 200,
    seed,
    keepRounds: false,
  });
  return bot;
}

describe('honest bot', () => {
  const bot = new HonestBot();
  it('always rolls, even when SEE would be the only sane answer', () => {
    expect(bot.onTurn()).toBe('roll');
    expect(createBot('honest', 1).onTurn(ctx([['x', '6,6']]))).toBe('roll');
  });
  it('announces exactly what it rolled, even when that loses', () => {
    for (const { dice } of ALL_DICE) expect(createBot('honest', 1).onRolled(ctx([['x', '5,5']]), dice)).toEqual(dice);
  });
});

describe('random bot', () => {
  it('makes both choices and claims all 21 results, deterministically per seed', () => {
    const a = new RandomBot('s');
    const b = new RandomBot('s');
    const actions = new Set<string>();
    const claims = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const action = a.onTurn();
      expect(b.onTurn()).toBe(action);
      actions.add(action);
      const claim = a.onRolled();
      expect(b.onRolled()).toEqual(claim);
      expect(isValid(claim)).toBe(true);
      claims.add(formatDice(claim));
    }
    expect([...actions].sort()).toEqual(['roll', 'see']);
    expect(claims.size).toBe(21);
  });
  it('depends on its seed', () => {
    const a = new RandomBot(1);
    const b = new RandomBot(2);
    const seqA = Array.from({ length: 64 }, () => a.onTurn()).join();
    const seqB = Array.from({ length: 64 }, () => b.onTurn()).join();
    expect(seqA).not.toBe(seqB);
  });
});

describe('probabilistic bot', () => {
  const bot = new ProbabilisticBot(1);

  it('never sees before the first roll of a round', () => {
    expect(bot.onTurn(ctx([]))).toBe('roll');
    expect(bot.onTurn(ctx([], ['a', 'me', 'b', 'c']))).toBe('roll');
  });

  it('calls a claim that only Mia beats', () => {
    expect(bot.onTurn(ctx([['x', '6,6']]))).toBe('see');
    expect(bot.onTurn(ctx([['me', '5,5'], ['x', '6,6']]))).toBe('see');
  });

  it('calls a claim that follows a high claim but is nearly never rolled honestly (5,5 after 4,4)', () => {
    expect(bot.onTurn(ctx([['me', '4,4'], ['x', '5,5']]))).toBe('see');
  });

  it('rolls against a low, likely true claim', () => {
    expect(bot.onTurn(ctx([['x', '3,1']]))).toBe('roll');
    expect(bot.onTurn(ctx([['x', '4,3']]))).toBe('roll');
    expect(bot.onTurn(ctx([['me', '4,3'], ['x', '5,4']]))).toBe('roll');
  });

  it('announces its roll when the roll beats the previous claim', () => {
    expect(bot.onRolled(ctx([]), d('3,1'))).toEqual(d('3,1'));
    expect(bot.onRolled(ctx([['x', '3,2']]), d('6,4'))).toEqual(d('6,4'));
    expect(bot.onRolled(ctx([['x', '6,5']]), d('3,3'))).toEqual(d('3,3'));
  });

  it('announces Mia whenever it rolls Mia', () => {
    expect(bot.onRolled(ctx([]), d('2,1'))).toEqual(d('2,1'));
    expect(bot.onRolled(ctx([['x', '5,5']]), d('1,2'))).toEqual(d('2,1'));
  });

  it('bluffs a little above the previous claim, never Mia, when its roll does not beat it', () => {
    const claim = bot.onRolled(ctx([['x', '5,2']]), d('4,1'));
    expect(rank(claim)).toBeGreaterThan(rank(d('5,2')));
    expect(rank(claim)).toBeLessThanOrEqual(rank(d('6,1')));
    expect(isMia(claim)).toBe(false);
  });

  it('after 6,6 without Mia every answer loses; it still announces the only higher claim', () => {
    expect(bot.onRolled(ctx([['x', '6,6']]), d('4,1'))).toEqual(d('2,1'));
  });

  it('copes with an unknown turn order (a client that missed ROUND STARTED)', () => {
    const blind: RoundContext = { me: 'me', round: 0, players: [], announcements: [{ name: 'x', dice: d('4,2') }] };
    expect(['roll', 'see']).toContain(bot.onTurn(blind));
    expect(rank(bot.onRolled(blind, d('3,1')))).toBeGreaterThan(rank(d('4,2')));
  });
});

describe('adaptive bot', () => {
  it('learns that an honest opponent tells the truth and stops calling it', () => {
    const fresh = new AdaptiveBot(7);
    const trained = new AdaptiveBot(7);
    runArena({ seats: [{ name: 'me', bot: trained }, { name: 'h', bot: new HonestBot() }], rounds: 300, seed: 1, keepRounds: false });
    const facing55 = ctx([['h', '5,5']], ['me', 'h']);
    expect(fresh.onTurn(facing55)).toBe('see');
    expect(trained.onTurn(facing55)).toBe('roll');
    expect(trained.truthProbability('h', d('5,5'), null)).toBeGreaterThan(0.9);
    expect(fresh.truthProbability('h', d('5,5'), null)).toBeLessThan(0.7);
    const insight = trained.insight('h');
    expect(insight.types.truthful).toBeGreaterThan(0.9);
    expect(insight.revealedClaims).toBeGreaterThan(0);
    expect(insight.revealedLieRate).toBeLessThan(0.1);
  });

  it('learns that a player who never calls can be bluffed: it inflates its own claims against it', () => {
    const fresh = new AdaptiveBot(7);
    const trained = new AdaptiveBot(7);
    runArena({ seats: [{ name: 'me', bot: trained }, { name: 'h', bot: new HonestBot() }], rounds: 300, seed: 2, keepRounds: false });
    expect(trained.seeProbability('h', d('6,5'))).toBeLessThan(0.2);
    expect(fresh.seeProbability('h', d('6,5'))).toBeGreaterThan(0.4);
    const first = ctx([], ['me', 'h']);
    expect(fresh.onRolled(first, d('3,1'))).toEqual(d('3,1'));
    expect(rank(trained.onRolled(first, d('3,1')))).toBeGreaterThan(rank(d('6,1')));
  });

  it('learns that a liar lies and calls its claims', () => {
    const liar: MiaBot = { strategy: 'liar', onTurn: () => 'roll', onRolled: (_c, rolled) => (isMia(rolled) ? rolled : d('6,6')) };
    const trained = new AdaptiveBot(3);
    runArena({ seats: [{ name: 'me', bot: trained }, { name: 'l', bot: liar }], rounds: 300, seed: 3, keepRounds: false });
    expect(trained.truthProbability('l', d('6,6'), null)).toBeLessThan(0.1);
    expect(trained.insight('l').types['always-6,6']).toBeGreaterThan(0.9);
    expect(trained.onTurn(ctx([['l', '6,6']], ['me', 'l']))).toBe('see');
  });

  it('keeps separate beliefs per opponent', () => {
    const bot = experiencedAdaptive(5);
    expect(bot.insight('p1').types.truthful).toBeGreaterThan(0.9);
    expect(bot.insight('p2').types.random).toBeGreaterThan(0.9);
  });
});

describe('properties of the thinking bots', () => {
  const thinkers: [string, () => MiaBot][] = [
    ['probabilistic', () => new ProbabilisticBot(11)],
    ['adaptive (fresh)', () => new AdaptiveBot(11)],
    ['adaptive (experienced)', () => experiencedAdaptive(11)],
  ];

  for (const [label, make] of thinkers) {
    it(`${label}: claims are valid dice, strictly higher than the previous claim, Mia only when rolled or forced`, () => {
      const bot = make();
      fc.assert(
        fc.property(moment, ({ context, rolled }) => {
          const claim = bot.onRolled(context, rolled);
          expect(isValid(claim)).toBe(true);
          const last = context.announcements[context.announcements.length - 1];
          if (last) expect(rank(claim)).toBeGreaterThan(rank(last.dice));
          if (isMia(claim)) expect(isMia(rolled) || (last !== undefined && formatDice(last.dice) === '6,6')).toBe(true);
          if (isMia(rolled)) expect(isMia(claim)).toBe(true);
          const action = bot.onTurn(context);
          expect(['roll', 'see']).toContain(action);
          if (!last) expect(action).toBe('roll');
        }),
        { numRuns: 500, seed: 42 },
      );
    });
  }

  it('every strategy is deterministic for its seed', () => {
    const decisions = (bot: MiaBot): string[] => {
      const out: string[] = [];
      fc.assert(
        fc.property(moment, ({ context, rolled }) => {
          out.push(bot.onTurn(context), formatDice(bot.onRolled(context, rolled)));
        }),
        { numRuns: 300, seed: 7 },
      );
      return out;
    };
    for (const strategy of MIA_STRATEGIES) {
      expect(decisions(createBot(strategy, 'seed'))).toEqual(decisions(createBot(strategy, 'seed')));
    }
    expect(decisions(createBot('random', 1))).not.toEqual(decisions(createBot('random', 2)));
  });

  it('createBot makes every listed strategy', () => {
    for (const strategy of MIA_STRATEGIES) expect(createBot(strategy, 1).strategy).toBe(strategy);
  });
});
