import type { FastifyInstance } from 'fastify';
import { recordsFile, recordsWhere, type Settings } from './config.js';
import { formatPortRange, portRangeSetting } from './core/ports.js';
import type { GameServer } from './core/game-server.js';
import { Lifecycle, type Stoppable } from './core/lifecycle.js';
import { createLogger, prettyLogs, type Logger } from './core/log.js';
import type { Records } from './core/record-backend.js';
import { describeNotice, RecordStore, StoreLockedError } from './core/records.js';
import { startRetention } from './core/retention.js';
import { GAMES } from './games/registry.js';
import type { GameModule, ServeContext } from './games/types.js';
import { checkExposure } from './web/exposure.js';

/** `spielhalle serve`: the chosen game servers, their house bots and the dashboard, in one process. */

export interface Running {
  servers: GameServer[];
  webPort: number | null;
  /** The token the dashboard asks for before it lets anyone change anything; null on loopback. */
  webToken: string | null;
  lifecycle: Lifecycle;
  store: Records;
  /** The crash path: commits what is queued and marks running matches crashed, synchronously (SQLite; PostgreSQL cannot). */
  crash(): void;
  log: Logger;
  /** The rated ladder, when `ladder.enabled`. */
  ladder: import('./ladder/ladder.js').Ladder | null;
}

export class StartError extends Error {
  override readonly name = 'StartError';
}

/** The one start-up line per server: `listening` with where. */
function logListening(log: Logger, server: GameServer): void {
  const { game, transport, host, port } = server.info();
  log.info({ game, transport, host, port }, 'listening');
}

const bindError = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? (err as Error).message;

/**
 * What `spielhalle serve` prints on stderr once everything listens: every address (each game's,
 * the dashboard's with the token hint). On a terminal with readable logs (`pretty`) it is framed
 * by two rules so it stands out among the log lines; with JSON logs it is the plain lines as ever
 * (tools wait for its first line, `Spielhalle is running`).
 */
export function startBanner(running: Running, settings: Settings, pretty = prettyLogs(settings.logFormat, settings.logFile || undefined)): string {
  const rows: [string, string][] = running.servers.map((s) => {
    const i = s.info();
    return [i.title, `${i.transport} ${i.host}:${i.port}`];
  });
  if (running.webPort !== null) {
    const url = `http://${settings.web.host}:${running.webPort}/`;
    // Beyond loopback, changes from the dashboard need the token: a new one is shown here, a set one is not repeated.
    const token = running.webToken === null ? '' : !settings.web.token ? `?token=${running.webToken}` : '?token=<web.token>';
    rows.unshift(['Dashboard', `${url}${token}`]);
  }
  const width = Math.max(22, ...rows.map(([title]) => title.length));
  const lines = rows.map(([title, where]) => `  ${title.padEnd(width)} ${where}`);
  const head = `Spielhalle is running (Ctrl-C stops it; records in ${recordsWhere(settings)}):`;
  if (!pretty) return `${head}\n${lines.join('\n')}\n`;
  const rule = '─'.repeat(Math.min(100, Math.max(head.length, ...lines.map((l) => l.length))));
  return `${rule}\n${head}\n${lines.join('\n')}\n${rule}\n`;
}

