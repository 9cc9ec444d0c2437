import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import type { MatchSeat, TournamentArena, TournamentMatchRequest } from '../../../src/core/tournament-match.js';
import { CatanClient, createCatanBot } from '../../../src/games/catan/client.js';
import { catan } from '../../../src/games/catan/index.js';
import { CatanServer } from '../../../src/games/catan/server.js';
import { replayCatanMatch } from '../../../src/games/catan/replay.js';
import { catanTournament } from '../../../src/games/catan/tournament.js';
import { testLauncher, type TestLauncher } from '../../support/program-launcher.js';
import { RawClient } from './tcp.js';

/**
 * Tournament matches of Catan through the real server over loopback: bots in this process and
 * programs (the built CLI, programs that crash, hang or send garbage) in prepared games.
 */

const CLI = join(process.cwd(), 'dist/cli.js');
const bot = (name: string, strategy = 'random', options: Record<string, unknown> = {}): MatchSeat => ({
  name,
  player: { kind: 'bot', bot: strategy, options },
});
const program = (name: string, launcher: TestLauncher): MatchSeat => ({ name, player: { kind: 'program', launch: launcher.launch } });

/**
 * Joins properly (trying colours until one is free), then answers every message in the game with
 * garbage, or (`exit`) exits with code 1 shortly after the game started.
 */
const GARBAGE = `
const net = require('node:net');
const [host, port, name, mode] = process.argv.slice(2);
const colours = ['Rot', 'Orange', 'Blau', 'Weiss'];
let c = 0, started = false, buf = '';
const s = net.connect({ host, port: Number(port) });
const send = (m) => s.write(JSON.stringify(m) + '\\n');
s.on('data', (chunk) => {
  buf += chunk;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const m = JSON.parse(buf.slice(0, i)); buf = buf.slice(i + 1);
    if (m.Hallo) send({ Hallo: { Version: 'Garbage (KI)' } });
    else if (m.Willkommen) send({ Spieler: { Name: name, Farbe: colours[c] } });
    else if (m.Fehler && !started) send({ Spieler: { Name: name, Farbe: colours[++c % 4] } });
    else if (m.Serverantwort === 'OK' && !started) send({ 'Spiel starten': {} });
    else if (m['Spiel gestartet']) {
      started = true;
      if (mode === 'exit') setTimeout(() => process.exit(1), 100);
    }
    if (started && !m.Fehler && mode !== 'exit') s.write('this is not json\\n');
  }
});
s.on('close', () => process.exit(0));
`;

