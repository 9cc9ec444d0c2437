import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { Records } from '../../src/core/record-backend.js';
import { RecordStore, type PruneOptions, type PruneResult } from '../../src/core/records.js';
import { PgRecordStore } from '../../src/core/records-pg.js';

/**
 * The record store's two backends held to one behaviour (issue #19), through the Records
 * interface (every answer awaited, as callers do): every case runs against
 * SQLite (a file, with its writer thread) and PostgreSQL (the server at 127.0.0.1:5432, database
 * `test`, a schema of its own per run, dropped at the end). `.ci/run` starts PostgreSQL when it
 * is not running. SPIELHALLE_TEST_DATABASE_URL points the suite at another server.
 */

const PG_URL = process.env.SPIELHALLE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const RUN = `t${process.pid}_${Date.now().toString(36)}`;
const schemas: string[] = [];
const dirs: string[] = [];

interface Opened {
  store: Records;
  /** The same store opened again (after `store` was closed): what was committed is there. */
  reopen(mode?: 'serve' | 'write'): Promise<Records>;
}

const BACKENDS: Record<'sqlite' | 'postgres', (mode?: 'serve' | 'write') => Promise<Opened>> = {
  sqlite: (mode = 'write') => {
    const dir = mkdtempSync(join(tmpdir(), 'spielhalle-backend-'));
    dirs.push(dir);
    const file = join(dir, 'records.db');
    return Promise.resolve({
      store: new RecordStore(file, { mode }),
      reopen: (again = 'write') => Promise.resolve(new RecordStore(file, { mode: again })),
    });
  },
  postgres: async (mode = 'write') => {
    const schema = `${RUN}_${schemas.length}`;
    schemas.push(schema);
    return {
      store: await PgRecordStore.open({ url: PG_URL, schema, mode }),
      reopen: (again = 'write') => PgRecordStore.open({ url: PG_URL, schema, mode: again }),
    };
  },
};

afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
});

/** A call whose failure may be a throw (SQLite) or a rejection (PostgreSQL), as a promise. */
const later = <T>(fn: () => T | Promise<T>): Promise<T> => Promise.resolve().then(fn);

const seats = [
  { seat: 0, name: 'alice', kind: 'client', address: '127.0.0.1:5000' },
  { seat: 1, name: 'bot', kind: 'bot' },
];

