import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Locator, Page } from 'playwright-core';
import { launchChromium } from './browser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { RecordStore } from '../../src/core/records.js';
import { createWebServer, type WebServer } from '../../src/web/server.js';
import { fakeMia, miaRound, ROUND_ONE_WIRE, seedStore, type SeededMatches } from './fixtures.js';

/**
 * The built dashboard in a real headless Chromium against a real web server and a fake Mia
 * server. It needs web/dist (built by `npm test` before vitest runs); without it, it fails.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const distIndex = join(root, 'web', 'dist', 'index.html');
const shots = join(root, 'test-results');

/** One attribute of every element `locator` matches, in document order. */
async function attrs(locator: Locator, name: string): Promise<(string | null)[]> {
  return Promise.all((await locator.all()).map((element) => element.getAttribute(name)));
}

describe('dashboard in a browser', () => {
  const store = new RecordStore(':memory:');
  const mia = fakeMia();
  let seeded: SeededMatches;
  let web: WebServer | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let base: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(distIndex)) {
      throw new Error(
        `The dashboard is not built: ${distIndex} is missing. Build it with \`npx vite build --config web/vite.config.ts\` (npm test does this first).`,
      );
    }
    mkdirSync(shots, { recursive: true });
    seeded = seedStore(store);
    // No staticDir: this also proves the default (<repo>/web/dist) is found from src/.
    web = createWebServer({ servers: [mia], store, log: silentLogger, host: '127.0.0.1', port: 0 });
    const { port } = await web.start();
    base = `http://127.0.0.1:${port}`;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(5000);
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error') pageErrors.push(msg.text());
    });
  });

  afterAll(async () => {
    await browser?.close();
    await web?.stop();
    store.close();
  });

  it('shows one card per game server on the overview and refreshes it', async () => {
    await page.goto(`${base}/`);
    const card = page.getByTestId('server-card-mia');
    await card.waitFor();
    await expect.poll(() => card.getByTestId('server-address').textContent()).toBe('127.0.0.1:9000');
    expect(await card.getByTestId('server-status').textContent()).toBe('running');
    expect(await card.getByTestId('server-clients').textContent()).toBe('4');
    expect(await card.textContent()).toContain('Mäxchen (Mia)');
    expect(await card.textContent()).toContain('maexchen UDP');

    await page.screenshot({ path: join(shots, 'dashboard-overview.png'), fullPage: true });

    // The overview polls every 2 s.
    mia.details.clients = 5;
    mia.details.status = 'failed';
    await expect.poll(() => card.getByTestId('server-clients').textContent(), { timeout: 4000 }).toBe('5');
    expect(await card.getByTestId('server-status').textContent()).toBe('failed');
    mia.details.status = 'running';
  });

  it('follows the Mia table live', async () => {
    await page.getByRole('link', { name: 'Mia live' }).click();
    expect(new URL(page.url()).hash).toBe('#/mia');
    await expect.poll(() => page.getByTestId('ws-state').getAttribute('data-state')).toBe('open');
    await expect.poll(() => page.getByTestId('mia-round-number').textContent()).toBe('7');
    expect(await page.getByTestId('mia-player-row-bob').textContent()).toContain('127.0.0.1:40002');
    expect(await page.getByTestId('mia-player-row-dave').textContent()).toContain('no');
    expect(await page.getByTestId('mia-turn-alice').getAttribute('aria-current')).toBe('true');
    expect(await page.getByTestId('mia-leader-row').allTextContents()).toEqual([
      '1bob7',
      '2alice4',
      '3dave2',
      '4carol1',
    ]);
    expect(await page.getByTestId('mia-announcement').count()).toBe(0);

    // A public line shows up at once (from the event), the announcement with the next snapshot.
    const round = mia.state.round!;
    round.log.push('ANNOUNCED;alice;3,1');
    round.announcements.push({ name: 'alice', dice: '3,1' });
    round.toAct = 'bob';
    mia.publish('line', { line: 'ANNOUNCED;alice;3,1' });
    await expect
      .poll(() => page.getByTestId('mia-log-line').allTextContents())
      .toEqual(['ROUND STARTED;7;alice,bob,carol', 'ANNOUNCED;alice;3,1']);
    await expect.poll(() => page.getByTestId('mia-announcement').count()).toBe(1);
    expect(await page.getByTestId('mia-announcement').getAttribute('data-dice')).toBe('3,1');
    expect(await page.getByTestId('mia-announcement').textContent()).toContain('alice');
    expect(await page.getByTestId('mia-turn-bob').getAttribute('aria-current')).toBe('true');

    round.announcements.push({ name: 'bob', dice: '2,1' });
    round.log.push('ANNOUNCED;bob;2,1');
    mia.publish('line', { line: 'ANNOUNCED;bob;2,1' });
    await expect.poll(() => page.getByTestId('mia-announcement').count()).toBe(2);
    await page.screenshot({ path: join(shots, 'dashboard-mia-round.png'), fullPage: true });

    // The round ends and the next one starts.
    const finished = {
      ...round,
      phase: 'over' as const,
      toAct: null,
      losers: ['carol'],
      reason: 'SEE',
      matchId: seeded.roundOne,
    };
    mia.state.recent = [finished];
    mia.state.roundsPlayed = 7;
    mia.state.round = miaRound(8, { phase: 'joining', players: [], toAct: null, log: [] });
    mia.publish('roundOver', finished);
    mia.publish('roundStarting', { number: 8 });
    await expect.poll(() => page.getByTestId('mia-round-number').textContent()).toBe('8');
    expect(await page.getByTestId('mia-announcement').count()).toBe(0);
    await expect.poll(() => page.getByTestId('mia-recent-row').count()).toBe(1);
    expect(await page.getByTestId('mia-recent-row').textContent()).toContain('carol');
    await expect.poll(() => page.getByTestId('mia-rounds-played').textContent()).toBe('7');
  });

  it('reconnects when the spectator socket drops', async () => {
    for (const client of web!.app.websocketServer.clients) client.terminate();
    await expect
      .poll(() => page.getByTestId('ws-state').getAttribute('data-state'), { interval: 20 })
      .toBe('reconnecting');
    mia.state.round = miaRound(9);
    await expect
      .poll(() => page.getByTestId('ws-state').getAttribute('data-state'), { timeout: 4000 })
      .toBe('open');
    // The fresh connection starts with a fresh snapshot.
    await expect.poll(() => page.getByTestId('mia-round-number').textContent()).toBe('9');
  });

  it('lists recorded matches and shows one with its wire log', async () => {
    await page.getByTestId('mia-recent-row').getByRole('link', { name: 'details' }).click();
    expect(new URL(page.url()).hash).toBe(`#/matches/${seeded.roundOne}`);
    await expect.poll(() => page.getByTestId('wire-line').count()).toBe(ROUND_ONE_WIRE.length);
    expect(await page.getByTestId('match-status').textContent()).toBe('finished');
    expect(await page.getByTestId('seat-row').count()).toBe(2);
    expect(await page.getByTestId('event-row').count()).toBe(4);
    expect(await page.getByTestId('match-result').textContent()).toContain('SEE_BEFORE_FIRST_ROLL');
    const lines = page.getByTestId('wire-line');
    expect(await lines.nth(10).textContent()).toContain('ANNOUNCED;alice;3,1');
    expect(await lines.nth(10).getAttribute('data-dir')).toBe('out');
    expect(await lines.nth(2).getAttribute('data-dir')).toBe('in');
    expect(await lines.nth(2).textContent()).toContain('+0.010 s');
    // The stray \r a client sent is made visible.
    expect(await lines.nth(12).textContent()).toContain('SEE;tok-5\\r');
    expect(await lines.nth(12).locator('.ctrl').textContent()).toBe('\\r');

    // One connection only.
    await page.getByTestId('wire-conn-select').selectOption('127.0.0.1:40002');
    const bobLines = ROUND_ONE_WIRE.filter((w) => w.conn === '127.0.0.1:40002');
    await expect.poll(() => lines.count()).toBe(bobLines.length);
    expect(await attrs(lines, 'data-conn')).toEqual(bobLines.map(() => '127.0.0.1:40002'));
    await page.screenshot({ path: join(shots, 'dashboard-match-detail.png'), fullPage: true });

    await page.getByRole('link', { name: 'Matches', exact: true }).click();
    const rows = page.getByTestId('match-row');
    // Default filter: finished matches of every game, newest first; Mia's rounds counted per hour.
    await expect.poll(() => attrs(rows, 'data-match-id')).toEqual([seeded.connect4]);
    await expect.poll(() => page.getByTestId('match-hour-row').count()).toBe(1);
    await page.getByTestId('matches-status-filter').selectOption('any');
    await page.getByTestId('matches-game-filter').selectOption('mia');
    await expect.poll(() => attrs(rows, 'data-match-id')).toEqual([seeded.roundTwo, seeded.roundOne]);
    expect(await rows.nth(1).textContent()).toContain('1.23 s');
    expect(await rows.nth(1).textContent()).toContain('alice, bob');
    expect(new URL(page.url()).hash).toBe('#/matches?game=mia&status=any');
    await page.screenshot({ path: join(shots, 'dashboard-matches.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
  });
});
