import type { AddressInfo } from 'node:net';
import fastifyWebsocket from '@fastify/websocket';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
} from 'fastify';
import { z } from 'zod';
import type { GameServer, LeaderboardEntry, ServerInfo } from '../core/game-server.js';
import type { Logger } from '../core/log.js';
import { registry } from '../core/metrics.js';
import type { MatchSummary, WireLine, WirePage, WireRecord } from '../core/record-types.js';
import type { Records } from '../core/record-backend.js';
import { isLoopbackHost } from '../core/hosts.js';
import { newToken, redactToken, requireToken, type ReadOnlyRouteConfig } from './exposure.js';
import { trackServers } from './metrics.js';
import { registerLadderRoutes } from './ladder-api.js';
import { registerProgramRoutes } from './programs-api.js';
import type { Ladder } from '../ladder/ladder.js';
import { registerTournamentRoutes, type TournamentRoutesOptions } from './tournaments.js';
import { registerTournamentArchiveRoutes } from './tournament-archive-api.js';
import { spectate } from './spectate.js';
import type { CheckClientView } from './check-client-api.js';
import { defaultStaticDir, registerStatic } from './static.js';

/**
 * The dashboard's HTTP side: JSON API over the game servers and the record store, the spectator
 * WebSocket, /healthz, /metrics and the built browser app. Games are known only through the
 * GameServer surface, so a new game needs no change here.
 */

export interface WebOptions {
  servers: GameServer[];
  store: Records;
  log: Logger;
  host: string;
  port: number;
  /** Default: `<repo>/web/dist`. */
  staticDir?: string;
  /** Routes of the games' own (GameModule.registerRoutes), registered before the static files. */
  routes?: readonly ((app: FastifyInstance) => void)[];
  /**
   * Whether requests that change state (every method but GET/HEAD/OPTIONS, every WebSocket but
   * spectating) need the token. Default: when `host` is not a loopback address.
   */
  requireToken?: boolean;
  /** The token (setting `web.token`); empty or absent: a new random one, when one is required. */
  token?: string | undefined;
  /** The Tournaments page's settings (data dir, registered programs; tests: games). */
  tournaments?: Omit<TournamentRoutesOptions, 'store' | 'log'>;
  /** What each game's "test your client" page shows (`spielhalle check-client`); default: none. */
  checkClient?: readonly CheckClientView[];
  /** The rated ladder (issue 34), when it is on. */
  ladder?: Ladder | null;
}

export interface WebServer {
  app: FastifyInstance;
  /** The token state-changing requests need, or null when they need none (loopback). */
  readonly token: string | null;
  start(): Promise<{ host: string; port: number }>;
  stop(): Promise<void>;
}

const emptyToUndefined = (v: unknown): unknown => (v === '' ? undefined : v);

const matchQuery = z.strictObject({
  game: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .max(64)
      .regex(/^[a-z0-9_-]+$/i, 'game: letters, digits, - or _')
      .optional(),
  ),
  notGame: z.preprocess(emptyToUndefined, z.string().max(64).optional()),
  status: z.preprocess(emptyToUndefined, z.enum(['running', 'finished', 'aborted', 'superseded']).optional()),
  player: z.preprocess(emptyToUndefined, z.string().max(200).optional()),
  limit: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(1000).optional()),
  offset: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(1e9).optional()),
  before: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).optional()),
  since: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).optional()),
});

const detailQuery = z.strictObject({ wire: z.enum(['0', '1']).optional() });

const wireQuery = z.strictObject({
  conn: z.preprocess(emptyToUndefined, z.string().max(200).optional()),
  limit: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(2000).optional()),
  offset: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(1e9).optional()),
});

