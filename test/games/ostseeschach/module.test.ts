import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteOf } from '../../support/records.js';
import { DEFAULT_SETTINGS, loadSettings, type Settings } from '../../../src/config.js';
import { silentLogger } from '../../../src/core/log.js';
import type { MatchDetail } from '../../../src/core/records.js';
import { OstseeschachAdmin } from '../../../src/games/ostseeschach/admin.js';
import { depth2Bot, randomBot } from '../../../src/games/ostseeschach/bots/index.js';
import { playOnServer, type ClientOutcome } from '../../../src/games/ostseeschach/client.js';
import { ostseeschach } from '../../../src/games/ostseeschach/index.js';
import type { ServerPacket } from '../../../src/games/ostseeschach/protocol.js';
import type { OstseeschachReplay } from '../../../src/games/ostseeschach/replay.js';
import type { OstseeschachServer } from '../../../src/games/ostseeschach/server.js';
import type { OstseeschachSnapshot } from '../../../src/games/ostseeschach/snapshot.js';
import { findGame } from '../../../src/games/registry.js';
import { serve, type Running } from '../../../src/serve.js';


/**
 * The Ostseeschach module served the way `spielhalle serve` serves it (settings, registry,
 * record store, dashboard routes, house games), with real TCP clients: bots, an administrator,
 * and the house games' worker thread.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(game: Partial<Settings['games']['ostseeschach']> = {}, bots = false): Promise<{ running: Running; server: OstseeschachServer; base: string }> {
  const settings: Settings = {
    ...DEFAULT_SETTINGS,
    dataDir: mkdtempSync(join(tmpdir(), 'spielhalle-ostsee-')),
    bots,
    seed: 'module-test',
    web: { enabled: true, host: '127.0.0.1', port: 0 },
    games: { ...DEFAULT_SETTINGS.games, ostseeschach: { ...DEFAULT_SETTINGS.games.ostseeschach, port: 0, ...game } },
  };
  const running = await serve(settings, ['ostseeschach'], silentLogger);
  cleanups.push(() => running.lifecycle.stop());
  const server = running.servers[0] as OstseeschachServer;
  return { running, server, base: `http://127.0.0.1:${running.webPort ?? 0}` };
}

const isOver = (m: MatchDetail | null): m is MatchDetail => m !== null && m.status !== 'running';

async function until<T>(what: string, fn: () => T | undefined | null | false, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the Ostseeschach module', () => {
  it('is registered with its settings: port 13050, the official password and limits, env overrides', () => {
    expect(findGame('ostseeschach')).toBe(ostseeschach);
    expect(DEFAULT_SETTINGS.games.ostseeschach).toMatchObject({
      enabled: true,
      port: 13050,
      adminPassword: 'examplepassword',
      softTimeoutMs: 2000,
      hardTimeoutMs: 10_000,
      maxConnections: 500,
      maxConnectionsPerHost: 50,
      maxRooms: 250,
      maxRoomsPerHost: 25,
      joinTimeoutMs: 30_000,
      preparedRoomTimeoutMs: 600_000,
    });
    const env = {
      SPIELHALLE_OSTSEESCHACH_PORT: '13051',
      SPIELHALLE_OSTSEESCHACH_ADMIN_PASSWORD: 'geheim',
      SPIELHALLE_OSTSEESCHACH_HOUSE_GAMES: '2',
      SPIELHALLE_OSTSEESCHACH_JOIN_TIMEOUT_MS: '5000',
      SPIELHALLE_OSTSEESCHACH_MAX_ROOMS_PER_HOST: '0',
    };
    const loaded = loadSettings({ env, cwd: tmpdir() }).config;
    expect(loaded.games.ostseeschach).toMatchObject({ port: 13051, adminPassword: 'geheim', houseGames: 2, joinTimeoutMs: 5000, maxRoomsPerHost: 0 });
    expect(() => loadSettings({ env: { SPIELHALLE_OSTSEESCHACH_HOUSE_MOVE_TIME_MS: '5000' }, cwd: tmpdir() })).toThrow(/houseMoveTimeMs/);
  });

  it('passes the limits of the settings to the server: a connection that never joins is closed', async () => {
    const { server } = await start({ joinTimeoutMs: 100 });
    const socket = connect({ host: '127.0.0.1', port: server.port });
    let text = '';
    socket.setEncoding('utf8').on('data', (d: string) => (text += d));
    await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    expect(text).toBe('<protocol>\n  <sc.protocol.CloseConnection/>\n</protocol>');
  });

  it('plays a full game between two bots over TCP, records it, and replays it through the rules', async () => {
    const { running, server, base } = await start();
    const [a, b] = await Promise.all([
      playOnServer({ host: '127.0.0.1', port: server.port, join: { kind: 'join' }, bot: depth2Bot, budgetMs: 200, seed: 'a' }),
      playOnServer({ host: '127.0.0.1', port: server.port, join: { kind: 'join' }, bot: randomBot, budgetMs: 200, seed: 'b' }),
    ]);
    expect(a.roomId).toBe(b.roomId);
    expect(new Set([a.team, b.team])).toEqual(new Set(['ONE', 'TWO']));
    expect(a.result?.scores.map((s) => s.cause)).toEqual(['REGULAR', 'REGULAR']);
    // Both sides got the same result; the points add up to 2 (a win, or a draw of 1 each).
    expect(b.result).toEqual(a.result);
    expect((a.points ?? 0) + (b.points ?? 0)).toBe(2);
    expect(a.moves + b.moves).toBeGreaterThan(4);

    const snapshot = (await (await fetch(`${base}/api/games/ostseeschach`)).json()) as { snapshot: OstseeschachSnapshot };
    const row = snapshot.snapshot.recent[0]!;
    expect(row.roomId).toBe(a.roomId);
    expect(row.scores).toEqual(a.result?.scores);
    expect(row.board.turn).toBe(row.turn);
    expect(row.board.ambers).toEqual({ ONE: a.result!.scores[0]!.parts[1], TWO: a.result!.scores[1]!.parts[1] });
    const match = await until('the record', () => {
      const m = sqliteOf(running).getMatch(row.matchId!);
      return isOver(m) ? m : null;
    });
    expect(match).toMatchObject({ game: 'ostseeschach', status: 'finished', result: { winner: a.result?.winner ?? null, scores: a.result?.scores } });
    expect(match.events.filter((e) => e.type === 'move')).toHaveLength(a.moves + b.moves);
    expect(match.wire.length).toBeGreaterThan(60);
    expect(ostseeschach.verify!(match)).toEqual({ checked: true, problems: [] });

    // The replay route: one board per turn, the last one the board the game ended on.
    const replay = (await (await fetch(`${base}/api/ostseeschach/replay/${match.id}`)).json()) as OstseeschachReplay;
    expect(replay.frames).toHaveLength(a.moves + b.moves + 1);
    expect(replay.moves).toHaveLength(a.moves + b.moves);
    expect(replay.frames[0]!.turn).toBe(0);
    expect(replay.frames[0]!.pieces).toHaveLength(16);
    expect(replay.frames.at(-1)!.ambers).toEqual(match.result && (match.result as { ambers: unknown }).ambers);
    expect(replay.problems).toEqual([]);
    expect((await fetch(`${base}/api/ostseeschach/replay/nope`)).status).toBe(404);

    // A record that does not fit the rules is reported.
    const moves = match.events.filter((e) => e.type === 'move');
    const tampered: MatchDetail = { ...match, events: match.events.map((e) => (e === moves[2] ? { ...e, data: { ...(e.data as object), move: '00-77' } } : e)) };
    expect(ostseeschach.verify!(tampered).problems[0]).toMatch(/00-77 is not legal/);
    const wrongWinner: MatchDetail = { ...match, result: { ...(match.result as object), ambers: { ONE: 9, TWO: 0 } } };
    expect(ostseeschach.verify!(wrongWinner).problems.join(' ')).toMatch(/recorded ambers 9:0/);
  });

  it('lets an administrator prepare a paused room, observe, step and cancel', async () => {
    const { running, server } = await start();
    const seen: ServerPacket[] = [];
    const admin = new OstseeschachAdmin({ host: '127.0.0.1', port: server.port, password: 'examplepassword', onPacket: (p) => seen.push(p) });
    await admin.start();
    cleanups.push(() => admin.close());
    const { roomId, reservations } = await admin.prepare(
      [
        { displayName: 'Alice', canTimeout: true, reserved: true },
        { displayName: 'Bob', canTimeout: true, reserved: true },
      ],
      true,
    );
    expect(reservations).toHaveLength(2);
    await admin.observe(roomId);
    const mementos = () => seen.flatMap((p) => (p.type === 'room' && p.data.class === 'memento' ? [p.data.state.turn] : []));
    const clients: Promise<ClientOutcome>[] = reservations.map((code, i) =>
      playOnServer({ host: '127.0.0.1', port: server.port, join: { kind: 'prepared', reservationCode: code }, bot: randomBot, budgetMs: 100, seed: `p${i}` }),
    );
    // Paused: the observer gets the first memento, nobody is asked to move.
    await until('the turn-0 memento', () => mementos().includes(0));
    await new Promise((r) => setTimeout(r, 200));
    expect(server.snapshot().rooms[0]).toMatchObject({ roomId, status: 'paused', awaiting: null, board: { turn: 0 } });
    // Each step requests one move; the observer sees the memento before and after it.
    admin.step(roomId);
    await until('turn 1', () => mementos().includes(1));
    admin.step(roomId);
    await until('turn 2', () => mementos().includes(2));
    expect(server.snapshot().rooms[0]!.board.turn).toBe(2);
    expect(mementos()).toEqual([0, 0, 1, 1, 2]);
    admin.cancel(roomId);
    const [one, two] = await Promise.all(clients);
    for (const o of [one!, two!]) {
      expect(o.result?.scores.map((s) => [s.name, s.cause, s.parts[0]])).toEqual([
        ['Alice', 'REGULAR', 0],
        ['Bob', 'REGULAR', 0],
      ]);
      expect(o.result?.winner).toBeNull();
    }
    await until('the observer\'s left', () => seen.some((p) => p.type === 'left' && p.roomId === roomId));
    const matchId = server.snapshot().recent[0]!.matchId!;
    const match = await until('the record', () => {
      const m = sqliteOf(running).getMatch(matchId);
      return isOver(m) ? m : null;
    });
    expect(match.status).toBe('finished');
    expect(match.events.map((e) => e.type)).toEqual(['start', 'move', 'move']);
    expect(ostseeschach.verify!(match)).toEqual({ checked: true, problems: [] });
    // A wrong password is refused, and admin requests then fail with the server's message.
    const intruder = new OstseeschachAdmin({ host: '127.0.0.1', port: server.port, password: 'wrong' });
    await intruder.start();
    cleanups.push(() => intruder.close());
    await expect(intruder.prepare([])).rejects.toThrow(/requires authentication/);
    expect(intruder.errors[0]).toMatch(/Failed to authenticate as administrator/);
  });

  it('keeps house games going in a worker thread, the strong engine against changing opponents, and stops them cleanly', async () => {
    const { running, server } = await start({ houseGames: 1, houseMoveTimeMs: 20, housePauseMs: 50 }, true);
    // Two games, one after the other: another opponent, and the colours swapped.
    const [second, first] = await until(
      'two finished house games',
      () => {
        const list = sqliteOf(running).listMatches({ game: 'ostseeschach', status: 'finished' });
        return list.length >= 2 ? list : null;
      },
      30_000,
    );
    const match = sqliteOf(running).getMatch(first!.id)!;
    expect(match.seats.map((s) => s.name)).toEqual(['House 1 A (engine 20 ms)', 'House 1 B (depth2)']);
    expect(second!.seats.map((s) => s.name)).toEqual(['House 1 B (engine 10 ms)', 'House 1 A (engine 20 ms)']);
    const result = match.result as { scores: { cause: string }[] };
    expect(result.scores.map((s) => s.cause)).toEqual(['REGULAR', 'REGULAR']);
    expect(match.meta).toMatchObject({ prepared: true, canTimeout: [true, true] });
    expect(ostseeschach.verify!(match)).toEqual({ checked: true, problems: [] });
    expect(server.info().status).toBe('running');
    const t0 = Date.now();
    await running.lifecycle.stop();
    expect(Date.now() - t0).toBeLessThan(4000);
    expect(server.info().status).toBe('stopped');
  }, 45_000);
});
