import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RecordStore, type ProgramOutput } from '../../src/core/records.js';

/** The tournament tables of the record store: every method, durability, and read-only access. */

const file = () => join(mkdtempSync(join(tmpdir(), 'spielhalle-tstore-')), 'spielhalle.db');

const spec = {
  name: 'Kurs',
  game: 'dame',
  format: 'round-robin',
  entrants: [{ name: 'a' }, { name: 'b' }, { name: 'c' }],
};

function create(store: RecordStore, id = 't-1', createdAt = 1000, game = 'dame'): void {
  store.createTournament({
    id,
    name: 'Kurs',
    game,
    format: 'round-robin',
    spec,
    source: 'name: Kurs\n',
    status: 'running',
    createdAt,
  });
}

const schedule = [
  { id: '1-0', round: 1, index: 0, seats: ['a', 'b'], seed: 11 },
  { id: '1-1', round: 1, index: 1, seats: ['b', 'a'], seed: 11 },
  { id: '2-0', round: 2, index: 0, seats: ['a', 'c'], seed: 0x7fffffff },
  { id: '2-1', round: 2, index: 1, seats: ['b'], seed: 0, bye: true },
];

const output: ProgramOutput[] = [
  { seat: 1, name: 'b', stdout: 'hello\n', stderr: 'oops\n', truncated: 3, exit: { code: 1, signal: null } },
];