/** A match's wire log one line per row: a server that writes a step's lines at once (Catan) records one entry. */
function wireLines(wire: readonly WireRecord[]): WireLine[] {
  return wire.flatMap((w) =>
    w.data.includes('\n')
      ? w.data.split('\n').map((data, i) => ({ ...w, data, key: `${w.seq}.${i}` }))
      : [{ ...w, key: String(w.seq) }],
  );
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

function safeInfo(server: GameServer): ServerInfo {
  try {
    return server.info();
  } catch (err) {
    return {
      game: server.game,
      title: server.game,
      protocol: '',
      transport: 'tcp',
      host: '',
      port: 0,
      status: 'failed',
      clients: 0,
      liveMatches: 0,
      error: err instanceof Error ? err.message : String(err),
    };
  }
}

export function createWebServer(options: WebOptions): WebServer {
  const servers = [...options.servers];
  const byGame = new Map(servers.map((s) => [s.game, s]));
  const log = options.log.child({ component: 'web' });
  const { store } = options;

  // Typed as fastify's logger so `app` is the plain FastifyInstance callers expect.
  const fastifyLog: FastifyBaseLogger = log;
  const app: FastifyInstance = Fastify({
    loggerInstance: fastifyLog,
    // Requests are logged at debug level by the onResponse hook below, not at info by fastify.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 64 * 1024,
  });

  const token = (options.requireToken ?? !isLoopbackHost(options.host)) ? options.token || newToken() : null;

  app.addHook('onResponse', (request, reply, done) => {
    if (log.isLevelEnabled('debug')) {
      log.debug(
        {
          method: request.method,
          url: redactToken(request.url),
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime),
        },
        'request',
      );
    }
    done();
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = typeof error.statusCode === 'number' && error.statusCode >= 400 ? error.statusCode : 500;
    if (status >= 500) {
      log.error({ err: error, method: request.method, url: redactToken(request.url) }, 'request failed');
      return reply.code(status).send({ error: 'internal server error' });
    }
    return reply.code(status).send({ error: error.message });
  });

  void app.register(fastifyWebsocket, { options: { maxPayload: 4096 } });
  // After the WebSocket plugin's hooks: it marks upgrade requests in one, and closes the socket of
  // an upgrade answered without upgrading (here: 401) only when it has.
  if (token !== null) app.after(() => requireToken(app, token));

  void app.register((api, _opts, done) => {
    api.get('/healthz', (_request, reply) => {
      const games = servers.map((s) => ({ game: s.game, status: safeInfo(s).status }));
      // A store that cannot write (disk full) is an outage too: the games play, their records wait.
      const health = store.health?.();
      const records = health?.failing
        ? { status: 'failing', reason: health.reason, since: health.since, heldRows: health.heldRows }
        : { status: 'ok' };
      const degraded = games.some((g) => g.status === 'failed') || health?.failing === true;
      const reasons = [
        ...games.filter((g) => g.status === 'failed').map((g) => `${g.game}: server failed`),
        ...(health?.failing ? [`records: writes fail (${health.reason ?? 'unknown'}); ${health.heldRows} rows held in memory`] : []),
      ];
      return reply
        .code(degraded ? 503 : 200)
        .send({ status: degraded ? 'degraded' : 'ok', ...(degraded ? { reason: reasons.join('; ') } : {}), games, records });
    });

    api.get('/metrics', async (_request, reply) => {
      const text = await registry.metrics();
      return reply.type(registry.contentType).send(text);
    });

    api.get('/api/games', () => servers.map(safeInfo));

    api.get<{ Params: { game: string } }>('/api/games/:game', (request, reply) => {
      const server = byGame.get(request.params.game);
      if (!server) return reply.code(404).send({ error: `unknown game: ${request.params.game}` });
      return reply.send({ info: safeInfo(server), snapshot: server.snapshot() });
    });

    const checkClient = new Map((options.checkClient ?? []).map((v) => [v.game, v]));
    api.get<{ Params: { game: string } }>('/api/games/:game/check-client', (request, reply) => {
      const view = checkClient.get(request.params.game);
      if (!view) return reply.code(404).send({ error: `no check-client scenarios for ${request.params.game}` });
      return reply.send(view);
    });

    api.get<{ Params: { game: string } }>('/api/games/:game/leaderboard', (request, reply) => {
      const server = byGame.get(request.params.game);
      if (!server) return reply.code(404).send({ error: `unknown game: ${request.params.game}` });
      const entries: LeaderboardEntry[] = server.leaderboard?.() ?? [];
      return reply.send(entries);
    });

    // The total with these filters (for paging) goes in a header, so the body stays a plain list.
    api.get('/api/matches', async (request, reply) => {
      const parsed = matchQuery.safeParse(request.query);
      if (!parsed.success)
        return reply.code(400).send({ error: `bad query: ${describeIssues(parsed.error)}` });
      const { limit: _limit, offset: _offset, ...filters } = parsed.data;
      void reply.header('x-total-count', String(await store.countListed(filters)));
      return reply.send(await store.listMatches(parsed.data));
    });

    api.get('/api/match-hours', async (request, reply) => {
      const parsed = matchQuery.safeParse(request.query);
      if (!parsed.success)
        return reply.code(400).send({ error: `bad query: ${describeIssues(parsed.error)}` });
      return reply.send(await store.listHours(parsed.data));
    });

    api.get<{ Params: { id: string } }>('/api/matches/:id', async (request, reply) => {
      const parsed = detailQuery.safeParse(request.query);
      if (!parsed.success)
        return reply.code(400).send({ error: `bad query: ${describeIssues(parsed.error)}` });
      const match = await store.getMatch(request.params.id);
      // A record retention or a deletion took says when and why (issue 37).
      if (!match) return reply.code(404).send({ error: `no match with id ${request.params.id}`, pruned: await store.prunedNote(request.params.id) });
      if (parsed.data.wire !== '0') return reply.send(match);
      const { wire, ...rest } = match;
      const summary: MatchSummary = { ...rest, wireLines: wireLines(wire).length };
      return reply.send(summary);
    });

    api.get<{ Params: { id: string } }>('/api/matches/:id/pruned', async (request, reply) => {
      return reply.send({ pruned: await store.prunedNote(request.params.id) });
    });

    api.get<{ Params: { id: string } }>('/api/matches/:id/wire', async (request, reply) => {
      const parsed = wireQuery.safeParse(request.query);
      if (!parsed.success)
        return reply.code(400).send({ error: `bad query: ${describeIssues(parsed.error)}` });
      const match = await store.getMatch(request.params.id);
      if (!match) return reply.code(404).send({ error: `no match with id ${request.params.id}` });
      const all = wireLines(match.wire);
      const counts = new Map<string, number>();
      for (const w of all) counts.set(w.conn, (counts.get(w.conn) ?? 0) + 1);
      const { conn, limit = 200, offset = 0 } = parsed.data;
      const chosen = conn === undefined ? all : all.filter((w) => w.conn === conn);
      const page: WirePage = {
        total: chosen.length,
        offset,
        conns: [...counts].map(([c, lines]) => ({ conn: c, lines })),
        lines: chosen.slice(offset, offset + limit),
      };
      return reply.send(page);
    });

    api.route<{ Querystring: { game?: string } }>({
      method: 'GET',
      url: '/ws/spectate',
      // Spectators only listen: no token needed even when the dashboard is exposed.
      config: { readOnly: true } satisfies ReadOnlyRouteConfig,
      // A plain GET (no upgrade) gets a JSON answer like every other API path.
      handler: (_request, reply) =>
        reply.code(426).send({ error: 'this endpoint needs a WebSocket upgrade' }),
      wsHandler: (socket, request) => {
        const game = typeof request.query.game === 'string' ? request.query.game : '';
        spectate(socket, byGame.get(game), game, log);
      },
    });

    // One list: programs staff register in the dashboard are offered like the settings' own.
    const programs = [...(options.tournaments?.programs ?? [])];
    registerTournamentRoutes(api, { store, log, ...options.tournaments, programs });
    registerTournamentArchiveRoutes(api, { store, log, dataDir: options.tournaments?.dataDir });
    registerProgramRoutes(api, {
      programs,
      adminToken: token ?? (options.token || null),
      dataDir: options.tournaments?.dataDir,
      log,
    });
    if (options.ladder) registerLadderRoutes(api, { ladder: options.ladder, adminToken: token ?? (options.token || null), log });
    // Off, the ladder still answers whether it runs (the menu asks on every page; a 404 would be a console error).
    else api.get('/api/ladder', () => ({ enabled: false, games: [], houseAfterMs: 0, minGames: 0 }));
    for (const register of options.routes ?? []) register(api);
    registerStatic(api, options.staticDir ?? defaultStaticDir());
    done();
  });

  let untrack: (() => void) | null = null;

  return {
    app,
    token,
    async start() {
      // serve logs one `listening` line per server; fastify's own ("Server listening at …") is held back.
      const level = app.log.level;
      if (log.isLevelEnabled('info')) app.log.level = 'warn';
      try {
        await app.listen({ host: options.host, port: options.port });
      } finally {
        app.log.level = level;
      }
      untrack = trackServers(servers);
      const address = app.server.address() as AddressInfo;
      return { host: address.address, port: address.port };
    },
    async stop() {
      untrack?.();
      untrack = null;
      await app.close();
    },
  };
}
