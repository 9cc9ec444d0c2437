import type { Browser, BrowserContext } from 'playwright-core';
import { launchChromium } from './browser.js';
import { DEFAULT_SETTINGS, type Settings } from '../../src/config.js';
import type { GameServer } from '../../src/core/game-server.js';
import { silentLogger } from '../../src/core/log.js';
import type { RecordStore } from '../../src/core/records.js';
import { GAMES } from '../../src/games/registry.js';
import { createWebServer, type WebServer } from '../../src/web/server.js';
import { checkClientView } from '../../src/web/check-client-api.js';

/**
 * Every game's real server on free loopback ports (no house bots) behind one dashboard, and a
 * headless Chromium: for tests that visit every page (phone width, languages).
 */
export interface AllGamesRig {
  readonly base: string;
  readonly browser: Browser;
  /** A fresh browser context (its own localStorage) with these options. */
  context(o: { width: number; height: number; locale?: string; languages?: string }): Promise<BrowserContext>;
  close(): Promise<void>;
}

export const PAGES = [
  '#/',
  '#/catan',
  '#/mia',
  '#/connect4',
  '#/dame',
  '#/ostseeschach',
  '#/dame/check-client',
  '#/matches',
  '#/matches/no-such-match',
  '#/tournaments',
  '#/nowhere/at/all',
];

/**
 * `houseBots`: also start each game's house bots (as `npm start` does), so the game pages show
 * live boards, rounds and games, as a visitor of a running server sees them (all but Connect
 * Four's, a UDP broadcast peer).
 */
export async function openAllGames(store: RecordStore, o: { houseBots?: boolean } = {}): Promise<AllGamesRig> {
  const games = Object.fromEntries(
    Object.entries(DEFAULT_SETTINGS.games).map(([name, s]) => [name, { ...s, port: 0 }]),
  ) as unknown as Settings['games'];
  const settings: Settings = { ...DEFAULT_SETTINGS, host: '127.0.0.1', games };
  const ctx = { settings, log: silentLogger, store };
  const servers: GameServer[] = [];
  const bots: { stop(): Promise<void> | void }[] = [];
  let web: WebServer | undefined;
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    await web?.stop();
    await Promise.allSettled(bots.map(async (b) => b.stop()));
    await Promise.allSettled(servers.map((s) => s.stop()));
  };
  try {
    for (const game of GAMES) {
      const server = game.createServer(ctx);
      servers.push(server);
      await server.start();
      // Not Connect Four's: its house bot is a UDP broadcast peer, heard by every test on the machine.
      if (o.houseBots === true && game.listensWithHouseBots !== true) bots.push(...((await game.startHouseBots?.(ctx, server)) ?? []));
    }
    web = createWebServer({
      servers,
      store,
      log: silentLogger,
      host: '127.0.0.1',
      port: 0,
      ...(process.env.DASHBOARD_DIST ? { staticDir: process.env.DASHBOARD_DIST } : {}),
      checkClient: GAMES.flatMap((g) => (g.conformance ? [checkClientView(g.name, g.conformance)] : [])),
      routes: GAMES.flatMap((game, i) => {
        const register = game.registerRoutes;
        const server = servers[i]!;
        return register ? [(app: Parameters<typeof register>[0]) => register(app, server, ctx)] : [];
      }),
    });
    const base = `http://127.0.0.1:${(await web.start()).port}`;
    const b = await launchChromium();
    browser = b;
    return {
      base,
      browser: b,
      context: async (o) => {
        const context = await b.newContext({
          viewport: { width: o.width, height: o.height },
          locale: o.locale ?? 'en-US',
          ...(o.languages ? { extraHTTPHeaders: { 'accept-language': o.languages } } : {}),
        });
        context.setDefaultTimeout(10_000);
        return context;
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
