import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { DEFAULT_SETTINGS, type Settings } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import type { MatchSummary, WirePage } from '../../src/core/record-types.js';
import type { MatchDetail, MatchRecord } from '../../src/core/records.js';
import { RecordStore } from '../../src/core/records.js';
import type { MiaSnapshot } from '../../src/games/mia/snapshot.js';
import { serve } from '../../src/serve.js';
import { createWebServer, type WebServer } from '../../src/web/server.js';
import { checkClientView, type CheckClientView } from '../../src/web/check-client-api.js';
import { dameConformance } from '../../src/games/dame/conformance/index.js';
import {
  FakeGameServer,
  fakeMia,
  miaRound,
  pollUntil,
  ROUND_ONE_WIRE,
  seedStore,
  T0,
  type SeededMatches,
} from './fixtures.js';

interface WsMessage {
  type: 'snapshot' | 'event';
  game: string;
  data?: unknown;
  event?: { game: string; type: string; at: number; data: unknown };
}

/** A spectator client that keeps every message, and how the socket closed. */
class Spectator {
  readonly messages: WsMessage[] = [];
  closed: { code: number; reason: string } | null = null;
  readonly socket: WebSocket;

  constructor(url: string) {
    this.socket = new WebSocket(url);
    this.socket.on('message', (data) => {
      this.messages.push(JSON.parse((data as Buffer).toString('utf8')) as WsMessage);
    });
    this.socket.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
    });
  }

  get snapshots(): WsMessage[] {
    return this.messages.filter((m) => m.type === 'snapshot');
  }

  get events(): WsMessage[] {
    return this.messages.filter((m) => m.type === 'event');
  }

  until(check: (s: this) => boolean, what: string, timeoutMs = 2000): Promise<void> {
    return pollUntil(() => check(this), timeoutMs, what);
  }

  close(): Promise<void> {
    this.socket.close();
    return this.until((s) => s.closed !== null, 'close');
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('web API', () => {
  const store = new RecordStore(':memory:');
  const mia = fakeMia();
  const connect4 = new FakeGameServer(
    'connect4',
    { board: [] },
    { title: 'Vier gewinnt', port: 9001, clients: 2 },
  );
  let seeded: SeededMatches;
  let web: WebServer;
  let base: string;
  let wsBase: string;
  const staticDir = mkdtempSync(join(tmpdir(), 'spielhalle-web-'));

  beforeAll(async () => {
    seeded = seedStore(store);
    mkdirSync(join(staticDir, 'assets'));
    writeFileSync(
      join(staticDir, 'index.html'),
      '<!doctype html><title>dashboard</title><div id="root"></div>',
    );
    writeFileSync(join(staticDir, 'assets', 'app.js'), 'console.log("app");');
    web = createWebServer({
      servers: [mia, connect4],
      store,
      log: silentLogger,
      host: '127.0.0.1',
      port: 0,
      staticDir,
      checkClient: [checkClientView('dame', dameConformance)],
    });
    const { host, port } = await web.start();
    expect(host).toBe('127.0.0.1');
    expect(port).toBeGreaterThan(0);
    base = `http://127.0.0.1:${port}`;
    wsBase = `ws://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    await web.stop();
    store.close();
    rmSync(staticDir, { recursive: true, force: true });
  });

  const get = async (path: string) => {
    const response = await fetch(base + path);
    const text = await response.text();
    return {
      status: response.status,
      type: response.headers.get('content-type') ?? '',
      total: response.headers.get('x-total-count'),
      text,
      json: () => JSON.parse(text) as unknown,
    };
  };

  describe('health and metrics', () => {
    it('reports ok while every server runs, degraded with 503 when one failed', async () => {
      const ok = await get('/healthz');
      expect(ok.status).toBe(200);
      expect(ok.json()).toEqual({
        status: 'ok',
        games: [
          { game: 'mia', status: 'running' },
          { game: 'connect4', status: 'running' },
        ],
        records: { status: 'ok' },
      });
      connect4.details.status = 'failed';
      try {
        const bad = await get('/healthz');
        expect(bad.status).toBe(503);
        expect(bad.json()).toEqual({
          status: 'degraded',
          reason: 'connect4: server failed',
          games: [
            { game: 'mia', status: 'running' },
            { game: 'connect4', status: 'failed' },
          ],
          records: { status: 'ok' },
        });
      } finally {
        connect4.details.status = 'running';
      }
    });

    it('serves Prometheus text with the per-game gauges read at scrape time', async () => {
      const first = await get('/metrics');
      expect(first.status).toBe(200);
      expect(first.type).toContain('text/plain');
      expect(first.text).toContain('spielhalle_clients{game="mia"} 4');
      expect(first.text).toContain('spielhalle_clients{game="connect4"} 2');
      expect(first.text).toContain('spielhalle_live_matches{game="mia"} 1');
      expect(first.text).toContain('spielhalle_server_up{game="mia"} 1');
      expect(first.text).toContain('spielhalle_messages_total');
      expect(first.text).toContain('spielhalle_process_');

      mia.details.clients = 9;
      mia.details.status = 'stopped';
      try {
        const second = await get('/metrics');
        expect(second.text).toContain('spielhalle_clients{game="mia"} 9');
        expect(second.text).toContain('spielhalle_server_up{game="mia"} 0');
      } finally {
        mia.details.clients = 4;
        mia.details.status = 'running';
      }
    });
  });

  describe('games', () => {
    it('lists every server with its info', async () => {
      const r = await get('/api/games');
      expect(r.status).toBe(200);
      expect(r.json()).toEqual([mia.info(), connect4.info()]);
      expect((r.json() as { port: number }[])[0]?.port).toBe(9000);
    });

    it('returns one game with its snapshot', async () => {
      const r = await get('/api/games/mia');
      expect(r.status).toBe(200);
      const body = r.json() as { info: unknown; snapshot: MiaSnapshot };
      expect(body.info).toEqual(mia.info());
      expect(body.snapshot).toEqual(mia.state);
      expect(body.snapshot.round?.number).toBe(7);
    });

    it('answers 404 JSON for an unknown game', async () => {
      for (const path of ['/api/games/nope', '/api/games/nope/leaderboard']) {
        const r = await get(path);
        expect(r.status).toBe(404);
        expect(r.type).toContain('application/json');
        expect(r.json()).toEqual({ error: 'unknown game: nope' });
      }
    });

    it('returns the leaderboard, or [] for a server without one', async () => {
      expect((await get('/api/games/mia/leaderboard')).json()).toEqual([
        { name: 'bob', points: 7 },
        { name: 'alice', points: 4 },
      ]);
      const c4 = await get('/api/games/connect4/leaderboard');
      expect(c4.status).toBe(200);
      expect(c4.json()).toEqual([]);
    });

    it('answers 500 with a bare JSON error, no stack, when a server throws', async () => {
      connect4.snapshotError = new Error('secret internal detail');
      try {
        const r = await get('/api/games/connect4');
        expect(r.status).toBe(500);
        expect(r.json()).toEqual({ error: 'internal server error' });
        expect(r.text).not.toContain('secret');
        expect(r.text).not.toContain('at ');
      } finally {
        connect4.snapshotError = null;
      }
    });
  });

  describe('matches', () => {
    it('lists matches newest first', async () => {
      const r = await get('/api/matches');
      expect(r.status).toBe(200);
      const list = r.json() as MatchRecord[];
      expect(list.map((m) => m.id)).toEqual([seeded.roundTwo, seeded.connect4, seeded.roundOne]);
      const one = list[2];
      expect(one?.status).toBe('finished');
      expect(one?.seats.map((s) => s.name)).toEqual(['alice', 'bob']);
      expect(one?.result).toEqual({
        round: 1,
        order: ['alice', 'bob'],
        losers: ['bob'],
        reason: 'SEE_BEFORE_FIRST_ROLL',
      });
    });

    it('filters by game and status, pages with limit and before', async () => {
      const ids = async (q: string) =>
        ((await get(`/api/matches${q}`)).json() as MatchRecord[]).map((m) => m.id);
      expect(await ids('?game=mia')).toEqual([seeded.roundTwo, seeded.roundOne]);
      expect(await ids('?game=mia&status=finished')).toEqual([seeded.roundOne]);
      expect(await ids('?status=aborted')).toEqual([seeded.roundTwo]);
      expect(await ids('?limit=1')).toEqual([seeded.roundTwo]);
      const first = (await get('/api/matches?limit=1')).json() as MatchRecord[];
      expect(await ids(`?limit=1&before=${first[0]?.startedAt ?? 0}`)).toEqual([seeded.connect4]);
      expect(await ids('?game=dame')).toEqual([]);
      // Empty parameters (an unset filter in a form) mean "no filter".
      expect(await ids('?game=&status=')).toHaveLength(3);
    });

    it('filters by player, leaves a game out, pages with offset and counts the total', async () => {
      const list = async (q: string) => {
        const r = await get(`/api/matches${q}`);
        expect(r.status).toBe(200);
        return { ids: (r.json() as MatchRecord[]).map((m) => m.id), total: r.total };
      };
      expect(await list('?player=red-bot')).toEqual({ ids: [seeded.connect4], total: '1' });
      expect(await list('?player=alice')).toEqual({ ids: [seeded.roundTwo, seeded.roundOne], total: '2' });
      expect(await list('?player=nobody')).toEqual({ ids: [], total: '0' });
      expect(await list('?notGame=mia')).toEqual({ ids: [seeded.connect4], total: '1' });
      expect(await list('?limit=1&offset=1')).toEqual({ ids: [seeded.connect4], total: '3' });
      expect(await list('?limit=2&offset=2')).toEqual({ ids: [seeded.roundOne], total: '3' });
      expect(await list('?offset=3')).toEqual({ ids: [], total: '3' });
      expect(await list(`?game=mia&since=${T0 + 1}`)).toEqual({ ids: [seeded.roundTwo], total: '1' });
    });

    it('counts the matches per hour they started in', async () => {
      const r = await get('/api/match-hours?game=mia');
      expect(r.status).toBe(200);
      expect(r.json()).toEqual([{ hour: T0, matches: 2, finished: 1, aborted: 1, running: 0 }]);
      expect((await get('/api/match-hours?player=red-bot')).json()).toEqual([
        { hour: T0, matches: 1, finished: 1, aborted: 0, running: 0 },
      ]);
      expect((await get('/api/match-hours?offset=-1')).status).toBe(400);
    });

    it('sends a match without its wire log, and the log in pages of lines', async () => {
      const summary = (await get(`/api/matches/${seeded.roundOne}?wire=0`)).json() as MatchSummary;
      expect(summary).not.toHaveProperty('wire');
      expect(summary.wireLines).toBe(ROUND_ONE_WIRE.length);
      expect(summary.events).toHaveLength(4);

      const page = (await get(`/api/matches/${seeded.roundOne}/wire?offset=2&limit=3`)).json() as WirePage;
      expect(page.total).toBe(ROUND_ONE_WIRE.length);
      expect(page.offset).toBe(2);
      expect(page.lines.map((l) => l.data)).toEqual(ROUND_ONE_WIRE.slice(2, 5).map((w) => w.data));
      expect(page.conns).toContainEqual({ conn: '*', lines: 6 });

      const bob = (await get(`/api/matches/${seeded.roundOne}/wire?conn=127.0.0.1%3A40002`)).json() as WirePage;
      expect(bob.lines.map((l) => l.data)).toEqual(
        ROUND_ONE_WIRE.filter((w) => w.conn === '127.0.0.1:40002').map((w) => w.data),
      );
      expect((await get(`/api/matches/${seeded.roundOne}/wire?limit=0`)).status).toBe(400);
      expect((await get('/api/matches/mia-nope/wire')).status).toBe(404);
    });

    it.each([
      ['?limit=abc', 'limit'],
      ['?limit=0', 'limit'],
      ['?limit=1.5', 'limit'],
      ['?before=-1', 'before'],
      ['?offset=-1', 'offset'],
      ['?offset=x', 'offset'],
      ['?status=won', 'status'],
      ['?game=mia%3Bdrop', 'game'],
      ['?gmae=mia', 'gmae'],
      ['?game=mia&game=dame', 'game'],
    ])('rejects the bad query %s with 400', async (q, field) => {
      const r = await get(`/api/matches${q}`);
      expect(r.status).toBe(400);
      expect(r.type).toContain('application/json');
      const body = r.json() as { error: string };
      expect(Object.keys(body)).toEqual(['error']);
      expect(body.error).toMatch(/^bad query: /);
      expect(body.error).toContain(field);
    });

    it('returns one match with its events and wire log', async () => {
      const r = await get(`/api/matches/${seeded.roundOne}`);
      expect(r.status).toBe(200);
      const m = r.json() as MatchDetail;
      expect(m.id).toBe(seeded.roundOne);
      expect(m.seed).toBe('seed-1');
      expect(m.events.map((e) => e.type)).toEqual(['started', 'roll', 'announce', 'see']);
      expect(m.events[2]).toMatchObject({ seat: 0, data: '3,1' });
      expect(m.wire.map(({ conn, dir, data }) => ({ conn, dir, data }))).toEqual(ROUND_ONE_WIRE);
    });

    it('answers 404 JSON for an unknown match', async () => {
      const r = await get('/api/matches/mia-nope');
      expect(r.status).toBe(404);
      expect(r.json()).toEqual({ error: 'no match with id mia-nope', pruned: null });
    });
  });

  describe('static dashboard', () => {
    it('serves index.html, assets, and index.html for client routes', async () => {
      const index = await get('/');
      expect(index.status).toBe(200);
      expect(index.type).toContain('text/html');
      expect(index.text).toContain('<title>dashboard</title>');

      const asset = await get('/assets/app.js');
      expect(asset.status).toBe(200);
      expect(asset.type).toContain('javascript');
      expect(asset.text).toBe('console.log("app");');

      const deep = await get('/matches/some-id');
      expect(deep.status).toBe(200);
      expect(deep.text).toContain('<title>dashboard</title>');
    });

    it('keeps JSON 404s for unknown API and WebSocket paths', async () => {
      for (const path of ['/api/nothing', '/api', '/ws/nothing']) {
        const r = await get(path);
        expect(r.status, path).toBe(404);
        expect(r.json()).toEqual({ error: `not found: GET ${path}` });
      }
      const post = await fetch(`${base}/api/games`, { method: 'POST', body: '{}' });
      expect(post.status).toBe(404);
      expect(await post.json()).toEqual({ error: 'not found: POST /api/games' });
    });

    it('says to build the dashboard when there is no index.html', async () => {
      const emptyDir = mkdtempSync(join(tmpdir(), 'spielhalle-empty-'));
      const bare = createWebServer({
        servers: [mia],
        store,
        log: silentLogger,
        host: '127.0.0.1',
        port: 0,
        staticDir: emptyDir,
      });
      try {
        const { port } = await bare.start();
        const r = await fetch(`http://127.0.0.1:${port}/`);
        expect(r.status).toBe(200);
        expect(r.headers.get('content-type')).toContain('text/html');
        expect(await r.text()).toContain('npm run build');
        // A second server in the same process must not register the gauges twice.
        const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        expect(metrics.match(/^# TYPE spielhalle_clients gauge$/gm)).toHaveLength(1);
      } finally {
        await bare.stop();
        rmSync(emptyDir, { recursive: true, force: true });
      }
    });
  });

  it("serves a game's check-client scenarios for its \"test your client\" page, 404 for a game without", async () => {
    const response = await get('/api/games/dame/check-client');
    expect(response.status).toBe(200);
    const view = (await response.json()) as CheckClientView;
    expect(view.game).toBe('dame');
    expect(view.transport).toBe('tcp');
    expect(view.usageArgs).toBe('check-client dame -- ./my-client {host} {port} {gameId} {player}');
    expect(view.example).toMatch(/^spielhalle check-client dame -- spielhalle bot dame /);
    expect(view.scenarios.map((s) => s.id)).toEqual(dameConformance.scenarios.map((s) => s.id));
    expect(view.scenarios[0]).toEqual({ id: 'full-game', title: dameConformance.scenarios[0]!.title, rule: dameConformance.scenarios[0]!.rule, section: dameConformance.scenarios[0]!.section, hint: dameConformance.scenarios[0]!.hint });
    expect((await get('/api/games/nosuchgame/check-client')).status).toBe(404);
  });

  it("serves a game's own routes beside the generic API and the dashboard", async () => {
    const withRoutes = createWebServer({
      servers: [mia],
      store,
      log: silentLogger,
      host: '127.0.0.1',
      port: 0,
      routes: [
        (app) =>
          app.post<{ Body: { n: number } }>('/api/mia/double', (request) => ({ doubled: request.body.n * 2 })),
      ],
    });
    try {
      const { port } = await withRoutes.start();
      const r = await fetch(`http://127.0.0.1:${port}/api/mia/double`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ n: 21 }),
      });
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual({ doubled: 42 });
      // The generic routes are still there, and an unknown API path is still a JSON 404.
      expect((await fetch(`http://127.0.0.1:${port}/api/games`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/api/mia/triple`, { method: 'POST' })).status).toBe(404);
    } finally {
      await withRoutes.stop();
    }
  });

  describe('spectator WebSocket', () => {
    it('sends a snapshot on open, then forwards events', async () => {
      const s = new Spectator(`${wsBase}/ws/spectate?game=mia`);
      try {
        await s.until((x) => x.messages.length >= 1, 'first snapshot');
        expect(s.messages[0]).toEqual({ type: 'snapshot', game: 'mia', data: mia.state });
        await pollUntil(() => mia.hub.size === 1, 1000, 'subscription');

        const event = mia.publish('line', { line: 'PLAYER ROLLS;alice' });
        await s.until((x) => x.events.length === 1, 'event');
        expect(s.events[0]).toEqual({ type: 'event', game: 'mia', event });
      } finally {
        await s.close();
      }
      // Closing the socket unsubscribes it from the game server.
      await pollUntil(() => mia.hub.size === 0, 1000, 'unsubscribe');
    });

    it('throttles snapshots to one per 100 ms while events keep coming, ending with the latest state', async () => {
      const s = new Spectator(`${wsBase}/ws/spectate?game=mia`);
      try {
        await s.until((x) => x.snapshots.length === 1, 'first snapshot');
        await pollUntil(() => mia.hub.size === 1, 1000, 'subscription');
        const started = Date.now();
        let n = 0;
        while (Date.now() - started < 500) {
          n++;
          mia.state.roundsPlayed = 100 + n;
          mia.publish('line', { line: `LINE ${n}` });
          await sleep(5);
        }
        const elapsed = Date.now() - started;
        await s.until((x) => x.events.length === n, `${n} events`);
        await s.until(
          (x) => (x.snapshots.at(-1)?.data as MiaSnapshot | undefined)?.roundsPlayed === 100 + n,
          'trailing snapshot with the final state',
        );
        // Every event arrives, in order.
        expect(s.events.map((m) => (m.event?.data as { line: string }).line)).toEqual(
          Array.from({ length: n }, (_, i) => `LINE ${i + 1}`),
        );
        expect(n).toBeGreaterThan(10);
        // Snapshots: the initial one plus at most one per 100 ms window (and the trailing one).
        const later = s.snapshots.length - 1;
        expect(later).toBeGreaterThanOrEqual(3);
        expect(later).toBeLessThanOrEqual(Math.ceil(elapsed / 100) + 1);

        // Quiet game, quiet socket: no snapshots without events.
        const count = s.messages.length;
        await sleep(250);
        expect(s.messages.length).toBe(count);
      } finally {
        await s.close();
        mia.state.roundsPlayed = 6;
      }
    });

    it('sends the new round after events that change it', async () => {
      const s = new Spectator(`${wsBase}/ws/spectate?game=mia`);
      try {
        await s.until((x) => x.snapshots.length === 1, 'first snapshot');
        await pollUntil(() => mia.hub.size === 1, 1000, 'subscription');
        mia.state.round = miaRound(8, { phase: 'joining', players: [], toAct: null, log: [] });
        mia.publish('roundStarting', { number: 8 });
        await s.until((x) => x.snapshots.length === 2, 'second snapshot');
        expect((s.snapshots[1]?.data as MiaSnapshot).round?.number).toBe(8);
        expect(s.events.map((m) => m.event?.type)).toEqual(['roundStarting']);
      } finally {
        await s.close();
        mia.state.round = miaRound(7);
      }
    });

    it('answers a plain GET without upgrade with 426 JSON', async () => {
      const r = await get('/ws/spectate?game=mia');
      expect(r.status).toBe(426);
      expect(r.json()).toEqual({ error: 'this endpoint needs a WebSocket upgrade' });
    });

    it('closes with 4404 for an unknown or missing game', async () => {
      for (const q of ['?game=nope', '']) {
        const s = new Spectator(`${wsBase}/ws/spectate${q}`);
        await s.until((x) => x.closed !== null, 'close');
        expect(s.closed?.code).toBe(4404);
        expect(s.messages).toEqual([]);
      }
      expect(mia.hub.size).toBe(0);
    });

    it('never throws into the game server when a spectator vanishes', async () => {
      const s = new Spectator(`${wsBase}/ws/spectate?game=mia`);
      await s.until((x) => x.snapshots.length === 1, 'first snapshot');
      await pollUntil(() => mia.hub.size === 1, 1000, 'subscription');
      s.socket.terminate();
      for (let i = 0; i < 200; i++) mia.publish('line', { line: `after close ${i}` });
      await pollUntil(() => mia.hub.size === 0, 2000, 'unsubscribe');
      expect(mia.listenerErrors).toEqual([]);
    });

    it('serves several spectators of one game independently', async () => {
      const a = new Spectator(`${wsBase}/ws/spectate?game=mia`);
      const b = new Spectator(`${wsBase}/ws/spectate?game=mia`);
      try {
        await pollUntil(() => mia.hub.size === 2, 1000, 'two subscriptions');
        mia.publish('line', { line: 'ANNOUNCED;alice;3,1' });
        await a.until((x) => x.events.length === 1, 'a event');
        await b.until((x) => x.events.length === 1, 'b event');
        await a.close();
        mia.publish('line', { line: 'PLAYER WANTS TO SEE;bob' });
        await b.until((x) => x.events.length === 2, 'b second event');
        expect(a.events).toHaveLength(1);
      } finally {
        await b.close();
      }
    });
  });
});

describe('"Test your client" in a firewalled lab (issue #33)', () => {
  it("passes the settings' tournaments.ports on to every check-client command the dashboard shows", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'spielhalle-check-ports-'));
    const games = { ...DEFAULT_SETTINGS.games, dame: { ...DEFAULT_SETTINGS.games.dame, port: 0 } };
    const settings: Settings = { ...DEFAULT_SETTINGS, dataDir, bots: false, web: { ...DEFAULT_SETTINGS.web, port: 0 }, games, tournaments: { programs: [], ports: '20000-20999' } };
    const running = await serve(settings, ['dame'], silentLogger);
    try {
      const response = await fetch(`http://127.0.0.1:${running.webPort ?? 0}/api/games/dame/check-client`);
      expect(response.status).toBe(200);
      const view = (await response.json()) as CheckClientView;
      expect(view.ports).toBe('20000-20999');
      expect(view.usageArgs).toBe('check-client dame --ports 20000-20999 -- ./my-client {host} {port} {gameId} {player}');
      expect(view.exampleArgs).toMatch(/^check-client dame --ports 20000-20999 -- spielhalle bot dame /);
      expect(view.example).toMatch(/^spielhalle check-client dame --ports 20000-20999 -- /);
      expect(view.configFileArgs).toMatch(/^check-client dame --ports 20000-20999 --config-file client\.conf=client\.conf\.in -- /);
    } finally {
      await running.lifecycle.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
    // Without a range the commands stay as they were.
    expect(checkClientView('dame', dameConformance)).toMatchObject({ ports: null, usageArgs: 'check-client dame -- ./my-client {host} {port} {gameId} {player}' });
  });
});
