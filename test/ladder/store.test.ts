import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseRosterCsv } from '../../src/ladder/roster.js';
import { PgLadderStore } from '../../src/ladder/store-pg.js';
import { LadderStoreError, openLadderStore, SqliteLadderStore, type LadderStore } from '../../src/ladder/store.js';
import type { LadderGameRecord, LadderGameSeat, LossReason, Rating, RosterEntry } from '../../src/ladder/types.js';

/**
 * The ladder store's contract, held against both backends: SQLite in memory, and PostgreSQL at
 * 127.0.0.1:5432 (database `test`, a schema of its own per case, dropped at the end; skipped when
 * no server answers there). SPIELHALLE_TEST_DATABASE_URL points the suite at another server.
 */

const PG_URL = process.env.SPIELHALLE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const RUN = `ladder_${process.pid}_${Date.now().toString(36)}`;
const schemas: string[] = [];

async function pgReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
const hasPg = await pgReachable();

/** A fresh schema's name (dropped after the suite). */
function newSchema(): string {
  const schema = `${RUN}_${schemas.length}`;
  schemas.push(schema);
  return schema;
}

afterAll(async () => {
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
});

/** The contract's PostgreSQL schema: created once, emptied before each case (faster than a schema each). */
let contractSchema: string | null = null;
async function openEmptyPg(): Promise<LadderStore> {
  if (contractSchema === null) return openLadderStore(PG_URL, { schema: (contractSchema = newSchema()) });
  const store = await openLadderStore(PG_URL, { schema: contractSchema });
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  // DELETE, not TRUNCATE: on tables this small it is several times faster.
  for (const t of ['rating_history', 'game_seats', 'ratings', 'games', 'seasons', 'entries']) await client.query(`DELETE FROM ${contractSchema}.ladder_${t}`);
  await client.end();
  return store;
}

const BACKENDS = [
  { kind: 'sqlite', skip: false, open: () => openLadderStore(':memory:') },
  { kind: 'postgres', skip: !hasPg, open: openEmptyPg },
] as const;

const r = (rating: number, games = 0, rd = 350): Rating => ({ rating, rd, vol: 0.06, games });

/** Rejects with a LadderStoreError of this code. */
async function refused(p: Promise<unknown>, code: string): Promise<LadderStoreError> {
  const err: unknown = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LadderStoreError);
  expect((err as LadderStoreError).code).toBe(code);
  return err as LadderStoreError;
}

const entrySeat = (entry: RosterEntry, score: number, before: Rating, after: Rating, reason: LossReason | null = null): LadderGameSeat => ({
  side: { kind: 'entry', entryId: entry.id },
  name: entry.name,
  score,
  before,
  after,
  reason,
});

const houseSeat = (level: string, score: number): LadderGameSeat => ({
  side: { kind: 'house', level },
  name: `house-${level}`,
  score,
  before: r(1500),
  after: r(1500),
  reason: null,
});

const game = (id: string, season: string, endedAt: number, seats: LadderGameSeat[], gameName: LadderGameRecord['game'] = 'dame'): LadderGameRecord => ({
  id,
  game: gameName,
  season,
  startedAt: endedAt - 100,
  endedAt,
  seats,
  recordId: `rec-${id}`,
});

