import { mkdtempSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { RecordStore } from '../../src/core/records.js';
import {
  createTournament,
  MAX_ATTEMPTS,
  runTournament,
  tournamentResults,
  tournamentStandings,
  type TournamentProgress,
} from '../../src/tournament/coordinator.js';
import type { Entrant, TournamentSpec } from '../../src/tournament/file.js';
import type { Standings } from '../../src/tournament/standings.js';
import { fakeGame, fixedEntrants, type FakeOptions } from '../fixtures/tournament/fake-game.js';

/** The coordinator with a fake game: schedules, Swiss rounds, resume, retries and program output. */

const STRENGTHS = { anna: 4, bert: 3, cleo: 2, dora: 1 };

function spec(over: Partial<TournamentSpec> = {}): TournamentSpec {
  return {
    name: 'Test',
    game: 'dame',
    format: 'round-robin',
    entrants: fixedEntrants(STRENGTHS),
    gamesPerPairing: 2,
    rounds: 1,
    tableSize: 2,
    gamesPerTable: 20,
    moveTime: 0.05,
    seed: 7,
    parallel: 2,
    ...over,
  };
}

async function setup(s: TournamentSpec, fake: FakeOptions = {}) {
  const game = fakeGame(fake);
  const store = new RecordStore(':memory:');
  const workDir = mkdtempSync(join(tmpdir(), 'spielhalle-coord-'));
  const id = await createTournament(store, s, null, Date.UTC(2026, 10, 25, 20, 45, 12), [game]);
  const run = (
    extra: { signal?: AbortSignal; onProgress?: (p: TournamentProgress) => void; parallel?: number } = {},
  ) => runTournament(store, id, { log: silentLogger, games: [game], workDir, ...extra });
  return { game, store, id, run, workDir };
}

/** What does not depend on the order the matches finished in (Elo does). */
const orderFree = (s: Standings) => s.rows.map(({ elo: _elo, ...row }) => row);

describe('coordinator', () => {
  it('plays a round robin to the end: every match once, standings by strength', async () => {
    const { store, id, run, game } = await setup(spec());
    expect(id).toBe('t-20261125-204512-dame');
    expect(store.getTournament(id)).toMatchObject({ status: 'stopped', total: 12, done: 0 });
    const progress: TournamentProgress[] = [];
    expect(await run({ onProgress: (p) => progress.push(p) })).toBe('finished');
    expect(store.getTournament(id)).toMatchObject({ status: 'finished', total: 12, done: 12, note: null });
    expect(game.plays).toHaveLength(12);
    expect(new Set(game.plays).size).toBe(12);
    expect(progress).toHaveLength(12);
    expect(progress.at(-1)).toMatchObject({ id, done: 12, total: 12, running: [], leader: 'anna' });
    expect(progress.at(-1)!.perMinute).toBeGreaterThan(0);
    expect(progress.every((p) => p.running.length <= 2)).toBe(true);

    const standings = (await tournamentStandings(store, id));
    expect(standings.rows.map((r) => [r.name, r.wins, r.draws, r.losses])).toEqual([
      ['anna', 6, 0, 0],
      ['bert', 4, 0, 2],
      ['cleo', 2, 0, 4],
      ['dora', 0, 0, 6],
    ]);
    const results = (await tournamentResults(store, id));
    expect(results).toHaveLength(12);
    // Each result links its record, and the record is the game's own.
    for (const r of results) {
      expect(r.replay).toMatch(/^\/matches\/dame-/);
      expect(store.getMatch(r.replay!.slice('/matches/'.length))).toMatchObject({ status: 'finished' });
    }
    expect(store.listTournamentMatches(id).every((m) => m.attempts === 1 && m.worker !== null)).toBe(true);
    // Running a finished tournament again plays nothing.
    expect(await run()).toBe('finished');
    expect(game.plays).toHaveLength(12);
  });

  it('refuses unknown bots and games when creating; a run without the game fails with a note', async () => {
    const bad = spec({
      entrants: [...fixedEntrants({ a: 1 }), { name: 'b', kind: 'bot', bot: 'nope', options: {} }],
    });
    const game = fakeGame();
    await expect(createTournament(new RecordStore(':memory:'), bad, null, Date.now(), [game])).rejects.toThrow(
      /entrant b: unknown fake bot "nope"/,
    );
    await expect(
      createTournament(
        new RecordStore(':memory:'),
        spec({ game: 'mia', format: 'tables' }),
        null,
        Date.now(),
        [game],
      ),
    ).rejects.toThrow(/unknown game "mia"/);
    const { store, id } = await setup(spec());
    expect(await runTournament(store, id, { log: silentLogger, games: [], workDir: tmpdir() })).toBe(
      'failed',
    );
    expect(store.getTournament(id)).toMatchObject({ status: 'failed', note: 'unknown game "dame"' });
  });

  it('advances Swiss rounds from the results, with byes, until the rounds are played', async () => {
    const entrants = fixedEntrants({ a: 5, b: 4, c: 3, d: 2, e: 1 });
    const { store, id, run } = await setup(spec({ format: 'swiss', entrants, rounds: 3 }));
    expect(store.listTournamentMatches(id).map((m) => m.round)).toEqual([1, 1, 1, 1, 1]);
    expect(await run()).toBe('finished');
    const matches = store.listTournamentMatches(id);
    expect([...new Set(matches.map((m) => m.round))]).toEqual([1, 2, 3]);
    // Each round: two pairings of two games and one bye.
    for (const r of [1, 2, 3]) {
      const round = matches.filter((m) => m.round === r);
      expect(round).toHaveLength(5);
      expect(round.filter((m) => m.bye)).toHaveLength(1);
    }
    expect(matches.every((m) => m.status === 'done')).toBe(true);
    // Three different byes.
    expect(new Set(matches.filter((m) => m.bye).map((m) => m.seats[0])).size).toBe(3);
    expect((await tournamentStandings(store, id)).rows[0]!.name).toBe('a');
  });

  it('stops on the signal, then resumes where it was: nothing played twice, same standings as without the stop', async () => {
    const whole = await setup(spec(), { delayMs: 5 });
    expect(await whole.run()).toBe('finished');

    const stopped = new AbortController();
    let started = 0;
    const cut = await setup(spec(), {
      delayMs: 30,
      onPlay: () => {
        // Abort while the 6th and 7th are in flight.
        if (++started === 7) stopped.abort();
      },
    });
    expect(await cut.run({ signal: stopped.signal })).toBe('stopped');
    const t = cut.store.getTournament(cut.id)!;
    expect(t).toMatchObject({ status: 'stopped', note: 'stopped' });
    expect(t.done).toBeGreaterThanOrEqual(4);
    expect(t.done).toBeLessThan(12);
    // Nothing is left running: what was in flight went back to pending, its record aborted.
    expect(cut.store.listTournamentMatches(cut.id, { status: 'running' })).toEqual([]);
    const doneBefore = cut.store.listTournamentMatches(cut.id, { status: 'done' }).map((m) => m.id);

    expect(await cut.run()).toBe('finished');
    const finished = cut.store.listTournamentMatches(cut.id);
    expect(finished.every((m) => m.status === 'done')).toBe(true);
    const results = (await tournamentResults(cut.store, cut.id));
    expect(results.map((r) => r.id).sort()).toEqual(finished.map((m) => m.id).sort());
    // The done ones were not played again; the cut-off ones were.
    const playedAgain = cut.game.plays
      .filter((p, i) => cut.game.plays.indexOf(p) !== i)
      .map((p) => p.split('/')[1]);
    for (const id of doneBefore) expect(playedAgain).not.toContain(id);
    expect(orderFree((await tournamentStandings(cut.store, cut.id)))).toEqual(
      orderFree((await tournamentStandings(whole.store, whole.id))),
    );
    expect(cut.store.getTournament(cut.id)).toMatchObject({ status: 'finished', note: null });
  });

  it('refuses to take over matches a live process is playing, unless forced', async () => {
    const { store, id, run, workDir, game } = await setup(spec({ entrants: fixedEntrants({ a: 2, b: 1 }) }));
    // The parent of this test process stands in for another live `tournament run`.
    store.startTournamentMatch(id, '1-0', 1, `${hostname()}:${process.ppid}`);
    await expect(run()).rejects.toThrow(
      `tournament ${id} is being run by ${hostname()}:${process.ppid} (match 1-0)`,
    );
    expect(store.listTournamentMatches(id, { status: 'running' })).toHaveLength(1);
    const forced = await runTournament(store, id, { log: silentLogger, games: [game], workDir, force: true });
    expect(forced).toBe('finished');
  });

  it('plays again a match a crash left running', async () => {
    const { store, id, run, game } = await setup(spec({ entrants: fixedEntrants({ a: 2, b: 1 }) }));
    store.startTournamentMatch(id, '1-0', 1, 'elsewhere:123');
    store.finishTournamentMatch(id, '1-0', {
      at: 2,
      result: { id: '1-0', seats: [] },
      records: [],
      output: [],
    });
    store.startTournamentMatch(id, '1-1', 3, 'elsewhere:123');
    // The crashed run had finished a game of 1-1 (a Mia round, say) before it died.
    const stale = store.startMatch({ game: 'dame', startedAt: 3, seats: [], meta: { tournamentMatch: `${id}/1-1` } });
    store.finishMatch(stale, { status: 'finished', endedAt: 4, result: {} });
    const untouched = store.startMatch({ game: 'dame', startedAt: 3, seats: [], meta: { tournamentMatch: `${id}/1-0` } });
    store.finishMatch(untouched, { status: 'finished', endedAt: 4, result: {} });
    expect(await run()).toBe('finished');
    expect(game.plays.map((p) => p.split('/')[1])).toEqual(['1-1']);
    expect(store.listTournamentMatches(id)).toMatchObject([
      { id: '1-0', status: 'done', attempts: 1 },
      { id: '1-1', status: 'done', attempts: 2 },
    ]);
    // The crashed attempt's finished game did not count, and says so; the other match's is left alone.
    expect(store.getMatch(stale)).toMatchObject({ status: 'superseded' });
    expect(store.getMatch(stale)?.events.map((e) => e.type)).toEqual(['superseded']);
    expect(store.getMatch(untouched)).toMatchObject({ status: 'finished' });
  });

  it('retries a match whose play() throws, and fails the tournament after the third attempt', async () => {
    const flaky = await setup(
      spec({
        entrants: [
          ...fixedEntrants({ a: 1 }),
          { name: 'f', kind: 'bot', bot: 'flaky', options: { fails: MAX_ATTEMPTS - 1 } },
        ],
      }),
    );
    expect(await flaky.run()).toBe('finished');
    expect(flaky.store.listTournamentMatches(flaky.id).map((m) => m.attempts)).toEqual([
      MAX_ATTEMPTS,
      MAX_ATTEMPTS,
    ]);

    const entrants: Entrant[] = [
      ...fixedEntrants({ a: 3, b: 2 }),
      { name: 'x', kind: 'bot', bot: 'buggy', options: {} },
    ];
    const buggy = await setup(spec({ entrants, parallel: 1 }));
    expect(await buggy.run()).toBe('failed');
    const t = buggy.store.getTournament(buggy.id)!;
    expect(t.status).toBe('failed');
    expect(t.note).toMatch(/^match \d+-\d \((x vs \w|\w vs x)\) failed 3 times: x broke the arena$/);
    // The failing match went back to pending; the others before it were played.
    expect(buggy.store.listTournamentMatches(buggy.id, { status: 'running' })).toEqual([]);
    const failed = buggy.store.listTournamentMatches(buggy.id).find((m) => m.attempts === MAX_ATTEMPTS)!;
    expect(failed).toMatchObject({ status: 'pending' });
  });

  it('runs a program entrant in its working directory and keeps its output with the match and its record', async () => {
    const entrants: Entrant[] = [
      ...fixedEntrants({ a: 1 }),
      {
        name: 'prog',
        kind: 'command',
        command: `${process.execPath} -e "console.log('hi from', process.argv[1]); console.error('bye'); process.exit(3)" {player}`,
        limits: { wallSeconds: 10 },
      },
    ];
    const { store, id, run, workDir } = await setup(spec({ entrants }));
    expect(await run()).toBe('finished');
    const m = store.listTournamentMatches(id)[0]!;
    expect(m.output).toEqual([
      {
        seat: m.seats.indexOf('prog'),
        name: 'prog',
        stdout: 'hi from 1\n',
        stderr: 'bye\n',
        truncated: 0,
        exit: { code: 3, signal: null },
      },
    ]);
    const result = m.result as { seats: { name: string; crashed?: boolean; note?: string }[] };
    expect(result.seats.find((s) => s.name === 'prog')).toMatchObject({
      crashed: true,
      note: 'exited with an error',
    });
    const record = store.getMatch(m.records[0]!)!;
    expect(record.events.at(-1)).toMatchObject({ type: 'program-output', data: m.output });
    expect((await tournamentStandings(store, id)).rows.find((r) => r.name === 'prog')).toMatchObject({ crashes: 2 });
    const { existsSync } = await import('node:fs');
    expect(existsSync(join(workDir, 'tournaments', id, 'prog'))).toBe(true);
  });
});

describe('coordinator with the real Dame server', () => {
  it('plays a 3-entrant round robin through the server over loopback and records every match', async () => {
    const store = new RecordStore(':memory:');
    const entrants: Entrant[] = [
      { name: 'rnd', kind: 'bot', bot: 'random', options: {} },
      { name: 'greedy', kind: 'bot', bot: 'greedy', options: {} },
      { name: 'd2', kind: 'bot', bot: 'depth2', options: {} },
    ];
    const id = await createTournament(store, spec({ entrants, parallel: 3 }));
    const outcome = await runTournament(store, id, {
      log: silentLogger,
      workDir: mkdtempSync(join(tmpdir(), 'spielhalle-dame-')),
    });
    expect(outcome).toBe('finished');
    const matches = store.listTournamentMatches(id);
    expect(matches).toHaveLength(6);
    for (const m of matches) {
      expect(m).toMatchObject({ status: 'done', attempts: 1 });
      const record = store.getMatch(m.records[0]!)!;
      expect(record).toMatchObject({ game: 'dame', status: 'finished' });
      // The record's seats are the entrants, in the schedule's order.
      expect(record.seats.map((s) => s.name)).toEqual(m.seats);
    }
    const standings = (await tournamentStandings(store, id));
    expect(standings.rows.reduce((n, r) => n + r.games, 0)).toBe(12);
    expect(standings.rows.map((r) => r.name).sort()).toEqual(['d2', 'greedy', 'rnd']);
  }, 60_000);
});
