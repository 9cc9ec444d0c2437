import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '../../../src/config.js';
import type { Stoppable } from '../../../src/core/lifecycle.js';
import { silentLogger, type Logger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import { randomBot } from '../../../src/games/dame/bots/random.js';
import { DameClient, type DameClientResult } from '../../../src/games/dame/client.js';
import { Connection } from '../../../src/games/dame/connection.js';
import { dame } from '../../../src/games/dame/index.js';
import { Match } from '../../../src/games/dame/match.js';
import { parsePieces } from '../../../src/games/dame/notation.js';
import { botPlayer } from '../../../src/games/dame/players.js';
import { createState, type DameState } from '../../../src/games/dame/rules.js';
import { createDameServer, DameServer, type DameServerOptions } from '../../../src/games/dame/server.js';
import { join, RawClient, readMove } from './raw-client.js';

/**
 * Issue 15 for Dame: no client can take the server down or lock others out. Attackers connect
 * from 127.0.0.2, the good clients from 127.0.0.1, so per-host limits can tell them apart.
 */

const ATTACKER = '127.0.0.2';

const FAST = {
  waitIdleMs: 100,
  okwaitTimeoutMs: 500,
  graceMs: 100,
  prologTimeoutMs: 1000,
  defaultMoveTimeMs: 300,
  motdDelayMs: 200,
} as const;

let server: DameServer | null = null;
let store: RecordStore | null = null;
const raws: RawClient[] = [];
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  vi.restoreAllMocks();
  for (const c of cleanups.splice(0).reverse()) await c();
  for (const c of raws.splice(0)) c.close();
  await server?.stop();
  store?.close();
  server = null;
  store = null;
});

async function serve(options: Partial<DameServerOptions> = {}): Promise<DameServer> {
  store = new RecordStore(':memory:');
  server = createDameServer({ port: 0, log: silentLogger, store, ...FAST, ...options });
  await server.start();
  return server;
}

async function seat(gameId: string, player: string, from?: string): Promise<{ client: RawClient; players: string[] }> {
  const joined = await join(server!.port, gameId, player, '2.1', from);
  raws.push(joined.client);
  joined.client.autoOkWait = true;
  return joined;
}

function position(pieces: string, toMove: 'white' | 'black' = 'white'): DameState {
  const board = parsePieces(pieces);
  if (!board.ok) throw new Error(board.error);
  return createState(board.value, toMove);
}

/** A short game between two of our clients with random bots on 127.0.0.1: the game that must go on. */
function goodGame(s: DameServer): { id: string; done: Promise<DameClientResult[]> } {
  const id = s.createGame({ start: position('w A1 C1 E1 B2 D2 F2; b B8 D8 F8 A7 C7 E7') });
  const make = (seed: number): DameClient => new DameClient({ host: '127.0.0.1', port: s.port, gameId: id, player: botPlayer(randomBot, seed) });
  return { id, done: Promise.all([make(21).run(), make(22).run()]) };
}

async function expectFinished(s: DameServer, game: { id: string; done: Promise<DameClientResult[]> }): Promise<void> {
  const results = await game.done;
  for (const r of results) expect(r.error).toBeNull();
  expect(new Set(results.map((r) => r.seat))).toEqual(new Set([0, 1]));
  expect(s.getGame(game.id)).toMatchObject({ status: 'over' });
  const record = store!.listMatches({ game: 'dame' }).find((m) => m.id === s.getGame(game.id)!.matchId);
  expect(record).toMatchObject({ status: 'finished' });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(test: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** A fresh valid game id. */
const gameId = (tag: string, n: number): string => `${tag}${String(n).padStart(13 - tag.length, '0')}`;

/** A logger whose lines a test can read. */
function capturingLogger(): { log: Logger; lines: { level: number; msg: string; [k: string]: unknown }[] } {
  const lines: { level: number; msg: string }[] = [];
  const log = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s) as { level: number; msg: string }) });
  return { log, lines };
}