describe.each(BACKENDS)('the ladder store on $kind', ({ skip, open }) => {
  let store: LadderStore;
  beforeEach(async (context) => {
    if (skip) context.skip();
    store = await open();
  });
  afterEach(async () => {
    if (!skip) await store.close();
  });

  describe('roster', () => {
    it('adds entries with fresh, distinct codes and finds them by each', async () => {
      const added = await store.addEntries(
        [
          { name: 'Anna', group: 'T1' },
          { name: 'Bernd', group: '' },
        ],
        1000,
      );
      expect(added.map((e) => [e.name, e.group, e.revoked, e.createdAt])).toEqual([
        ['Anna', 'T1', false, 1000],
        ['Bernd', '', false, 1000],
      ]);
      const [anna, bernd] = added as [RosterEntry, RosterEntry];
      expect(anna.id).toMatch(/^e_[a-z0-9]{10}$/);
      expect(anna.code).toMatch(/^[a-z0-9]{13}$/);
      expect(anna.pageToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(new Set([anna.code, bernd.code]).size).toBe(2);
      expect(await store.getEntry(anna.id)).toEqual(anna);
      expect(await store.byCode(anna.code)).toEqual(anna);
      expect(await store.byReservation(anna.reservation)).toEqual(anna);
      expect(await store.byReservation(anna.reservation.toUpperCase())).toEqual(anna);
      expect(await store.byPageToken(bernd.pageToken)).toEqual(bernd);
      expect(await store.getEntry('e_nothing000')).toBeNull();
      expect(await store.byCode('aaaaaaaaaaaaa')).toBeNull();
      expect(await store.byReservation('0f8fad5b-d9cb-469f-a165-70867728950e')).toBeNull();
      expect(await store.byPageToken('x'.repeat(32))).toBeNull();
      expect(await store.addEntries([], 1)).toEqual([]);
    });

    it('lists entries in the order they were added, revoked ones only when asked', async () => {
      await store.addEntries([{ name: 'Zoe', group: '' }, { name: 'Anna', group: '' }], 1);
      const [carl] = await store.addEntries([{ name: 'Carl', group: '' }], 2);
      await store.revoke(carl!.id, 3);
      expect((await store.listEntries()).map((e) => e.name)).toEqual(['Zoe', 'Anna']);
      expect((await store.listEntries({ includeRevoked: true })).map((e) => [e.name, e.revoked])).toEqual([
        ['Zoe', false],
        ['Anna', false],
        ['Carl', true],
      ]);
    });

    it('cleans names and refuses bad ones', async () => {
      const [e] = await store.addEntries([{ name: '  Mu\u0308ller ', group: ' T1 ' }], 1);
      expect([e!.name, e!.group]).toEqual(['Müller', 'T1']);
      await refused(store.addEntries([{ name: 'a\nb', group: '' }], 1), 'invalid-name');
      await refused(store.addEntries([{ name: '  ', group: '' }], 1), 'invalid-name');
      await refused(store.addEntries([{ name: 'x'.repeat(41), group: '' }], 1), 'invalid-name');
      await refused(store.addEntries([{ name: 'Ok', group: 'bad\u0000' }], 1), 'invalid-name');
    });

    it('refuses a duplicate name (ignoring case and spacing) all or nothing', async () => {
      await store.addEntries([{ name: 'Anna Schmidt', group: '' }], 1);
      const err = await refused(
        store.addEntries(
          [
            { name: 'Bernd', group: '' },
            { name: 'anna  schmidt', group: '' },
          ],
          2,
        ),
        'duplicate-name',
      );
      expect(err.message).toBe('names already on the roster: "anna  schmidt" (on the roster as "Anna Schmidt")');
      expect(err.name).toBe('LadderStoreError');
      // Nothing of the refused batch was added.
      expect((await store.listEntries()).map((e) => e.name)).toEqual(['Anna Schmidt']);
      await refused(
        store.addEntries(
          [
            { name: 'Carl', group: '' },
            { name: 'CARL', group: '' },
          ],
          2,
        ),
        'duplicate-name',
      );
      expect(await store.listEntries()).toHaveLength(1);
    });

    it('imports a parsed CSV all or nothing', async () => {
      await store.addEntries([{ name: 'Eva', group: '' }], 1);
      const csv = parseRosterCsv('\uFEFFName;Gruppe\r\nMüller, Hans;Ü1\r\nEva;Ü2\r\n');
      expect(csv.errors).toEqual([]);
      await refused(store.addEntries(csv.rows, 2), 'duplicate-name');
      expect((await store.listEntries()).map((e) => e.name)).toEqual(['Eva']);
      const ok = parseRosterCsv('Name;Gruppe\r\nMüller, Hans;Ü1\r\nSchmidt, Eva;Ü2\r\n');
      await store.addEntries(ok.rows, 3);
      expect((await store.listEntries()).map((e) => `${e.name}/${e.group}`)).toEqual(['Eva/', 'Müller, Hans/Ü1', 'Schmidt, Eva/Ü2']);
    });

    it('revokes: the codes still find the entry, marked revoked, and its name is free again', async () => {
      const [anna] = await store.addEntries([{ name: 'Anna', group: '' }], 1);
      const revoked = await store.revoke(anna!.id, 5);
      expect(revoked.revoked).toBe(true);
      expect((await store.byCode(anna!.code))?.revoked).toBe(true);
      expect((await store.byReservation(anna!.reservation))?.revoked).toBe(true);
      expect((await store.revoke(anna!.id, 9)).revoked).toBe(true);
      await refused(store.renew(anna!.id, 6), 'revoked');
      const [again] = await store.addEntries([{ name: 'Anna', group: '' }], 7);
      expect(again!.id).not.toBe(anna!.id);
      await refused(store.revoke('e_nothing000', 1), 'not-found');
    });

    it('renews: new code, reservation and page token; the old ones find nothing', async () => {
      const [anna] = await store.addEntries([{ name: 'Anna', group: 'T1' }], 1);
      const renewed = await store.renew(anna!.id, 2);
      expect(renewed.id).toBe(anna!.id);
      expect([renewed.name, renewed.group, renewed.createdAt]).toEqual(['Anna', 'T1', 1]);
      expect(renewed.code).not.toBe(anna!.code);
      expect(renewed.reservation).not.toBe(anna!.reservation);
      expect(renewed.pageToken).not.toBe(anna!.pageToken);
      expect(await store.byCode(anna!.code)).toBeNull();
      expect(await store.byReservation(anna!.reservation)).toBeNull();
      expect(await store.byPageToken(anna!.pageToken)).toBeNull();
      expect(await store.byCode(renewed.code)).toEqual(renewed);
      expect(await store.byReservation(renewed.reservation)).toEqual(renewed);
      expect(await store.byPageToken(renewed.pageToken)).toEqual(renewed);
      await refused(store.renew('e_nothing000', 1), 'not-found');
    });

    it('renames, refusing a name another unrevoked entry has', async () => {
      const [anna, bernd] = await store.addEntries(
        [
          { name: 'Anna', group: 'T1' },
          { name: 'Bernd', group: 'T1' },
        ],
        1,
      );
      const renamed = await store.rename(anna!.id, ' Anna B. ', 'T2');
      expect([renamed.name, renamed.group, renamed.code]).toEqual(['Anna B.', 'T2', anna!.code]);
      expect(await store.rename(anna!.id, 'anna b.', 'T2')).toMatchObject({ name: 'anna b.' });
      await refused(store.rename(anna!.id, 'BERND', ''), 'duplicate-name');
      await refused(store.rename(anna!.id, '', ''), 'invalid-name');
      await refused(store.rename('e_nothing000', 'X', ''), 'not-found');
      await store.revoke(bernd!.id, 2);
      expect((await store.rename(anna!.id, 'Bernd', '')).name).toBe('Bernd');
    });
  });

  describe('seasons', () => {
    it('creates Season 1 on first use, once per game', async () => {
      expect(await store.listSeasons('dame')).toEqual([]);
      const first = await store.currentSeason('dame', 100);
      expect(first).toEqual({ id: 'dame-1', name: 'Season 1', startedAt: 100, frozenAt: null, archivedAt: null });
      expect(await store.currentSeason('dame', 200)).toEqual(first);
      expect((await store.currentSeason('mia', 300)).id).toBe('mia-1');
      expect(await store.listSeasons('dame')).toEqual([first]);
      await refused(store.currentSeason('chess' as 'dame'), 'unknown-game');
    });

    it('starts a new season, archiving the current one', async () => {
      await store.currentSeason('dame', 100);
      const second = await store.startSeason('dame', 'Sommer 2025', 500);
      expect(second).toEqual({ id: 'dame-2', name: 'Sommer 2025', startedAt: 500, frozenAt: null, archivedAt: null });
      expect(await store.currentSeason('dame')).toEqual(second);
      expect(await store.listSeasons('dame')).toEqual([{ id: 'dame-1', name: 'Season 1', startedAt: 100, frozenAt: null, archivedAt: 500 }, second]);
      // Another game's season is untouched.
      expect((await store.startSeason('connect4', 'Erste', 600)).id).toBe('connect4-1');
      expect((await store.currentSeason('dame')).id).toBe('dame-2');
      await refused(store.startSeason('dame', '', 700), 'invalid-name');
    });

    it('freezes and unfreezes the current season', async () => {
      const frozen = await store.freezeSeason('ostseeschach', 100);
      expect([frozen.id, frozen.frozenAt]).toEqual(['ostseeschach-1', 100]);
      expect((await store.freezeSeason('ostseeschach', 200)).frozenAt).toBe(100);
      expect((await store.currentSeason('ostseeschach')).frozenAt).toBe(100);
      expect((await store.unfreezeSeason('ostseeschach')).frozenAt).toBeNull();
      expect((await store.currentSeason('ostseeschach')).frozenAt).toBeNull();
    });
  });

  describe('ratings and games', () => {
    let anna: RosterEntry;
    let bernd: RosterEntry;
    let season: string;
    beforeEach(async () => {
      [anna, bernd] = (await store.addEntries(
        [
          { name: 'Anna', group: 'T1' },
          { name: 'Bernd', group: 'T2' },
        ],
        1,
      )) as [RosterEntry, RosterEntry];
      season = (await store.currentSeason('dame', 1)).id;
    });

    it('gets and sets ratings', async () => {
      expect(await store.getRating('dame', season, anna.id)).toBeNull();
      await store.setRating('dame', season, anna.id, r(1600, 3, 120));
      expect(await store.getRating('dame', season, anna.id)).toEqual(r(1600, 3, 120));
      await store.setRating('dame', season, anna.id, r(1610, 4, 110));
      expect(await store.getRating('dame', season, anna.id)).toEqual(r(1610, 4, 110));
      // The same season id under another game holds nothing.
      expect(await store.getRating('mia', season, anna.id)).toBeNull();
      await refused(store.setRating('dame', season, anna.id, r(Number.NaN)), 'invalid-rating');
      await refused(store.setRating('dame', season, anna.id, { ...r(1500), games: 1.5 }), 'invalid-rating');
      await refused(store.setRating('dame', 'dame-9', anna.id, r(1500)), 'not-found');
      await refused(store.setRating('mia', season, anna.id, r(1500)), 'not-found');
      await refused(store.setRating('dame', season, 'e_nothing000', r(1500)), 'not-found');
    });

    it('records a game: seats, reasons, new ratings and history in one go', async () => {
      const reason: LossReason = { kind: 'invalid-move', detail: 'moved backwards', rule: 'men move forward' };
      const record = game('g1', season, 1000, [entrySeat(anna, 1, r(1500), r(1662, 1, 290)), entrySeat(bernd, 0, r(1500), r(1338, 1, 290), reason)]);
      await store.recordGame(record);
      expect(await store.getGame('g1')).toEqual(record);
      expect(await store.getGame('nothing')).toBeNull();
      expect(await store.getRating('dame', season, anna.id)).toEqual(r(1662, 1, 290));
      expect(await store.getRating('dame', season, bernd.id)).toEqual(r(1338, 1, 290));
      expect(await store.ratingHistory('dame', season, bernd.id)).toEqual([{ at: 1000, gameId: 'g1', rating: 1338, rd: 290 }]);
      await refused(store.recordGame(record), 'duplicate-game');
    });

    it('refuses a game rated from a rating that has changed since (stale-rating), leaving nothing of it', async () => {
      await store.recordGame(game('n1', season, 100, [entrySeat(anna, 1, r(1500), r(1600, 1)), entrySeat(bernd, 0, r(1500), r(1400, 1))]));
      // Rated from Anna's rating before n1 (another process read it before n1 was written).
      const stale = game('n2', season, 200, [entrySeat(anna, 1, r(1500), r(1580, 1)), houseSeat('easy', 0)]);
      const err = await refused(store.recordGame(stale), 'stale-rating');
      expect(err.message).toContain(anna.id);
      expect(await store.getGame('n2')).toBeNull();
      expect(await store.getRating('dame', season, anna.id)).toEqual(r(1600, 1));
      expect(await store.ratingHistory('dame', season, anna.id)).toHaveLength(1);
      // Rated again from the stored rating, it is taken; so is a first rating from any `before`.
      await store.recordGame(game('n2', season, 200, [entrySeat(anna, 1, r(1600, 1), r(1650, 2)), houseSeat('easy', 0)]));
      expect(await store.getRating('dame', season, anna.id)).toEqual(r(1650, 2));
      // The check is per entry: Bernd's current rating with Anna's stale one refuses the whole game.
      await refused(store.recordGame(game('n3', season, 300, [entrySeat(anna, 1, r(1600, 1), r(1700, 3)), entrySeat(bernd, 0, r(1400, 1), r(1300, 2))])), 'stale-rating');
      expect(await store.getRating('dame', season, bernd.id)).toEqual(r(1400, 1));
    });

    it('records house games: a house seat has no rating of its own', async () => {
      await store.recordGame(game('h1', season, 1000, [houseSeat('easy', 0), entrySeat(anna, 1, r(1500), r(1550, 1))]));
      expect((await store.getGame('h1'))!.seats[0]!.side).toEqual({ kind: 'house', level: 'easy' });
      expect((await store.standings('dame', season)).map((s) => s.entry.name)).toEqual(['Anna']);
      expect(await store.lastOpponent('dame', season, anna.id)).toBe('easy');
    });

    it('refuses a game it cannot record, leaving nothing of it', async () => {
      await refused(store.recordGame(game('x1', season, 1, [entrySeat(anna, 1, r(1500), r(1500))])), 'invalid-game');
      await refused(store.recordGame(game('x2', season, 1, [entrySeat(anna, 1, r(1500), r(1500)), entrySeat(anna, 0, r(1500), r(1500))])), 'invalid-game');
      await refused(store.recordGame(game('x3', season, 1, [entrySeat(anna, 1, r(1500), r(Number.POSITIVE_INFINITY)), houseSeat('easy', 0)])), 'invalid-rating');
      await refused(store.recordGame(game('x4', 'dame-7', 1, [entrySeat(anna, 1, r(1500), r(1600)), houseSeat('easy', 0)])), 'not-found');
      await refused(store.recordGame(game('x5', season, 1, [entrySeat(anna, 1, r(1500), r(1600)), houseSeat('easy', 0)], 'mia')), 'not-found');
      const ghost = { ...anna, id: 'e_ghost00000' };
      await refused(store.recordGame(game('x6', season, 1, [entrySeat(anna, 1, r(1500), r(1600)), entrySeat(ghost, 0, r(1500), r(1400))])), 'not-found');
      expect(await store.listGames()).toEqual([]);
      expect(await store.getRating('dame', season, anna.id)).toBeNull();
    });

    it('takes no games and no rating changes in a frozen or archived season', async () => {
      const seats = [entrySeat(anna, 1, r(1500), r(1600, 1)), houseSeat('easy', 0)];
      await store.freezeSeason('dame', 10);
      await refused(store.recordGame(game('f1', season, 20, seats)), 'season-frozen');
      await refused(store.setRating('dame', season, anna.id, r(1700)), 'season-frozen');
      await store.unfreezeSeason('dame');
      await store.recordGame(game('f1', season, 20, seats));
      const next = await store.startSeason('dame', 'Season 2', 30);
      await refused(store.recordGame(game('f2', season, 40, seats)), 'season-archived');
      await refused(store.setRating('dame', season, anna.id, r(1700)), 'season-archived');
      await store.recordGame(game('f2', next.id, 40, seats));
    });

    it('isolates the ratings, games and standings of seasons', async () => {
      await store.recordGame(game('s1', season, 10, [entrySeat(anna, 1, r(1500), r(1600, 1)), entrySeat(bernd, 0, r(1500), r(1400, 1))]));
      const next = await store.startSeason('dame', 'Season 2', 20);
      expect(await store.getRating('dame', next.id, anna.id)).toBeNull();
      expect(await store.standings('dame', next.id)).toEqual([]);
      expect(await store.ratingHistory('dame', next.id, anna.id)).toEqual([]);
      expect(await store.lastOpponent('dame', next.id, anna.id)).toBeNull();
      expect(await store.seatCounts('dame', next.id, anna.id)).toEqual([0, 0]);
      await store.recordGame(game('s2', next.id, 30, [entrySeat(bernd, 1, r(1500), r(1580, 1)), entrySeat(anna, 0, r(1500), r(1420, 1))]));
      expect((await store.getRating('dame', season, anna.id))!.rating).toBe(1600);
      expect((await store.getRating('dame', next.id, anna.id))!.rating).toBe(1420);
      expect((await store.standings('dame', season)).map((s) => s.entry.name)).toEqual(['Anna', 'Bernd']);
      expect((await store.standings('dame', next.id)).map((s) => s.entry.name)).toEqual(['Bernd', 'Anna']);
      expect((await store.listGames({ season })).map((g) => g.id)).toEqual(['s1']);
      expect((await store.listGames({ season: next.id })).map((g) => g.id)).toEqual(['s2']);
    });

    it('computes standings: best rating first, wins, draws, losses and the last game', async () => {
      const [carl] = (await store.addEntries([{ name: 'Carl', group: '' }], 2)) as [RosterEntry];
      await store.recordGame(game('a', season, 100, [entrySeat(anna, 1, r(1500), r(1600, 1)), entrySeat(bernd, 0, r(1500), r(1400, 1))]));
      await store.recordGame(game('b', season, 200, [entrySeat(bernd, 0.5, r(1400, 1), r(1420, 2)), entrySeat(anna, 0.5, r(1600, 1), r(1580, 2))]));
      await store.recordGame(game('c', season, 300, [houseSeat('hard', 1), entrySeat(bernd, 0, r(1420, 2), r(1410, 3))]));
      // Carl is rated (by hand) without a game.
      await store.setRating('dame', season, carl.id, r(1500));
      const rows = await store.standings('dame', season);
      expect(rows.map((s) => [s.entry.name, s.rating.rating, s.wins, s.draws, s.losses, s.lastPlayedAt])).toEqual([
        ['Anna', 1580, 1, 1, 0, 200],
        ['Carl', 1500, 0, 0, 0, null],
        ['Bernd', 1410, 0, 1, 2, 300],
      ]);
      expect(rows[0]!.entry).toEqual(anna);
      expect(rows[0]!.rating).toEqual(r(1580, 2));
      await store.revoke(carl.id, 400);
      expect((await store.standings('dame', season)).map((s) => s.entry.name)).toEqual(['Anna', 'Bernd']);
      expect((await store.standings('dame', season, { includeRevoked: true })).map((s) => s.entry.name)).toEqual(['Anna', 'Carl', 'Bernd']);
    });

    it('counts a multi-seat game (Catan): first place wins, a shared first place draws', async () => {
      const catan = (await store.currentSeason('catan', 1)).id;
      const [carl] = (await store.addEntries([{ name: 'Carl', group: '' }], 2)) as [RosterEntry];
      const seats = [entrySeat(anna, 1, r(1500), r(1560, 1)), entrySeat(bernd, 2 / 3, r(1500), r(1520, 1)), entrySeat(carl, 0, r(1500), r(1440, 1)), houseSeat('easy', 1 / 3)];
      await store.recordGame(game('cat1', catan, 10, seats, 'catan'));
      const tie = [entrySeat(anna, 1, r(1560, 1), r(1570, 2)), entrySeat(bernd, 1, r(1520, 1), r(1530, 2)), entrySeat(carl, 0, r(1440, 1), r(1430, 2))];
      await store.recordGame(game('cat2', catan, 20, tie, 'catan'));
      const rows = await store.standings('catan', catan);
      expect(rows.map((s) => [s.entry.name, s.wins, s.draws, s.losses])).toEqual([
        ['Anna', 1, 1, 0],
        ['Bernd', 0, 1, 1],
        ['Carl', 0, 0, 2],
      ]);
      expect(await store.lastOpponent('catan', catan, bernd.id)).toBe(anna.id);
      expect(await store.lastOpponent('catan', catan, anna.id)).toBe(bernd.id);
      expect((await store.getGame('cat1'))!.seats).toEqual(seats);
    });

    it('lists games newest first, by game, season and entry, in pages', async () => {
      const [carl] = (await store.addEntries([{ name: 'Carl', group: '' }], 2)) as [RosterEntry];
      const mia = (await store.currentSeason('mia', 1)).id;
      await store.recordGame(game('g1', season, 100, [entrySeat(anna, 1, r(1500), r(1600, 1)), entrySeat(bernd, 0, r(1500), r(1400, 1))]));
      await store.recordGame(game('g3', season, 300, [entrySeat(carl, 1, r(1500), r(1600, 1)), entrySeat(bernd, 0, r(1400, 1), r(1350, 2))]));
      await store.recordGame(game('g2', season, 200, [entrySeat(anna, 1, r(1600, 1), r(1650, 2)), entrySeat(carl, 0, r(1600, 1), r(1550, 2))]));
      await store.recordGame(game('m1', mia, 250, [entrySeat(anna, 1, r(1500), r(1600, 1)), houseSeat('easy', 0)], 'mia'));
      const ids = async (o: Parameters<LadderStore['listGames']>[0]) => (await store.listGames(o)).map((g) => g.id);
      expect(await ids({})).toEqual(['g3', 'm1', 'g2', 'g1']);
      expect(await ids(undefined)).toEqual(['g3', 'm1', 'g2', 'g1']);
      expect(await ids({ game: 'dame' })).toEqual(['g3', 'g2', 'g1']);
      expect(await ids({ game: 'mia', season: mia })).toEqual(['m1']);
      expect(await ids({ entryId: anna.id })).toEqual(['m1', 'g2', 'g1']);
      expect(await ids({ game: 'dame', entryId: bernd.id })).toEqual(['g3', 'g1']);
      expect(await ids({ limit: 2 })).toEqual(['g3', 'm1']);
      expect(await ids({ limit: 2, offset: 2 })).toEqual(['g2', 'g1']);
      expect(await ids({ offset: 3 })).toEqual(['g1']);
      expect((await store.listGames({ game: 'dame' }))[0]).toEqual(await store.getGame('g3'));
    });

    it('keeps the rating history oldest first (by the end of the game, whatever the order recorded)', async () => {
      // Each rated from the rating stored before it (recordGame refuses a stale `before`).
      await store.recordGame(game('late', season, 300, [entrySeat(anna, 1, r(1500), r(1580, 1, 250)), houseSeat('easy', 0)]));
      await store.recordGame(game('early', season, 100, [entrySeat(anna, 1, r(1580, 1, 250), r(1550, 2, 300)), houseSeat('easy', 0)]));
      await store.recordGame(game('tie', season, 300, [entrySeat(anna, 0, r(1550, 2, 300), r(1560, 3, 240)), houseSeat('easy', 1)]));
      // A setRating (a correction) moves the rating but is no point of the history.
      await store.setRating('dame', season, anna.id, r(1111, 3));
      expect(await store.ratingHistory('dame', season, anna.id)).toEqual([
        { at: 100, gameId: 'early', rating: 1550, rd: 300 },
        { at: 300, gameId: 'late', rating: 1580, rd: 250 },
        { at: 300, gameId: 'tie', rating: 1560, rd: 240 },
      ]);
      expect(await store.ratingHistory('dame', season, bernd.id)).toEqual([]);
    });

    it('knows the last opponent and the seats an entry played', async () => {
      expect(await store.lastOpponent('dame', season, anna.id)).toBeNull();
      expect(await store.seatCounts('dame', season, anna.id)).toEqual([0, 0]);
      await store.recordGame(game('o1', season, 100, [entrySeat(anna, 1, r(1500), r(1600, 1)), entrySeat(bernd, 0, r(1500), r(1400, 1))]));
      await store.recordGame(game('o2', season, 300, [houseSeat('medium', 1), entrySeat(anna, 0, r(1600, 1), r(1580, 2))]));
      await store.recordGame(game('o3', season, 200, [entrySeat(anna, 1, r(1580, 2), r(1590, 3)), houseSeat('easy', 0)]));
      expect(await store.lastOpponent('dame', season, anna.id)).toBe('medium');
      expect(await store.lastOpponent('dame', season, bernd.id)).toBe(anna.id);
      expect(await store.seatCounts('dame', season, anna.id)).toEqual([2, 1]);
      expect(await store.seatCounts('dame', season, bernd.id)).toEqual([0, 1]);
    });
  });

  it('rejects every call once closed', async () => {
    await store.close();
    await refused(store.listEntries(), 'closed');
    await refused(store.currentSeason('dame'), 'closed');
    await store.close();
  });
});

describe('the ladder store in a file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'spielhalle-ladder-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps everything when the file is opened again', async () => {
    const file = join(dir, 'sub', 'ladder.db');
    const first = await openLadderStore(file);
    const [anna, bernd] = (await first.addEntries(
      [
        { name: 'Anna', group: 'T1' },
        { name: 'Bernd', group: '' },
      ],
      1,
    )) as [RosterEntry, RosterEntry];
    const renewed = await first.renew(bernd.id, 2);
    const season = (await first.currentSeason('dame', 3)).id;
    const record = game('g1', season, 10, [entrySeat(anna, 1, r(1500), r(1600, 1)), entrySeat(renewed, 0, r(1500), r(1400, 1), { kind: 'timeout', detail: '30 s' })]);
    await first.recordGame(record);
    await first.freezeSeason('dame', 20);
    await first.close();

    const again = await openLadderStore(file);
    expect(await again.listEntries()).toEqual([anna, renewed]);
    expect(await again.byCode(bernd.code)).toBeNull();
    expect(await again.byCode(renewed.code)).toEqual(renewed);
    expect(await again.currentSeason('dame')).toEqual({ id: season, name: 'Season 1', startedAt: 3, frozenAt: 20, archivedAt: null });
    expect(await again.getGame('g1')).toEqual(record);
    expect(await again.getRating('dame', season, anna.id)).toEqual(r(1600, 1));
    expect(await again.ratingHistory('dame', season, renewed.id)).toEqual([{ at: 10, gameId: 'g1', rating: 1400, rd: 350 }]);
    expect((await again.standings('dame', season)).map((s) => s.entry.name)).toEqual(['Anna', 'Bernd']);
    await again.close();

    // A file in WAL mode with a busy timeout, as the record store, and its schema version noted.
    const db = new Database(file, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.prepare('SELECT version FROM schema_version').all()).toEqual([{ version: 1 }]);
    db.close();
  });

  it('refuses a file written by a newer schema', async () => {
    const file = join(dir, 'ladder.db');
    await (await openLadderStore(file)).close();
    const db = new Database(file);
    db.prepare('UPDATE schema_version SET version = 99').run();
    db.close();
    expect(() => new SqliteLadderStore(file)).toThrow(/newer Spielhalle/);
    await refused(openLadderStore(file), 'newer-schema');
  });

  it('lets two stores on one file see each other’s writes', async () => {
    const file = join(dir, 'ladder.db');
    const a = await openLadderStore(file);
    const b = await openLadderStore(file);
    await a.addEntries([{ name: 'Anna', group: '' }], 1);
    await refused(b.addEntries([{ name: 'anna', group: '' }], 2), 'duplicate-name');
    expect((await b.currentSeason('dame', 5)).id).toBe((await a.currentSeason('dame', 6)).id);
    await a.close();
    await b.close();
  });
});

