import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '../../../src/config.js';
import { silentLogger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import { DameClient } from '../../../src/games/dame/client.js';
import { houseSchedule } from '../../../src/games/dame/house.js';
import { dame } from '../../../src/games/dame/index.js';
import { DameServer } from '../../../src/games/dame/server.js';
import type { DameGameRow } from '../../../src/games/dame/snapshot.js';
import { createWebServer } from '../../../src/web/server.js';

/** The Dame game module as `spielhalle serve` uses it: the creation API and the house games. */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(overrides: Partial<Settings['games']['dame']> = {}, seed = 'lesson') {
  const settings: Settings = { ...DEFAULT_SETTINGS, seed, games: { ...DEFAULT_SETTINGS.games, dame: { ...DEFAULT_SETTINGS.games.dame, port: 0, ...overrides } } };
  const store = new RecordStore(':memory:');
  const ctx = { settings, log: silentLogger, store };
  const server = dame.createServer(ctx);
  if (!(server instanceof DameServer)) throw new Error('not a Dame server');
  await server.start();
  const web = createWebServer({ servers: [server], store, log: silentLogger, host: '127.0.0.1', port: 0, routes: [(app) => dame.registerRoutes!(app, server, ctx)] });
  const { port } = await web.start();
  cleanups.push(() => store.close(), () => server.stop(), () => web.stop());
  return { base: `http://127.0.0.1:${port}`, server, store, ctx };
}

const post = async (url: string, body: unknown) => {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as DameGameRow & { error?: string } };
};

describe('Dame game module', () => {
  it('creates games through the dashboard API, with a fresh 13-character id', async () => {
    const { base, server } = await start();
    const a = await post(`${base}/api/dame/games`, { name: 'Gruppe 7', moveTimeMs: 5000 });
    expect(a.status).toBe(201);
    expect(a.body.id).toMatch(/^[a-z0-9]{13}$/);
    expect(a.body).toMatchObject({ name: 'Gruppe 7', moveTimeMs: 5000 });
    const b = await post(`${base}/api/dame/games`, { engineSeat: 1 });
    expect(b.body.id).not.toBe(a.body.id);
    expect(b.body.seats[1]).toMatchObject({ kind: 'engine', connected: true });
    for (const bad of [{ engineSeat: 2 }, { moveTimeMs: 'fast' }, { name: 'two\nlines' }, { moveTimeMs: 0 }]) {
      const r = await post(`${base}/api/dame/games`, bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.error).toBeTruthy();
    }
    const listed = (await (await fetch(`${base}/api/dame/games`)).json()) as DameGameRow[];
    expect(listed.map((g) => g.id).sort()).toEqual([a.body.id, b.body.id].sort());
    expect(server.listGames()).toHaveLength(2);
  });

  it('keeps a house game going: the engine against a client bot over TCP', async () => {
    const { server, ctx } = await start({ houseMoveTimeMs: 300 });
    const parts = await dame.startHouseBots!(ctx, server);
    cleanups.push(async () => {
      for (const p of parts) await p.stop();
    });
    const deadline = Date.now() + 20_000;
    let game: DameGameRow | undefined;
    while (Date.now() < deadline) {
      game = server.listGames().find((g) => g.plies >= 4);
      if (game) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(game).toBeDefined();
    const plan = houseSchedule('lesson', 0, 300)(0);
    expect(game!.name).toBe(plan.name);
    const client = plan.engineSeat === 0 ? 1 : 0;
    expect(game!.seats[plan.engineSeat].kind).toBe('engine');
    expect(game!.seats[client].kind).toBe('client');
    expect(game!.seats[client].address).toMatch(/^127\.0\.0\.1:\d+$/);
  }, 30_000);

  it('plays consecutive house games with the colours swapped and another line-up (issue 16.3)', async () => {
    const clients: DameClient[] = [];
    const run = DameClient.prototype.run;
    vi.spyOn(DameClient.prototype, 'run').mockImplementation(function (this: DameClient) {
      clients.push(this);
      return run.call(this);
    });
    cleanups.push(() => {
      vi.restoreAllMocks();
    });
    const { server, ctx } = await start({ houseMoveTimeMs: 300, housePauseMs: 50 }, 'lesson');
    const parts = await dame.startHouseBots!(ctx, server);
    cleanups.push(async () => {
      for (const p of parts) await p.stop();
    });
    const games: DameGameRow[] = [];
    for (let round = 0; round < 3; round++) {
      const deadline = Date.now() + 10_000;
      let game: DameGameRow | undefined;
      while (!game && Date.now() < deadline) {
        game = server.listGames().find((g) => (g.name === `House game 1.${round}` || g.name.startsWith(`House game 1.${round}:`)) && g.status === 'running');
        if (!game) await new Promise((r) => setTimeout(r, 20));
      }
      expect(game, `house game ${round}`).toBeDefined();
      games.push(game!);
      // The bot leaves: the game is over at once and the next one follows after the pause.
      clients[round]!.stop();
    }
    const engineSeats = games.map((g) => g.seats.findIndex((s) => s.kind === 'engine'));
    expect(engineSeats[1]).toBe(1 - engineSeats[0]!);
    expect(engineSeats[2]).toBe(engineSeats[0]);
    const lineUps = games.map((g) => g.name.replace(/^House game 1\.\d+: /, '').replace(/ \((White|Black)\)/g, '').split(' v ').sort().join(' v '));
    expect(lineUps[1]).not.toBe(lineUps[0]);
    expect(lineUps[2]).not.toBe(lineUps[1]);
    const plan = houseSchedule('lesson', 0, 300);
    expect(games.map((g) => g.name)).toEqual([0, 1, 2].map((r) => plan(r).name));
    expect(engineSeats).toEqual([0, 1, 2].map((r) => plan(r).engineSeat));
  }, 40_000);
});
