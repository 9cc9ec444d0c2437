import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboard, SHOTS as shots, type BrowserRig } from './browser.js';
import { silentLogger } from '../../src/core/log.js';
import { RecordStore } from '../../src/core/records.js';
import { Connect4Engine } from '../../src/games/connect4/engine.js';
import { Connect4Hub } from '../../src/games/connect4/hub.js';
import { connect4 } from '../../src/games/connect4/index.js';
import { legalMoves } from '../../src/games/connect4/rules.js';

/**
 * The Connect Four page in a real headless Chromium against the real routes and the real solver
 * (in its worker thread): a person plays a whole game against the perfect bot, analyses a
 * position, and finds the game on the watch tab. Needs web/dist (npm test builds it first).
 */


describe('Connect Four in a browser', () => {
  const store = new RecordStore(':memory:');
  const engine = new Connect4Engine();
  let hub: Connect4Hub;
  let rig: BrowserRig | undefined;
  let page: Page;
  let base: string;
  let pageErrors: string[] = [];

  beforeAll(async () => {
    hub = new Connect4Hub({ host: '127.0.0.1', port: 0, broadcastAddress: null, peerPorts: [], store, log: silentLogger, engine });
    await hub.start();
    rig = await openDashboard({ module: connect4, server: hub, store, viewport: { width: 1280, height: 1000 } });
    ({ base, page, pageErrors } = rig);
  });

  afterAll(async () => {
    await rig?.close();
    await hub.stop();
    store.close();
  });

  it('plays a whole game against the perfect bot', async () => {
    await page.goto(`${base}/#/connect4`);
    await page.getByTestId('c4-level').selectOption('perfect');
    await page.getByTestId('c4-first').selectOption('bot');
    await page.getByTestId('c4-new-game').click();
    const board = page.getByTestId('c4-board');
    const status = page.getByTestId('c4-status');
    // The perfect first player opens in the centre (the only winning first move).
    await expect.poll(() => board.getAttribute('data-moves')).toBe('4');
    let clicks = 0;
    while ((await page.getByTestId('c4-outcome').count()) === 0) {
      await expect.poll(async () => (await status.textContent()) ?? '', { timeout: 15_000 }).toMatch(/Your move|wins|Draw/);
      if ((await page.getByTestId('c4-outcome').count()) > 0) break;
      const moves = Array.from((await board.getAttribute('data-moves')) ?? '', Number);
      // A person who always plays the leftmost open column.
      const column = legalMoves({ moves })[0]!;
      await page.getByTestId(`c4-col-${column}`).click();
      await expect.poll(async () => ((await board.getAttribute('data-moves')) ?? '').length).toBeGreaterThan(moves.length);
      clicks++;
      if (clicks === 3) await page.screenshot({ path: join(shots, 'connect4-midgame.png') });
    }
    expect(await page.getByTestId('c4-outcome').textContent()).toBe('The bot wins.');
    // The winning four is marked on the board.
    expect(await board.locator('.c4-win').count()).toBeGreaterThanOrEqual(4);
    await page.screenshot({ path: join(shots, 'connect4-end.png') });
    const [record] = store.listMatches({ game: 'connect4', status: 'finished' });
    expect(record?.result).toMatchObject({ outcome: 'won', winner: 0, winnerName: 'solver (perfect)' });
    expect(pageErrors).toEqual([]);
  }, 120_000);

  it('shows an illegal click as the server refuses it, and play goes on', async () => {
    await page.goto(`${base}/#/connect4`);
    await page.getByTestId('c4-first').selectOption('human');
    await page.getByTestId('c4-level').selectOption('easy');
    const board = page.getByTestId('c4-board');
    const status = page.getByTestId('c4-status');
    // Fill column 1 to the top (a new game if the random bot ends one first), then click it again.
    let moves = '';
    for (let attempt = 0; attempt < 5 && (moves.match(/1/g) ?? []).length < 6; attempt++) {
      await page.getByTestId('c4-new-game').click();
      await expect.poll(() => board.getAttribute('data-moves')).toBe('');
      moves = '';
      while ((moves.match(/1/g) ?? []).length < 6 && (await page.getByTestId('c4-outcome').count()) === 0) {
        await page.getByTestId('c4-col-1').click();
        await expect.poll(async () => ((await board.getAttribute('data-moves')) ?? '').length).toBeGreaterThan(moves.length);
        await expect.poll(async () => (await status.textContent()) ?? '').toMatch(/Your move|wins|Draw/);
        moves = (await board.getAttribute('data-moves')) ?? '';
      }
      if ((await page.getByTestId('c4-outcome').count()) > 0) moves = '';
    }
    expect((moves.match(/1/g) ?? []).length).toBe(6);
    // The server's refusal is shown, not swallowed…
    await page.getByTestId('c4-col-1').click();
    await expect.poll(async () => (await page.getByTestId('c4-error').textContent()) ?? '').toMatch(/column 1 is full/);
    // …and it leaves the player on move: the page says so, the board is the server's…
    await expect.poll(async () => (await status.textContent()) ?? '').toMatch(/Your move/);
    expect(await board.getAttribute('data-moves')).toBe(moves);
    // …the next click is taken and the bot answers it.
    const column = legalMoves({ moves: Array.from(moves, Number) })[0]!;
    await page.getByTestId(`c4-col-${column}`).click();
    await expect.poll(async () => (await board.getAttribute('data-moves')) ?? '', { timeout: 15_000 }).toMatch(new RegExp(`^${moves}${column}[1-7]$`));
    await expect.poll(async () => (await status.textContent()) ?? '').toMatch(/Your move|wins|Draw/);
    expect(pageErrors).toEqual([]);
  }, 90_000);

  it('analyses a position column by column', async () => {
    await page.getByTestId('c4-tab-analyse').click();
    await page.getByTestId('c4-analyse-moves').fill('44455554221');
    await expect.poll(async () => (await page.getByTestId('c4-analyse-verdict').textContent()) ?? '', { timeout: 20_000 }).toMatch(/loses \(score -15\)/);
    const best = ((await page.getByTestId('c4-analyse-best').textContent()) ?? '').split(', ');
    for (const c of best) expect(await page.getByTestId(`c4-label-${c}`).textContent()).toBe('-15');
    // Clicking a column plays it and analyses the new position.
    await page.getByTestId('c4-col-1').click();
    await expect.poll(() => page.getByTestId('c4-analyse-moves').inputValue()).toBe('444555542211');
    await expect.poll(async () => (await page.getByTestId('c4-analyse-verdict').textContent()) ?? '', { timeout: 20_000 }).toMatch(/to move (wins|loses)|draw/);
    await page.screenshot({ path: join(shots, 'connect4-analyse.png') });
  }, 60_000);

  it('shows how far a deep analysis got, and drops it when the position changes', async () => {
    await page.goto(`${base}/#/connect4`);
    await page.getByTestId('c4-tab-analyse').click();
    const verdict = async () => (await page.getByTestId('c4-analyse-verdict').textContent()) ?? '';
    await page.getByTestId('c4-analyse-moves').fill('44455554221');
    await expect.poll(verdict, { timeout: 20_000 }).toMatch(/score -15/);
    expect(await page.getByTestId('c4-analyse-best').count()).toBe(1);
    // A position that takes the solver many seconds: the page says how far it got, and shows no
    // "Best" of the position before.
    await page.getByTestId('c4-analyse-moves').fill('4453');
    await expect.poll(verdict, { timeout: 10_000 }).toMatch(/^Solving… column [1-7] \([1-7] of [1-7]\), \d+(\.\d)? [kM] positions searched, \d+\.\d s$/);
    expect(await page.getByTestId('c4-analyse-best').count()).toBe(0);
    await page.screenshot({ path: join(shots, 'connect4-analyse-progress.png') });
    // Moving on cancels that search: the next position is answered at once.
    const started = Date.now();
    await page.getByTestId('c4-analyse-moves').fill('44455554221');
    await expect.poll(verdict, { timeout: 20_000 }).toMatch(/score -15/);
    expect(Date.now() - started).toBeLessThan(5000);
    await expect.poll(() => engine.activeRequests).toBe(0);
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it('lists the games on the watch tab', async () => {
    await page.getByTestId('c4-tab-watch').click();
    await expect.poll(() => page.getByTestId('c4-game-row').count()).toBeGreaterThanOrEqual(1);
    expect(await page.getByTestId('c4-watch-title').textContent()).toMatch(/solver \(perfect\)|browser/);
  });
});
