import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import { Rng } from '../../src/core/rng.js';
import { createDameBot } from '../../src/games/dame/bots/index.js';
import { DameClient } from '../../src/games/dame/client.js';
import { serve, type Running } from '../../src/serve.js';
import { launchChromium, ROOT } from './browser.js';

/**
 * Die Liga's pages (issue 34) in headless Chromium, on `serve` with the ladder on and an admin
 * token: two students on the roster play one rated Dame game with their codes (Anna a random
 * mover, Ben a client that never moves: he loses on time); then the Liga page shows the standings
 * in German and English, its staff part (with the token) the roster with codes and an import's
 * error with its line, and a student's private page the game with the reason of the loss and the
 * rating plot, none of them wider than a phone. Needs web/dist (npm test builds it first).
 */

const TOKEN = 'liga-browser-token-0123456789';
const PHONE = { width: 390, height: 844 };

interface Entry {
  name: string;
  code: string;
  page: string;
}

describe('Die Liga in the dashboard', () => {
  let dataDir = '';
  let running: Running | null = null;
  let browser: Browser | undefined;
  let base = '';
  let anna: Entry;
  let ben: Entry;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'web', 'dist', 'index.html')))
      throw new Error('The dashboard is not built: run `npm run build` (npm test does this first).');
    dataDir = mkdtempSync(join(tmpdir(), 'spielhalle-liga-'));
    const settings: Settings = {
      ...DEFAULT_SETTINGS,
      dataDir,
      bots: false,
      web: { ...DEFAULT_SETTINGS.web, port: 0, token: TOKEN },
      games: {
        ...DEFAULT_SETTINGS.games,
        dame: { ...DEFAULT_SETTINGS.games.dame, port: 0, moveTimeMs: 300, motdDelayMs: 0 },
      },
      ladder: { ...DEFAULT_SETTINGS.ladder, enabled: true, games: ['dame'], houseAfterSeconds: 1 },
    };
    const launching = launchChromium();
    running = await serve(settings, ['dame'], silentLogger);
    base = `http://127.0.0.1:${running.webPort}`;
    const damePort = running.servers[0]!.info().port;
    const added = await fetch(`${base}/api/ladder/roster`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ csv: 'Name;Gruppe\nAnna Schmidt;Tutorium 1\n"Müller, Ben";Tutorium 2\n' }),
    });
    expect(added.status).toBe(201);
    [anna, ben] = ((await added.json()) as { entries: Entry[] }).entries as [Entry, Entry];

    // Both come at once, so the ladder pairs them with each other: Ben never answers and loses on time.
    const rng = Rng.seeded(1);
    const random = createDameBot('random');
    const client = (gameId: string, player: ConstructorParameters<typeof DameClient>[0]['player']) =>
      new DameClient({ host: '127.0.0.1', port: damePort, gameId, player }).run();
    const [annaResult, benResult] = await Promise.all([
      client(anna.code, (s, ms) => random(s, ms, rng)),
      client(ben.code, () => new Promise(() => undefined)),
    ]);
    expect(annaResult.outcome).toBe('won');
    expect(benResult.outcome).not.toBe('won');
    await running.ladder!.settled();
    browser = await launching;
  }, 30_000);

  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await running?.lifecycle.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function open(
    url: string,
    o: { locale: string; viewport?: { width: number; height: number } },
  ): Promise<Page> {
    const context = await browser!.newContext({
      viewport: o.viewport ?? { width: 1280, height: 1000 },
      locale: o.locale,
    });
    context.setDefaultTimeout(10_000);
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && msg.text().startsWith('i18n')) pageErrors.push(msg.text());
    });
    await page.goto(url);
    return page;
  }

  const text = async (page: Page, testId: string) =>
    (await page.getByTestId(testId).first().textContent()) ?? '';
  const noOverflow = (page: Page) =>
    page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth');

  it('shows the live ladder, the standings and how to join, in German and then in English', async () => {
    const page = await open(`${base}/#/liga`, { locale: 'de-DE' });
    await page.getByTestId('nav-liga').waitFor();
    const row = page.locator('[data-testid="liga-standings-row"][data-name="Anna Schmidt"]');
    await row.waitFor();
    expect(await page.locator('h1').textContent()).toBe('Die Liga');
    expect(await row.textContent()).toMatch(/^1Anna SchmidtTutorium 1\d+\d+–\d+1vorläufig1\/0\/0$/);
    expect(
      await page.locator('[data-testid="liga-standings-row"][data-name="Müller, Ben"]').textContent(),
    ).toMatch(/0\/0\/1$/);
    expect(await text(page, 'liga-join')).toContain('So spielst du mit');
    expect(await text(page, 'liga-join-command')).toMatch(
      /^\.\/sysprak-client -g <code> {3}# Server 127\.0\.0\.1:\d+$/,
    );
    expect(await text(page, 'liga-join')).toContain('Tutor');
    expect(await text(page, 'liga-live')).toContain('Gerade wartet und spielt niemand.');
    expect(await page.getByTestId('liga-csv').getAttribute('href')).toBe(
      '/api/ladder/dame/standings?format=csv',
    );
    expect(await page.getByTestId('liga-json').getAttribute('href')).toBe('/api/ladder/dame/standings');
    expect(await text(page, 'liga-json')).toBe('Als JSON exportieren');
    // Without the token: a hint for staff, no roster (and no code anywhere).
    await page.getByTestId('liga-staff-hint').waitFor();
    expect(await page.getByTestId('liga-staff').count()).toBe(0);
    expect(await page.content()).not.toContain(anna.code);

    await page.getByTestId('language-en').click();
    await page.getByText('How to join').waitFor();
    expect(await page.locator('h1').textContent()).toBe('The League');
    expect(await row.textContent()).toContain('provisional');
    expect(await text(page, 'nav-liga')).toBe('League');
    expect(await page.evaluate<string[]>('window.__i18nMissing ?? []')).toEqual([]);
  });

  it('shows staff with the token the roster with codes, and an import error with its line', async () => {
    const page = await open(`${base}/?token=${TOKEN}#/liga`, { locale: 'de-DE', viewport: PHONE });
    const annaRow = page.locator('[data-testid="liga-roster-row"][data-name="Anna Schmidt"]');
    await annaRow.waitFor();
    expect(await annaRow.getByTestId('liga-roster-code').textContent()).toBe(anna.code);
    expect(await annaRow.getByTestId('liga-roster-page').getAttribute('href')).toBe(anna.page);
    expect(await page.getByTestId('liga-roster-row').count()).toBe(2);

    await page.getByTestId('liga-import-csv').fill('Name\nAnna\nAnna\n');
    await page.getByTestId('liga-import-send').click();
    const error = page.locator('[data-testid="liga-import-error"][data-line="3"]');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/^Zeile 3: /);
    expect(await page.getByTestId('liga-roster-row').count()).toBe(2);

    // A good import adds a row; revoking it asks once more, then marks it.
    await page.getByTestId('liga-import-csv').fill('Name,Gruppe\nCarla Weber,Tutorium 1\n');
    await page.getByTestId('liga-import-send').click();
    expect(await text(page, 'liga-import-done')).toBe('1 Eintrag hinzugefügt.');
    const carla = page.locator('[data-testid="liga-roster-row"][data-name="Carla Weber"]');
    await carla.getByTestId('liga-revoke').click();
    await carla.getByTestId('liga-revoke-confirm').click();
    await carla.getByText('gesperrt').waitFor();

    // Freezing the season shows on the page; opening it again too.
    await page.getByTestId('liga-freeze').click();
    await page.getByTestId('liga-season-frozen').waitFor();
    await page.getByTestId('liga-unfreeze').click();
    await page.getByTestId('liga-freeze').waitFor();
    expect(await noOverflow(page)).toBe(true);
  });

  it("shows a student's page: codes, rating, the plot, and the game lost with its reason, at desktop and phone width", async () => {
    // The link as the API hands it out: a path, which the dashboard turns into its hash route.
    const page = await open(`${base}${ben.page}`, { locale: 'de-DE' });
    await page.getByTestId('liga-me-played').waitFor();
    expect(page.url()).toBe(`${base}/#${ben.page}`);
    expect(await text(page, 'liga-me-name')).toBe('Müller, Ben');
    expect(await text(page, 'liga-me-code')).toBe(ben.code);
    expect(await page.locator('[data-testid="liga-me-join-dame"] pre').textContent()).toContain(
      `./sysprak-client -g ${ben.code}`,
    );
    expect(await text(page, 'liga-me-status')).toBe('vorläufig bis 10 Partien (noch 9 Partien)');
    const played = page.getByTestId('liga-me-played');
    expect(await played.count()).toBe(1);
    expect(await played.getAttribute('data-outcome')).toBe('lost');
    expect(await played.textContent()).toContain('Niederlage');
    expect(await played.textContent()).toContain('gegen Anna Schmidt');
    expect(await text(page, 'liga-me-change')).toMatch(/^−\d+$/);
    const reason = page.getByTestId('liga-me-reason');
    expect(await reason.getAttribute('data-kind')).toBe('timeout');
    expect(await reason.textContent()).toContain('Zeit überschritten');
    const replay = await page.getByTestId('liga-me-replay').getAttribute('href');
    expect(replay).toMatch(/^#\/matches\/.+/);
    expect(await page.getByTestId('liga-plot-line').getAttribute('points')).toMatch(
      /^[\d.]+,[\d.]+ [\d.]+,[\d.]+$/,
    );
    expect(await noOverflow(page)).toBe(true);

    await page.setViewportSize(PHONE);
    await page.waitForTimeout(100);
    expect(await noOverflow(page)).toBe(true);

    // The replay link opens the recorded game.
    await page.goto(`${base}/${replay!}`);
    // The heading comes before the record has loaded ("Lädt …"): wait for the players' names.
    await page.locator('main h1').first().waitFor();
    await page.locator('main').getByText('Anna Schmidt').first().waitFor({ timeout: 15_000 });
    // Dame's wire carries ASCII names, so the record spells the umlaut out (docs/ladder.md).
    expect(await page.locator('main').textContent()).toContain('Mueller, Ben');
  });

  it('fits the Liga page into a phone without the token too, and has no page errors', async () => {
    const page = await open(`${base}/#/liga`, { locale: 'de-DE', viewport: PHONE });
    await page.locator('[data-testid="liga-standings-row"]').first().waitFor();
    expect(await noOverflow(page)).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});
