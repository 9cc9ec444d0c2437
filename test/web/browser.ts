import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { DEFAULT_SETTINGS } from '../../src/config.js';
import type { GameServer } from '../../src/core/game-server.js';
import { silentLogger } from '../../src/core/log.js';
import type { RecordStore } from '../../src/core/records.js';
import type { GameModule } from '../../src/games/types.js';
import { createWebServer, type WebServer } from '../../src/web/server.js';

/**
 * What every game page's browser test starts: the dashboard's real routes for one game server on
 * a free loopback port, and a headless Chromium page on it that collects page errors. Needs
 * web/dist (npm test builds it first).
 */

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Where the tests save their screenshots. */
export const SHOTS = join(ROOT, 'test-results');

/** Debian's headless Chromium, kept off the network beyond what a page asks for. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'],
  });
}

export interface BrowserRig {
  readonly base: string;
  readonly page: Page;
  /** Uncaught errors of the page (a test ends by expecting none). */
  readonly pageErrors: string[];
  close(): Promise<void>;
}

export async function openDashboard(o: {
  readonly module: GameModule;
  readonly server: GameServer;
  readonly store: RecordStore;
  readonly viewport?: { width: number; height: number };
}): Promise<BrowserRig> {
  if (!existsSync(join(ROOT, 'web', 'dist', 'index.html'))) {
    throw new Error('The dashboard is not built: run `npx vite build --config web/vite.config.ts` (npm test does this first).');
  }
  mkdirSync(SHOTS, { recursive: true });
  let web: WebServer | undefined;
  let browser: Browser | undefined;
  const close = async (): Promise<void> => {
    await browser?.close();
    await web?.stop();
  };
  try {
    const register = o.module.registerRoutes;
    web = createWebServer({
      servers: [o.server],
      store: o.store,
      log: silentLogger,
      host: '127.0.0.1',
      port: 0,
      routes: register ? [(app) => register(app, o.server, { settings: DEFAULT_SETTINGS, log: silentLogger, store: o.store })] : [],
    });
    const base = `http://127.0.0.1:${(await web.start()).port}`;
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: o.viewport ?? { width: 1280, height: 1200 } });
    page.setDefaultTimeout(15_000);
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    return { base, page, pageErrors, close };
  } catch (err) {
    await close();
    throw err;
  }
}
