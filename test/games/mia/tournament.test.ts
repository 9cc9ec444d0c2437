import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import type { MatchSeat, ProgramLauncher, TournamentArena } from '../../../src/core/tournament-match.js';
import { miaTournament, wireNames } from '../../../src/games/mia/tournament.js';
import { testLauncher, type TestLauncher } from '../../support/program-launcher.js';
import { UdpPeer } from '../../support/udp.js';

const CLI = ['node', 'dist/cli.js', 'bot', 'mia', '--host', '{host}', '--port', '{port}', '--name', '{name}', '--log-level', 'warn'];
const bot = (name: string, strategy = 'adaptive'): MatchSeat => ({ name, player: { kind: 'bot', bot: strategy, options: {} } });
const program = (name: string, launch: ProgramLauncher): MatchSeat => ({ name, player: { kind: 'program', launch } });

/** Registers under the name it is given, then answers everything with garbage. */
const GARBAGE = `
const s = require('dgram').createSocket('udp4');
const [host, port, name] = process.argv.slice(1);
s.on('message', () => s.send('GARBAGE;' + 'x'.repeat(50), +port, host));
s.bind(0, '127.0.0.1', () => s.send('REGISTER;' + name, +port, host));
`;

describe('Mia tournament tables', () => {
  let store: RecordStore;
  let arena: TournamentArena;
  const launchers: TestLauncher[] = [];
  const launcher = (argv: string[]): TestLauncher => {
    const l = testLauncher(argv);
    launchers.push(l);
    return l;
  };

  beforeAll(async () => {
    store = new RecordStore(':memory:');
    arena = await miaTournament.open({ store, log: silentLogger });
  });
  afterAll(async () => {
    await Promise.all(launchers.map((l) => l.stopAll()));
    await arena.close();
    store.close();
  });

  it('checks bot names and options', () => {
    expect(miaTournament.bots.map((b) => b.name)).toEqual(expect.arrayContaining(['adaptive', 'random']));
    expect(miaTournament.checkBot('adaptive', {})).toEqual([]);
    expect(miaTournament.checkBot('adaptive', { seed: 3 })).toEqual([]);
    expect(miaTournament.checkBot('clever', { depth: 2 })).toHaveLength(2);
  });

  it('gives each seat a registrable name', () => {
    expect(wireNames(['anna', 'a-very-long-entrant-name-01', 'a-very-long-entrant-name-02'])).toEqual(['anna', 'a-very-long-entran~1', 'a-very-long-entran~2']);
  });

  it('plays a table of bots and a real CLI program for the given rounds, with records under the entrant names', async () => {
    const cli = launcher(CLI);
    let port = 0;
    const launch: ProgramLauncher = (values) => {
      port = Number(values.port);
      return cli.launch(values);
    };
    // While the table plays, nobody else gets in: not a spectator, not a new name, not a seat's name.
    const intruder = (async () => {
      while (port === 0) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 300));
      const peer = await UdpPeer.open(port);
      for (const line of ['REGISTER_SPECTATOR;watcher', 'REGISTER;mallory', 'REGISTER;anna']) peer.send(line);
      await new Promise((r) => setTimeout(r, 100));
      await peer.close();
      return peer.lines.filter((l) => l.startsWith('REJECTED') || l === 'REGISTERED');
    })();
    const outcome = await arena.play({ id: 't1/0', seed: 7, moveTimeMs: 200, rounds: 12, connectTimeoutMs: 20_000, seats: [bot('anna'), bot('bert', 'random'), program('cleo', launch)] });
    expect(await intruder).toEqual(['REJECTED;INVALID_NAME', 'REJECTED;INVALID_NAME', 'REJECTED;NAME_ALREADY_TAKEN']);
    expect(outcome.aborted).toBeUndefined();
    expect(outcome.records).toHaveLength(12);
    expect(outcome.seats.map((s) => s.name)).toEqual(['anna', 'bert', 'cleo']);
    expect(outcome.seats.some((s) => s.crashed === true), JSON.stringify(outcome) + cli.output.join('\n')).toBe(false);
    // The points are those the round records give (all three played every round).
    const recorded = outcome.records.map((id) => store.getMatch(id)?.result as { order: string[]; points: Record<string, number> });
    for (const r of recorded) expect(r.order.sort()).toEqual(['anna', 'bert', 'cleo']);
    for (const s of outcome.seats) expect(s.points).toBe(recorded.reduce((sum, r) => sum + (r.points[s.name] ?? 0), 0));
    const best = Math.max(...outcome.seats.map((s) => s.points));
    for (const s of outcome.seats) expect(s.placing === 1).toBe(s.points === best);
    expect(outcome.reason).toMatch(/^12 rounds played: anna \d+, bert \d+, cleo \d+$/);
    // The CLI bot exits by itself (code 0) once the table unregisters it.
    expect(await cli.runs[0]?.exited).toEqual({ code: 0, signal: null });
    const record = store.getMatch(outcome.records[0] as string);
    expect(record?.status).toBe('finished');
    expect(record?.seats.map((s) => s.name).sort()).toEqual(['anna', 'bert', 'cleo']);
    expect(record?.meta).toMatchObject({ tournamentMatch: 't1/0', round: 1 });
    // Tournament scores stay out of the house table's scores.
    expect(store.getScores('mia').size).toBe(0);
  });

  it('places a program that exits at once, one that never registers and one that sends garbage behind the bots', async () => {
    const exits = launcher(['node', '-e', 'process.exit(3)']);
    const sleeps = launcher(['sleep', '30']);
    const garbage = launcher(['node', '-e', GARBAGE, '{host}', '{port}', '{name}']);
    const started = Date.now();
    const outcome = await arena.play({
      id: 't1/1',
      seed: 8,
      moveTimeMs: 100,
      rounds: 3,
      // Long enough for node to start the garbage program on a busy machine.
      connectTimeoutMs: 3000,
      seats: [program('exits', exits.launch), bot('anna'), program('sleepy', sleeps.launch), program('junk', garbage.launch), bot('bert')],
    });
    expect(Date.now() - started).toBeLessThan(8000);
    const [exit, anna, sleepy, junk, bert] = outcome.seats;
    expect(exit).toMatchObject({ crashed: true, points: 0, placing: 4 });
    expect(exit?.note).toMatch(/exited with code 3 before registering/);
    expect(sleepy).toMatchObject({ crashed: true, points: 0, placing: 4 });
    expect(sleepy?.note).toMatch(/never registered within 3 s/);
    // The garbage program registered, joined nothing, and scored nothing; the bots scored.
    expect(junk).toMatchObject({ points: 0 });
    expect(junk?.placing).toBeGreaterThan(1);
    expect(junk?.crashed).toBeUndefined();
    expect((anna?.points ?? 0) + (bert?.points ?? 0)).toBe(3);
    expect(outcome.records).toHaveLength(3);
    expect(sleeps.runs[0]?.done).toBe(true);
  });

  it('runs two tables at once and ends a table at an abort', async () => {
    const [a, b] = await Promise.all([
      arena.play({ id: 't2/0', seed: 1, moveTimeMs: 100, rounds: 5, seats: [bot('p1'), bot('p2', 'honest')] }),
      arena.play({ id: 't2/1', seed: 2, moveTimeMs: 100, rounds: 7, seats: [bot('q1'), bot('q2', 'probabilistic'), bot('q3', 'random')] }),
    ]);
    expect(a.records).toHaveLength(5);
    expect(b.records).toHaveLength(7);
    // A point for every seat that did not lose a finished round; a round called off (a JOIN later
    // than the 100 ms window on a loaded machine: ONLY_ONE_PLAYER) gives none.
    const finished = (o: typeof a): number => o.records.filter((id) => store.getMatch(id)?.status === 'finished').length;
    expect(finished(a)).toBeGreaterThan(0);
    expect(a.seats.reduce((s, x) => s + x.points, 0)).toBe(finished(a));
    expect(b.seats.reduce((s, x) => s + x.points, 0)).toBeGreaterThanOrEqual(finished(b));
    for (const id of a.records) expect(store.getMatch(id)?.seats.map((s) => s.name).sort()).toEqual(['p1', 'p2']);
    for (const id of b.records) expect(store.getMatch(id)?.seats.map((s) => s.name).sort()).toEqual(['q1', 'q2', 'q3']);

    const controller = new AbortController();
    const sleeps = launcher(['sleep', '30']);
    setTimeout(() => controller.abort(), 300);
    const started = Date.now();
    const aborted = await arena.play({ id: 't2/2', seed: 3, moveTimeMs: 100, rounds: 10_000, signal: controller.signal, seats: [bot('r1'), bot('r2'), program('r3', sleeps.launch)] });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(aborted.aborted).toBe(true);
    expect(sleeps.runs[0]?.done).toBe(true);
  });
});
