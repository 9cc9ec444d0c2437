import { describe, expect, it } from 'vitest';
import { playRandomGame, type RandomGame, type RandomGameOptions } from '../../../src/games/catan/bots/random.js';
import { CORNER_NAMES, EDGE_NAMES, HEX_LETTERS, apply, legalActions, newGame, totalPoints, type Action, type State } from '../../../src/games/catan/rules/index.js';
import { gameProblems } from '../../../src/games/catan/rules/invariants.js';
import { seatedPlayers } from '../../../src/games/catan/bots/random.js';

/**
 * Invariants over seeded random games, checked after every action. The counts keep this file at
 * about 10–15 s of CPU; `npx tsx bench/catan-rules.ts --check 1000` runs the same checks (and the
 * leak oracle) over a thousand games.
 */

function checkGame(g: RandomGame): void {
  expect(gameProblems(g.start, g.steps).slice(0, 5)).toEqual([]);
  // The game ends with a winner at ≥ 10 points, on its own turn.
  const s = g.state;
  expect(s.phase).toBe('over');
  expect(s.winner).not.toBe(null);
  expect(s.winner).toBe(s.turn);
  expect(totalPoints(s.players[s.winner!]!)).toBeGreaterThanOrEqual(10);
  expect(g.steps.at(-1)!.events.at(-1)).toMatchObject({ type: 'gameWon', player: g.winner });
  expect(JSON.parse(JSON.stringify(s))).toEqual(s);
}

/** Replays the recorded actions from the seed alone: the same states and events. */
function checkReplay(g: RandomGame, options: RandomGameOptions): void {
  const started = newGame({ seed: options.seed, players: seatedPlayers(options.players ?? 4) });
  if (!started.ok) throw new Error(started.error);
  let s = JSON.parse(JSON.stringify(started.value.state)) as State;
  g.actions.forEach(({ player, action }, i) => {
    const r = apply(s, player, action);
    if (!r.ok) throw new Error(`replay refused step ${i}`);
    if (JSON.stringify(r.value.events) !== JSON.stringify(g.steps[i]!.events)) throw new Error(`replay differs at step ${i}`);
    s = r.value.state;
  });
  expect(s).toEqual(g.state);
}

const SETS: { label: string; count: number; options: Omit<RandomGameOptions, 'seed'> }[] = [
  { label: '4 builders with domestic trades', count: 30, options: { policy: 'builder', trades: true, players: 4 } },
  { label: '3 builders with domestic trades', count: 20, options: { policy: 'builder', trades: true, players: 3 } },
  { label: '4 uniform random players (R)', count: 15, options: { policy: 'uniform', players: 4 } },
  { label: '3 uniform random players (R)', count: 15, options: { policy: 'uniform', players: 3 } },
];

describe('seeded random games', () => {
  for (const set of SETS) {
    it(`keep every invariant, end with a winner and replay identically: ${set.count} games, ${set.label}`, () => {
      const actionKinds = new Set<string>();
      for (let i = 0; i < set.count; i++) {
        const options = { ...set.options, seed: `prop/${set.label}/${i}`, record: true };
        const g = playRandomGame(options);
        checkGame(g);
        if (i % 10 === 0) checkReplay(g, options);
        for (const { action } of g.actions) actionKinds.add(action.type);
      }
      // The random players reach every kind of action the rules have.
      const expected = ['roll', 'discard', 'moveRobber', 'build', 'buyDevCard', 'playKnight', 'playRoadBuilding', 'playMonopoly', 'playYearOfPlenty', 'seaTrade', 'endTurn'];
      if (set.options.trades) expected.push('offerTrade', 'acceptTrade', 'completeTrade', 'cancelTrade');
      expect([...actionKinds].sort()).toEqual(expected.sort());
    }, 120_000);
  }
});

describe('legal actions', () => {
  /** Builds, robber moves and setup placements: accepted exactly when listed. */
  function exhaustive(s: State): void {
    const id = s.players[s.turn]!.id;
    const listed = new Set(legalActions(s, id).actions.map((a) => JSON.stringify(a)));
    const candidates: Action[] = [
      ...CORNER_NAMES.flatMap((at): Action[] => [
        { type: 'build', piece: 'Dorf', at },
        { type: 'build', piece: 'Stadt', at },
      ]),
      ...EDGE_NAMES.map((at): Action => ({ type: 'build', piece: 'Strasse', at })),
      ...HEX_LETTERS.flatMap((hex): Action[] => [{ type: 'moveRobber', hex }, ...s.players.map((p): Action => ({ type: 'moveRobber', hex, victim: p.id }))]),
      { type: 'buyDevCard' },
      { type: 'endTurn' },
      { type: 'roll' },
    ];
    const wrong = candidates.map((a) => JSON.stringify(a)).filter((key) => apply(s, id, JSON.parse(key) as Action).ok !== listed.has(key));
    wrong.push(...[...listed].filter((key) => !apply(s, id, JSON.parse(key) as Action).ok));
    expect(wrong).toEqual([]);
  }

  it('lists exactly the accepted builds and robber moves, and every listed action is accepted', () => {
    for (let i = 0; i < 6; i++) {
      const g = playRandomGame({ seed: `legal/${i}`, policy: 'builder', trades: true, record: true });
      g.steps.forEach((step, k) => {
        if (k % 9 === 0 && step.state.phase !== 'over') exhaustive(step.state);
      });
    }
  }, 120_000);
});
