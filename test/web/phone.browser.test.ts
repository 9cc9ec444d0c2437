import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordStore } from '../../src/core/records.js';
import { openAllGames, PAGES, type AllGamesRig } from './all-games.js';
import { SHOTS } from './browser.js';
import { seedStore, T0 } from './fixtures.js';

/**
 * Every page at a phone's width (390 px): nothing wider than the screen (wide tables scroll in
 * their own box), and the menu folded behind a button.
 */

const WIDTH = 390;

describe('the dashboard at 390 px', () => {
  const store = new RecordStore(':memory:');
  let rig: AllGamesRig | undefined;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    seedStore(store);
    // A record with a long unbroken wire line and many seats.
    const id = store.startMatch({
      id: 'wide-1',
      game: 'catan',
      startedAt: T0,
      seats: [0, 1, 2, 3].map((seat) => ({
        seat,
        name: `Spielerin-mit-langem-Namen-${seat}`,
        kind: 'human',
        address: '127.0.0.1:45678',
      })),
    });
    store.addWire({
      matchId: id,
      game: 'catan',
      conn: '127.0.0.1:45678',
      at: T0 + 1,
      dir: 'out',
      data: `{"x":"${'a'.repeat(400)}"}`,
    });
    store.finishMatch(id, {
      status: 'finished',
      endedAt: T0 + 5000,
      result: {
        reason: 'won',
        winner: 0,
        winnerName: 'Spielerin-mit-langem-Namen-0',
        points: { 0: 10, 1: 2 },
        turns: 40,
      },
    });
    rig = await openAllGames(store);
    context = await rig.context({ width: WIDTH, height: 844 });
    page = await context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
  }, 60_000);

  afterAll(async () => {
    await rig?.close();
    store.close();
  });

  const open = async (hash: string) => {
    await page.goto('about:blank');
    await page.goto(`${rig!.base}/${hash}`);
    await page.locator('main').first().waitFor();
    // Let the page load its data (snapshots, lists) before measuring.
    await page.waitForLoadState('networkidle').catch(() => undefined);
    await page.waitForTimeout(300);
  };

  const scrollWidth = () => page.evaluate<number>('document.documentElement.scrollWidth');

  it.each([...PAGES, '#/matches?status=any', '#/matches/wide-1', '#/matches/mia-round-1'])(
    'has no horizontal overflow on %s',
    async (hash) => {
      await open(hash);
      const name = hash.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '') || 'overview';
      await page.screenshot({ path: join(SHOTS, `phone-${name}.png`), fullPage: true });
      expect(await scrollWidth()).toBeLessThanOrEqual(WIDTH);
    },
  );

  it.each(['#/catan', '#/dame', '#/connect4'])(
    'has no horizontal overflow on any tab of %s',
    async (hash) => {
      await open(hash);
      const tabs = page.getByRole('tab');
      for (let i = 0; i < (await tabs.count()); i++) {
        await tabs.nth(i).click();
        await page.waitForTimeout(300);
        const name = `${hash.slice(2)}-tab-${i}`;
        await page.screenshot({ path: join(SHOTS, `phone-${name}.png`), fullPage: true });
        expect({ tab: name, width: await scrollWidth() }).toEqual({
          tab: name,
          width: Math.min(await scrollWidth(), WIDTH),
        });
      }
    },
  );

  it('folds the menu behind a button', async () => {
    await open('#/');
    const button = page.getByTestId('menu-button');
    const matchesLink = page.getByRole('navigation').getByRole('link', { name: 'Matches', exact: true });
    expect(await button.isVisible()).toBe(true);
    expect(await matchesLink.isVisible()).toBe(false);
    expect(await button.getAttribute('aria-expanded')).toBe('false');
    await button.click();
    expect(await button.getAttribute('aria-expanded')).toBe('true');
    await expect.poll(() => matchesLink.isVisible()).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'phone-menu.png') });
    await matchesLink.click();
    expect(new URL(page.url()).hash).toBe('#/matches');
    // Choosing a page folds the menu again.
    await expect.poll(() => matchesLink.isVisible()).toBe(false);
    expect(await scrollWidth()).toBeLessThanOrEqual(WIDTH);
    expect(pageErrors).toEqual([]);
  });
});
