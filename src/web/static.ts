import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The built dashboard (web/dist) with a single-page-app fallback: a GET that is not an API or
 * WebSocket path and names no file gets index.html, so #-routes and reloads always work.
 */

/** `<repo>/web/dist`, found by walking up to package.json: works from src/ (tests) and dist/. */
export function defaultStaticDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  let dir = here;
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'web', 'dist');
    const parent = dirname(dir);
    if (parent === dir) return resolve(here, '..', '..', 'web', 'dist');
    dir = parent;
  }
}

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Spielhalle</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; line-height: 1.5">
<h1>Spielhalle</h1>
<p>The dashboard is not built yet. Run <code>npm run build</code> and restart the server.</p>
<p>The JSON API works without it: <a href="/api/games">/api/games</a>, <a href="/api/matches">/api/matches</a>,
<a href="/healthz">/healthz</a>, <a href="/metrics">/metrics</a>.</p>
</body></html>
`;

const isApiPath = (url: string): boolean => /^\/(api|ws)(\/|\?|$)/.test(url);

export function registerStatic(app: FastifyInstance, staticDir: string): void {
  const built = existsSync(join(staticDir, 'index.html'));
  if (built) {
    void app.register(fastifyStatic, { root: staticDir, prefix: '/', wildcard: true, index: 'index.html' });
  } else {
    app.get('/', (_request, reply) => reply.type('text/html; charset=utf-8').send(NOT_BUILT));
  }

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const wantsPage = (request.method === 'GET' || request.method === 'HEAD') && !isApiPath(request.url);
    if (wantsPage && built) return reply.type('text/html; charset=utf-8').sendFile('index.html');
    if (wantsPage) return reply.code(404).type('text/html; charset=utf-8').send(NOT_BUILT);
    return reply.code(404).send({ error: `not found: ${request.method} ${request.url.split('?')[0] ?? ''}` });
  });
}