describe.each(['sqlite', 'postgres'] as const)('record store on %s', (kind) => {
  const open = BACKENDS[kind];

  it('keeps a match with its seats, events, wire log and result, and lists it by every filter', async () => {
    const { store, reopen } = await open();
    const a = store.startMatch({ game: 'dame', seed: 42, startedAt: 1_000, seats, meta: { mode: 'auto' } });
    store.addEvent(a, { at: 1_001, seat: 0, type: 'move', data: { from: 'C3', to: 'D4' } });
    store.addEvent(a, { at: 1_002, type: 'note' });
    store.addWire({ matchId: a, game: 'dame', conn: 'c1', at: 1_001, dir: 'in', data: 'PLAY C3:D4' });
    store.addWire({ matchId: a, game: 'dame', conn: 'c1', at: 1_002, dir: 'out', data: '+ MOVEOK' });
    store.addWire({ matchId: null, game: 'dame', conn: 'c9', at: 1_003, dir: 'in', data: 'garbage' });
    store.finishMatch(a, { status: 'finished', endedAt: 2_000, result: { winner: 'alice' } });
    const b = store.startMatch({ id: 'mia-1', game: 'mia', startedAt: 3_600_000 + 5, seats: [{ seat: 0, name: 'carol', kind: 'client' }] });
    const c = store.startMatch({ game: 'dame', startedAt: 7_300_000, seats: [{ seat: 0, name: 'bot', kind: 'bot' }] });
    store.finishMatch(c, { status: 'aborted', endedAt: 7_300_100, result: { reason: 'left' } });
    expect(b).toBe('mia-1');
    expect(a).toMatch(/^dame-/);

    const match = (await store.getMatch(a))!;
    expect(match).toMatchObject({
      id: a,
      game: 'dame',
      seed: '42',
      status: 'finished',
      startedAt: 1_000,
      endedAt: 2_000,
      result: { winner: 'alice' },
      meta: { mode: 'auto' },
      seats: [
        { seat: 0, name: 'alice', kind: 'client', address: '127.0.0.1:5000' },
        { seat: 1, name: 'bot', kind: 'bot' },
      ],
    });
    expect(match.events).toEqual([
      { seq: 1, at: 1_001, seat: 0, type: 'move', data: { from: 'C3', to: 'D4' } },
      { seq: 2, at: 1_002, seat: null, type: 'note', data: null },
    ]);
    expect(match.wire.map((w) => [w.at, w.conn, w.dir, w.data])).toEqual([
      [1_001, 'c1', 'in', 'PLAY C3:D4'],
      [1_002, 'c1', 'out', '+ MOVEOK'],
    ]);
    expect(await store.getMatch('nope')).toBeNull();

    const ids = async (o: Parameters<Records['listMatches']>[0]) => (await store.listMatches(o)).map((m) => m.id);
    expect(await ids({})).toEqual([c, b, a]);
    expect(await ids({ game: 'dame' })).toEqual([c, a]);
    expect(await ids({ notGame: 'dame' })).toEqual([b]);
    expect(await ids({ status: 'running' })).toEqual([b]);
    expect(await ids({ player: 'bot' })).toEqual([c, a]);
    expect(await ids({ before: 3_600_000 })).toEqual([a]);
    expect(await ids({ since: 3_600_000, limit: 1 })).toEqual([c]);
    expect(await ids({ limit: 2, offset: 1 })).toEqual([b, a]);
    expect(await store.countListed({ game: 'dame' })).toBe(2);
    expect(await store.countListed({ player: 'nobody' })).toBe(0);
    expect(await store.countMatches()).toBe(3);
    expect(await store.countMatches('mia')).toBe(1);
    expect(await store.listHours({})).toEqual([
      { hour: 7_200_000, matches: 1, finished: 0, aborted: 1, running: 0 },
      { hour: 3_600_000, matches: 1, finished: 0, aborted: 0, running: 1 },
      { hour: 0, matches: 1, finished: 1, aborted: 0, running: 0 },
    ]);
    const listed = (await store.listMatches({ game: 'dame', limit: 1 }))[0]!;
    expect(listed.seats).toEqual([{ seat: 0, name: 'bot', kind: 'bot', address: undefined }]);

    await store.close();
    const again = await reopen();
    expect((await again.getMatch(a))!.wire).toHaveLength(2);
    expect(await again.countMatches()).toBe(3);
    await again.close();
  });

  it('packs long wire logs and batches, listing every line in order', async () => {
    const { store } = await open();
    const id = store.startMatch({ game: 'catan', startedAt: 10, seats });
    // A batch (Mia writes a round's log at its end) is one row at once; single lines are gathered.
    store.addWireBatch(id, 'catan', [
      { conn: 'x', at: 5, dir: 'out', data: 'batch-1' },
      { conn: 'y', at: 6, dir: 'in', data: 'batch-2' },
    ]);
    for (let i = 0; i < 600; i++) store.addWire({ matchId: id, game: 'catan', conn: `c${i % 3}`, at: 10 + i, dir: i % 2 === 0 ? 'in' : 'out', data: `{"n":${i}}` });
    store.finishMatch(id, { status: 'finished', endedAt: 800, result: null });
    const wire = (await store.getMatch(id))!.wire;
    expect(wire).toHaveLength(602);
    expect(wire.slice(0, 2).map((w) => [w.at, w.conn, w.dir, w.data])).toEqual([
      [5, 'x', 'out', 'batch-1'],
      [6, 'y', 'in', 'batch-2'],
    ]);
    expect(wire.slice(2).map((w) => w.data)).toEqual(Array.from({ length: 600 }, (_, i) => `{"n":${i}}`));
    expect(wire[601]).toMatchObject({ at: 609, conn: 'c2', dir: 'out' });
    for (let i = 1; i < wire.length; i++) expect(wire[i]!.seq).toBeGreaterThan(wire[i - 1]!.seq);
    expect((await store.getMatch(id))!.result).toBeNull();
    await store.close();
  });

  it('keeps one score per player, the last one given', async () => {
    const { store } = await open();
    store.setScores('mia', new Map([['bob', 3], ['alice', 1]]), 1);
    store.setScores('mia', new Map([['bob', 4]]), 2);
    store.setScores('dame', new Map([['bob', 9]]), 2);
    expect([...(await store.getScores('mia'))]).toEqual([['alice', 1], ['bob', 4]]);
    await store.drain();
    store.setScores('mia', new Map([['alice', 7]]), 3);
    expect([...(await store.getScores('mia'))]).toEqual([['alice', 7], ['bob', 4]]);
    expect((await store.getScores('none')).size).toBe(0);
    await store.close();
  });

  it('appends events after a match ended, and queues them while it runs', async () => {
    const { store } = await open();
    const id = store.startMatch({ game: 'dame', startedAt: 1, seats });
    store.addEvent(id, { at: 2, type: 'move' });
    await store.appendEvent(id, { at: 3, type: 'while-running' });
    store.finishMatch(id, { status: 'finished', endedAt: 4, result: {} });
    await store.appendEvent(id, { at: 5, seat: 1, type: 'program-output', data: { stdout: 'hi' } });
    await store.appendEvent(id, { at: 6, type: 'second' });
    expect((await store.getMatch(id))!.events.map((e) => [e.seq, e.type, e.seat])).toEqual([
      [1, 'move', null],
      [2, 'while-running', null],
      [3, 'program-output', 1],
      [4, 'second', null],
    ]);
    await store.close();
  });

  it('keeps tournaments and their matches, in the order they finished, committed when each call resolves', async () => {
    const { store, reopen } = await open();
    const spec = { name: 'Kurs', entrants: [{ name: 'a' }, { name: 'b' }] };
    await store.createTournament({ id: 't1', name: 'Kurs', game: 'dame', format: 'round-robin', spec, source: 'name: Kurs\n', status: 'running', createdAt: 100 });
    await store.createTournament({ id: 't2', name: 'Other', game: 'mia', format: 'tables', spec: {}, source: null, status: 'running', createdAt: 200 });
    await expect(later(() => store.createTournament({ id: 't1', name: 'x', game: 'dame', format: 'swiss', spec: {}, source: null, status: 'running', createdAt: 1 }))).rejects.toThrow();
    const schedule = [
      { id: '1-0', round: 1, index: 0, seats: ['a', 'b'], seed: 11 },
      { id: '1-1', round: 1, index: 1, seats: ['b', 'a'], seed: 0x7fffffff },
      { id: '2-0', round: 2, index: 0, seats: ['a'], seed: 0, bye: true },
    ];
    await store.addTournamentMatches('t1', schedule);
    await store.addTournamentMatches('t1', schedule.slice(0, 1));
    await store.startTournamentMatch('t1', '1-1', 150, 'worker-a');
    await store.startTournamentMatch('t1', '1-0', 151, 'worker-b');
    await store.finishTournamentMatch('t1', '1-1', { at: 160, result: { winner: 'b' }, records: ['dame-x'], output: [] });
    await store.finishTournamentMatch('t1', '1-0', { at: 170, result: { winner: 'a' }, records: ['dame-y'], output: [{ seat: 0, name: 'a', stdout: 'o', stderr: '', truncated: 0, exit: { code: 0, signal: null } }] });
    await expect(later(() => store.startTournamentMatch('t1', 'nope', 1, 'w'))).rejects.toThrow(/no tournament match t1\/nope/);
    await expect(later(() => store.setTournamentStatus('nope', 'finished', 1))).rejects.toThrow(/no tournament nope/);

    const t = (await store.getTournament('t1'))!;
    expect(t).toMatchObject({ id: 't1', spec, source: 'name: Kurs\n', status: 'running', total: 3, done: 2, createdAt: 100, updatedAt: 170, finishedAt: null, note: null });
    expect((await store.listTournaments()).map((x) => x.id)).toEqual(['t2', 't1']);
    expect((await store.listTournaments({ game: 'dame' })).map((x) => x.id)).toEqual(['t1']);
    expect((await store.listTournaments({ limit: 1, offset: 1 })).map((x) => x.id)).toEqual(['t1']);
    const all = await store.listTournamentMatches('t1');
    expect(all.map((m) => [m.id, m.status, m.attempts, m.worker])).toEqual([
      ['1-0', 'done', 1, 'worker-b'],
      ['1-1', 'done', 1, 'worker-a'],
      ['2-0', 'pending', 0, null],
    ]);
    expect(all[1]).toMatchObject({ tournamentId: 't1', round: 1, index: 1, seats: ['b', 'a'], seed: 0x7fffffff, bye: false, result: { winner: 'b' }, records: ['dame-x'], startedAt: 150, endedAt: 160 });
    expect(all[2]!.bye).toBe(true);
    expect(all[0]!.output[0]!.stdout).toBe('o');
    expect((await store.listFinishedTournamentMatches('t1')).map((m) => m.id)).toEqual(['1-1', '1-0']);
    expect((await store.listTournamentMatches('t1', { status: 'pending' })).map((m) => m.id)).toEqual(['2-0']);
    expect((await store.listTournamentMatches('t1', { entrant: 'b' })).map((m) => m.id)).toEqual(['1-0', '1-1']);

    await store.resetTournamentMatch('t1', '1-1');
    await store.startTournamentMatch('t1', '1-1', 180, 'worker-c');
    await store.finishTournamentMatch('t1', '1-1', { at: 190, result: { winner: 'a' }, records: ['dame-z'], output: [] });
    expect((await store.listFinishedTournamentMatches('t1')).map((m) => [m.id, m.attempts, m.records])).toEqual([
      ['1-0', 1, ['dame-y']],
      ['1-1', 2, ['dame-z']],
    ]);
    await store.setTournamentStatus('t1', 'finished', 200, 'all played');
    await store.close();
    const again = await reopen();
    expect(await again.getTournament('t1')).toMatchObject({ status: 'finished', finishedAt: 200, note: 'all played', total: 3, done: 2 });
    expect(await again.getTournament('nope')).toBeNull();
    await again.close();
  });

  it('reads a tournament’s results by their finishing cursor, page by page, and keeps its saved standings (issue 38)', async () => {
    const { store, reopen } = await open();
    await store.createTournament({ id: 'ts', name: 'S', game: 'dame', format: 'round-robin', spec: {}, source: null, status: 'running', createdAt: 1 });
    await store.createTournament({ id: 'tx', name: 'X', game: 'dame', format: 'round-robin', spec: {}, source: null, status: 'running', createdAt: 2 });
    const ids = Array.from({ length: 7 }, (_, i) => `1-${i}`);
    await store.addTournamentMatches('ts', ids.map((id, index) => ({ id, round: 1, index, seats: ['a', 'b'], seed: index, bye: index === 6 })));
    await store.addTournamentMatches('tx', [{ id: '1-0', round: 1, index: 0, seats: ['a', 'b'], seed: 0 }]);
    // finished in another order than scheduled; one left pending
    for (const [k, id] of ['1-3', '1-0', '1-5', '1-1', '1-6', '1-2'].entries()) {
      await store.startTournamentMatch('ts', id, 10 * k, 'w');
      await store.finishTournamentMatch('ts', id, { at: 10 * k + 5, result: { id, seats: [] }, records: [], output: [{ seat: 0, name: 'a', stdout: 'x'.repeat(1000), stderr: '', truncated: 0, exit: null }] });
    }
    await store.startTournamentMatch('tx', '1-0', 1, 'w');
    await store.finishTournamentMatch('tx', '1-0', { at: 2, result: { id: 'other', seats: [] }, records: [], output: [] });

    const all = await store.listTournamentResults('ts');
    expect(all.map((r) => [r.seq, r.id])).toEqual([[1, '1-3'], [2, '1-0'], [3, '1-5'], [4, '1-1'], [5, '1-6'], [6, '1-2']]);
    expect(all[0]).toEqual({ seq: 1, id: '1-3', bye: false, startedAt: 0, endedAt: 5, result: { id: '1-3', seats: [] } });
    expect(all[4]!.bye).toBe(true);
    // by cursor, in pages
    expect((await store.listTournamentResults('ts', { after: 2, limit: 2 })).map((r) => r.id)).toEqual(['1-5', '1-1']);
    expect((await store.listTournamentResults('ts', { after: 4 })).map((r) => r.id)).toEqual(['1-6', '1-2']);
    expect(await store.listTournamentResults('ts', { after: 6 })).toEqual([]);
    // the newest, oldest first
    expect((await store.listTournamentResults('ts', { newest: true, limit: 3 })).map((r) => r.seq)).toEqual([4, 5, 6]);
    expect((await store.listTournamentResults('tx')).map((r) => r.id)).toEqual(['1-0']);
    // the matches' listing in pages, in its own order (round, index)
    expect((await store.listTournamentMatches('ts', { limit: 2, offset: 1 })).map((m) => m.id)).toEqual(['1-1', '1-2']);
    expect((await store.listTournamentMatches('ts', { status: 'done', limit: 3, offset: 4 })).map((m) => m.id)).toEqual(['1-5', '1-6']);
    expect((await store.listTournamentMatches('ts', { status: 'pending', limit: 5 })).map((m) => m.id)).toEqual(['1-4']);

    expect(await store.getTournamentStandings('ts')).toBeNull();
    await store.saveTournamentStandings('ts', { finishSeq: 4, state: { v: 1, rows: [0.1, 1 / 3] }, at: 100 });
    expect(await store.getTournamentStandings('ts')).toEqual({ finishSeq: 4, state: { v: 1, rows: [0.1, 1 / 3] }, updatedAt: 100 });
    // an older one does not replace a newer one (two savers: the later results win)
    await store.saveTournamentStandings('ts', { finishSeq: 3, state: { v: 1, old: true }, at: 200 });
    expect(await store.getTournamentStandings('ts')).toMatchObject({ finishSeq: 4, updatedAt: 100 });
    await store.saveTournamentStandings('ts', { finishSeq: 6, state: { v: 1, rows: [] }, at: 300 });
    await store.close();
    const reader = await reopen();
    expect(await reader.getTournamentStandings('ts')).toEqual({ finishSeq: 6, state: { v: 1, rows: [] }, updatedAt: 300 });
    expect(await reader.getTournamentStandings('tx')).toBeNull();
    await reader.close();
  });

  it('lets workers claim matches, records a result only under the claim that still holds, and discards a late one', async () => {
    const { store } = await open();
    await store.createTournament({ id: 'tq', name: 'Q', game: 'dame', format: 'round-robin', spec: {}, source: null, status: 'running', createdAt: 1 });
    await store.addTournamentMatches('tq', [
      { id: '1-0', round: 1, index: 0, seats: ['a', 'b'], seed: 1 },
      { id: '1-1', round: 1, index: 1, seats: ['b', 'a'], seed: 2 },
    ]);
    const first = await store.claimTournamentMatch('tq', '1-0', 10, 'w1');
    expect(first).toEqual({ worker: 'w1', attempt: 1 });
    // w1 is presumed dead; w2 takes the match over.
    const second = await store.claimTournamentMatch('tq', '1-0', 20, 'w2');
    expect(second).toEqual({ worker: 'w2', attempt: 2 });
    const end = (winner: string, at: number) => ({ at, result: { winner }, records: [`dame-${winner}`], output: [] });
    expect(await store.finishClaimedTournamentMatch('tq', '1-0', first!, end('late', 30))).toBe(false);
    expect(await store.releaseTournamentMatch('tq', '1-0', first!)).toBe(false);
    expect((await store.listTournamentMatches('tq'))[0]).toMatchObject({ status: 'running', worker: 'w2', attempts: 2 });
    expect(await store.finishClaimedTournamentMatch('tq', '1-0', second!, end('w2', 40))).toBe(true);
    // Done: no more claims, finishes or releases.
    expect(await store.claimTournamentMatch('tq', '1-0', 50, 'w3')).toBeNull();
    expect(await store.finishClaimedTournamentMatch('tq', '1-0', second!, end('again', 60))).toBe(false);
    expect(await store.releaseTournamentMatch('tq', '1-0', second!)).toBe(false);
    // A worker that gives a match back (its play failed) makes it pending again, attempts counted.
    const other = (await store.claimTournamentMatch('tq', '1-1', 70, 'w1'))!;
    expect(await store.releaseTournamentMatch('tq', '1-1', other)).toBe(true);
    await expect(later(() => store.claimTournamentMatch('tq', 'nope', 1, 'w1'))).rejects.toThrow(/no tournament match tq\/nope/);
    const rows = await store.listTournamentMatches('tq');
    expect(rows.map((m) => [m.id, m.status, m.worker, m.attempts, m.records])).toEqual([
      ['1-0', 'done', 'w2', 2, ['dame-w2']],
      ['1-1', 'pending', 'w1', 1, []],
    ]);
    expect((await store.listFinishedTournamentMatches('tq')).map((m) => m.result)).toEqual([{ winner: 'w2' }]);
    expect(await store.getTournamentMatch('tq', '1-0')).toMatchObject({ id: '1-0', seats: ['a', 'b'], seed: 1, status: 'done', result: { winner: 'w2' } });
    expect(await store.getTournamentMatch('tq', 'nope')).toBeNull();
    await store.close();
  });

  it('finds the game records a tournament match left running, and aborts them', async () => {
    const { store } = await open();
    const a = store.startMatch({ game: 'dame', startedAt: 1, seats, meta: { tournamentMatch: 't-1/1-0' } });
    const b = store.startMatch({ game: 'dame', startedAt: 2, seats, meta: { tournamentMatch: 't-1/1-0' } });
    store.finishMatch(b, { status: 'finished', endedAt: 3, result: { winner: 'bot' } });
    const c = store.startMatch({ game: 'dame', startedAt: 4, seats, meta: { tournamentMatch: 't-1/1-1' } });
    store.startMatch({ game: 'dame', startedAt: 5, seats });
    expect(await store.liveRecordsOf('t-1/1-0')).toEqual([a]);
    expect(await store.abortLiveRecordsOf('t-1/1-0', 9, 'worker gone')).toBe(1);
    expect(await store.getMatch(a)).toMatchObject({ status: 'aborted', endedAt: 9, result: { reason: 'worker gone' } });
    expect(await store.getMatch(b)).toMatchObject({ status: 'finished' });
    expect(await store.liveRecordsOf('t-1/1-0')).toEqual([]);
    expect(await store.liveRecordsOf('t-1/1-1')).toEqual([c]);
    await store.close();
  });

  it('marks the finished game records of attempts that did not count superseded, with an event, and keeps the counted ones', async () => {
    const { store } = await open();
    const first = store.startMatch({ game: 'mia', startedAt: 1, seats, meta: { tournamentMatch: 't-2/1-0' } });
    store.finishMatch(first, { status: 'finished', endedAt: 2, result: { loser: 'a' } });
    const cut = store.startMatch({ game: 'mia', startedAt: 3, seats, meta: { tournamentMatch: 't-2/1-0' } });
    store.finishMatch(cut, { status: 'aborted', endedAt: 4, result: { reason: 'worker gone' } });
    const counted = store.startMatch({ game: 'mia', startedAt: 5, seats, meta: { tournamentMatch: 't-2/1-0' } });
    store.finishMatch(counted, { status: 'finished', endedAt: 6, result: { loser: 'b' } });
    const other = store.startMatch({ game: 'mia', startedAt: 7, seats, meta: { tournamentMatch: 't-2/1-1' } });
    store.finishMatch(other, { status: 'finished', endedAt: 8, result: { loser: 'a' } });
    expect(await store.supersedeRecordsOf('t-2/1-0', [counted], 9, 'did not count')).toEqual([first]);
    const marked = await store.getMatch(first);
    expect(marked).toMatchObject({ status: 'superseded', endedAt: 2, result: { loser: 'a' } });
    expect(marked?.events.at(-1)).toMatchObject({ at: 9, type: 'superseded', data: { reason: 'did not count', counted: [counted] } });
    expect((await store.getMatch(cut))?.status).toBe('aborted');
    expect((await store.getMatch(counted))?.status).toBe('finished');
    expect((await store.getMatch(other))?.status).toBe('finished');
    // Once is enough: a second call finds nothing more; the listing can ask for them.
    expect(await store.supersedeRecordsOf('t-2/1-0', [counted], 10, 'did not count')).toEqual([]);
    expect((await store.listMatches({ status: 'superseded' })).map((m) => m.id)).toEqual([first]);
    await store.close();
  });

  it('prunes by age: wire logs only, then whole matches, never a running one; a dry run counts the same', async () => {
    const { store } = await open();
    const pruner = store as unknown as { prune(o: PruneOptions): Promise<PruneResult> };
    const old = store.startMatch({ game: 'dame', startedAt: 1_000, seats });
    store.addWire({ matchId: old, game: 'dame', conn: 'c1', at: 1_001, dir: 'in', data: 'PLAY C3:D4' });
    store.addWire({ matchId: old, game: 'dame', conn: 'c1', at: 1_002, dir: 'out', data: '+ MOVEOK' });
    store.finishMatch(old, { status: 'finished', endedAt: 2_000, result: { winner: 'bot' } });
    const stuck = store.startMatch({ game: 'dame', startedAt: 500, seats });
    const fresh = store.startMatch({ game: 'dame', startedAt: 9_000, seats });
    store.addWire({ matchId: fresh, game: 'dame', conn: 'c2', at: 9_001, dir: 'in', data: 'HELLO' });
    store.finishMatch(fresh, { status: 'finished', endedAt: 9_500, result: { winner: 'alice' } });
    store.addWire({ matchId: null, game: 'dame', conn: 'c9', at: 100, dir: 'in', data: 'garbage' });
    await store.drain();

    const wireDry = await pruner.prune({ wireBefore: 5_000, dryRun: true });
    expect(wireDry.matches).toBe(0);
    expect(wireDry.wireRows).toBeGreaterThanOrEqual(2);
    expect((await store.getMatch(old))?.wire).toHaveLength(2);
    const wire = await pruner.prune({ wireBefore: 5_000 });
    expect(wire).toMatchObject({ matches: 0, wireRows: wireDry.wireRows });
    expect(await store.getMatch(old)).toMatchObject({ status: 'finished', wire: [] });
    expect((await store.getMatch(fresh))?.wire.map((w) => w.data)).toEqual(['HELLO']);

    expect(await pruner.prune({ matchesBefore: 5_000, game: 'mia' })).toMatchObject({ matches: 0 });
    const dry = await pruner.prune({ matchesBefore: 5_000, dryRun: true });
    expect(dry.matches).toBe(1);
    expect(await store.getMatch(old)).not.toBeNull();
    expect(await pruner.prune({ matchesBefore: 5_000 })).toMatchObject({ matches: 1 });
    expect(await store.getMatch(old)).toBeNull();
    expect(await store.getMatch(stuck)).toMatchObject({ status: 'running' });
    expect(await store.getMatch(fresh)).toMatchObject({ status: 'finished' });
    await store.close();
  });

  it("keeps a tournament's records from every prune until it is archived or deleted, and notes what went (issue 37)", async () => {
    const { store } = await open();
    const pruner = store as unknown as { prune(o: PruneOptions): Promise<PruneResult> };
    const finished = (startedAt: number, o: { house?: boolean; meta?: unknown } = {}): string => {
      const id = store.startMatch({ game: 'dame', startedAt, seats, ...o });
      store.addWire({ matchId: id, game: 'dame', conn: 'c1', at: startedAt + 1, dir: 'in', data: 'PLAY C3:D4' });
      store.finishMatch(id, { status: 'finished', endedAt: startedAt + 10, result: { winner: 'bot' } });
      return id;
    };
    await store.createTournament({ id: 't-1', name: 'graded', game: 'dame', format: 'round-robin', spec: { entrants: [] }, source: null, status: 'stopped', createdAt: 900 });
    await store.addTournamentMatches('t-1', [{ id: 'm1', round: 1, index: 0, seats: ['a', 'b'], seed: 1 }]);
    const graded = finished(1_000, { meta: { tournamentMatch: 't-1/m1' } });
    await store.startTournamentMatch('t-1', 'm1', 1_000, 'w');
    await store.finishTournamentMatch('t-1', 'm1', { at: 1_010, result: { id: 'm1', seats: [] }, records: [graded], output: [] });
    const house = finished(1_100, { house: true });
    const played = finished(1_200);
    const ladder = finished(1_300, { meta: { ladder: { game: 'dame' } } });
    await store.drain();
    expect((await store.listMatches({ tournament: 't-1' })).map((m) => m.id)).toEqual([graded]);

    // House games go at their own age; every age and wire prune passes the tournament by.
    expect(await pruner.prune({ houseBefore: 5_000, now: 7_000 })).toMatchObject({ matches: 1 });
    expect(await store.getMatch(house)).toBeNull();
    expect(await store.getMatch(played)).not.toBeNull();
    expect(await pruner.prune({ matchesBefore: 5_000, wireBefore: 5_000, now: 7_001 })).toMatchObject({ matches: 2 });
    expect((await store.getMatch(graded))?.wire).toHaveLength(1);
    expect(await store.prunedNote(played)).toMatchObject({ id: played, prunedAt: 7_001, reason: 'retention', exact: true, keep: 'played', tournamentId: null });
    expect(await store.prunedNote(ladder)).toMatchObject({ keep: 'ladder' });
    // The house game left its game's mark, which covers an id of that game started no later.
    expect(await store.prunedNote(house)).toMatchObject({ prunedAt: 7_000, exact: false, keep: 'house' });
    expect(await store.prunedNote(`dame-${(1_101).toString(36).padStart(6, '0')}-0badf00d`)).toBeNull();
    expect(await store.prunedNote('nothing-here')).toBeNull();

    // Asked for explicitly, `prune` takes it (a dry run counts it).
    expect(await pruner.prune({ matchesBefore: 5_000, includeTournaments: true, dryRun: true })).toMatchObject({ matches: 1 });
    // Archived on purpose, retention may take it.
    await store.archiveTournament('t-1', 8_000);
    expect(await store.getTournament('t-1')).toMatchObject({ archivedAt: 8_000 });
    expect(await pruner.prune({ matchesBefore: 5_000, now: 8_001 })).toMatchObject({ matches: 1 });
    expect(await store.prunedNote(graded)).toMatchObject({ keep: 'archived', tournamentId: 't-1', reason: 'retention' });

    // Deleted on purpose: its rows and records go, each record with a note.
    await store.createTournament({ id: 't-2', name: 'old', game: 'dame', format: 'round-robin', spec: { entrants: [] }, source: null, status: 'finished', createdAt: 900 });
    const second = finished(1_400, { meta: { tournamentMatch: 't-2/m1' } });
    const live = store.startMatch({ game: 'dame', startedAt: 1_500, seats, meta: { tournamentMatch: 't-2/m2' } });
    await store.drain();
    expect(await store.deleteTournament('t-2', 9_000)).toEqual({ records: 1 });
    expect(await store.deleteTournament('t-2', 9_000)).toBeNull();
    expect(await store.getTournament('t-2')).toBeNull();
    expect(await store.getMatch(second)).toBeNull();
    expect(await store.getMatch(live)).toMatchObject({ status: 'running' });
    expect(await store.prunedNote(second)).toMatchObject({ prunedAt: 9_000, reason: 'tournament deleted', tournamentId: 't-2', exact: true });
    await store.close();
  });

  it('marks its own unfinished matches aborted when a serving store closes', async () => {
    const { store, reopen } = await open('serve');
    const running = store.startMatch({ game: 'dame', startedAt: 1, seats });
    const done = store.startMatch({ game: 'dame', startedAt: 2, seats });
    store.finishMatch(done, { status: 'finished', endedAt: 3, result: { winner: 'bot' } });
    await store.close();
    const again = await reopen();
    expect(await again.getMatch(running)).toMatchObject({ status: 'aborted', result: { reason: 'server stopped' } });
    expect(await again.getMatch(done)).toMatchObject({ status: 'finished', result: { winner: 'bot' } });
    await again.close();
  });
});

