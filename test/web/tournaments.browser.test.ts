import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { RecordStore } from '../../src/core/records.js';
import { createWebServer, type WebServer } from '../../src/web/server.js';
import { launchChromium, ROOT, SHOTS } from './browser.js';

/**
 * The Tournaments page in headless Chromium against the real Mia tournament support (tables on
 * their own loopback servers, our bots in this process) and one registered program that crashes:
 * a form with a bad setting shows the error line, the corrected one starts the tournament, the
 * progress reaches the end, the standings and the chart fill in, a match opens its record and the
 * program's entrant page shows its captured stderr. Then in German and at a phone's width.
 * Needs web/dist (npm test builds it first).
 */

// It reaches its table (a datagram that is no REGISTER) and then dies: the preflight's smoke start
// lets it in (it started), the match counts the crash (issue #33).
const CRASHER = `node -e "const s = require('dgram').createSocket('udp4'); process.stderr.write('kaputt: keine Ansage\\\\n'); s.send('HALLO', Number(process.argv[1]), '127.0.0.1', () => process.exit(3))" {port}`;

describe('the Tournaments page', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spielhalle-tournaments-browser-'));
  const store = new RecordStore(':memory:');
  let web: WebServer;
  let browser: Browser;
  let base: string;
  let tournamentUrl = '';
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'web', 'dist', 'index.html')))
      throw new Error('The dashboard is not built: run `npm run build` (npm test does this first).');
    web = createWebServer({
      servers: [],
      store,
      log: silentLogger,
      host: '127.0.0.1',
      port: 0,
      tournaments: {
        dataDir: dir,
        programs: [{ name: 'crasher', game: 'mia', command: CRASHER, limits: { wallSeconds: 20 } }],
      },
    });
    base = `http://127.0.0.1:${(await web.start()).port}`;
    browser = await launchChromium();
  });

  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser.close();
    await web.stop();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function newPage(o: { width: number; locale: string }): Promise<{ page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width: o.width, height: 900 }, locale: o.locale });
    context.setDefaultTimeout(15_000);
    contexts.push(context);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && msg.text().startsWith('i18n')) errors.push(msg.text());
    });
    return { page, errors };
  }

  it('creates a Mia tournament from the browser and shows it to the end', async () => {
    const { page, errors } = await newPage({ width: 1280, locale: 'en-US' });
    await page.goto(`${base}/#/tournaments`);
    await page.getByRole('navigation').getByRole('link', { name: 'Tournaments', exact: true }).waitFor();
    await page.getByTestId('new-tournament-toggle').click();
    const form = page.getByTestId('new-tournament');
    await form.waitFor();
    await page.getByTestId('tournament-game').selectOption('mia');
    expect(await page.getByTestId('tournament-format').locator('option').allTextContents()).toEqual([
      'tables',
    ]);
    await page.getByTestId('tournament-name').fill('Mia im Browser');
    await page.getByTestId('tournament-rounds').fill('2');
    // Rounds without games per table: the CLI's hint for such a file, at the field (issue #33, item 8).
    expect(await page.getByTestId('field-warning-rounds').textContent()).toBe(
      'Rounds: 2 means 2 tournament rounds (each a round of tables); the rounds of Mäxchen each table plays are “Games per table” (default 20). If you meant those, enter 2 there instead and leave Rounds empty; filling in both fields silences this hint.',
    );
    await page.getByTestId('tournament-gamesPerTable').fill('3');
    expect(await page.getByTestId('field-warning-rounds').count()).toBe(0);
    await page.getByTestId('tournament-tableSize').fill('9');
    const rows = page.getByTestId('entrant-row');
    expect(await rows.count()).toBe(2);
    await rows.nth(1).getByTestId('entrant-bot').selectOption('random');
    await rows.nth(1).getByTestId('entrant-name').fill('zufall');
    await page.getByTestId('entrant-add').click();
    await rows.nth(2).getByTestId('entrant-kind').selectOption('program');
    await rows.nth(2).getByTestId('entrant-program').selectOption('crasher');
    await rows.nth(2).getByTestId('entrant-name').fill('crasher');
    await rows.nth(0).getByTestId('entrant-options').fill('{"seed": ');

    // A bad options field is caught in the page, a bad table size by the server, one line each.
    await page.getByTestId('tournament-create').click();
    await rows.nth(0).getByTestId('entrant-error').waitFor();
    await rows.nth(0).getByTestId('entrant-options').fill('{}');
    await page.getByTestId('tournament-create').click();
    // At its field, not as a line of a file the user never saw (issue #33).
    await page.getByTestId('field-error-tableSize').getByText('larger than the field of 3').waitFor();
    expect(await page.getByTestId('tournament-error-count').textContent()).toBe('1 problem: see the marked field');
    expect(await page.getByTestId('tournament-errors').count()).toBe(0);
    await page.getByTestId('tournament-tableSize').fill('3');
    await page.getByTestId('tournament-create').click();

    // The server first smoke-starts the program in its box (issue #33): seconds on a busy machine.
    await page.waitForURL(/#\/tournaments\/t-/, { timeout: 45_000 });
    tournamentUrl = page.url();
    await page.getByTestId('tournament-title').getByText('Mia im Browser').waitFor();
    const progress = page.getByTestId('tournament-progress');
    await expect
      .poll(
        async () => [await progress.getAttribute('data-done'), await progress.getAttribute('data-total')],
        {
          timeout: 20_000,
        },
      )
      .toEqual(['2', '2']);
    await page.locator('[data-testid="tournament-status"][data-status="finished"]').waitFor();
    const standings = page.getByTestId('standings-row');
    expect(await standings.count()).toBe(3);
    expect(await page.getByTestId('standings-games').allTextContents()).toEqual(['2', '2', '2']);
    // The program never connected: last at both tables, crashes counted.
    expect(await standings.nth(2).getAttribute('data-entrant')).toBe('crasher');
    // The rating history is a request of its own, polled: it may come a moment after the standings.
    await expect.poll(() => page.getByTestId('rating-line').count()).toBe(3);
    expect(await page.getByTestId('tournament-match').count()).toBe(2);
    expect(await page.getByTestId('tournament-stop').count()).toBe(0);
    expect(await page.getByTestId('export-standings').getAttribute('href')).toMatch(
      /export\.csv\?kind=standings$/,
    );
    await page.screenshot({ path: join(SHOTS, 'tournament-detail.png'), fullPage: true });

    // Each match opens its record; Mia records one per round.
    const recordLinks = page.getByTestId('match-record-link');
    expect(await recordLinks.count()).toBe(6);
    await recordLinks.first().click();
    await page.waitForURL(/#\/matches\/.+/);
    const recordId = decodeURIComponent(page.url().split('#/matches/')[1] ?? '');
    await page.getByTestId('match-id').getByText(recordId).waitFor();
    expect(store.getMatch(recordId)?.game).toBe('mia');

    await page.goBack();
    await page.getByTestId('standings').getByRole('link', { name: 'crasher' }).click();
    await page.getByTestId('entrant-title').getByText('crasher').waitFor();
    expect(await page.getByTestId('entrant-trouble').count()).toBe(2);
    expect(await page.getByTestId('entrant-crashes').textContent()).toBe('2');
    expect(await page.getByTestId('output-stderr').first().textContent()).toContain('kaputt: keine Ansage');
    await page.screenshot({ path: join(SHOTS, 'tournament-entrant.png'), fullPage: true });
    expect(await page.evaluate<string[]>('window.__i18nMissing ?? []')).toEqual([]);
    expect(errors).toEqual([]);
  }, 90_000);

  it('shows the tournament pages in German and at a phone width', async () => {
    expect(tournamentUrl).not.toBe('');
    const hash = tournamentUrl.slice(tournamentUrl.indexOf('#'));
    // Each page with what shows that its data has loaded.
    const pages: [string, string][] = [
      ['#/tournaments', 'tournament-row'],
      [hash, 'rating-chart'],
      [`${hash}/entrants/crasher`, 'output-stderr'],
      [`${hash}/entrants/zufall`, 'entrant-match'],
    ];
    const { page: de, errors: deErrors } = await newPage({ width: 1280, locale: 'de-DE' });
    await de.goto(`${base}/${hash}`);
    await de.getByRole('heading', { name: 'Tabelle', exact: true }).waitFor();
    await de.getByRole('navigation').getByRole('link', { name: 'Turniere', exact: true }).waitFor();
    const { page: phone, errors: phoneErrors } = await newPage({ width: 390, locale: 'de-DE' });
    for (const [i, [h, loaded]] of pages.entries()) {
      await de.goto(`${base}/${h}`);
      await de.getByTestId(loaded).first().waitFor();
      expect({ h, missing: await de.evaluate<string[]>('window.__i18nMissing ?? []') }).toEqual({
        h,
        missing: [],
      });
      await phone.goto('about:blank');
      await phone.goto(`${base}/${h}`);
      await phone.getByTestId(loaded).first().waitFor();
      if (h === '#/tournaments') {
        await phone.getByTestId('new-tournament-toggle').click();
        await phone.getByTestId('entrant-row').first().waitFor();
      }
      // Screenshots take a second or two each: one of the detail page.
      if (i === 1) await phone.screenshot({ path: join(SHOTS, 'phone-tournament.png'), fullPage: true });
      expect({ h, width: await phone.evaluate<number>('document.documentElement.scrollWidth') }).toEqual({
        h,
        width: 390,
      });
    }
    // The form's hint about Mia's rounds, in German.
    await de.goto(`${base}/#/tournaments`);
    await de.getByTestId('new-tournament-toggle').click();
    await de.getByTestId('tournament-game').selectOption('mia');
    await de.getByTestId('tournament-rounds').fill('20');
    expect(await de.getByTestId('field-warning-rounds').textContent()).toMatch(/^Runden: 20 heißt 20 Turnierrunden .*„Partien je Tisch“ \(Standard 20\)/);
    expect(await de.evaluate<string[]>('window.__i18nMissing ?? []')).toEqual([]);
    expect(deErrors).toEqual([]);
    expect(phoneErrors).toEqual([]);
  }, 30_000);

  it('fills in the standings while it runs, and stops and resumes from the buttons', async () => {
    const created = await web.app.inject({
      method: 'POST',
      url: '/api/tournaments',
      payload: {
        name: 'Lange Mia',
        game: 'mia',
        format: 'tables',
        tableSize: 2,
        // Far more than the test lets it play: it must still be running when Stop is pressed.
        rounds: 500,
        gamesPerTable: 10,
        parallel: 1,
        entrants: ['random', 'honest', 'adaptive'].map((bot) => ({ name: bot, bot })),
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const { id } = created.json<{ id: string }>();
    const { page, errors } = await newPage({ width: 1280, locale: 'en-US' });
    await page.goto(`${base}/#/tournaments/${id}`);
    await page.locator('[data-testid="tournament-status"][data-status="running"]').waitFor();
    const progress = page.getByTestId('tournament-progress');
    // The page polls: the first finished tables show up in the progress and the standings.
    await expect
      .poll(async () => Number(await progress.getAttribute('data-done')), { timeout: 15_000 })
      .toBeGreaterThanOrEqual(2);
    const games = async () =>
      (await page.getByTestId('standings-games').allTextContents()).reduce((n, g) => n + Number(g), 0);
    await expect.poll(games).toBeGreaterThanOrEqual(4);
    expect(await page.getByTestId('tournament-rate').textContent()).toMatch(/matches\/min/);

    await page.getByTestId('tournament-stop').click();
    await page.locator('[data-testid="tournament-status"][data-status="stopped"]').waitFor();
    const doneAtStop = Number(await progress.getAttribute('data-done'));
    expect(doneAtStop).toBeLessThan(500);
    await page.getByTestId('tournament-resume').click();
    await page.locator('[data-testid="tournament-status"][data-status="running"]').waitFor();
    await expect
      .poll(async () => Number(await progress.getAttribute('data-done')), { timeout: 15_000 })
      .toBeGreaterThan(doneAtStop);
    await page.getByTestId('tournament-stop').click();
    await page.locator('[data-testid="tournament-status"][data-status="stopped"]').waitFor();
    expect(store.getTournament(id)?.status).toBe('stopped');
    expect(errors).toEqual([]);
  }, 40_000);

  it('archives and deletes a tournament only with its id typed back, and its records then say why they are gone (issue 37)', async () => {
    const created = await web.app.inject({
      method: 'POST',
      url: '/api/tournaments',
      payload: { name: 'Kurz', game: 'mia', format: 'tables', tableSize: 2, rounds: 1, gamesPerTable: 2, parallel: 1, entrants: ['random', 'honest'].map((bot) => ({ name: bot, bot })) },
    });
    expect(created.statusCode, created.body).toBe(201);
    const { id } = created.json<{ id: string }>();
    await expect.poll(() => store.getTournament(id)?.status, { timeout: 20_000 }).toBe('finished');
    const record = store.listTournamentMatches(id).flatMap((m) => m.records)[0]!;
    const { page, errors } = await newPage({ width: 1280, locale: 'en-US' });
    await page.goto(`${base}/#/tournaments/${id}`);
    await page.getByTestId('tournament-keep').waitFor();
    expect(await page.getByTestId('tournament-kept').textContent()).toContain('Retention keeps every record');
    expect(await page.getByTestId('archive-download').getAttribute('href')).toBe(`/api/tournaments/${id}/archive`);

    // A wrong id typed back: nothing happens.
    page.once('dialog', (d) => void d.accept('not-the-id'));
    await page.getByTestId('tournament-archive').click();
    await page.getByText('Not confirmed: the id did not match.').waitFor();
    expect(store.getTournament(id)?.archivedAt).toBeNull();
    page.once('dialog', (d) => void d.accept(id));
    await page.getByTestId('tournament-archive').click();
    await page.getByTestId('tournament-keep-message').waitFor();
    // The page reloads the tournament after the answer.
    await page.getByTestId('tournament-kept').getByText(/^Archived on /).waitFor();
    expect(store.getTournament(id)?.archivedAt).toEqual(expect.any(Number));

    page.once('dialog', (d) => void d.accept(id));
    await page.getByTestId('tournament-delete').click();
    await page.waitForURL(/#\/tournaments$/);
    expect(store.getTournament(id)).toBeNull();
    await page.goto(`${base}/#/matches/${record}`);
    await page.getByTestId('pruned-note').waitFor();
    expect(await page.getByTestId('pruned-note').textContent()).toMatch(new RegExp(`^Its record was deleted on .* when tournament ${id} was deleted\\.$`));
    expect(await page.evaluate<string[]>('window.__i18nMissing ?? []')).toEqual([]);
    expect(errors).toEqual([]);
  }, 40_000);
});