describe('Catan tournament matches', () => {
  const store = new RecordStore(':memory:');
  let arena: TournamentArena;
  let dir: string;
  const launchers: TestLauncher[] = [];
  const launcher = (argv: string[]): TestLauncher => {
    const l = testLauncher(argv);
    launchers.push(l);
    return l;
  };
  const request = (id: string, seats: MatchSeat[], more: Partial<TournamentMatchRequest> = {}): TournamentMatchRequest => ({
    id: `t/${id}`,
    seed: 7,
    moveTimeMs: 100,
    seats,
    ...more,
  });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'catan-tournament-'));
    arena = await catanTournament.open({ store, log: silentLogger });
  });

  afterAll(async () => {
    await Promise.all(launchers.map((l) => l.stopAll()));
    await arena.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is the game module’s tournament support and checks bot entrants', () => {
    expect(catan.tournament).toBe(catanTournament);
    expect(catanTournament.bots.map((b) => b.name)).toEqual(['random', 'builder', 'weighted', 'search']);
    expect(catanTournament.checkBot('search', { depth: 2, samples: 4, trades: false, seed: 'x', thinkMs: 0 })).toEqual([]);
    expect(catanTournament.checkBot('alphazero', {})).toEqual(['unknown Catan bot "alphazero" (one of random, builder, weighted, search)']);
    expect(catanTournament.checkBot('random', { depth: 2, thinkMs: -1 })).toEqual([
      'bot:random has no option "depth" (it takes seed, thinkMs, trades)',
      'bot:random option thinkMs must be a whole number from 0 to 60000, got -1',
    ]);
  });

  it('plays bots in the request’s seat order on the seed’s board and dice, permuted seats alike', async () => {
    const a = await arena.play(request('a', [bot('anna', 'builder'), bot('bert', 'weighted'), bot('cora', 'weighted')]));
    const b = await arena.play(request('b', [bot('cora', 'weighted'), bot('anna', 'builder'), bot('bert', 'weighted')]));
    for (const [outcome, order] of [
      [a, ['anna', 'bert', 'cora']],
      [b, ['cora', 'anna', 'bert']],
    ] as const) {
      expect(outcome.aborted).toBeUndefined();
      expect(outcome.seats.map((s) => s.name)).toEqual(order);
      expect(outcome.records).toHaveLength(1);
      const record = store.getMatch(outcome.records[0]!)!;
      // Seat 0 moves first: the record's seats are in turn order.
      expect(record.seats.map((s) => s.name)).toEqual(order);
      expect(record.seed).toBe('7');
      expect((record.meta as { tournamentMatch: string }).tournamentMatch).toMatch(/^t\/[ab]$/);
      expect(replayCatanMatch(record).problems).toEqual([]);
      const winner = outcome.seats.find((s) => s.placing === 1)!;
      expect(outcome.reason).toBe(`Spieler ${winner.name} hat das Spiel gewonnen.`);
      expect(winner.points).toBeGreaterThanOrEqual(10);
      for (const s of outcome.seats) if (s !== winner) expect(s.placing).toBe(2 + outcome.seats.filter((o) => o !== winner && o.points > s.points).length);
      expect(outcome.seats.some((s) => s.crashed || s.timedOut)).toBe(false);
    }
    // The same seed with the seats permuted: the same board, and the same dice roll by roll.
    const [ra, rb] = [store.getMatch(a.records[0]!)!, store.getMatch(b.records[0]!)!];
    expect(replayCatanMatch(rb).state!.board).toEqual(replayCatanMatch(ra).state!.board);
    const dice = (events: { data: unknown }[]) => events.flatMap((e) => ((e.data as { dice?: number[] } | null)?.dice ? [(e.data as { dice: number[] }).dice.join('+')] : []));
    const [da, db] = [dice(ra.events), dice(rb.events)];
    const n = Math.min(da.length, db.length);
    expect(n).toBeGreaterThan(10);
    expect(db.slice(0, n)).toEqual(da.slice(0, n));
  }, 30_000);

  it('plays a program seat running the built CLI through a whole match', async () => {
    const cli = launcher(['node', CLI, 'bot', 'catan', '--host', '{host}', '--port', '{port}', '--name', '{name}', '--strategy', 'builder']);
    const outcome = await arena.play(request('cli', [bot('anna', 'weighted'), program('cli', cli), bot('bert', 'weighted')], { seed: 11 }));
    expect(outcome.aborted).toBeUndefined();
    expect(outcome.seats.map((s) => s.name)).toEqual(['anna', 'cli', 'bert']);
    expect(outcome.seats.filter((s) => s.placing === 1)).toHaveLength(1);
    expect(outcome.seats.some((s) => s.crashed || s.timedOut)).toBe(false);
    const record = store.getMatch(outcome.records[0]!)!;
    expect(record.status).toBe('finished');
    expect(record.seats.map((s) => [s.name, s.kind])).toEqual([
      ['anna', 'ai'],
      ['cli', 'ai'],
      ['bert', 'ai'],
    ]);
    // The CLI exits 0 by itself once its game is over and prints its outcome.
    expect(await cli.runs[0]!.exited, cli.output.join('\n')).toEqual({ code: 0, signal: null });
    expect(JSON.parse(cli.output[0]!.trim()) as { name: string }).toMatchObject({ name: 'cli' });
  }, 30_000);

  it('counts a program that exits at once as crashed, and plays no game', async () => {
    const dies = launcher(['node', '-e', 'process.exit(3)']);
    const outcome = await arena.play(request('dies', [bot('anna'), bot('bert'), program('dies', dies)]));
    expect(outcome.records).toEqual([]);
    expect(outcome.seats).toEqual([
      { name: 'anna', placing: 1, points: 0 },
      { name: 'bert', placing: 1, points: 0 },
      { name: 'dies', placing: 3, points: 0, crashed: true, note: 'its program exited with code 3 before the game started' },
    ]);
    expect(outcome.reason).toBe('no game: dies did not join');
  }, 10_000);

  it('counts a program that never connects as crashed after connectTimeoutMs', async () => {
    const sleeps = launcher(['sleep', '30']);
    const t0 = Date.now();
    const outcome = await arena.play(request('sleeps', [program('sleepy', sleeps), bot('anna'), bot('bert')], { connectTimeoutMs: 1000 }));
    expect(Date.now() - t0).toBeLessThan(4000);
    expect(outcome.seats[0]).toMatchObject({ name: 'sleepy', placing: 3, crashed: true });
    expect(outcome.seats[0]!.note).toMatch(/did not join .* within 1000 ms/);
    expect(outcome.seats.slice(1).map((s) => s.placing)).toEqual([1, 1]);
    // The program was stopped with the match.
    expect(sleeps.runs[0]!.done).toBe(true);
  }, 10_000);

  it('aborts a match whose game has not started yet at once', async () => {
    const sleeps = launcher(['sleep', '30']);
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 200);
    const t0 = Date.now();
    const outcome = await arena.play(request('early', [bot('anna'), bot('bert'), program('sleepy', sleeps)], { signal: stop.signal }));
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(outcome).toEqual({
      seats: [
        { name: 'anna', points: 0 },
        { name: 'bert', points: 0 },
        { name: 'sleepy', points: 0 },
      ],
      reason: 'aborted before the game started',
      records: [],
      aborted: true,
    });
    expect(sleeps.runs[0]!.done).toBe(true);
  }, 10_000);

  it('puts a program that sends garbage in the game out by the timeout rule', async () => {
    const script = join(dir, 'garbage.cjs');
    writeFileSync(script, GARBAGE);
    const garbage = launcher(['node', script, '{host}', '{port}', '{name}', 'garbage']);
    const outcome = await arena.play(request('garbage', [bot('anna'), program('junk', garbage), bot('bert')], { moveTimeMs: 50 }));
    expect(outcome.seats[1]).toMatchObject({ name: 'junk', placing: 3, timedOut: true });
    expect(outcome.seats[1]!.note).toBe('did not answer 3 decisions in a row within 1050 ms; the game was ended');
    expect(outcome.reason).toBe('Spieler junk hat zu oft nicht rechtzeitig geantwortet. Spiel abgebrochen.');
    const record = store.getMatch(outcome.records[0]!)!;
    expect(record.status).toBe('aborted');
    expect(record.result).toMatchObject({ reason: 'timeout' });
    expect(record.wire.some((w) => w.dir === 'in' && w.data.includes('this is not json'))).toBe(true);
    // The server's stand-in moves are in the record and replay.
    expect(record.events.filter((e) => (e.data as { timeout?: boolean } | null)?.timeout === true).length).toBeGreaterThanOrEqual(2);
    expect(replayCatanMatch(record).problems).toEqual([]);
  }, 15_000);

  it('counts a program that exits during the game as crashed, and places the others by points', async () => {
    const script = join(dir, 'exits.cjs');
    writeFileSync(script, GARBAGE);
    const exits = launcher(['node', script, '{host}', '{port}', '{name}', 'exit']);
    const outcome = await arena.play(request('exits', [program('quitter', exits), bot('anna'), bot('bert')]));
    expect(outcome.seats[0]).toEqual({
      name: 'quitter',
      placing: 3,
      points: expect.any(Number) as number,
      crashed: true,
      note: 'its program exited with code 1 during the game (connection lost; the game was ended)',
    });
    expect(outcome.reason).toBe('Spieler quitter hat die Verbindung verloren. Spiel abgebrochen.');
    const [a, b] = [outcome.seats[1]!, outcome.seats[2]!];
    expect([a.placing, b.placing]).toEqual(a.points === b.points ? [1, 1] : a.points > b.points ? [1, 2] : [2, 1]);
    const record = store.getMatch(outcome.records[0]!)!;
    expect(record.result).toMatchObject({ reason: 'disconnect', winner: null });
    expect(replayCatanMatch(record).problems).toEqual([]);
  }, 10_000);

  it('runs two matches of the same entrants at once without mixing them up, and aborts on the signal', async () => {
    const stop = new AbortController();
    const slow = bot('dora', 'random', { thinkMs: 20 });
    const [x, y, z] = await Promise.all([
      arena.play(request('p1', [bot('anna', 'weighted'), bot('bert', 'weighted'), bot('cora', 'weighted'), bot('dora', 'builder')], { seed: 1 })),
      arena.play(request('p2', [bot('dora', 'builder'), bot('cora', 'weighted'), bot('bert', 'weighted'), bot('anna', 'weighted')], { seed: 2 })),
      arena.play(request('p3', [slow, bot('anna'), bot('bert')], { seed: 3, signal: stop.signal })),
      new Promise((resolve) => setTimeout(resolve, 600)).then(() => stop.abort()),
    ]);
    for (const [outcome, order] of [
      [x, ['anna', 'bert', 'cora', 'dora']],
      [y, ['dora', 'cora', 'bert', 'anna']],
    ] as const) {
      const record = store.getMatch(outcome.records[0]!)!;
      expect(record.seats.map((s) => s.name)).toEqual(order);
      expect(record.status).toBe('finished');
      expect(outcome.seats.filter((s) => s.placing === 1)).toHaveLength(1);
    }
    expect(z.aborted).toBe(true);
    expect(z.reason).toBe('Das Turnier wurde unterbrochen. Spiel abgebrochen.');
    expect(store.getMatch(z.records[0]!)!.result).toMatchObject({ reason: 'tournament stopped' });
  }, 30_000);
});