describe('record store on postgres, shared by several processes', () => {
  it('migrates once when several open a new schema together, and each sees what the others wrote', async () => {
    const schema = `${RUN}_shared`;
    schemas.push(schema);
    const stores = await Promise.all([1, 2, 3].map(() => PgRecordStore.open({ url: PG_URL, schema })));
    expect(await Promise.all(stores.map((s) => s.schemaVersion()))).toEqual([6, 6, 6]);
    const ids = stores.map((s, i) => s.startMatch({ game: 'mia', startedAt: i, seats: [{ seat: 0, name: `p${i}`, kind: 'client' }] }));
    await Promise.all(stores.map((s) => s.drain()));
    for (const s of stores) expect((await s.listMatches({ game: 'mia' })).map((m) => m.id).sort()).toEqual([...ids].sort());

    // Workers finishing matches of one tournament at the same moment: each finish gets its own place in the order.
    await stores[0]!.createTournament({ id: 'tt', name: 'T', game: 'mia', format: 'tables', spec: {}, source: null, status: 'running', createdAt: 1 });
    const matches = Array.from({ length: 12 }, (_, i) => ({ id: `m${i}`, round: 1, index: i, seats: ['a', 'b'], seed: i }));
    await stores[1]!.addTournamentMatches('tt', matches);
    await Promise.all(matches.map((m, i) => stores[i % 3]!.startTournamentMatch('tt', m.id, 10, `w${i % 3}`)));
    await Promise.all(matches.map((m, i) => stores[i % 3]!.finishTournamentMatch('tt', m.id, { at: 20 + i, result: { i }, records: [], output: [] })));
    const finished = await stores[2]!.listFinishedTournamentMatches('tt');
    expect(finished).toHaveLength(12);
    expect(new Set(finished.map((m) => m.id)).size).toBe(12);
    // A plain pool (no BIGINT parser): finish_seq is an INTEGER, read as a number.
    const seqs = new pg.Pool({ connectionString: PG_URL, options: `-c search_path=${schema}` });
    const rows = (await seqs.query<{ finish_seq: number }>("SELECT finish_seq FROM tournament_matches WHERE tournament_id = 'tt' ORDER BY finish_seq")).rows;
    await seqs.end();
    expect(rows.map((r) => r.finish_seq)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    await Promise.all(stores.map((s) => s.close()));
  });

  it('refuses a schema name it would have to quote', async () => {
    await expect(PgRecordStore.open({ url: PG_URL, schema: 'Robert"); DROP TABLE x;--' })).rejects.toThrow(/lower-case letters/);
  });
});