describe('per-host fair share', () => {
  it('caps the connections and waiting games of 127.0.0.2, while a client on 127.0.0.1 plays a full game', async () => {
    const s = await serve({ maxConnectionsPerHost: 4, maxGamesPerHost: 2, maxGames: 6 });
    const good = goodGame(s);

    // Eight connections at once: four get the greeting, the rest are closed without a line.
    const conns = await Promise.all(Array.from({ length: 8 }, () => RawClient.open(s.port, ATTACKER)));
    raws.push(...conns);
    const first = await Promise.all(conns.map((c) => c.peekGroup(3000)));
    const greeted = conns.filter((_, i) => first[i] !== null);
    expect(greeted).toHaveLength(4);
    for (const [i, c] of conns.entries()) if (first[i] === null) expect(c.lines).toEqual([]);

    // Waiting games: two are created; one more gets the protocol's error for a refused game.
    const answers: string[] = [];
    for (const [i, c] of greeted.entries()) {
      c.autoOkWait = true;
      c.send('VERSION 2.1');
      await c.waitFor(/^\+ Client version accepted/);
      c.send(`ID ${gameId('attack', i)}`);
      const playing = await c.waitFor(/^(\+ PLAYING|-)/);
      if (playing.startsWith('-')) {
        answers.push(playing);
        continue;
      }
      await c.next();
      c.send('PLAYER 0');
      answers.push(await c.waitFor(/^(\+ ENDPLAYERS|-)/));
    }
    expect(answers).toEqual(['+ ENDPLAYERS', '+ ENDPLAYERS', '- Game does not exist', '- Game does not exist']);
    expect(s.getGame(gameId('attack', 2))).toBeUndefined();

    // Once a game of its own starts (or is closed), the host may create another.
    for (const c of greeted.slice(2)) await c.closed();
    await sleep(100);
    const mine = greeted[0]!;
    const partner = await seat(gameId('attack', 0), 'PLAYER 1', ATTACKER);
    expect(partner.players[0]).toBe('+ YOU 1 Black Player');
    await readMove(mine);
    const next = await seat(gameId('attack', 9), 'PLAYER 0', ATTACKER);
    expect(next.players[0]).toBe('+ YOU 0 White Player');
    expect(s.listGames().length).toBeLessThanOrEqual(5);

    await expectFinished(s, good);
    // 127.0.0.1 is another host: it still creates games of its own.
    for (let i = 0; i < 2; i++) expect((await seat(gameId('friend', i), 'PLAYER 1')).players[0]).toBe('+ YOU 1 Black Player');
  }, 30_000);
});

describe('idle seats', () => {
  it('closes a game whose opponent never comes: the client is disconnected without a line and the game leaves the table', async () => {
    const s = await serve({ idleSeatTimeoutMs: 500, maxGamesPerHost: 1 });
    const id = gameId('lonely', 1);
    const { client } = await seat(id, 'PLAYER 0', ATTACKER);
    const seatedAt = Date.now();
    // The client answers every WAIT; the game still ends, because nobody comes to play.
    await client.closed(3000);
    expect(Date.now() - seatedAt).toBeGreaterThanOrEqual(400);
    expect(client.lines).toContain('+ WAIT');
    expect(client.lines.filter((l) => l.startsWith('-'))).toEqual([]);
    expect(client.lines[client.lines.length - 1]).toMatch(/^\+ (WAIT|ENDPLAYERS)$/);
    expect(s.getGame(id)).toBeUndefined();
    expect(store!.countMatches('dame')).toBe(0);
    // It no longer counts against the host's share: the same host may create a game again.
    const again = await seat(gameId('lonely', 2), 'PLAYER 0', ATTACKER);
    expect(again.players[0]).toBe('+ YOU 0 White Player');

    // A game created by `ID` whose creator never took a seat goes too.
    const c = await RawClient.open(s.port, ATTACKER);
    raws.push(c);
    await c.next();
    c.send('VERSION 2.1');
    await c.next();
    c.send(`ID ${gameId('lonely', 3)}`);
    expect(await c.waitFor(/^-/, 3000)).toBe('- Game does not exist'); // the host's one game is 'lonely…2'
    await until(() => s.getGame(gameId('lonely', 2)) === undefined, 3000, 'the second game to be closed');
  }, 15_000);

  it('a game created by the API keeps its id: only the seat is freed', async () => {
    const s = await serve({ idleSeatTimeoutMs: 300 });
    const id = s.createGame({ name: 'Gruppe 7' });
    const { client } = await seat(id, 'PLAYER 1');
    await client.closed(3000);
    expect(client.lines.filter((l) => l.startsWith('-'))).toEqual([]);
    expect(s.getGame(id)).toMatchObject({ status: 'waiting', seats: [{ kind: 'open' }, { kind: 'open' }] });
    // Both players can still meet there.
    const white = await seat(id, 'PLAYER 0');
    const black = await seat(id, 'PLAYER 1');
    expect((await readMove(white.client))[0]).toBe('+ MOVE 300');
    expect(black.players[2]).toBe('+ 0 White Player 1');
  }, 15_000);
});

