import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { DEFAULT_SETTINGS, type Settings } from '../../src/config.js';
import { ConfigError } from '../../src/core/config.js';
import { silentLogger } from '../../src/core/log.js';
import { RecordStore } from '../../src/core/records.js';
import { GAMES } from '../../src/games/registry.js';
import { serve, type Running } from '../../src/serve.js';
import { isLoopbackHost } from '../../src/core/hosts.js';
import { checkExposure, exposedHosts, redactToken, TOKEN_REQUIRED } from '../../src/web/exposure.js';
import { createWebServer, type WebServer } from '../../src/web/server.js';
import { FakeGameServer } from './fixtures.js';


/** Issue 15, "Safe when exposed": the dashboard token and the refusal of the default admin password. */

const TOKEN = 'test-token-0123456789abcdef';

/** A socket's fate: open (then closed by us), or the HTTP status that refused the upgrade. */
function tryWebSocket(url: string, headers: Record<string, string> = {}): Promise<'open' | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => {
      ws.close();
      resolve('open');
    });
    ws.on('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('error', (err: Error) => reject(err));
  });
}

describe('isLoopbackHost', () => {
  it('knows loopback from everything else', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', '127.255.1.9', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1', '0:0:0:0:0:0:0:1'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'example.org', '128.0.0.1', '::ffff:10.0.0.1', ''])
      expect(isLoopbackHost(host), host).toBe(false);
  });
});

describe('the default Ostseeschach admin password beyond loopback', () => {
  const all = GAMES.map((g) => g.name);
  const settings = (over: Partial<Settings> = {}, ostsee: Partial<Settings['games']['ostseeschach']> = {}): Settings => ({
    ...DEFAULT_SETTINGS,
    ...over,
    games: { ...DEFAULT_SETTINGS.games, ostseeschach: { ...DEFAULT_SETTINGS.games.ostseeschach, ...ostsee } },
  });

  it('is refused for a non-loopback game host, dashboard host or Connect Four LAN', () => {
    expect(() => checkExposure(settings({ host: '0.0.0.0' }), all)).toThrow(ConfigError);
    expect(() => checkExposure(settings({ host: '0.0.0.0' }), all)).toThrow(/refusing to listen on 0\.0\.0\.0 with the default Ostseeschach admin password/);
    expect(() => checkExposure(settings({ web: { ...DEFAULT_SETTINGS.web, host: '192.168.1.5' } }), all)).toThrow(/192\.168\.1\.5/);
    const lan = settings();
    lan.games.connect4 = { ...lan.games.connect4, lan: true };
    expect(exposedHosts(lan, all)).toEqual(['0.0.0.0']);
    expect(() => checkExposure(lan, all)).toThrow(ConfigError);
  });

  it('is fine on loopback, with a password of its own, or without the Ostseeschach server', () => {
    expect(() => checkExposure(settings(), all)).not.toThrow();
    expect(() => checkExposure(settings({ host: '0.0.0.0' }, { adminPassword: 'something-else' }), all)).not.toThrow();
    expect(() => checkExposure(settings({ host: '0.0.0.0' }), ['mia', 'dame'])).not.toThrow();
    // A disabled dashboard's host does not count.
    expect(exposedHosts(settings({ web: { ...DEFAULT_SETTINGS.web, enabled: false, host: '0.0.0.0' } }), all)).toEqual([]);
  });

  it('stops serve() before it opens or binds anything', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'spielhalle-exposed-')), 'data');
    try {
      const s = settings({ host: '0.0.0.0', dataDir });
      await expect(serve(s, [], silentLogger)).rejects.toThrow(ConfigError);
      // Not even the record store was created.
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      rmSync(dirname(dataDir), { recursive: true, force: true });
    }
  });
});

/** A state-changing route and a play socket as a game registers them, to count how often they ran. */
function testRoutes(hits: { post: number; play: number }) {
  return (app: FastifyInstance) => {
    app.post('/api/test/games', () => {
      hits.post++;
      return { ok: true };
    });
    app.route({
      method: 'GET',
      url: '/ws/test/play',
      handler: (_request, reply) => reply.code(426).send({ error: 'upgrade' }),
      wsHandler: (socket) => {
        hits.play++;
        socket.close(1000, 'bye');
      },
    });
  };
}

