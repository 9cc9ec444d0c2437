import { afterEach, describe, expect, it } from 'vitest';
import type { Stoppable } from '../../../src/core/lifecycle.js';
import { silentLogger } from '../../../src/core/log.js';
import type { CreateGameOptions } from '../../../src/games/dame/games.js';
import { HOUSE_LINEUPS, houseSchedule, startHouseTables, type HouseGamePlan } from '../../../src/games/dame/house.js';
import { DameGameError } from '../../../src/games/dame/server.js';

/** House games that teach (issue 16.3): colours alternate, the line-up changes, the seed fixes it all. */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const lineUp = (p: HouseGamePlan): string => `${p.opponent}/${p.engineTimeMs}`;

describe('houseSchedule', () => {
  it('alternates the engine\'s colour and changes the line-up from each game to the next', () => {
    for (const seed of ['lesson', 'x', '42']) {
      for (const table of [0, 1]) {
        const plan = houseSchedule(seed, table, 1000);
        const games = Array.from({ length: 4 * HOUSE_LINEUPS.length }, (_, r) => plan(r));
        for (let r = 1; r < games.length; r++) {
          expect(games[r]!.engineSeat, `${seed} table ${table} round ${r}`).toBe(1 - games[r - 1]!.engineSeat);
          expect(lineUp(games[r]!), `${seed} table ${table} round ${r}`).not.toBe(lineUp(games[r - 1]!));
        }
        // Over two rounds of the cycle every line-up is played with both colours.
        const seen = new Set(games.slice(0, 2 * HOUSE_LINEUPS.length).map((g) => `${lineUp(g)}@${g.engineSeat}`));
        expect(seen.size).toBe(2 * HOUSE_LINEUPS.length);
      }
    }
  });

  it('varies the strength on both sides: the opponent bot and the engine\'s think time', () => {
    const plan = houseSchedule('lesson', 0, 1000);
    const games = Array.from({ length: HOUSE_LINEUPS.length }, (_, r) => plan(r));
    expect(new Set(games.map((g) => g.opponent))).toEqual(new Set(['greedy', 'depth2', 'depth4']));
    expect(new Set(games.map((g) => g.engineTimeMs))).toEqual(new Set([1000, 250, 100, 50]));
    // Never below the floor, never above the move time.
    expect(houseSchedule('lesson', 0, 100)(0).engineTimeMs).toBeGreaterThanOrEqual(20);
    for (let r = 0; r < 5; r++) expect(houseSchedule('lesson', 0, 10)(r).engineTimeMs).toBe(10);
  });

  it('is deterministic in the seed, and tells spectators who plays what', () => {
    const a = Array.from({ length: 10 }, (_, r) => houseSchedule('lesson', 0, 1000)(r));
    const b = Array.from({ length: 10 }, (_, r) => houseSchedule('lesson', 0, 1000)(r));
    expect(a).toEqual(b);
    const seeds = ['a', 'b', 'c', 'd', 'e', 'f'].map((s) => JSON.stringify(Array.from({ length: 5 }, (_, r) => lineUp(houseSchedule(s, 0, 1000)(r)))));
    expect(new Set(seeds).size).toBeGreaterThan(1);
    for (const g of a) {
      const engine = `engine ${g.engineTimeMs} ms`;
      const [white, black] = g.engineSeat === 0 ? [engine, g.opponent] : [g.opponent, engine];
      expect(g.name).toBe(`House game 1.${g.round}: ${white} (White) v ${black} (Black)`);
      expect(g.botSeed).toBe(`house:lesson:0:${g.round}`);
    }
  });
});

describe('startHouseTables', () => {
  it('creates one game after another from the schedule; a game that cannot be created keeps its place', async () => {
    const created: (CreateGameOptions & { engineTimeMs: number })[] = [];
    const played: HouseGamePlan[] = [];
    let calls = 0;
    const parts: Stoppable[] = startHouseTables({
      tables: 1,
      seed: 'lesson',
      moveTimeMs: 1000,
      engineMs: 1000,
      pauseMs: 10,
      log: silentLogger,
      createGame: (options) => {
        if (++calls === 2) throw new DameGameError('full');
        created.push(options);
        return `game${String(created.length).padStart(9, '0')}`;
      },
      play: (plan) => {
        played.push(plan);
        return { done: Promise.resolve(), stop: () => undefined };
      },
    });
    cleanups.push(async () => {
      for (const p of parts) await p.stop();
    });
    const deadline = Date.now() + 5000;
    while (created.length < 6 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const plan = houseSchedule('lesson', 0, 1000);
    expect(played.slice(0, 6)).toEqual([0, 1, 2, 3, 4, 5].map(plan));
    expect(created.slice(0, 6)).toEqual(
      [0, 1, 2, 3, 4, 5].map((r) => ({
        name: plan(r).name,
        moveTimeMs: 1000,
        engineSeat: plan(r).engineSeat,
        engineTimeMs: plan(r).engineTimeMs,
        // The seats named after who sits there (issue 33), and the plan in the record's meta.
        seatNames: plan(r).engineSeat === 0 ? ['engine', plan(r).opponent] : [plan(r).opponent, 'engine'],
        meta: { house: { table: 1, round: r, opponent: plan(r).opponent, engineTimeMs: plan(r).engineTimeMs } },
      })),
    );
  });
});
