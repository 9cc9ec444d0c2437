import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { join } from 'node:path';
import { silentLogger } from '../../src/core/log.js';
import { RecordStore } from '../../src/core/records.js';
import { createWebServer, type WebServer } from '../../src/web/server.js';
import { launchChromium, ROOT, SHOTS } from './browser.js';
import { fakeMia, T0 } from './fixtures.js';

/**
 * The Matches page on a store with every game's results, many Mia rounds and more than a page of
 * Connect Four games: readable results, Mia per hour, filters and server-side pages.
 */

const HOUR = 3_600_000;

function seed(store: RecordStore): void {
  const two = (a: string, b: string, kind = 'bot') => [
    { seat: 0, name: a, kind },
    { seat: 1, name: b, kind },
  ];
  // Mia: 30 rounds in the first hour, 5 in the second, one canceled.
  for (let i = 0; i < 35; i++) {
    const at = T0 + (i < 30 ? i * 60_000 : HOUR + (i - 30) * 60_000);
    const id = store.startMatch({
      id: `mia-${i}`,
      game: 'mia',
      startedAt: at,
      seats: two('alice', 'bob', 'player'),
    });
    store.finishMatch(id, {
      status: i === 34 ? 'aborted' : 'finished',
      endedAt: at + 500,
      result:
        i === 34
          ? { round: i, canceled: 'NO_PLAYERS' }
          : { round: i, order: ['alice', 'bob'], losers: ['bob'], reason: 'LIED' },
    });
  }
  // Connect Four: 55 games, so the other games fill more than one page of 50.
  for (let i = 0; i < 55; i++) {
    const at = T0 + 10_000 + i * 1000;
    const id = store.startMatch({
      id: `c4-${String(i).padStart(2, '0')}`,
      game: 'connect4',
      startedAt: at,
      seats: two('red-bot', 'yellow-bot'),
    });
    store.finishMatch(id, {
      status: 'finished',
      endedAt: at + 900,
      result: {
        outcome: 'won',
        winner: 0,
        winnerName: 'red-bot',
        reason: 'four',
        moves: '4455667',
        line: [],
      },
    });
  }
  const dame = store.startMatch({
    id: 'dame-1',
    game: 'dame',
    startedAt: T0 + 2 * HOUR,
    seats: two('weiss', 'schwarz'),
  });
  store.finishMatch(dame, {
    status: 'finished',
    endedAt: T0 + 2 * HOUR + 5000,
    result: { winner: 1, draw: false, reason: 'NO_MOVES', plies: 41 },
  });
  const ost = store.startMatch({
    id: 'ost-1',
    game: 'ostseeschach',
    startedAt: T0 + 2 * HOUR + 1000,
    seats: two('kapitaen', 'lotse'),
  });
  store.finishMatch(ost, {
    status: 'finished',
    endedAt: T0 + 2 * HOUR + 9000,
    result: {
      roomId: 1,
      turn: 30,
      winner: 'ONE',
      scores: [
        { team: 'ONE', name: 'kapitaen', cause: 'REGULAR', reason: '', parts: [2, 3, 1] },
        { team: 'TWO', name: 'lotse', cause: 'REGULAR', reason: '', parts: [0, 1, 0] },
      ],
    },
  });
  const catan = store.startMatch({
    id: 'catan-1',
    game: 'catan',
    startedAt: T0 + 2 * HOUR + 2000,
    seats: [
      { seat: 0, name: 'KI 1', kind: 'ai' },
      { seat: 1, name: 'KI 2', kind: 'ai' },
      { seat: 2, name: 'KI 3', kind: 'ai' },
    ],
  });
  store.finishMatch(catan, {
    status: 'finished',
    endedAt: T0 + 2 * HOUR + 60_000,
    result: {
      reason: 'won',
      winner: 1,
      winnerName: 'KI 2',
      points: { 0: 6, 1: 10, 2: 4 },
      turns: 77,
      timeouts: 0,
    },
  });
  // A long record: 2,000 events and 24,000 wire lines (a third written three lines at once, as Catan does).
  const long = store.startMatch({
    id: 'catan-long',
    game: 'catan',
    startedAt: T0,
    seats: two('KI 1', 'KI 2', 'ai'),
  });
  for (let i = 0; i < 2000; i++) store.addEvent(long, { at: T0 + i, seat: i % 2, type: 'move', data: { i } });
  for (let i = 0; i < 12_000; i++) {
    const data = i % 2 === 0 ? `{"type":"line","n":${i}}` : `{"a":${i}}\n{"b":${i}}\n{"c":${i}}`;
    store.addWire({
      matchId: long,
      game: 'catan',
      conn: `127.0.0.1:${41000 + (i % 3)}`,
      at: T0 + i,
      dir: i % 4 === 0 ? 'in' : 'out',
      data,
    });
  }
  store.finishMatch(long, {
    status: 'finished',
    endedAt: T0 + 20_000,
    result: { reason: 'won', winner: 0, winnerName: 'KI 1', points: { 0: 10, 1: 3 }, turns: 300 },
  });
}