describe('a prepared Catan game (CatanServer.reserve)', () => {
  it('takes only its players, on its own port, and ends at its turn limit without a winner', async () => {
    const store = new RecordStore(':memory:');
    const server = new CatanServer({ host: '127.0.0.1', port: 0, seed: 's', log: silentLogger, store, aiTurnTimeoutMs: null });
    await server.start();
    const ends: string[] = [];
    const game = (await server.reserve({
      names: ['anna', 'bert', 'cora'],
      seed: '5',
      timeoutMs: 2000,
      turnLimit: 12,
      onEnd: (_m, r) => ends.push(r.reason),
    }))!;
    try {
      expect(game.port).not.toBe(server.port);
      // A stranger on the main port gets a lobby of its own; one on the game's port may not take another name.
      const stranger = await RawClient.open(server.port);
      stranger.send('{"Hallo":{"Version":"x (KI)"}}');
      await stranger.expect(/Willkommen/);
      const wrong = await RawClient.open(game.port);
      wrong.send('{"Hallo":{"Version":"x (KI)"}}');
      await wrong.expect(/Willkommen/);
      wrong.send('{"Spieler":{"Name":"mallory","Farbe":"Rot"}}');
      await wrong.expect('{"Fehler":{"Meldung":"Ungueltiger Name"}}');
      wrong.close();
      const clients = ['cora', 'anna', 'bert'].map(
        (name) => new CatanClient({ host: '127.0.0.1', port: game.port, name, bot: createCatanBot('random', name) }),
      );
      await Promise.all(clients.map((c) => c.start()));
      const id = await game.started;
      const results = await Promise.all(clients.map((c) => c.done));
      expect(results.map((r) => r.message)).toEqual(Array(3).fill('Zuglimit von 12 Zuegen erreicht. Spiel beendet ohne Sieger.'));
      expect(ends).toEqual(['turn limit']);
      const record = store.getMatch(id!)!;
      expect(record.seats.map((s) => s.name)).toEqual(['anna', 'bert', 'cora']);
      expect(record).toMatchObject({ status: 'finished', seed: '5', result: { reason: 'turn limit', winner: null, turns: 12 } });
      expect(replayCatanMatch(record).problems).toEqual([]);
      // The stranger waits in the open lobby, untouched.
      expect(server.hall.lobbyRows().map((l) => l.players.length)).toEqual([1]);
      stranger.close();
    } finally {
      await game.close();
      await server.stop();
      store.close();
    }
  }, 15_000);
});