describe.skipIf(!hasPg)('the ladder store in PostgreSQL, shared by several serve processes', () => {
  const stores: LadderStore[] = [];
  const openPg = async (schema: string): Promise<LadderStore> => {
    const store = await openLadderStore(PG_URL, { schema });
    stores.push(store);
    return store;
  };
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });

  it('keeps everything in its schema, beside the records, with a version of its own', async () => {
    const schema = newSchema();
    const first = await openPg(schema);
    expect(first).toBeInstanceOf(PgLadderStore);
    const [anna] = (await first.addEntries([{ name: 'Anna', group: 'T1' }], 1)) as [RosterEntry];
    const season = (await first.currentSeason('dame', 3)).id;
    const record = game('g1', season, 10, [entrySeat(anna, 2 / 3, r(1500), r(1600.123456789, 1, 290.5)), houseSeat('easy', 1 / 3)]);
    await first.recordGame(record);
    await first.close();
    const again = await openPg(schema);
    expect(await again.listEntries()).toEqual([anna]);
    // Ratings and scores read back as the numbers written (DOUBLE PRECISION, not REAL).
    expect(await again.getGame('g1')).toEqual(record);
    expect(await again.getRating('dame', season, anna.id)).toEqual(r(1600.123456789, 1, 290.5));
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      expect((await client.query(`SELECT version FROM ${schema}.ladder_schema_version`)).rows).toEqual([{ version: 1 }]);
      await client.query(`UPDATE ${schema}.ladder_schema_version SET version = 99`);
    } finally {
      await client.end();
    }
    await refused(openLadderStore(PG_URL, { schema }), 'newer-schema');
  });

  it('two processes on one schema: each sees the other’s roster changes, and no rating is lost', async () => {
    const schema = newSchema();
    const a = await openPg(schema);
    const b = await openPg(schema);
    const [anna, bernd] = (await a.addEntries(
      [
        { name: 'Anna', group: '' },
        { name: 'Bernd', group: '' },
      ],
      1,
    )) as [RosterEntry, RosterEntry];
    expect(await b.listEntries()).toEqual([anna, bernd]);
    expect(await b.byCode(anna.code)).toEqual(anna);
    const renewed = await b.renew(anna.id, 2);
    expect(await a.byCode(anna.code)).toBeNull();
    expect(await a.byReservation(renewed.reservation)).toEqual(renewed);
    await a.revoke(bernd.id, 3);
    expect((await b.byCode(bernd.code))?.revoked).toBe(true);
    // The same new name from both at once: one is taken, the other refused.
    const both = await Promise.allSettled([a.addEntries([{ name: 'Carl', group: '' }], 4), b.addEntries([{ name: 'carl', group: '' }], 4)]);
    expect(both.filter((x) => x.status === 'fulfilled')).toHaveLength(1);
    expect(((both.find((x) => x.status === 'rejected') as PromiseRejectedResult).reason as LadderStoreError).code).toBe('duplicate-name');
    // The first season, asked for by both at once, is one.
    const [sa, sb] = await Promise.all([a.currentSeason('dame', 5), b.currentSeason('dame', 6)]);
    expect(sa).toEqual(sb);

    // Each process rates games of Anna as the ladder does: read, rate, record; again when stale.
    const play = async (store: LadderStore, name: string, games: number): Promise<void> => {
      for (let i = 0; i < games; i++) {
        for (;;) {
          const before = (await store.getRating('dame', sa.id, anna.id)) ?? r(1500);
          const after = { ...before, rating: before.rating + 10, games: before.games + 1 };
          try {
            await store.recordGame(game(`${name}-${i}`, sa.id, 100 + i, [entrySeat(renewed, 1, before, after), houseSeat('easy', 0)]));
            break;
          } catch (err) {
            if (!(err instanceof LadderStoreError && err.code === 'stale-rating')) throw err;
          }
        }
      }
    };
    await Promise.all([play(a, 'a', 8), play(b, 'b', 8)]);
    expect(await a.getRating('dame', sa.id, anna.id)).toEqual(r(1660, 16));
    expect((await b.ratingHistory('dame', sa.id, anna.id)).map((p) => p.rating).sort((x, y) => x - y)).toEqual(Array.from({ length: 16 }, (_, i) => 1510 + 10 * i));
    expect((await b.standings('dame', sa.id))[0]).toMatchObject({ wins: 16, rating: r(1660, 16) });
    // The race itself, made certain: both read 1660, both rate; the second write is refused.
    const read = await Promise.all([a.getRating('dame', sa.id, anna.id), b.getRating('dame', sa.id, anna.id)]);
    const rated = (x: Rating | null): LadderGameSeat[] => [entrySeat(renewed, 1, x!, { ...x!, rating: x!.rating + 10, games: x!.games + 1 }), houseSeat('easy', 0)];
    await a.recordGame(game('race-a', sa.id, 150, rated(read[0])));
    await refused(b.recordGame(game('race-b', sa.id, 150, rated(read[1]))), 'stale-rating');
    expect(await b.getGame('race-b')).toBeNull();
    expect(await b.getRating('dame', sa.id, anna.id)).toEqual(r(1670, 17));

    // A freeze by one process stops the games of the other.
    await a.freezeSeason('dame', 200);
    await refused(b.recordGame(game('late', sa.id, 300, [entrySeat(renewed, 1, r(1670, 17), r(1680, 18)), houseSeat('easy', 0)])), 'season-frozen');
  });
});
