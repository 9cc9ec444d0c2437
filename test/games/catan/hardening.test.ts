import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { VirtualClock } from '../../../src/core/clock.js';
import { silentLogger } from '../../../src/core/log.js';
import { Rng } from '../../../src/core/rng.js';
import { randomBot, type CatanBot } from '../../../src/games/catan/driver.js';
import { Connection, MAX_UNMATCHED_WIRE } from '../../../src/games/catan/connection.js';
import { Hall } from '../../../src/games/catan/lobby.js';
import { CATAN_DEFAULTS } from '../../../src/games/catan/server.js';
import { CATAN_SETTINGS, catanServerOptions } from '../../../src/games/catan/settings.js';
import { registerCatanWebRoutes } from '../../../src/games/catan/web.js';
import type { CatanPlayMessage } from '../../../src/games/catan/web-views.js';
import { createWebServer, type WebServer } from '../../../src/web/server.js';
import { act, botClients, fehler, hello, OK, startServer, type TestServer } from './harness.js';
import { RawClient } from './tcp.js';

/**
 * Issue 15 for Catan: no client can take the server down or lock others out. Attackers connect
 * from 127.0.0.2, the good clients from 127.0.0.1, so the per-host caps can tell them apart.
 */

const ATTACKER = '127.0.0.2';
const FULL = fehler('Spiel ist voll');
const IDLE = '{"Spiel beendet":{"Nachricht":"Zu lange kein Spielbeginn. Lobby geschlossen."}}';

let t: TestServer | null = null;
let web: WebServer | null = null;
const raws: RawClient[] = [];

afterEach(async () => {
  vi.restoreAllMocks();
  for (const c of raws.splice(0)) c.close();
  await web?.stop();
  web = null;
  await t?.stop();
  t = null;
});

const track = (c: RawClient): RawClient => {
  raws.push(c);
  return c;
};

async function open(port: number, from?: string): Promise<RawClient> {
  return track(await RawClient.open(port, from));
}

async function join(port: number, from?: string): Promise<{ c: RawClient; id: number }> {
  const joined = await hello(port, 'Test 0.3', from);
  track(joined.c);
  return joined;
}

