import { describe, expect, it } from 'vitest';
import { HOUSE_OPPONENTS, housePlan } from '../../../src/games/ostseeschach/house-loop.js';

/** Issue 16 #5: house games that teach, i.e. that differ from game to game. */

const line = (round: number, ms = 500): string =>
  housePlan(round, ms)
    .map((s) => `${s.label}:${s.bot}:${s.budgetMs}`)
    .join(' v ');

describe('housePlan', () => {
  it('pits the strong engine against a cycle of weaker bots, changing colour every game', () => {
    expect(Array.from({ length: 6 }, (_, round) => line(round))).toEqual([
      'A (engine 500 ms):engine:500 v B (depth2):depth2:500',
      'B (engine 50 ms):engine:50 v A (engine 500 ms):engine:500',
      'A (engine 500 ms):engine:500 v B (random):random:500',
      'B (depth2):depth2:500 v A (engine 500 ms):engine:500',
      'A (engine 500 ms):engine:500 v B (engine 50 ms):engine:50',
      'B (random):random:500 v A (engine 500 ms):engine:500',
    ]);
  });

  it('is deterministic, and within two cycles plays every pairing from both colours', () => {
    const cycle = 2 * HOUSE_OPPONENTS.length;
    const seen = new Set<string>();
    for (let round = 0; round < cycle; round++) {
      const [one, two] = housePlan(round, 500);
      expect(housePlan(round, 500)).toEqual([one, two]);
      expect(housePlan(round + cycle, 500)).toEqual([one, two]);
      // Never the same pair twice in a row, never the same colours twice in a row.
      expect(line(round + 1)).not.toBe(line(round));
      expect(housePlan(round + 1, 500)[0].key).not.toBe(one.key);
      seen.add(`${one.label} as ONE v ${two.label}`);
    }
    expect(seen.size).toBe(cycle);
  });

  it('gives a hurried engine at least 10 ms, and a fixed pair of bots just swaps colours', () => {
    expect(line(1, 20)).toBe('B (engine 10 ms):engine:10 v A (engine 20 ms):engine:20');
    expect(housePlan(0, 20, ['random', 'depth2']).map((s) => [s.label, s.bot])).toEqual([
      ['A', 'random'],
      ['B', 'depth2'],
    ]);
    expect(housePlan(1, 20, ['random', 'depth2']).map((s) => [s.label, s.bot])).toEqual([
      ['B', 'depth2'],
      ['A', 'random'],
    ]);
  });
});