describe('tournament store', () => {
  it('round-trips a tournament and its matches through every method', () => {
    const store = new RecordStore(':memory:');
    create(store);
    expect(store.getTournament('t-1')).toEqual({
      id: 't-1',
      name: 'Kurs',
      game: 'dame',
      format: 'round-robin',
      spec,
      source: 'name: Kurs\n',
      status: 'running',
      total: 0,
      done: 0,
      createdAt: 1000,
      updatedAt: 1000,
      finishedAt: null,
      archivedAt: null,
      note: null,
    });
    expect(store.getTournament('nope')).toBeNull();
    expect(() => create(store)).toThrow(/UNIQUE|constraint/i);

    store.addTournamentMatches('t-1', schedule);
    // Adding the same ids again changes nothing (a resumed Swiss round, a second run).
    store.addTournamentMatches('t-1', [{ id: '1-0', round: 9, index: 9, seats: ['x', 'y'], seed: 1 }]);
    const matches = store.listTournamentMatches('t-1');
    expect(matches.map((m) => m.id)).toEqual(['1-0', '1-1', '2-0', '2-1']);
    expect(matches[0]).toEqual({
      tournamentId: 't-1',
      id: '1-0',
      round: 1,
      index: 0,
      seats: ['a', 'b'],
      seed: 11,
      bye: false,
      status: 'pending',
      result: null,
      records: [],
      output: [],
      startedAt: null,
      endedAt: null,
      worker: null,
      attempts: 0,
    });
    expect(matches[2]?.seed).toBe(0x7fffffff);
    expect(matches[3]?.bye).toBe(true);
    expect(store.getTournament('t-1')).toMatchObject({ total: 4, done: 0 });

    store.startTournamentMatch('t-1', '1-1', 2000, 'host:1');
    store.startTournamentMatch('t-1', '1-0', 2001, 'host:1');
    expect(store.listTournamentMatches('t-1', { status: 'running' }).map((m) => m.id)).toEqual([
      '1-0',
      '1-1',
    ]);
    const result = {
      id: '1-1',
      seats: [
        { name: 'b', outcome: 'win', points: 1 },
        { name: 'a', outcome: 'loss', points: 0 },
      ],
    };
    store.finishTournamentMatch('t-1', '1-1', { at: 3000, result, records: ['dame-x'], output });
    store.finishTournamentMatch('t-1', '1-0', {
      at: 2500,
      result: { id: '1-0', seats: [] },
      records: [],
      output: [],
    });
    const done = store.listTournamentMatches('t-1', { status: 'done' });
    expect(done.find((m) => m.id === '1-1')).toMatchObject({
      status: 'done',
      result,
      records: ['dame-x'],
      output,
      startedAt: 2000,
      endedAt: 3000,
      worker: 'host:1',
      attempts: 1,
    });
    // In the order they finished, not by schedule or end time.
    expect(store.listFinishedTournamentMatches('t-1').map((m) => m.id)).toEqual(['1-1', '1-0']);
    expect(store.getTournament('t-1')).toMatchObject({ total: 4, done: 2, updatedAt: 3000 });

    // A cut-off match goes back to pending and counts its attempts.
    store.startTournamentMatch('t-1', '2-0', 4000, 'host:2');
    store.resetTournamentMatch('t-1', '2-0');
    store.startTournamentMatch('t-1', '2-0', 5000, 'host:3');
    expect(store.listTournamentMatches('t-1', { entrant: 'c' })).toMatchObject([
      { id: '2-0', status: 'running', attempts: 2, worker: 'host:3' },
    ]);
    store.resetTournamentMatch('t-1', '2-0');
    expect(store.listTournamentMatches('t-1', { status: 'pending' }).map((m) => m.id)).toEqual([
      '2-0',
      '2-1',
    ]);
    expect(store.listTournamentMatches('t-1', { entrant: 'a' }).map((m) => m.id)).toEqual([
      '1-0',
      '1-1',
      '2-0',
    ]);
    expect(() => store.startTournamentMatch('t-1', '9-9', 1, 'w')).toThrow(/no tournament match t-1\/9-9/);

    store.setTournamentStatus('t-1', 'stopped', 6000, 'stopped by signal');
    expect(store.getTournament('t-1')).toMatchObject({
      status: 'stopped',
      note: 'stopped by signal',
      finishedAt: null,
      updatedAt: 6000,
    });
    store.setTournamentStatus('t-1', 'running', 7000);
    expect(store.getTournament('t-1')).toMatchObject({ status: 'running', note: null });
    store.setTournamentStatus('t-1', 'finished', 8000);
    expect(store.getTournament('t-1')).toMatchObject({ status: 'finished', finishedAt: 8000 });
    expect(() => store.setTournamentStatus('nope', 'running', 1)).toThrow(/no tournament nope/);

    create(store, 't-2', 2000, 'mia');
    create(store, 't-3', 3000, 'dame');
    expect(store.listTournaments().map((t) => t.id)).toEqual(['t-3', 't-2', 't-1']);
    expect(store.listTournaments({ game: 'dame' }).map((t) => t.id)).toEqual(['t-3', 't-1']);
    expect(store.listTournaments({ limit: 1, offset: 1 }).map((t) => t.id)).toEqual(['t-2']);
    expect(store.listTournaments()[2]).toMatchObject({ id: 't-1', total: 4, done: 2 });
    store.close();
  });

  it('commits every write before the call returns: a reader sees it while the writer is open, and it survives a reopen', () => {
    const f = file();
    const writer = new RecordStore(f);
    create(writer);
    writer.addTournamentMatches('t-1', schedule);
    writer.startTournamentMatch('t-1', '1-0', 2000, 'w');
    writer.finishTournamentMatch('t-1', '1-0', { at: 2100, result: { ok: true }, records: ['r1'], output });
    writer.startTournamentMatch('t-1', '1-1', 2200, 'w');

    // No close, no flush: another process reading now (kill -9 of the writer) sees all of it.
    const reader = new RecordStore(f, { mode: 'read' });
    expect(reader.getTournament('t-1')).toMatchObject({ total: 4, done: 1, status: 'running' });
    expect(reader.listTournamentMatches('t-1', { status: 'running' }).map((m) => m.id)).toEqual(['1-1']);
    expect(reader.listFinishedTournamentMatches('t-1')[0]).toMatchObject({
      id: '1-0',
      records: ['r1'],
      output,
    });
    expect(reader.listTournaments().map((t) => t.id)).toEqual(['t-1']);
    expect(() => reader.setTournamentStatus('t-1', 'stopped', 1)).toThrow(/read-only/);
    expect(() => create(reader, 't-9')).toThrow(/read-only/);
    reader.close();
    writer.close();

    const again = new RecordStore(f);
    expect(again.getTournament('t-1')).toMatchObject({ total: 4, done: 1 });
    expect(again.listTournamentMatches('t-1').map((m) => m.status)).toEqual([
      'done',
      'running',
      'pending',
      'pending',
    ]);
    again.close();
  });

  it('appends an event to a match that has ended, after the events it already has', () => {
    const f = file();
    const store = new RecordStore(f);
    const id = store.startMatch({ game: 'dame', startedAt: 1, seats: [] });
    store.addEvent(id, { at: 2, type: 'move', data: 'a3-b4' });
    store.finishMatch(id, { status: 'finished', endedAt: 3, result: null });
    store.appendEvent(id, { at: 4, type: 'program-output', data: output });
    const open = store.startMatch({ game: 'dame', startedAt: 5, seats: [] });
    store.appendEvent(open, { at: 6, type: 'note' });
    store.addEvent(open, { at: 7, type: 'move' });
    store.close();
    const reader = new RecordStore(f, { mode: 'read' });
    expect(reader.getMatch(id)!.events.map((e) => [e.seq, e.type])).toEqual([
      [1, 'move'],
      [2, 'program-output'],
    ]);
    expect(reader.getMatch(id)!.events[1]!.data).toEqual(output);
    expect(reader.getMatch(open)!.events.map((e) => [e.seq, e.type])).toEqual([
      [1, 'note'],
      [2, 'move'],
    ]);
    reader.close();
  });
});
