import { describe, expect, it } from 'vitest';
import { CATAN_STRATEGIES } from '../../../src/games/catan/bots/strategies.js';
import { HOUSE_LINE_UPS, houseLineUp, STRATEGY_LABELS, type HouseSeat } from '../../../src/games/catan/house-games.js';
import { COLOURS } from '../../../src/games/catan/rules/index.js';

/** The schedule of the house games (docs/catan.md, "House games"): varied, and fixed by the seed. */

const strength = (s: string): number => ['random', 'builder', 'weighted', 'search'].indexOf(s);
/** The line-up as a multiset, strongest first. */
const lineUp = (seats: readonly HouseSeat[]): string => seats.map((s) => s.strategy).sort((a, b) => strength(b) - strength(a)).join(',');
/** Who plays which colour, by strategy. */
const assignment = (seats: readonly HouseSeat[]): string => seats.map((s) => `${s.strategy}:${s.colour}`).sort().join(' ');
/** The colour of the line-up's strongest bot. */
const featured = (seats: readonly HouseSeat[]): string => {
  const best = Math.max(...seats.map((s) => strength(s.strategy)));
  return seats.find((s) => strength(s.strategy) === best)!.colour;
};

describe('house games', () => {
  it('differ from one game to the next in line-up and colours, with 4 players and with 3', () => {
    for (const players of [4, 3] as const) {
      for (const seed of ['module', 'spielhalle', 'catan-x1']) {
        for (const table of [1, 2]) {
          const games = Array.from({ length: 12 }, (_, g) => houseLineUp(seed, table, g, players));
          for (const [g, seats] of games.entries()) {
            expect(seats).toHaveLength(players);
            expect(new Set(seats.map((s) => s.colour)).size, 'distinct colours').toBe(players);
            expect(new Set(seats.map((s) => s.name)).size, 'distinct names').toBe(players);
            for (const s of seats) {
              expect(COLOURS).toContain(s.colour);
              expect(s.name.startsWith(`${STRATEGY_LABELS[s.strategy]} `)).toBe(true);
              expect(Array.from(s.name).length).toBeLessThanOrEqual(40);
            }
            if (g === 0) continue;
            const before = games[g - 1]!;
            expect(lineUp(seats), `${seed} table ${table}, game ${g}: line-up`).not.toBe(lineUp(before));
            expect(assignment(seats), `${seed} table ${table}, game ${g}: colours`).not.toBe(assignment(before));
            expect(featured(seats), `${seed} table ${table}, game ${g}: the strongest bot's colour`).not.toBe(featured(before));
          }
          // Over a cycle every line-up comes once, and the strongest bot plays every colour.
          const cycle = games.slice(0, HOUSE_LINE_UPS.length).map(lineUp);
          expect(new Set(cycle).size).toBe(HOUSE_LINE_UPS.length);
          expect(new Set(games.slice(0, 4).map(featured)).size).toBe(4);
        }
      }
    }
  });

  it('put the search bot against weaker bots, and weaker bots among themselves', () => {
    const all = HOUSE_LINE_UPS.map((l) => l.join(','));
    expect(new Set(all).size).toBe(all.length);
    expect(HOUSE_LINE_UPS.some((l) => l[0] === 'search' && l.slice(1).every((s) => s === 'random'))).toBe(true);
    expect(HOUSE_LINE_UPS.some((l) => !l.includes('search'))).toBe(true);
    for (const l of HOUSE_LINE_UPS) for (const s of l) expect(CATAN_STRATEGIES).toContain(s);
    // 3-player games take the first three: still all different.
    expect(new Set(HOUSE_LINE_UPS.map((l) => [...l.slice(0, 3)].sort().join(','))).size).toBe(HOUSE_LINE_UPS.length);
  });

  it('are fixed by the seed and the table', () => {
    expect(houseLineUp('module', 1, 5, 4)).toEqual(houseLineUp('module', 1, 5, 4));
    const run = (seed: string, table: number): string[] => Array.from({ length: 6 }, (_, g) => JSON.stringify(houseLineUp(seed, table, g, 4)));
    expect(run('a', 1)).toEqual(run('a', 1));
    expect(run('a', 1)).not.toEqual(run('b', 1));
    expect(run('a', 1)).not.toEqual(run('a', 2));
  });
});
