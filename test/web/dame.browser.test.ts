import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboard, SHOTS as shots, type BrowserRig } from './browser.js';
import { silentLogger } from '../../src/core/log.js';
import { RecordStore } from '../../src/core/records.js';
import { DameClient } from '../../src/games/dame/client.js';
import { dame } from '../../src/games/dame/index.js';
import { verifyDameMatch } from '../../src/games/dame/replay.js';
import { legalMoves } from '../../src/games/dame/rules.js';
import { createDameServer, type DameServer } from '../../src/games/dame/server.js';

/**
 * The Dame page in a real headless Chromium against the real routes, a real Dame server and the
 * real engine (in its worker thread): create a game for students, watch a game between the
 * engine seat and a network client, and play a whole game against the engine by clicking pieces
 * and targets. Needs web/dist (npm test builds it first).
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Dame in a browser', () => {
  const store = new RecordStore(':memory:');
  let server: DameServer;
  let rig: BrowserRig | undefined;
  let page: Page;
  let base: string;
  const clients: DameClient[] = [];
  let pageErrors: string[] = [];

  beforeAll(async () => {
    server = createDameServer({ host: '127.0.0.1', port: 0, log: silentLogger, store, engineTimeMs: 30, motdDelayMs: 100 });
    await server.start();
    rig = await openDashboard({ module: dame, server: server, store, viewport: { width: 1280, height: 1100 } });
    ({ base, page, pageErrors } = rig);
  });

  afterAll(async () => {
    for (const c of clients) c.stop();
    await rig?.close();
    await server.stop();
    store.close();
  });

  it('creates a game with the button and shows its id and the commands for students', async () => {
    await page.goto(`${base}/#/dame`);
    await expect.poll(() => page.getByTestId('ws-state').getAttribute('data-state')).toBe('open');
    await page.getByTestId('dame-new-name').fill('Gruppe 7');
    await page.getByTestId('dame-new-movetime').fill('5000');
    await page.getByTestId('dame-new-engine').selectOption('1');
    await page.getByTestId('dame-create').click();
    const id = (await page.getByTestId('dame-new-id').textContent()) ?? '';
    expect(id).toMatch(/^[a-z0-9]{13}$/);
    expect(server.getGame(id)).toMatchObject({ name: 'Gruppe 7', moveTimeMs: 5000, status: 'waiting', seats: [{ kind: 'open' }, { kind: 'engine' }] });
    // Only White is free: one command, with this server's port.
    // As it runs in a checkout, and the installed form beside it.
    expect(await page.getByTestId('dame-command-0').textContent()).toBe(`npm run -s spielhalle -- bot dame -g ${id} -p 1 --port ${server.port}`);
    expect(await page.getByTestId('dame-command-0-installed').textContent()).toBe(`spielhalle bot dame -g ${id} -p 1 --port ${server.port}`);
    expect(await page.getByTestId('dame-course-command-0').textContent()).toContain(`./sysprak-client -g ${id} -p 1`);
    expect(await page.getByTestId('dame-command-1').count()).toBe(0);
    // The list follows the spectator snapshot.
    const row = page.locator(`[data-testid="dame-game-row"][data-game-id="${id}"]`);
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.getAttribute('data-status')).toBe('waiting');
    expect(await page.getByTestId(`dame-seat-${id}-1`).getAttribute('data-kind')).toBe('engine');
    expect(await page.getByTestId(`dame-seat-${id}-0`).getAttribute('data-kind')).toBe('open');
    await page.screenshot({ path: join(shots, 'dame-games.png') });
    expect(pageErrors).toEqual([]);
  });

  it('watches a game between the engine seat and a network client update live', async () => {
    const id = server.createGame({ name: 'House game', moveTimeMs: 2000, engineSeat: 0 });
    // A client that takes its time, so there is something to watch.
    const client = new DameClient({
      host: '127.0.0.1',
      port: server.port,
      gameId: id,
      seat: 1,
      log: silentLogger,
      player: async (state) => {
        await sleep(120);
        return legalMoves(state)[0]!;
      },
    });
    clients.push(client);
    const played = client.run();
    await page.getByTestId('dame-tab-watch').click();
    await page.getByTestId(`dame-watch-game-${id}`).click();
    const plies = async () => Number((await page.getByTestId('dame-watch-plies').textContent()) ?? '0');
    await expect.poll(plies, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    const seen = await plies();
    await expect.poll(plies, { timeout: 15_000 }).toBeGreaterThan(seen);
    // The last move is marked on the board.
    const board = page.getByTestId('dame-watch-board');
    const last = (await board.getAttribute('data-last-move')) ?? '';
    expect(last).toMatch(/^[A-H][1-8]:[A-H][1-8]$/);
    await page.screenshot({ path: join(shots, 'dame-watch.png') });

    const result = await played;
    expect(['won', 'lost', 'draw']).toContain(result.outcome);
    const row = page.locator(`[data-testid="dame-recent-row"][data-game-id="${id}"]`);
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.getByTestId('dame-recent-result').textContent()).toMatch(/won|draw/);
    await expect.poll(() => board.getAttribute('data-board'), { timeout: 10_000 }).toBe(server.getGame(id)!.board.join('/'));
    // The record page shows the client's wire log.
    const matchId = server.getGame(id)!.matchId!;
    await row.getByTestId('dame-recent-link').click();
    await expect.poll(() => page.url()).toContain(`#/matches/${matchId}`);
    await expect.poll(() => page.getByTestId('wire-line').count()).toBeGreaterThan(20);
    expect((await page.getByTestId('wire-line').allTextContents()).some((l) => l.includes('PLAY '))).toBe(true);
    // The log comes in pages: the game's end is on the last one (on a loaded machine the pager and
    // the last page take more than the poll's default second: once it read the first page only).
    await expect
      .poll(
        async () => {
          const last = page.getByTestId('wire-pager-last');
          if ((await last.count()) > 0 && (await last.isEnabled())) await last.click();
          return (await page.getByTestId('wire-line').allTextContents()).some((l) => l.includes('+ GAMEOVER'));
        },
        { timeout: 15_000 },
      )
      .toBe(true);
    await page.screenshot({ path: join(shots, 'dame-match.png') });
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it('plays a whole game against the engine by clicking pieces and targets', async () => {
    await page.goto(`${base}/#/dame`);
    await page.getByTestId('dame-tab-play').click();
    await page.getByTestId('dame-play-name').fill('ada');
    await page.getByTestId('dame-play-colour').selectOption('0');
    await page.getByTestId('dame-play-engine').click();
    const status = page.getByTestId('dame-play-status');
    const board = page.getByTestId('dame-play-board');
    const id = (await page.getByTestId('dame-play-id').textContent()) ?? '';
    await expect.poll(() => server.getGame(id)?.seats[0].kind).toBe('client');
    expect(server.getGame(id)).toMatchObject({ moveTimeMs: 60_000, seats: [{ kind: 'client' }, { kind: 'engine' }] });

    const clicked: string[] = [];
    let turn = 0;
    for (let i = 0; i < 150; i++) {
      await expect
        .poll(async () => ((await status.getAttribute('data-phase')) === 'over' ? 'over' : Number(await status.getAttribute('data-turn')) > turn && (await status.getAttribute('data-phase')) === 'your-turn' ? 'go' : 'wait'), { timeout: 20_000 })
        .not.toBe('wait');
      if ((await status.getAttribute('data-phase')) === 'over') break;
      turn = Number(await status.getAttribute('data-turn'));
      const legal = ((await board.getAttribute('data-legal')) ?? '').split(' ');
      // A person who always plays the first move offered.
      const [from, to] = legal[0]!.split(':') as [string, string];
      await page.getByTestId(`dame-sq-${from}`).click();
      await expect.poll(() => board.getAttribute('data-selected')).toBe(from);
      if (clicked.length === 2) {
        expect(await page.getByTestId('dame-countdown').textContent()).toMatch(/^\d+\.\d s left/);
        await page.screenshot({ path: join(shots, 'dame-play.png') });
      }
      await page.getByTestId(`dame-sq-${to}`).click();
      clicked.push(`${from}:${to}`);
      if (clicked.length === 4) {
        // The games list marks the seat as a person's; switching tabs keeps the seat.
        await page.getByTestId('dame-tab-games').click();
        await expect.poll(() => page.getByTestId(`dame-seat-${id}-0`).getAttribute('data-kind'), { timeout: 10_000 }).toBe('human');
        await page.getByTestId('dame-tab-play').click();
      }
    }
    const outcome = await page.getByTestId('dame-play-result').getAttribute('data-outcome');
    expect(['won', 'lost', 'draw']).toContain(outcome);
    await page.screenshot({ path: join(shots, 'dame-play-end.png') });

    const row = server.getGame(id)!;
    expect(row.status).toBe('over');
    const detail = store.getMatch(row.matchId!)!;
    expect(detail.seats.map((s) => s.kind)).toEqual(['client', 'engine']);
    const byPerson = detail.events.filter((e) => e.type === 'move' && e.seat === 0).map((e) => (e.data as { move: string }).move);
    expect(byPerson).toEqual(clicked);
    expect(verifyDameMatch(detail)).toEqual({ checked: true, problems: [] });
    expect(outcome).toBe(row.result!.winner === null ? 'draw' : row.result!.winner === 0 ? 'won' : 'lost');
    expect(pageErrors).toEqual([]);
  }, 90_000);
});