describe('the dashboard token', () => {
  const store = new RecordStore(':memory:');
  const mia = new FakeGameServer('mia', { rounds: [] });
  const hits = { post: 0, play: 0 };
  let web: WebServer;
  let base: string;

  beforeAll(async () => {
    web = createWebServer({ servers: [mia], store, log: silentLogger, host: '127.0.0.1', port: 0, routes: [testRoutes(hits)], requireToken: true, token: TOKEN });
    const { port } = await web.start();
    base = `127.0.0.1:${port}`;
  });

  afterAll(async () => {
    await web.stop();
    store.close();
  });

  const post = (headers: Record<string, string> = {}, path = '/api/test/games') =>
    fetch(`http://${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });

  it('answers a state-changing request without it with 401 and a JSON error', async () => {
    const before = hits.post;
    const none = await post();
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ error: TOKEN_REQUIRED });
    const wrong = await post({ authorization: 'Bearer not-the-token-at-all' });
    expect(wrong.status).toBe(401);
    // ?token= counts only for WebSockets, where a browser cannot set a header.
    expect((await post({}, `/api/test/games?token=${TOKEN}`)).status).toBe(401);
    expect(hits.post).toBe(before);
  });

  it('lets it through with Authorization: Bearer <token>', async () => {
    const ok = await post({ authorization: `Bearer ${TOKEN}` });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ok: true });
  });

  it('keeps every GET open', async () => {
    expect((await fetch(`http://${base}/api/games`)).status).toBe(200);
    expect((await fetch(`http://${base}/healthz`)).status).toBe(200);
    expect((await fetch(`http://${base}/api/matches`)).status).toBe(200);
  });

  it('asks a play WebSocket for ?token= and lets a spectator in without one', async () => {
    const before = hits.play;
    expect(await tryWebSocket(`ws://${base}/ws/test/play`)).toBe(401);
    expect(await tryWebSocket(`ws://${base}/ws/test/play?token=wrong`)).toBe(401);
    expect(hits.play).toBe(before);
    expect(await tryWebSocket(`ws://${base}/ws/test/play?token=${TOKEN}`)).toBe('open');
    expect(await tryWebSocket(`ws://${base}/ws/test/play`, { authorization: `Bearer ${TOKEN}` })).toBe('open');
    expect(await tryWebSocket(`ws://${base}/ws/spectate?game=mia`)).toBe('open');
  });

  it('closes the socket of a refused upgrade', async () => {
    const fresh = createWebServer({ servers: [], store, log: silentLogger, host: '127.0.0.1', port: 0, routes: [testRoutes(hits)], requireToken: true, token: TOKEN });
    const { port } = await fresh.start();
    try {
      // A client that asks for an upgrade and then just stays: the server must hang up on it, since
      // an upgrade request's socket is no longer the HTTP server's to close (each would hold a descriptor for good).
      const client = connect({ host: '127.0.0.1', port });
      let answer = '';
      client.on('data', (d: Buffer) => (answer += d.toString()));
      const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
      client.write(
        'GET /ws/test/play HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
      );
      await Promise.race([closed, new Promise((_, reject) => setTimeout(() => reject(new Error(`still open; got: ${answer}`)), 2000))]);
      expect(answer).toMatch(/^HTTP\/1\.1 401/);
      for (let i = 0; i < 3; i++) expect(await tryWebSocket(`ws://127.0.0.1:${port}/ws/test/play`)).toBe(401);
    } finally {
      // …and a server that refused upgrades still stops at once.
      await Promise.race([fresh.stop(), new Promise((_, reject) => setTimeout(() => reject(new Error('stop hangs')), 3000))]);
    }
  });

  it('is not asked for on loopback, and is made up when none is set beyond it', async () => {
    const local = createWebServer({ servers: [], store, log: silentLogger, host: '127.0.0.1', port: 0, routes: [testRoutes(hits)] });
    expect(local.token).toBeNull();
    const open = await local.app.inject({ method: 'POST', url: '/api/test/games', payload: {} });
    expect(open.statusCode).toBe(200);
    await local.stop();

    // Not started: only the decision is under test, nothing listens beyond loopback.
    const exposed = createWebServer({ servers: [], store, log: silentLogger, host: '0.0.0.0', port: 0, routes: [testRoutes(hits)] });
    expect(exposed.token).toMatch(/^[\w-]{32}$/);
    expect((await exposed.app.inject({ method: 'POST', url: '/api/test/games', payload: {} })).statusCode).toBe(401);
    const ok = await exposed.app.inject({ method: 'POST', url: '/api/test/games', payload: {}, headers: { authorization: `Bearer ${exposed.token ?? ''}` } });
    expect(ok.statusCode).toBe(200);
    await exposed.stop();
  });

  it('keeps the token out of the request log', () => {
    expect(redactToken(`/ws/dame/play?game=x&token=${TOKEN}&name=a`)).toBe('/ws/dame/play?game=x&token=…&name=a');
  });
});