describe('a prepared Catan game whose names belong to their entrants (issue 30)', () => {
  it('refuses a name to any connection but its owner’s, and its owner then plays under it', async () => {
    const store = new RecordStore(':memory:');
    const server = new CatanServer({ host: '127.0.0.1', port: 0, seed: 's', log: silentLogger, store, aiTurnTimeoutMs: null });
    await server.start();
    const owners = new Map<string, number>();
    const game = (await server.reserve({
      names: ['anna', 'bert', 'cora'],
      seed: '6',
      timeoutMs: 2000,
      turnLimit: 6,
      nameOwner: (name, address) => owners.get(name) === Number(address.slice(address.lastIndexOf(':') + 1)),
    }))!;
    try {
      // A connection that knows the opponent's name (it is in the tournament file) tries it first.
      const thief = await RawClient.open(game.port);
      thief.send('{"Hallo":{"Version":"x (KI)"}}');
      await thief.expect(/Willkommen/);
      thief.send('{"Spieler":{"Name":"anna","Farbe":"Rot"}}');
      await thief.expect('{"Fehler":{"Meldung":"Ungueltiger Name"}}');
      thief.close();
      const clients = ['anna', 'bert', 'cora'].map(
        (name) => new CatanClient({ host: '127.0.0.1', port: game.port, name, bot: createCatanBot('random', name) }),
      );
      await Promise.all(
        clients.map(async (c, i) => {
          await c.start();
          owners.set(['anna', 'bert', 'cora'][i]!, c.localPort!);
        }),
      );
      const id = await game.started;
      await Promise.all(clients.map((c) => c.done));
      expect(store.getMatch(id!)!.seats.map((s) => s.name)).toEqual(['anna', 'bert', 'cora']);
    } finally {
      await game.close();
      await server.stop();
      store.close();
    }
  }, 15_000);
});