export async function serve(settings: Settings, only: readonly string[] = [], log?: Logger): Promise<Running> {
  log ??= createLogger({ level: settings.logLevel, file: settings.logFile || undefined, format: settings.logFormat });
  const games = GAMES.filter((g) => (only.length ? only.includes(g.name) : settings.games[g.name].enabled));
  // Before anything opens or binds: listening beyond loopback with a well-known password is a settings error.
  checkExposure(settings, games.map((g) => g.name));
  let store: Records;
  let crash = (): void => undefined;
  const lifecycle = new Lifecycle(log);
  if (settings.database.url !== '') {
    // Imported only now: a SQLite-only start does not load the PostgreSQL driver.
    const { PgRecordStore } = await import('./core/records-pg.js');
    let pgStore: import('./core/records-pg.js').PgRecordStore;
    try {
      // A database that is not there yet (refused, starting up) is waited for, logged with backoff
      // (issue #31): a restart of both after a power cut needs no one. Other errors stop the start.
      pgStore = await PgRecordStore.openWhenReachable({ url: settings.database.url, schema: settings.database.schema, mode: 'serve', log: log.child({ component: 'records' }) });
      store = pgStore;
    } catch (err) {
      throw new StartError(`records: cannot open ${recordsWhere(settings)}: ${(err as Error).message}`);
    }
    lifecycle.add({ name: 'record store', stop: () => store.close() });
    // Retention by age; the size cap is SQLite's only (a table shrinks only by VACUUM here).
    lifecycle.add(startRetention(pgStore, { ...settings.records, maxMegabytes: 0 }, log));
    log.info(
      { database: recordsWhere(settings) },
      settings.records.maxMegabytes > 0 ? 'records in PostgreSQL (records.maxMegabytes is not applied there; keepDays and wireKeepDays are)' : 'records in PostgreSQL',
    );
  } else {
    let sqlite: RecordStore;
    try {
      sqlite = new RecordStore(recordsFile(settings), { mode: 'serve' });
    } catch (err) {
      if (err instanceof StoreLockedError) throw new StartError(err.message);
      throw err;
    }
    if (sqlite.recovered > 0) log.warn({ matches: sqlite.recovered }, 'records: matches cut off by a crash marked aborted (reason crash)');
    // Through the logger, so a full disk reaches the log file and not only stderr (issue 31).
    const recordsLog = log.child({ component: 'records' });
    sqlite.onWriteError = (err) => recordsLog.error({ err }, `records: write failed: ${err.message}`);
    sqlite.onWriteNotice = (n) => {
      if (n.kind === 'recovered') recordsLog.warn({ notice: n }, `records: ${describeNotice(n)}`);
      else recordsLog.error({ notice: n }, `records: ${describeNotice(n)}`);
    };
    store = sqlite;
    crash = () => sqlite.crash();
    lifecycle.add({ name: 'record store', stop: () => sqlite.close() });
    lifecycle.add(startRetention(sqlite, settings.records, log));
  }
  const ctx: ServeContext = { settings, log, store };
  try {
    // Every server listens first, all at once, before any heavy work (dashboard, house bots, engine
    // workers): a client that registers once and then waits (the reference Mia bots) must find it.
    const created = games.map((game) => ({ game, server: game.createServer(ctx) }));
    const started = await Promise.allSettled(created.map(({ server }) => server.start()));
    // The servers that listen, each with its game module.
    const running: { game: GameModule; server: GameServer }[] = [];
    let failure: StartError | null = null;
    for (const [i, { game, server }] of created.entries()) {
      const outcome = started[i];
      if (outcome?.status === 'fulfilled') {
        running.push({ game, server });
        lifecycle.add({ name: `${game.name} server`, stop: () => server.stop() });
        // A game whose port is its house bot's listens only once that bot runs (and not at all without it).
        if (!game.listensWithHouseBots) logListening(log, server);
      } else {
        const info = server.info();
        failure ??= new StartError(`${game.title}: cannot listen on ${info.host}:${info.port} (${bindError(outcome?.reason)})`);
      }
    }
    if (failure) throw failure;
    const servers = running.map((r) => r.server);
    // The rated ladder (issue 34), when on: its doors open on the servers before any client can use them.
    let ladder: import('./ladder/ladder.js').Ladder | null = null;
    if (settings.ladder.enabled) {
      const { startLadder, stopLadder } = await import('./ladder/serve.js');
      try {
        ladder = await startLadder(settings, servers, log);
      } catch (err) {
        throw new StartError(`ladder: cannot open its store in ${settings.dataDir}: ${(err as Error).message}`);
      }
      const open = ladder;
      if (open !== null) lifecycle.add({ name: 'ladder', stop: () => stopLadder(open, servers) });
    }
    const startHouseBots = async ({ game, server }: { game: GameModule; server: GameServer }): Promise<void> => {
      let bots: Stoppable[];
      try {
        bots = (await game.startHouseBots?.(ctx, server)) ?? [];
      } catch (err) {
        if (!game.listensWithHouseBots) throw err;
        const info = server.info();
        throw new StartError(`${game.title}: cannot listen on ${info.host}:${info.port} (${bindError(err)})`);
      }
      for (const bot of bots) lifecycle.add(bot);
      if (bots.length) log.info({ game: server.game, bots: bots.length }, 'house bots playing');
      if (game.listensWithHouseBots && bots.length) logListening(log, server);
    };
    // House bots that are what listens on the game's port come next; the others wait for the dashboard.
    if (settings.bots) for (const r of running.filter((r) => r.game.listensWithHouseBots)) await startHouseBots(r);
    let webPort: number | null = null;
    let webToken: string | null = null;
    if (settings.web.enabled) {
      // Imported only now: fastify and its plugins are not needed to bind the game ports.
      const { createWebServer } = await import('./web/server.js');
      const { checkClientView } = await import('./web/check-client-api.js');
      // The settings' port range (firewalled labs) reaches the "test your client" commands too.
      const ports = portRangeSetting(settings.tournaments.ports);
      const checkClient = GAMES.flatMap((g) => (g.conformance ? [checkClientView(g.name, g.conformance, { ports: ports === null ? null : formatPortRange(ports) })] : []));
      const routes = running.flatMap(({ game, server }) => {
        const register = game.registerRoutes;
        return register ? [(app: FastifyInstance) => register(app, server, ctx)] : [];
      });
      const web = createWebServer({ servers, store, log, host: settings.web.host, port: settings.web.port, routes, token: settings.web.token, tournaments: { dataDir: settings.dataDir, programs: settings.tournaments.programs, ports, ...(settings.database.url === '' ? {} : { queue: { url: settings.database.url, schema: settings.database.schema } }) }, checkClient, ladder });
      try {
        webPort = (await web.start()).port;
      } catch (err) {
        throw new StartError(`dashboard: cannot listen on ${settings.web.host}:${settings.web.port} (${bindError(err)})`);
      }
      lifecycle.add({ name: 'dashboard', stop: () => web.stop() });
      webToken = web.token;
      const url = `http://${settings.web.host === '0.0.0.0' ? 'localhost' : settings.web.host}:${webPort}/`;
      log.info({ component: 'web', transport: 'http', host: settings.web.host, port: webPort, url, token: webToken !== null }, 'listening');
    }
    if (settings.bots) for (const r of running.filter((r) => !r.game.listensWithHouseBots)) await startHouseBots(r);
    return { servers, webPort, webToken, lifecycle, store, crash, log, ladder };
  } catch (err) {
    await lifecycle.stop();
    throw err;
  }
}
