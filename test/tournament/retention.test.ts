import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import type { Records } from '../../src/core/record-backend.js';
import type { MatchDetail } from '../../src/core/record-types.js';
import { RecordStore } from '../../src/core/records.js';
import { PgRecordStore } from '../../src/core/records-pg.js';
import { retentionPrune, startRetention } from '../../src/core/retention.js';
import { dame } from '../../src/games/dame/index.js';
import { ArchiveError, importArchive, writeArchiveFile } from '../../src/tournament/archive.js';
import { createTournament, runTournament, tournamentStandings } from '../../src/tournament/coordinator.js';
import type { Entrant, TournamentSpec } from '../../src/tournament/file.js';
import type { Standings } from '../../src/tournament/standings.js';

/**
 * Issue 37: retention never takes the records behind a grade. A real Dame round robin between our
 * bots, house games and played games recorded around it, a size cap far below what the store
 * holds; then archive → delete → import.
 */

const work = mkdtempSync(join(tmpdir(), 'spielhalle-retention-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const DAY = 86_400_000;
const PG_URL = process.env.SPIELHALLE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const bot = (name: string, botName: string): Entrant => ({ name, kind: 'bot', bot: botName, options: {} });

/** A recorded game with some wire lines (a few KB each). */
function game(store: Records, o: { startedAt: number; house: boolean; name: string }): string {
  const id = store.startMatch({
    game: 'dame',
    startedAt: o.startedAt,
    seats: [
      { seat: 0, name: o.name, kind: 'client', address: '127.0.0.1:4000' },
      { seat: 1, name: 'engine', kind: 'engine', address: 'engine' },
    ],
    house: o.house,
    meta: o.house ? { house: { table: 1 } } : {},
  });
  store.addEvent(id, { at: o.startedAt + 1, seat: 0, type: 'move', data: { move: 'C3:D4' } });
  // Lines that do not compress to nothing (the store deflates packed wire rows).
  for (let j = 0; j < 40; j++)
    store.addWire({ matchId: id, game: 'dame', conn: '127.0.0.1:4000', at: o.startedAt + j, dir: 'in', data: `${id} ${j} ${Math.random().toString(36).repeat(4)}` });
  store.finishMatch(id, { status: 'finished', endedAt: o.startedAt + 100, result: { winner: 0 } });
  return id;
}

/** Every record of a tournament, by the store's own tag and by what its matches name. */
async function tournamentRecords(store: Records, id: string): Promise<string[]> {
  const tagged = (await store.listMatches({ tournament: id, limit: 1000 })).map((m) => m.id);
  const named = (await store.listTournamentMatches(id)).flatMap((m) => m.records);
  expect(new Set(named).size).toBeGreaterThan(0);
  for (const r of named) expect(tagged).toContain(r);
  return tagged.sort();
}

/**
 * Standings as equal as two Bradley–Terry fits of the same results can be (docs/tournaments.md,
 * "Live standings"): every count and Elo exact, ratings and their interval to 10⁻⁶ Elo — the live
 * fit warm-started match by match and a fit of the imported results from scratch differ below that.
 */
const fitted = (s: Standings) => ({
  ...s,
  rows: s.rows.map((r) => ({ ...r, rating: r.rating.toFixed(6), low: r.low.toFixed(6), high: r.high.toFixed(6) })),
});

/** A record as a replay shows it: no storage row numbers. */
const replayOf = (m: MatchDetail) => ({ ...m, wire: m.wire.map(({ seq: _seq, ...w }) => w) });

describe('retention keeps the evidence behind a grade (issue 37)', () => {
  it('keeps a finished tournament through a size cap of house games; archive → delete → import gives the same standings and replays', { timeout: 120_000 }, async () => {
    const store = new RecordStore(join(work, 'store.db'));
    const now = Date.now();
    const before = Array.from({ length: 150 }, (_, i) => game(store, { startedAt: now - 10 * DAY + i * 1000, house: true, name: 'depth2' }));
    const played = Array.from({ length: 30 }, (_, i) => game(store, { startedAt: now - 9 * DAY + i * 1000, house: false, name: `student${i}` }));

    const spec: TournamentSpec = {
      name: 'graded',
      game: 'dame',
      format: 'round-robin',
      entrants: [bot('strong', 'depth2'), bot('greedy', 'greedy'), bot('weak', 'random')],
      gamesPerPairing: 2,
      rounds: 1,
      tableSize: 2,
      gamesPerTable: 20,
      moveTime: 0.05,
      seed: 37,
      parallel: 2,
    };
    const id = await createTournament(store, spec, null, now - 8 * DAY);
    expect(await runTournament(store, id, { log: silentLogger, workDir: work })).toBe('finished');
    const after = Array.from({ length: 150 }, (_, i) => game(store, { startedAt: now - 7 * DAY + i * 1000, house: true, name: 'depth4' }));
    await store.drain();

    const ids = await tournamentRecords(store, id);
    expect(ids.length).toBe(6);
    const replays = new Map<string, MatchDetail>();
    for (const r of ids) replays.set(r, store.getMatch(r)!);
    const standings = await tournamentStandings(store, id);
    const replayable = (m: MatchDetail) => {
      const check = dame.verify!(m);
      expect(check, m.id).toEqual({ checked: true, problems: [] });
    };
    for (const m of replays.values()) replayable(m);

    // A cap the house games alone can meet: they go, oldest first; the played games and the tournament stay.
    const full = store.usedBytes();
    const r1 = await store.prune({ maxBytes: Math.floor(full * 0.6), now });
    expect(r1.bytesAfter).toBeLessThanOrEqual(Math.floor(full * 0.6));
    expect(r1.capUnmet).toBeUndefined();
    expect(r1.matches).toBeGreaterThan(50);
    expect(r1.matches).toBeLessThan(300);
    expect(store.getMatch(before[0]!)).toBeNull();
    expect(store.getMatch(after.at(-1)!)).not.toBeNull();
    for (const p of played) expect(store.getMatch(p)).not.toBeNull();
    // The pruned house game's link says when and why, as probable (house games leave one mark per game).
    expect(store.prunedNote(before[0]!)).toMatchObject({ prunedAt: now, reason: 'retention', exact: false, keep: 'house' });
    expect(store.prunedNote(after.at(-1)!)).toBeNull();

    // Then a cap nothing but the tournament could meet: everything else goes, the tournament stays whole.
    const r2 = await store.prune({ maxBytes: 1, now: now + 1 });
    expect(r2.capUnmet).toBe(true);
    for (const p of [...before, ...played, ...after]) expect(store.getMatch(p)).toBeNull();
    expect(store.prunedNote(played[0]!)).toMatchObject({ prunedAt: now + 1, reason: 'retention', exact: true, keep: 'played' });
    // Age and wire retention (the server's timer, every setting at its smallest) do not touch it either.
    const settings = { keepDays: 0.0001, houseKeepDays: 0.0001, wireKeepDays: 0.0001, maxMegabytes: 1, pruneEveryMinutes: 60 };
    await store.prune({ ...retentionPrune(settings, now + 30 * DAY), now: now + 30 * DAY });
    const retention = startRetention(store, settings, silentLogger, { firstDelayMs: 0, now: () => now + 60 * DAY });
    await retention.runNow();
    await retention.stop();
    expect(await tournamentRecords(store, id)).toEqual(ids);
    for (const r of ids) {
      const m = store.getMatch(r)!;
      expect(replayOf(m)).toEqual(replayOf(replays.get(r)!));
      replayable(m);
    }
    expect(fitted(await tournamentStandings(store, id))).toEqual(fitted(standings));

    // Archive → delete → import.
    const file = join(work, 'graded.tournament.jsonl.gz');
    expect(await writeArchiveFile(store, id, file)).toMatchObject({ id, matches: 6, records: 6, missing: [] });
    expect(store.deleteTournament(id, now + 61 * DAY)).toEqual({ records: 6 });
    expect(store.getTournament(id)).toBeNull();
    for (const r of ids) {
      expect(store.getMatch(r)).toBeNull();
      expect(store.prunedNote(r)).toMatchObject({ reason: 'tournament deleted', tournamentId: id, exact: true });
    }
    expect(await importArchive(store, file)).toEqual({ id, matches: 6, records: 6 });
    expect(fitted(await tournamentStandings(store, id))).toEqual(fitted(standings));
    expect(store.getTournament(id)).toMatchObject({ status: 'finished', done: 6, total: 6, archivedAt: null });
    expect(await tournamentRecords(store, id)).toEqual(ids);
    for (const r of ids) {
      const m = store.getMatch(r)!;
      expect(replayOf(m)).toEqual(replayOf(replays.get(r)!));
      replayable(m);
    }
    // Imported again, it is a tournament's record again: retention keeps it.
    const r3 = await store.prune({ maxBytes: 1, matchesBefore: now + 100 * DAY });
    expect(r3.matches).toBe(0);
    // Once archived on purpose, retention may take it; the archive keeps it.
    store.archiveTournament(id, now + 62 * DAY);
    expect(store.getTournament(id)!.archivedAt).toBe(now + 62 * DAY);
    expect((await store.prune({ maxBytes: 1, now: now + 63 * DAY })).matches).toBe(6);
    expect(store.prunedNote(ids[0]!)).toMatchObject({ reason: 'retention', keep: 'archived', tournamentId: id });
    store.close();
  });

  it('refuses a cut-off or foreign archive and a tournament already in the store, importing nothing', async () => {
    const store = new RecordStore(':memory:');
    const id = await createTournament(
      store,
      { name: 'tiny', game: 'dame', format: 'round-robin', entrants: [bot('a', 'depth2'), bot('b', 'random')], gamesPerPairing: 2, rounds: 1, tableSize: 2, gamesPerTable: 20, moveTime: 0.05, seed: 1, parallel: 1 },
      null,
      Date.UTC(2026, 10, 29),
    );
    expect(await runTournament(store, id, { log: silentLogger, workDir: work })).toBe('finished');
    const file = join(work, 'tiny.gz');
    await writeArchiveFile(store, id, file);
    await expect(importArchive(store, file)).rejects.toThrow(/in the store already/);

    const { gunzipSync, gzipSync } = await import('node:zlib');
    const { readFileSync } = await import('node:fs');
    const lines = gunzipSync(readFileSync(file)).toString('utf8').trimEnd().split('\n');
    const cut = join(work, 'cut.gz');
    writeFileSync(cut, gzipSync(lines.slice(0, -1).join('\n') + '\n'));
    const other = new RecordStore(':memory:');
    await expect(importArchive(other, cut)).rejects.toThrow(ArchiveError);
    expect(other.getTournament(id)).toBeNull();
    const foreign = join(work, 'foreign.gz');
    writeFileSync(foreign, gzipSync('{"hello":1}\n'));
    await expect(importArchive(other, foreign)).rejects.toThrow(/not a Spielhalle tournament archive/);
    expect(await importArchive(other, file)).toMatchObject({ id, matches: 2, records: 2 });
    expect(fitted(await tournamentStandings(other, id))).toEqual(fitted(await tournamentStandings(store, id)));
    other.close();

    // Into PostgreSQL: the same standings and replays.
    const schema = `t${process.pid}_archive_${Date.now().toString(36)}`;
    const pgStore = await PgRecordStore.open({ url: PG_URL, schema, mode: 'write' });
    try {
      expect(await importArchive(pgStore, file)).toEqual({ id, matches: 2, records: 2 });
      expect(fitted(await tournamentStandings(pgStore, id))).toEqual(fitted(await tournamentStandings(store, id)));
      for (const rid of store.listTournamentMatches(id).flatMap((m) => m.records)) {
        expect(replayOf((await pgStore.getMatch(rid))!)).toEqual(replayOf(store.getMatch(rid)!));
        expect(await pgStore.keepOf(rid)).toEqual({ keep: 'tournament', tournamentId: id });
      }
    } finally {
      await pgStore.close();
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    }
    store.close();
  });
});
