import type { FastifyInstance } from 'fastify';
import { recordsFile, type Settings } from './config.js';
import type { GameServer } from './core/game-server.js';
import { Lifecycle } from './core/lifecycle.js';
import { createLogger, type Logger } from './core/log.js';
import { RecordStore, StoreLockedError } from './core/records.js';
import { startRetention } from './core/retention.js';
import { GAMES } from './games/registry.js';
import type { ServeContext } from './games/types.js';
import { createWebServer } from './web/server.js';

/** `spielhalle serve`: the chosen game servers, their house bots and the dashboard, in one process. */

export interface Running {
  servers: GameServer[];
  webPort: number | null;
  lifecycle: Lifecycle;
  store: RecordStore;
  log: Logger;
}

export class StartError extends Error {
  override readonly name = 'StartError';
}

export async function serve(settings: Settings, only: readonly string[] = [], log?: Logger): Promise<Running> {
  log ??= createLogger({ level: settings.logLevel, file: settings.logFile || undefined });
  let store: RecordStore;
  try {
    store = new RecordStore(recordsFile(settings), { mode: 'serve' });
  } catch (err) {
    if (err instanceof StoreLockedError) throw new StartError(err.message);
    throw err;
  }
  if (store.recovered > 0) log.warn({ matches: store.recovered }, 'records: matches cut off by a crash marked aborted (reason crash)');
  const lifecycle = new Lifecycle(log);
  lifecycle.add({ name: 'record store', stop: () => store.close() });
  lifecycle.add(startRetention(store, settings.records, log));
  const ctx: ServeContext = { settings, log, store };
  const servers: GameServer[] = [];
  try {
    const games = GAMES.filter((g) => (only.length ? only.includes(g.name) : settings.games[g.name].enabled));
    for (const game of games) {
      const server = game.createServer(ctx);
      try {
        await server.start();
      } catch (err) {
        const info = server.info();
        throw new StartError(`${game.title}: cannot listen on ${info.host}:${info.port} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      }
      servers.push(server);
      lifecycle.add({ name: `${game.name} server`, stop: () => server.stop() });
    }
    let webPort: number | null = null;
    if (settings.web.enabled) {
      const routes = servers.flatMap((server) => {
        const register = games.find((g) => g.name === server.game)?.registerRoutes;
        return register ? [(app: FastifyInstance) => register(app, server, ctx)] : [];
      });
      const web = createWebServer({ servers, store, log, host: settings.web.host, port: settings.web.port, routes });
      try {
        webPort = (await web.start()).port;
      } catch (err) {
        throw new StartError(`dashboard: cannot listen on ${settings.web.host}:${settings.web.port} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      }
      lifecycle.add({ name: 'dashboard', stop: () => web.stop() });
      log.info({ url: `http://${settings.web.host === '0.0.0.0' ? 'localhost' : settings.web.host}:${webPort}/` }, 'dashboard ready');
    }
    if (settings.bots) {
      for (const server of servers) {
        const game = games.find((g) => g.name === server.game);
        const bots = (await game?.startHouseBots?.(ctx, server)) ?? [];
        for (const bot of bots) lifecycle.add(bot);
        if (bots.length) log.info({ game: server.game, bots: bots.length }, 'house bots playing');
      }
    }
    return { servers, webPort, lifecycle, store, log };
  } catch (err) {
    await lifecycle.stop();
    throw err;
  }
}
