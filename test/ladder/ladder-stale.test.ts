import { afterEach, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { Ladder, type LadderTable, type TableOutcome } from '../../src/ladder/ladder.js';
import { openLadderStore, type LadderStore } from '../../src/ladder/store.js';
import type { LadderGameRecord, RosterEntry } from '../../src/ladder/types.js';

/**
 * Two serve processes on one PostgreSQL ladder may rate games of the same entry at once: the one
 * whose rating was read before the other's write is refused (`stale-rating`) and the ladder rates
 * its game again from the stored rating, so neither game's rating change is lost. Here the other
 * process is simulated on one store: it records a game of Anna between our read and our write.
 */

let ladder: Ladder | null = null;
let store: LadderStore | null = null;
afterEach(async () => {
  await ladder?.stop();
  await store?.close();
  ladder = store = null;
});

it('rates a game again when another process rated its entry meanwhile', async () => {
  const inner = await openLadderStore(':memory:');
  store = inner;
  const [anna, ben] = (await inner.addEntries(
    [
      { name: 'Anna', group: '' },
      { name: 'Ben', group: '' },
    ],
    1,
  )) as [RosterEntry, RosterEntry];
  const season = (await inner.currentSeason('dame', 1)).id;
  let otherDone = false;
  const tries: LadderGameRecord[] = [];
  const racing: LadderStore = Object.assign(Object.create(inner) as LadderStore, {
    recordGame: async (record: LadderGameRecord) => {
      tries.push(record);
      if (!otherDone) {
        otherDone = true;
        // The other process: Anna beat a house bot there, rated from her stored (initial) rating.
        const before = (await inner.getRating('dame', season, anna.id)) ?? {
          rating: 1500,
          rd: 350,
          vol: 0.06,
          games: 0,
        };
        await inner.recordGame({
          id: 'other-process',
          game: 'dame',
          season,
          startedAt: 1,
          endedAt: 2,
          recordId: null,
          seats: [
            {
              side: { kind: 'entry', entryId: anna.id },
              name: 'Anna',
              score: 1,
              before,
              after: { ...before, rating: 1600, rd: 300, games: 1 },
              reason: null,
            },
            {
              side: { kind: 'house', level: 'easy' },
              name: 'house',
              score: 0,
              before,
              after: before,
              reason: null,
            },
          ],
        });
      }
      return inner.recordGame(record);
    },
  });
  const table: LadderTable<null> = {
    game: 'dame',
    play: (): Promise<TableOutcome> =>
      Promise.resolve({ scores: [1, 0], reasons: [null, { kind: 'played' }], recordId: null }),
    refuse: () => undefined,
  };
  ladder = new Ladder({ store: racing, log: silentLogger, settings: { houseAfterMs: 60_000, tickMs: 10 } });
  ladder.addTable(table);
  await ladder.start();
  await ladder.enqueue('dame', anna, { seat: 0, host: 'a' }, null);
  await ladder.enqueue('dame', ben, { seat: 1, host: 'b' }, null);
  for (let i = 0; i < 200 && tries.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
  await ladder.settled();

  // The first try was rated from 1500 and refused; the second from the other process's 1600.
  expect(tries.map((t) => t.seats[0]!.before.rating)).toEqual([1500, 1600]);
  const rating = await inner.getRating('dame', season, anna.id);
  expect(rating!.games).toBe(2);
  expect(rating!.rating).toBeGreaterThan(1600);
  expect((await inner.ratingHistory('dame', season, anna.id)).map((p) => p.gameId)).toEqual([
    'other-process',
    tries[1]!.id,
  ]);
  expect((await inner.getRating('dame', season, ben.id))!.games).toBe(1);
});
