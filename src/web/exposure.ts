import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Settings } from '../config.js';
import { ConfigError } from '../core/config.js';
import { isLoopbackHost } from '../core/hosts.js';
import { OSTSEESCHACH_DEFAULTS } from '../games/ostseeschach/server.js';

/**
 * What changes when Spielhalle listens beyond this machine (docs/operations.md, "Exposing the
 * server"): the dashboard asks for a token before it lets anyone change anything, and serve
 * refuses the Ostseeschach default admin password.
 */

/** The addresses beyond loopback that `serve` would listen on for these games and settings. */
export function exposedHosts(settings: Settings, games: readonly string[]): string[] {
  const hosts = new Set<string>();
  const viaHost = games.filter((g) => !(g === 'connect4' && settings.games.connect4.lan));
  if (viaHost.length > 0 && !isLoopbackHost(settings.host)) hosts.add(settings.host);
  if (games.includes('connect4') && settings.games.connect4.lan) hosts.add('0.0.0.0');
  if (settings.web.enabled && !isLoopbackHost(settings.web.host)) hosts.add(settings.web.host);
  return [...hosts];
}

/**
 * Refuses (ConfigError: exit code 2) to listen beyond this machine while the Ostseeschach server
 * runs with the official default admin password, which anyone may know.
 */
export function checkExposure(settings: Settings, games: readonly string[]): void {
  if (
    !games.includes('ostseeschach') ||
    settings.games.ostseeschach.adminPassword !== OSTSEESCHACH_DEFAULTS.adminPassword
  )
    return;
  const exposed = exposedHosts(settings, games);
  if (exposed.length === 0) return;
  throw new ConfigError(
    `refusing to listen on ${exposed.join(', ')} with the default Ostseeschach admin password: ` +
      'set games.ostseeschach.adminPassword (SPIELHALLE_OSTSEESCHACH_ADMIN_PASSWORD), or listen on 127.0.0.1',
  );
}

/** A fresh dashboard token: 24 random bytes, URL-safe. */
export const newToken = (): string => randomBytes(24).toString('base64url');

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** Constant-time comparison (of digests, so the lengths always match). */
export function tokenMatches(given: string | undefined, token: string): boolean {
  return given !== undefined && timingSafeEqual(digest(given), digest(token));
}

/** The token of an `Authorization: Bearer <token>` header. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const auth = request.headers.authorization;
  return typeof auth === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(auth)?.[1] : undefined;
}

/**
 * The admin gate of staff-only routes (registering programs, the ladder's roster), even on
 * loopback where nothing else needs a token: without an admin token configured the route is
 * closed (403 with `closed`, which says how to do it otherwise); a request without the token gets
 * 401. True when the request may go on; otherwise the reply has been sent.
 */
export function admitAdmin(request: FastifyRequest, reply: FastifyReply, adminToken: string | null, texts: { closed: string; missing: string }): boolean {
  if (adminToken === null) {
    void reply.code(403).send({ error: texts.closed });
    return false;
  }
  if (!tokenMatches(bearerToken(request), adminToken)) {
    void reply.code(401).header('www-authenticate', 'Bearer').send({ error: texts.missing });
    return false;
  }
  return true;
}

/** Route config of a WebSocket route that only reads (spectating): it needs no token. */
export interface ReadOnlyRouteConfig {
  readOnly?: boolean;
}

export const TOKEN_REQUIRED =
  'this dashboard is reachable beyond its own machine: changing anything needs its token ' +
  '(open the dashboard with the ?token=… URL printed at start, or send "Authorization: Bearer <token>")';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function isWebSocket(request: FastifyRequest): boolean {
  return (request.headers.upgrade ?? '').toLowerCase() === 'websocket';
}

/** The token a request carries: the bearer header, or `?token=` on a WebSocket upgrade (browsers cannot set headers there). */
function givenToken(request: FastifyRequest): string | undefined {
  const bearer = bearerToken(request);
  if (bearer !== undefined) return bearer;
  if (!isWebSocket(request)) return undefined;
  const query = request.query as Record<string, unknown> | undefined;
  return typeof query?.token === 'string' ? query.token : undefined;
}

/** True if the request may change state: any method but GET/HEAD/OPTIONS, and every WebSocket but a read-only one. */
export function changesState(request: FastifyRequest): boolean {
  if (!READ_METHODS.has(request.method)) return true;
  if (!isWebSocket(request)) return false;
  return (request.routeOptions.config as ReadOnlyRouteConfig | undefined)?.readOnly !== true;
}

/** One onRequest hook on the root instance: 401 (JSON) for a state-changing request without the token. */
export function requireToken(app: FastifyInstance, token: string): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (!changesState(request) || tokenMatches(givenToken(request), token)) {
      done();
      return;
    }
    void reply.code(401).header('www-authenticate', 'Bearer').send({ error: TOKEN_REQUIRED });
  });
}

/** The URL without its `token` query parameter (for logs). */
export function redactToken(url: string): string {
  return url.replace(/([?&])token=[^&#]*/g, '$1token=…');
}
