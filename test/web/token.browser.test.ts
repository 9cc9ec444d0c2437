import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import { RecordStore } from '../../src/core/records.js';
import { Connect4Engine } from '../../src/games/connect4/engine.js';
import { Connect4Hub } from '../../src/games/connect4/hub.js';
import { connect4 } from '../../src/games/connect4/index.js';
import { createWebServer, type WebServer } from '../../src/web/server.js';
import { launchChromium, ROOT } from './browser.js';

/**
 * The dashboard of an exposed server (issue 15) in headless Chromium: opened with the `?token=…`
 * URL printed at start, the page keeps the token, takes it out of the address bar and sends it
 * with every change (a POST, a play WebSocket); opened without it, the server's 401 explains why
 * nothing happens. Needs web/dist (npm test builds it first).
 */

const TOKEN = 'browser-token-0123456789';

describe('the dashboard token in a browser', () => {
  const store = new RecordStore(':memory:');
  let hub: Connect4Hub;
  let web: WebServer;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'web', 'dist', 'index.html'))) throw new Error('The dashboard is not built: run `npm run build` (npm test does this first).');
    hub = new Connect4Hub({ host: '127.0.0.1', port: 0, broadcastAddress: null, peerPorts: [], store, log: silentLogger, engine: new Connect4Engine() });
    await hub.start();
    const register = connect4.registerRoutes;
    web = createWebServer({
      servers: [hub],
      store,
      log: silentLogger,
      host: '127.0.0.1',
      port: 0,
      routes: register ? [(app) => register(app, hub, { settings: DEFAULT_SETTINGS, log: silentLogger, store })] : [],
      requireToken: true,
      token: TOKEN,
    });
    base = `http://127.0.0.1:${(await web.start()).port}`;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser.close();
    await web.stop();
    await hub.stop();
    store.close();
  });

  it('without the token: the page shows the 401 and changes nothing', async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    try {
      await page.goto(`${base}/#/connect4`);
      await page.getByTestId('c4-new-game').click();
      await expect.poll(async () => (await page.getByTestId('c4-error').textContent()) ?? '').toMatch(/needs its token/);
      expect(hub.solverGames.size).toBe(0);
      await page.getByTestId('c4-tab-peer').click();
      await page.getByTestId('c4-peer-connect').click();
      // The upgrade is refused: the socket closes and the lobby form stays.
      await expect.poll(async () => page.getByText('disconnected').count()).toBe(1);
    } finally {
      await page.close();
    }
  });

  it('with ?token=: keeps it, hides it, and sends it with a POST and on the play socket', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    try {
      await page.goto(`${base}/?token=${TOKEN}#/connect4`);
      await expect.poll(() => page.url()).toBe(`${base}/#/connect4`);
      expect(await page.evaluate("window.localStorage.getItem('spielhalle.token')")).toBe(TOKEN);
      await page.getByTestId('c4-new-game').click();
      await expect.poll(async () => page.getByTestId('c4-board').count()).toBe(1);
      expect(await page.getByTestId('c4-error').count()).toBe(0);

      // A reload (no token in the URL any more) still has it.
      await page.reload();
      await page.getByTestId('c4-tab-peer').click();
      await page.getByTestId('c4-peer-connect').click();
      await expect.poll(async () => page.getByText('Your peer:').count()).toBe(1);
    } finally {
      await context.close();
    }
  });
});
