import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordStore } from '../../src/core/records.js';
import { openAllGames, PAGES, type AllGamesRig } from './all-games.js';
import { SHOTS } from './browser.js';
import { GAMES } from '../../src/games/registry.js';
import { seedTournament } from './course-fixtures.js';
import { seedStore, T0 } from './fixtures.js';

/**
 * Every page and every tab at a phone's width (390 px), in English and in German: nothing wider
 * than the screen (wide tables scroll in their own box, boards scale), every tab and the export
 * links on the screen, the "Test your client" link clear of the title and the facts beside it (also
 * at desktop width), and the menu folded behind a button (issue #33, item 11).
 */

const WIDTH = 390;

interface Box {
  tag: string;
  text: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

describe('the dashboard at 390 px', () => {
  const store = new RecordStore(':memory:');
  let rig: AllGamesRig | undefined;
  let context: BrowserContext;
  let page: Page;
  let tournament = '';
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
    tournament = (await seedTournament(store, T0 + 120_000)).id;
    rig = await openAllGames(store, { houseBots: true });
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

  const every = () => [
    ...PAGES,
    ...GAMES.filter((g) => g.conformance).map((g) => `#/${g.name}/check-client`),
    '#/matches?status=any',
    '#/matches/wide-1',
    '#/matches/mia-round-1',
    `#/tournaments/${tournament}`,
    `#/tournaments/${tournament}/entrants/random-1`,
  ];

  // German only in npm test (its words are the longer ones; the layout's overflow causes — boards,
  // tables, tab bars — are the same in both): each pass walks every page and tab, ~36 s on CI.
  for (const lang of ['de'] as const) {
    it(`has no horizontal overflow on any page or tab in ${lang}`, async () => {
      await page.goto(`${rig!.base}/`);
      await page.evaluate(`localStorage.setItem('spielhalle.lang', '${lang}')`);
      const wide: { page: string; width: number }[] = [];
      for (const hash of [...new Set(every())]) {
        await open(hash);
        const name = `${lang}-${hash.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '') || 'overview'}`;
        if (hash === '#/tournaments') {
          await page.getByTestId('new-tournament-toggle').click();
          await page.getByTestId('entrant-row').first().waitFor();
        }
        // A screenshot of what is too wide (taking one of every page and tab costs more than the check).
        const shoot = async (file: string) => {
          const width = await scrollWidth();
          if (width > WIDTH) await page.screenshot({ path: join(SHOTS, `phone-${file}.png`), fullPage: true });
          return width;
        };
        wide.push({ page: hash, width: await shoot(name) });
        const tabs = page.getByRole('tab');
        for (let i = 0; i < (await tabs.count()); i++) {
          await tabs.nth(i).click();
          await page.waitForTimeout(300);
          // Every tab is on the screen (the tab bar wraps rather than cutting one off).
          const box = await tabs.nth(i).boundingBox();
          expect({ page: hash, tab: i, right: Math.min(WIDTH, Math.round((box?.x ?? 0) + (box?.width ?? 0))) }).toEqual({
            page: hash,
            tab: i,
            right: Math.round((box?.x ?? 0) + (box?.width ?? 0)),
          });
          wide.push({ page: `${hash} tab ${i}`, width: await shoot(`${name}-tab-${i}`) });
        }
      }
      expect(wide.filter((w) => w.width > WIDTH)).toEqual([]);
    }, 180_000);
  }

  it('keeps the export links of a tournament on the screen, inside their panel', async () => {
    await open(`#/tournaments/${tournament}`);
    for (const id of ['export-standings', 'export-matches', 'export-json']) {
      const box = await page.evaluate<{ left: boolean; right: boolean }>(`(() => {
        const el = document.querySelector('[data-testid="${id}"]');
        const r = el.getBoundingClientRect();
        const panel = el.closest('.panel').getBoundingClientRect();
        return { left: r.left >= panel.left && r.left >= 0, right: r.right <= panel.right && r.right <= window.innerWidth };
      })()`);
      expect({ id, ...box }).toEqual({ id, left: true, right: true });
    }
  });

  for (const width of [WIDTH, 1280]) {
    it(`keeps the "Test your client" link clear of each game page's title and facts at ${width} px`, async () => {
      await page.setViewportSize({ width, height: 844 });
      try {
        for (const game of GAMES) {
          await open(`#/${game.name}`);
          const link = await page.getByTestId('check-client-link').boundingBox();
          expect(link).not.toBeNull();
          const boxes = await page.evaluate<Box[]>(`[...document.querySelector('main .page-header').children].map((el) => {
            const r = el.getBoundingClientRect();
            return { tag: el.tagName, text: (el.textContent ?? '').slice(0, 40), x: r.x, y: r.y + window.scrollY, w: r.width, h: r.height };
          })`);
          expect(boxes.length).toBeGreaterThan(0);
          const l = { x: link!.x, y: link!.y + (await page.evaluate<number>('window.scrollY')), w: link!.width, h: link!.height };
          const hits = boxes.filter((b) => b.w > 0 && b.x < l.x + l.w && l.x < b.x + b.w && b.y < l.y + l.h && l.y < b.y + b.h);
          expect({ game: game.name, width, hits }).toEqual({ game: game.name, width, hits: [] });
        }
      } finally {
        await page.setViewportSize({ width: WIDTH, height: 844 });
      }
    }, 60_000);
  }

  it('folds the menu behind a button', async () => {
    await page.goto(`${rig!.base}/`);
    await page.evaluate(`localStorage.setItem('spielhalle.lang', 'en')`);
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