/** A Hallo that the server refuses: `Spiel ist voll`, then it closes the connection. */
async function refused(port: number, from: string): Promise<void> {
  const c = await open(port, from);
  await c.expect(/^\{"Hallo"/);
  expect(await act(c, '{"Hallo":{"Version":"x"}}', /Fehler/)).toBe(FULL);
  await c.closedByServer();
}

const until = async (test: () => boolean, what: string, ms = 5000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('settings', () => {
  it('caps connections per host at a tenth of maxConnections, lobbies per host and idle lobbies by default', () => {
    expect(CATAN_DEFAULTS.maxConnectionsPerHost).toBe(CATAN_DEFAULTS.maxConnections / 10);
    expect(CATAN_SETTINGS).toMatchObject({ maxConnectionsPerHost: 200, maxLobbiesPerHost: 20, idleLobbyTimeoutMs: 600_000 });
    const o = catanServerOptions({ ...CATAN_SETTINGS, idleLobbyTimeoutMs: 0, maxLobbiesPerHost: 3 }, { host: '127.0.0.1', seed: 's' }, silentLogger, null);
    expect(o).toMatchObject({ maxConnectionsPerHost: 200, maxLobbiesPerHost: 3, idleLobbyTimeoutMs: null });
  });
});

describe('fair share per host', () => {
  it('refuses connections beyond maxConnectionsPerHost with Spiel ist voll while a client on 127.0.0.1 plays a game', async () => {
    t = await startServer({ seed: 'per-host-conn', maxConnectionsPerHost: 4 });
    const port = t.server.port;
    const kept: RawClient[] = [];
    for (let i = 0; i < 4; i++) {
      const c = await open(port, ATTACKER);
      await c.expect(/^\{"Hallo"/);
      kept.push(c);
    }
    const game = await botClients(port, 4, { policy: 'builder' });
    for (let i = 0; i < 6; i++) {
      const c = await open(port, ATTACKER);
      await c.closedByServer();
      expect(c.lines).toEqual([FULL]);
    }
    // A connection that closes frees its place (once the server has seen the close).
    kept[0]!.close();
    for (let tries = 0; ; tries++) {
      const again = await open(port, ATTACKER);
      await again.until(() => again.lines.length > 0, 'a first line');
      if (again.lines[0]!.startsWith('{"Hallo"')) break;
      expect(again.lines[0]).toBe(FULL);
      expect(tries).toBeLessThan(100);
      await new Promise((r) => setTimeout(r, 20));
    }
    const results = await game.done;
    expect(results.every((r) => r.winner !== null && r.winner === results[0]!.winner)).toBe(true);
    expect(t.server.info().status).toBe('running');
  });

  it('does not count the dashboard gateway against the cap: browser seats play while loopback is at its cap', async () => {
    t = await startServer({ seed: 'gateway', maxConnectionsPerHost: 2, maxLobbiesPerHost: 1 });
    const port = t.server.port;
    await join(port);
    await join(port);
    const third = await open(port);
    await third.closedByServer();
    expect(third.lines).toEqual([FULL]);
    // The gateway's own client is an ordinary client on the wire, and is let in.
    const gw = t.server.connectGateway('127.0.0.1');
    const lines: string[] = [];
    gw.setEncoding('utf8');
    gw.on('data', (chunk: string) => lines.push(...chunk.split('\n').filter((l) => l !== '')));
    gw.on('error', () => undefined);
    await until(() => lines.length >= 1, 'the Hallo');
    gw.write('{"Hallo":{"Version":"CatanTS-Web 0.3"}}\n');
    await until(() => lines.some((l) => l.startsWith('{"Willkommen"')), 'Willkommen');
    gw.destroy();

    // And through the dashboard: a person's seat gets into a lobby.
    web = createWebServer({
      servers: [t.server],
      store: t.store,
      log: silentLogger,
      host: '127.0.0.1',
      port: 0,
      routes: [(app) => registerCatanWebRoutes(app, t!.server, { log: silentLogger, store: t!.store })],
    });
    const { port: webPort } = await web.start();
    const seats = [0, 1, 2].map(() => new WebSocket(`ws://127.0.0.1:${webPort}/ws/catan/play?name=Mensch`));
    const states = seats.map(() => [] as CatanPlayMessage[]);
    seats.forEach((ws, i) => ws.on('message', (data) => states[i]!.push(JSON.parse((data as Buffer).toString('utf8')) as CatanPlayMessage)));
    try {
      await until(() => states.every((s) => s.some((m) => m.type === 'state' && m.phase === 'lobby' && m.me !== null)), 'three seats in a lobby');
    } finally {
      for (const ws of seats) ws.close();
    }
  });

  it('caps the lobbies and games one host sits in (maxLobbiesPerHost) while a client on 127.0.0.1 plays', async () => {
    t = await startServer({ seed: 'per-host-lobbies', maxLobbiesPerHost: 2 });
    const port = t.server.port;
    const attackers: RawClient[] = [];
    for (let i = 0; i < 8; i++) attackers.push((await join(port, ATTACKER)).c);
    expect(t.server.snapshot().lobbies.map((l) => l.players.length)).toEqual([4, 4]);
    // The first four start a game among themselves: a game counts like a lobby.
    const colours = ['Rot', 'Blau', 'Weiss', 'Orange'];
    for (let i = 0; i < 4; i++) await act(attackers[i]!, `{"Spieler":{"Name":"A${i}","Farbe":"${colours[i]!}"}}`);
    for (let i = 0; i < 4; i++) await act(attackers[i]!, '{"Spiel starten":{}}', /^\{"Spiel gestartet"|Serverantwort/);
    await until(() => t!.server.snapshot().matches.length === 1, 'their game');
    await refused(port, ATTACKER);
    // Good clients are not held up: they get a lobby of their own and play to the end.
    const game = await botClients(port, 3, { policy: 'builder' });
    await refused(port, ATTACKER);
    // A host at its cap still gets a free seat in a lobby it is in already.
    attackers[7]!.close();
    await until(() => t!.server.snapshot().lobbies.some((l) => l.players.length === 3), 'the seat to free up');
    await join(port, ATTACKER);
    const results = await game.done;
    expect(results.every((r) => r.winner !== null && r.winner === results[0]!.winner)).toBe(true);
  });
});

describe('idle lobbies', () => {
  it('closes a lobby nobody joined for idleLobbyTimeoutMs, so it no longer counts against maxGames', async () => {
    const clock = new VirtualClock(1_000_000);
    t = await startServer({ seed: 'idle', clock, idleLobbyTimeoutMs: 1000, maxGames: 1 });
    const port = t.server.port;
    const { c: a } = await join(port);
    clock.advance(999);
    const { c: b } = await join(port);
    // The clock runs from the last join.
    clock.advance(500);
    expect(t.server.snapshot().lobbies).toHaveLength(1);
    const { c: c3 } = await join(port);
    const { c: c4 } = await join(port);
    await refused(port, '127.0.0.1');
    clock.advance(1000);
    for (const c of [a, b, c3, c4]) {
      await c.expect(IDLE);
      await c.closedByServer();
    }
    expect(t.server.snapshot().lobbies).toEqual([]);
    // The server takes a game again.
    await join(port);
    expect(t.server.snapshot().lobbies).toHaveLength(1);
  });

  it('closes only those not ready when three are: they play', async () => {
    const clock = new VirtualClock(1_000_000);
    t = await startServer({ seed: 'idle-ready', clock, idleLobbyTimeoutMs: 1000 });
    const port = t.server.port;
    const players = [await join(port), await join(port), await join(port), await join(port)];
    const colours = ['Rot', 'Blau', 'Weiss', 'Orange'];
    for (const [i, p] of players.entries()) await act(p.c, `{"Spieler":{"Name":"P${i}","Farbe":"${colours[i]!}"}}`);
    for (const p of players.slice(0, 3)) await act(p.c, '{"Spiel starten":{}}');
    clock.advance(1000);
    const idle = players[3]!;
    await idle.c.expect(IDLE);
    await idle.c.closedByServer();
    for (const p of players.slice(0, 3)) {
      await p.c.expect(new RegExp(`"id":${idle.id},.*"Status":"Verbindung verloren"`));
      await p.c.expect(/^\{"Spiel gestartet"/);
    }
    expect(t.server.snapshot().matches[0]!.players).toHaveLength(3);
  });
});

describe('error boundaries', () => {
  it('survives an exception in a socket handler, a timer and a house bot; the house game is recorded as an internal error and another game finishes', async () => {
    // House bot no. 1 breaks on its third decision.
    const strategy = (seed: string): CatanBot => {
      const bot = randomBot(seed, { policy: 'builder' });
      if (!seed.endsWith('/bot/1')) return bot;
      let n = 0;
      return {
        strategy: 'broken',
        decide: (ctx) => {
          if (++n === 3) throw new Error('injected house bot failure');
          return bot.decide(ctx);
        },
      };
    };
    t = await startServer({ seed: 'faults', helloTimeoutMs: 200, botStrategy: strategy });
    const port = t.server.port;

    // 1. A socket's close handler: the hall throws (after doing its work).
    const disconnected = Hall.prototype.disconnected;
    const closeSpy = vi.spyOn(Hall.prototype, 'disconnected').mockImplementationOnce(function (this: Hall, session) {
      disconnected.call(this, session);
      throw new Error('injected close failure');
    });
    const { c: leaver } = await join(port);
    leaver.close();
    await until(() => closeSpy.mock.calls.length > 0, 'the close handler');
    await until(() => t!.server.snapshot().lobbies.length === 0, 'the lobby to go');

    // 2. A timer: closing a connection that sent no Hallo in time throws (once).
    const closeConnection = vi.spyOn(Connection.prototype as unknown as { close(why: string): void }, 'close').mockImplementationOnce(() => {
      throw new Error('injected timer failure');
    });
    const silent = await open(port);
    const { c: human } = await join(port);
    await silent.closedByServer();
    expect(closeConnection).toHaveBeenCalledTimes(2);
    expect(await act(human, '{"Chatnachricht senden":{"Nachricht":"noch da"}}')).toBe(OK);
    human.close();

    // 3. The house loop: a game of house bots whose first bot throws.
    const house = await t.server.startGameWithBots(4);
    await until(() => t!.server.snapshot().recent.some((r) => r.id === house), 'the house game to end');
    expect(t.server.snapshot().recent.find((r) => r.id === house)).toMatchObject({ status: 'aborted', reason: 'internal error', winner: null });
    t.store.flush();
    expect(t.store.getMatch(house)).toMatchObject({
      status: 'aborted',
      result: { reason: 'internal error', winner: null, error: 'injected house bot failure' },
    });

    // The server is up, and a game between network clients plays to the end.
    expect(t.server.info().status).toBe('running');
    const game = await botClients(port, 4, { policy: 'builder', prefix: 'Danach' });
    const results = await game.done;
    expect(results.every((r) => r.winner !== null && r.winner === results[0]!.winner)).toBe(true);
  });
});

describe('hostile input next to a running game', () => {
  it('answers JSON bombs and fuzz with Fehler, stays fast, and the game next door goes on', async () => {
    t = await startServer({ seed: 'bombs' });
    const port = t.server.port;
    const game = await botClients(port, 4, { policy: 'builder' });
    const { c } = await join(port);
    const invalid = fehler('Ungueltige Nachricht');
    const started = Date.now();
    const bombs = [
      // 20,000 levels of nesting in 40 KB.
      `{"Chatnachricht senden":{"Nachricht":"x","n":${'['.repeat(20_000)}${']'.repeat(20_000)}}}`,
      `{"Chatnachricht senden":{"Nachricht":"x","n":${'{"a":'.repeat(6000)}1${'}'.repeat(6000)}}}`,
      // A 60,000-character chat, 6,000 keys, 30,000 array elements, lone surrogates.
      `{"Chatnachricht senden":{"Nachricht":"${'z'.repeat(60_000)}"}}`,
      `{${Array.from({ length: 6000 }, (_, i) => `"k${i}":0`).join(',')}}`,
      `{"Bauen":{"Typ":"Dorf","Ort":[${Array(30_000).fill('0').join(',')}]}}`,
      `{"Chatnachricht senden":{"Nachricht":"\\udfff\\ud800\\u0000${'\\u0041'.repeat(5000)}"}}`,
    ];
    for (const bomb of bombs) {
      expect(Buffer.byteLength(bomb)).toBeLessThan(64 * 1024);
      expect(await act(c, bomb, /^\{"Fehler"/)).toBe(invalid);
    }
    // Seeded fuzz: random bytes with a newline now and then.
    const rng = Rng.seeded('catan-fuzz');
    for (let i = 0; i < 200; i++) {
      const bytes = Buffer.alloc(rng.int(1, 300), 0);
      for (let j = 0; j < bytes.length; j++) bytes[j] = rng.int(0, 255);
      c.send(Buffer.concat([bytes, Buffer.from('\n')]));
    }
    const from = c.lines.length;
    // A control character breaks whatever the reader was in the middle of; it starts again at the next line.
    c.send('\x01\n{"Chatnachricht senden":{"Nachricht":"nach dem Fuzz"}}');
    await c.expect(/"Nachricht":"nach dem Fuzz"/, from);
    expect(c.lines.every((l) => l.startsWith('{"Fehler"') ? l === invalid : true)).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
    const results = await game.done;
    expect(results.every((r) => r.winner !== null && r.winner === results[0]!.winner)).toBe(true);
  });

  it('records at most MAX_UNMATCHED_WIRE entries of a connection outside a game, and a count of the rest', async () => {
    t = await startServer({ seed: 'unmatched' });
    const port = t.server.port;
    const rows: { conn: string; matchId: string | null; data: string }[] = [];
    const addWire = t.store.addWire.bind(t.store);
    vi.spyOn(t.store, 'addWire').mockImplementation((entry) => {
      rows.push(entry);
      addWire(entry);
    });
    const game = await botClients(port, 3, { policy: 'builder' });
    const c = await open(port, ATTACKER);
    await c.expect(/^\{"Hallo"/);
    const invalid = fehler('Ungueltige Nachricht');
    // 1,000 unreadable lines, each answered with a Fehler: 2,000 entries outside any game.
    for (let i = 0; i < 10; i++) {
      const from = c.lines.length;
      c.send('x\n'.repeat(100));
      await until(() => c.lines.slice(from).filter((l) => l === invalid).length === 100, 'the Fehler of a batch');
    }
    c.close();
    const note = /^\((\d+) more entries of this connection outside a game, in and out, not recorded\)$/;
    await until(() => rows.some((r) => note.test(r.data)), 'the count of what was not recorded');
    const conn = rows.find((r) => note.test(r.data))!.conn;
    const mine = rows.filter((r) => r.conn === conn);
    expect(mine.every((r) => r.matchId === null)).toBe(true);
    expect(mine.length).toBe(MAX_UNMATCHED_WIRE + 1);
    // Every line in is an entry of its own (the Fehler of one chunk leave in one): none is lost from the count.
    const [, rest] = note.exec(mine.at(-1)!.data)!;
    expect(MAX_UNMATCHED_WIRE + Number(rest)).toBeGreaterThanOrEqual(1 + 1000);
    // The game of the good clients is recorded in full.
    const results = await game.done;
    expect(results.every((r) => r.winner !== null)).toBe(true);
  });
});