describe('the Matches page', () => {
  const store = new RecordStore(':memory:');
  let web: WebServer | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let base: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    seed(store);
    web = createWebServer({
      servers: [fakeMia()],
      store,
      log: silentLogger,
      host: '127.0.0.1',
      port: 0,
      staticDir: process.env.DASHBOARD_DIST ?? join(ROOT, 'web', 'dist'),
    });
    base = `http://127.0.0.1:${(await web.start()).port}`;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (err) => pageErrors.push(err.message));
  });

  afterAll(async () => {
    await browser?.close();
    await web?.stop();
    store.close();
  });

  /** Opens a page of the dashboard afresh (a hash-only goto would wait for a load that never comes). */
  const open = async (hash: string) => {
    await page.goto('about:blank');
    await page.goto(`${base}/${hash}`);
  };

  const rowIds = async () =>
    Promise.all((await page.getByTestId('match-row').all()).map((row) => row.getAttribute('data-match-id')));

  it('shows results in words, Mia per hour, and the other games in server-side pages', async () => {
    await open('#/matches');
    await expect.poll(() => page.getByTestId('match-row').count()).toBe(50);
    // Mia's 35 rounds are two rows, one per hour, not 35 rows among the others.
    const hours = page.getByTestId('match-hour-row');
    await expect.poll(() => hours.count()).toBe(2);
    expect(await hours.nth(0).textContent()).toContain('5');
    expect(await hours.nth(1).getAttribute('data-hour')).toBe(String(T0));
    expect((await rowIds()).some((id) => id?.startsWith('mia-'))).toBe(false);

    const row = (id: string) => page.locator(`[data-match-id="${id}"]`);
    expect(await row('catan-1').getByTestId('match-outcome').textContent()).toBe('KI 2 won');
    expect(await row('catan-1').getByTestId('match-score').textContent()).toBe('6 : 10 : 4');
    expect(await row('dame-1').getByTestId('match-outcome').textContent()).toBe('schwarz won');
    expect(await row('dame-1').getByTestId('match-score').textContent()).toBe('41 plies');
    expect(await row('dame-1').getByTestId('match-reason').textContent()).toBe('NO_MOVES');
    expect(await row('ost-1').getByTestId('match-outcome').textContent()).toBe('kapitaen won');
    expect(await row('ost-1').getByTestId('match-score').textContent()).toBe('2 : 0');
    expect(await row('c4-54').getByTestId('match-score').textContent()).toBe('7 moves');
    expect(await row('c4-54').getByTestId('match-reason').textContent()).toBe('four');
    expect(await page.getByTestId('match-row').filter({ hasText: '{' }).count()).toBe(0);
    expect(await page.getByTestId('matches-page').textContent()).toBe('page 1 of 2 (59 matches)');
    await page.screenshot({ path: join(SHOTS, 'matches-grouped.png'), fullPage: true });

    await page.getByTestId('matches-next').click();
    await expect.poll(() => page.getByTestId('match-row').count()).toBe(9);
    expect(new URL(page.url()).hash).toBe('#/matches?page=2');
    expect(await rowIds()).toEqual([
      'c4-07',
      'c4-06',
      'c4-05',
      'c4-04',
      'c4-03',
      'c4-02',
      'c4-01',
      'c4-00',
      'catan-long',
    ]);
  });

  it('filters by player and status, and lists one hour of Mia rounds', async () => {
    await open('#/matches');
    await page.getByTestId('matches-player-filter').fill('lotse');
    await expect.poll(() => rowIds()).toEqual(['ost-1']);
    expect(new URL(page.url()).hash).toBe('#/matches?player=lotse');
    // No Mia round has that player: no hour panel.
    expect(await page.getByTestId('match-hours').count()).toBe(0);

    await open('#/matches?game=mia&status=any');
    await expect.poll(() => page.getByTestId('match-hour-row').count()).toBe(2);
    await page.getByTestId('match-hour-row').nth(0).getByRole('link').click();
    await expect.poll(() => page.getByTestId('match-row').count()).toBe(5);
    expect(new URL(page.url()).hash).toBe(`#/matches?game=mia&status=any&hour=${T0 + HOUR}`);
    const canceled = page.locator('[data-match-id="mia-34"]');
    expect(await canceled.getByTestId('match-outcome').textContent()).toBe('canceled');
    expect(await canceled.getByTestId('match-reason').textContent()).toBe('NO_PLAYERS');
    expect(await page.locator('[data-match-id="mia-33"]').getByTestId('match-outcome').textContent()).toBe(
      'lost: bob',
    );

    await page.getByTestId('matches-status-filter').selectOption('aborted');
    await expect.poll(() => rowIds()).toEqual(['mia-34']);
    expect(pageErrors).toEqual([]);
  });

  it('shows a long record a page at a time', async () => {
    await open('#/matches/catan-long');
    const lines = page.getByTestId('wire-line');
    await expect.poll(() => lines.count()).toBe(200);
    expect(await page.getByTestId('wire-pager-range').textContent()).toBe('1–200 of 24000');
    expect(await page.getByTestId('event-row').count()).toBe(100);
    expect(await page.getByTestId('result-line').textContent()).toBe('KI 1 won · 10 : 3 · won');
    const size = () =>
      page.evaluate<[number, number]>(
        '[document.getElementsByTagName("*").length, document.documentElement.scrollHeight]',
      );
    const [nodes, height] = await size();
    expect(nodes).toBeLessThan(3000);
    expect(height).toBeLessThan(20_000);

    await page.getByTestId('wire-pager-next').click();
    await expect.poll(() => lines.first().textContent()).toContain('{"type":"line","n":100}');
    await page.getByTestId('wire-pager-last').click();
    await expect.poll(() => page.getByTestId('wire-pager-range').textContent()).toBe('23801–24000 of 24000');
    expect(await lines.last().textContent()).toContain('{"c":11999}');

    await page.getByTestId('wire-conn-select').selectOption('127.0.0.1:41000');
    await expect.poll(() => page.getByTestId('wire-pager-range').textContent()).toBe('1–200 of 8000');
    expect(new Set(await Promise.all((await lines.all()).map((l) => l.getAttribute('data-conn'))))).toEqual(
      new Set(['127.0.0.1:41000']),
    );
    await page.getByTestId('events-pager-next').click();
    await expect.poll(() => page.getByTestId('event-row').first().textContent()).toContain('100');
    expect((await size())[0]).toBeLessThan(3000);
    expect(pageErrors).toEqual([]);
  });
});