describe('error boundaries', () => {
  it('an exception in a socket handler ends that game only (aborted, internal error); another game finishes', async () => {
    const s = await serve({ defaultMoveTimeMs: 3000 });
    const receive = Connection.prototype.receive;
    vi.spyOn(Connection.prototype, 'receive').mockImplementation(function (this: Connection, chunk: Buffer) {
      if (chunk.includes('BOOM')) throw new Error('injected fault in a socket handler');
      receive.call(this, chunk);
    });
    const id = s.createGame();
    const white = (await seat(id, 'PLAYER 0')).client;
    const black = (await seat(id, 'PLAYER 1')).client;
    await readMove(white);
    const good = goodGame(s);
    white.send('BOOM');
    expect(await white.waitFor(/^-/)).toBe('- Internal error. Sorry & Bye');
    expect(await black.waitFor(/^-/)).toBe('- Internal error. Sorry & Bye');
    await white.closed();
    await black.closed();
    const matchId = s.getGame(id)!.matchId!;
    await store!.drain();
    expect(store!.getMatch(matchId)).toMatchObject({ status: 'aborted', result: { reason: 'internal error', winner: null } });
    // Before a seat, the connection alone goes.
    const lone = await RawClient.open(s.port);
    raws.push(lone);
    await lone.next();
    lone.send('VERSION BOOM');
    expect(await lone.waitFor(/^-/)).toBe('- Internal error. Sorry & Bye');
    await expectFinished(s, good);
    expect(s.info().status).toBe('running');
  }, 30_000);

  it('an exception in a connection timer or a match timer ends only that connection or that game', async () => {
    const s = await serve();
    // The connection's MOTD timer (auto mode) throws for the attacker's connection.
    const proto = Connection.prototype as unknown as { sendMotd(this: Connection): void };
    const sendMotd = proto.sendMotd;
    vi.spyOn(proto, 'sendMotd').mockImplementation(function (this: Connection) {
      if (this.address.includes(`${ATTACKER}:`)) throw new Error('injected fault in a connection timer');
      sendMotd.call(this);
    });
    // The WAIT timer of one match throws.
    const matchProto = Match.prototype as unknown as { sendWait(this: Match, s: unknown): void };
    const sendWait = matchProto.sendWait;
    vi.spyOn(matchProto, 'sendWait').mockImplementation(function (this: Match, seatState: unknown) {
      if (this.name === 'Doomed') throw new Error('injected fault in a match timer');
      sendWait.call(this, seatState);
    });

    const good = goodGame(s);
    const c = await RawClient.open(s.port, ATTACKER);
    raws.push(c);
    expect(await c.next()).toBe('+ MNM Gameserver v3.1 accepting connections');
    expect(await c.next(2000)).toBe('- Internal error. Sorry & Bye');
    await c.closed();

    const doomed = s.createGame({ name: 'Doomed', moveTimeMs: 3000 });
    const white = (await seat(doomed, 'PLAYER 0')).client;
    expect(await white.waitFor(/^-/, 2000)).toBe('- Internal error. Sorry & Bye');
    expect(s.getGame(doomed)!.status).toBe('over');

    await expectFinished(s, good);
    expect(s.info().status).toBe('running');
  }, 30_000);
});

describe('bad input, continued', () => {
  it('a client vanishing in the middle of its PLAY line loses; an overlong line mid-game is a protocol error', async () => {
    const s = await serve({ defaultMoveTimeMs: 3000 });
    let id = s.createGame();
    let white = (await seat(id, 'PLAYER 0')).client;
    let black = (await seat(id, 'PLAYER 1')).client;
    await readMove(white);
    white.send('THINKING');
    await white.waitFor('+ OKTHINK');
    white.sendRaw('PLAY C3:');
    await sleep(50);
    white.socket.destroy();
    expect(await black.waitFor(/^\+ PLAYER1WON/)).toBe('+ PLAYER1WON Yes');
    expect(s.getGame(id)!.result).toMatchObject({ winner: 1, reason: 'disconnect' });

    id = s.createGame();
    white = (await seat(id, 'PLAYER 0')).client;
    black = (await seat(id, 'PLAYER 1')).client;
    await readMove(white);
    white.send('THINKING');
    await white.waitFor('+ OKTHINK');
    white.sendRaw('PLAY ' + 'C3:D4;'.repeat(300));
    expect(await white.waitFor(/^-/)).toBe('- Did not get the expected PLAY command');
    expect(await black.waitFor(/^\+ PLAYER1WON/)).toBe('+ PLAYER1WON Yes');
    expect(s.getGame(id)!.result).toMatchObject({ winner: 1, reason: expect.stringMatching(/^protocol-error: <a line of more than 1024 bytes/) as string });
    expect(s.info().status).toBe('running');
  }, 15_000);
});