describe('every game route that changes state', () => {
  let running: Running;
  let web: WebServer;
  const seen: RouteOptions[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'spielhalle-token-routes-'));

  beforeAll(async () => {
    const games = Object.fromEntries(Object.entries(DEFAULT_SETTINGS.games).map(([name, g]) => [name, { ...g, port: 0 }])) as Settings['games'];
    const settings: Settings = { ...DEFAULT_SETTINGS, dataDir, bots: false, web: { ...DEFAULT_SETTINGS.web, enabled: false }, games };
    running = await serve(settings, [], silentLogger);
    const ctx = { settings, log: silentLogger, store: running.store };
    const routes = running.servers.flatMap((server) => {
      const register = GAMES.find((g) => g.name === server.game)?.registerRoutes;
      return register ? [(app: FastifyInstance) => register(app, server, ctx)] : [];
    });
    web = createWebServer({ servers: running.servers, store: running.store, log: silentLogger, host: '127.0.0.1', port: 0, routes, requireToken: true, token: TOKEN });
    web.app.addHook('onRoute', (route) => {
      seen.push(route);
    });
    await web.app.ready();
  });

  afterAll(async () => {
    await web.stop();
    await running.lifecycle.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('needs the token (every POST, PUT, DELETE, PATCH and every play WebSocket); every plain GET does not', async () => {
    const methods = (r: RouteOptions): string[] => (Array.isArray(r.method) ? r.method : [r.method]);
    const changing = seen.filter((r) => methods(r).some((m) => !['GET', 'HEAD', 'OPTIONS'].includes(m)));
    const sockets = seen.filter((r) => r.wsHandler !== undefined);
    // The games' own: Catan, Connect Four and Dame create games and seat browser players.
    expect(changing.map((r) => r.url)).toEqual(expect.arrayContaining(['/api/catan/games', '/api/catan/lobbies/fill', '/api/connect4/games', '/api/dame/games']));
    expect(sockets.map((r) => r.url)).toEqual(expect.arrayContaining(['/ws/spectate', '/ws/catan/play', '/ws/catan/relay', '/ws/connect4/peer', '/ws/dame/play']));
    for (const route of changing) {
      const url = route.url.replace(/:(\w+)/g, 'x');
      for (const method of methods(route).filter((m) => !['GET', 'HEAD', 'OPTIONS'].includes(m))) {
        const r = await web.app.inject({ method: method as 'POST', url, payload: {} });
        expect(r.statusCode, `${method} ${url}`).toBe(401);
      }
    }
    const upgrade = { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13' };
    for (const route of sockets.filter((r) => r.url !== '/ws/spectate')) {
      const r = await web.app.inject({ method: 'GET', url: route.url, headers: upgrade });
      expect(r.statusCode, route.url).toBe(401);
    }
    for (const url of ['/api/games', '/api/catan/lobbies', '/api/dame/games', '/api/catan/players']) {
      const r = await web.app.inject({ method: 'GET', url });
      expect(r.statusCode, url).toBe(200);
    }
  });
});
