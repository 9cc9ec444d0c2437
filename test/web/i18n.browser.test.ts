import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordStore } from '../../src/core/records.js';
import { GAMES } from '../../src/games/registry.js';
import { openAllGames, PAGES, type AllGamesRig } from './all-games.js';
import { seedStore } from './fixtures.js';

/**
 * Every page (and every tab on it) in German and in English: no message key is missing (i18next
 * reports one to `window.__i18nMissing` and the console), the page says which language it is in,
 * and the choice in the top bar switches and is remembered.
 */

const LANGUAGES = [
  { lang: 'de', locale: 'de-DE', overview: 'Übersicht', matches: 'Partien' },
  { lang: 'en', locale: 'en-US', overview: 'Overview', matches: 'Matches' },
] as const;

describe('the dashboard in German and English', () => {
  const store = new RecordStore(':memory:');
  let rig: AllGamesRig | undefined;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    seedStore(store);
    rig = await openAllGames(store);
  }, 60_000);

  afterAll(async () => {
    for (const c of contexts) await c.close();
    await rig?.close();
    store.close();
  });

  async function newPage(locale: string): Promise<{ page: Page; errors: string[] }> {
    const context = await rig!.context({ width: 1280, height: 900, locale });
    contexts.push(context);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && msg.text().startsWith('i18n')) errors.push(msg.text());
    });
    return { page, errors };
  }

  const missing = (page: Page) => page.evaluate<string[]>('window.__i18nMissing ?? []');

  for (const l of LANGUAGES) {
    it(`shows every page and tab in ${l.lang} without a missing key`, async () => {
      const { page, errors } = await newPage(l.locale);
      const pages = [...PAGES, '#/matches?status=any', '#/matches/mia-round-1'];
      for (const hash of pages) {
        await page.goto('about:blank');
        await page.goto(`${rig!.base}/${hash}`);
        await page.locator('main').first().waitFor();
        await page.waitForTimeout(400);
        expect(await page.evaluate<string>('document.documentElement.lang')).toBe(l.lang);
        const tabs = page.getByRole('tab');
        for (let i = 0; i < (await tabs.count()); i++) {
          await tabs.nth(i).click();
          await page.waitForTimeout(250);
        }
        expect({ hash, missing: await missing(page) }).toEqual({ hash, missing: [] });
      }
      expect(
        await page.getByRole('navigation').getByRole('link', { name: l.overview, exact: true }).count(),
      ).toBe(1);
      expect(errors).toEqual([]);
    }, 120_000);
  }

  it('switches the language from the top bar and remembers it', async () => {
    const { page, errors } = await newPage('en-US');
    await page.goto(`${rig!.base}/#/matches`);
    const nav = page.getByRole('navigation');
    await nav.getByRole('link', { name: 'Matches', exact: true }).waitFor();
    expect(await page.getByTestId('language-en').getAttribute('aria-pressed')).toBe('true');
    await page.getByTestId('language-de').click();
    await nav.getByRole('link', { name: 'Partien', exact: true }).waitFor();
    expect(await page.locator('h1').first().textContent()).toBe('Partien');
    expect(await page.evaluate<string | null>('localStorage.getItem("spielhalle.lang")')).toBe('de');
    await page.reload();
    await nav.getByRole('link', { name: 'Übersicht', exact: true }).waitFor();
    expect(await page.evaluate<string>('document.documentElement.lang')).toBe('de');
    await page.getByTestId('language-en').click();
    await nav.getByRole('link', { name: 'Overview', exact: true }).waitFor();
    expect(await missing(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('links every game page to its "test your client" page, which lists the check-client scenarios', async () => {
    const { page, errors } = await newPage('en-US');
    const withScenarios = GAMES.filter((g) => g.conformance !== undefined);
    expect(withScenarios.map((g) => g.name)).toContain('dame');
    for (const game of GAMES) {
      await page.goto(`${rig!.base}/#/${game.name}`);
      await page.getByTestId('check-client-link').click();
      await page.waitForURL(`**/#/${game.name}/check-client`);
      const rows = page.getByTestId('check-client-scenarios').locator('tbody tr');
      if (game.conformance) {
        await rows.first().waitFor();
        expect(await rows.count()).toBe(game.conformance.scenarios.length);
        expect(await rows.first().locator('code').textContent()).toBe(game.conformance.scenarios[0]!.id);
        expect(await page.getByTestId('check-client-usage').textContent()).toContain(`check-client ${game.name} -- ./my-client {host} {port}`);
      } else {
        await page.getByRole('alert').waitFor();
      }
    }
    await page.goto(`${rig!.base}/#/dame/check-client`);
    expect(await page.getByTestId('check-client-example-installed').textContent()).toMatch(/^spielhalle check-client dame -- spielhalle bot dame /);
    expect(await missing(page)).toEqual([]);
    expect(errors).toEqual([]);
  }, 60_000);
});