// ---- the house loop (the game module as `spielhalle serve` runs it) ------------------------------

async function startModule(overrides: Partial<Settings['games']['dame']>, log: Logger = silentLogger) {
  const settings: Settings = { ...DEFAULT_SETTINGS, games: { ...DEFAULT_SETTINGS.games, dame: { ...DEFAULT_SETTINGS.games.dame, port: 0, ...overrides } } };
  const moduleStore = new RecordStore(':memory:');
  const ctx = { settings, log, store: moduleStore };
  const s = dame.createServer(ctx);
  if (!(s instanceof DameServer)) throw new Error('not a Dame server');
  await s.start();
  cleanups.push(
    () => moduleStore.close(),
    () => s.stop(),
  );
  const startHouse = async (): Promise<void> => {
    const parts: Stoppable[] = await dame.startHouseBots!(ctx, s);
    cleanups.push(async () => {
      for (const p of parts) await p.stop();
    });
  };
  return { server: s, startHouse };
}

describe('the house loop', () => {
  it('survives a table filled by one host (the crash of issue 15) and starts the next house game once there is room', async () => {
    const { log, lines } = capturingLogger();
    const clients: DameClient[] = [];
    const run = DameClient.prototype.run;
    vi.spyOn(DameClient.prototype, 'run').mockImplementation(function (this: DameClient) {
      clients.push(this);
      return run.call(this);
    });
    // No per-host caps here: this is what the table looks like when many hosts fill it.
    const { server: s, startHouse } = await startModule({ maxGames: 3, maxGamesPerHost: 0, maxConnectionsPerHost: 0, houseMoveTimeMs: 1000, housePauseMs: 600 }, log);
    const create = vi.spyOn(s, 'createGame');
    await startHouse();
    await until(() => s.listGames().some((g) => g.name.startsWith('House game 1.0:') && g.status === 'running'), 5000, 'the first house game');
    const attackers: RawClient[] = [];
    const occupy = async (n: number): Promise<string> => {
      const joined = await join(s.port, gameId('fill', n), 'PLAYER 0', '2.1', ATTACKER);
      joined.client.autoOkWait = true;
      attackers.push(joined.client);
      raws.push(joined.client);
      return joined.players[0]!;
    };
    expect(await occupy(1)).toBe('+ YOU 0 White Player');
    expect(await occupy(2)).toBe('+ YOU 0 White Player');
    // The house game ends; the attacker takes its slot before the house loop's pause is over.
    clients[0]!.stop();
    await until(() => s.listGames().some((g) => g.name.startsWith('House game 1.0:') && g.status === 'over'), 5000, 'the house game to end');
    expect(await occupy(3)).toBe('+ YOU 0 White Player');
    expect(await occupy(4)).toBe('- Game does not exist');

    // The house loop finds the table full: it logs a warning and tries again, the server stays up.
    await until(() => create.mock.results.some((r) => r.type === 'throw'), 5000, 'the house loop to find the table full');
    expect(lines.some((l) => l.level === 40 && /cannot create a house game/.test(l.msg))).toBe(true);
    expect(s.info().status).toBe('running');
    await sleep(700);
    expect(create.mock.results.filter((r) => r.type === 'throw').length).toBeGreaterThanOrEqual(2);

    // Room again: the next house game starts.
    for (const a of attackers) a.close();
    await until(() => s.listGames().some((g) => g.name.startsWith('House game 1.1:') && g.status === 'running'), 5000, 'the next house game');
  }, 30_000);

  it('an exception thrown in the house loop is logged with its stack, and the loop goes on', async () => {
    const { log, lines } = capturingLogger();
    const { server: s, startHouse } = await startModule({ houseMoveTimeMs: 300, housePauseMs: 50 }, log);
    const createGame = s.createGame.bind(s);
    let calls = 0;
    vi.spyOn(s, 'createGame').mockImplementation((o) => {
      if (++calls === 1) throw new Error('injected fault in the house loop');
      return createGame(o);
    });
    await startHouse();
    await until(() => s.listGames().some((g) => g.name.startsWith('House game 1.0:') && g.plies >= 2), 10_000, 'a house game after the fault');
    const error = lines.find((l) => l.level === 50 && (l.err as { message?: string } | undefined)?.message === 'injected fault in the house loop');
    expect(error).toBeDefined();
    expect((error!.err as { stack?: string }).stack).toContain('hardening.test.ts');
    expect(s.info().status).toBe('running');
  }, 20_000);
});
