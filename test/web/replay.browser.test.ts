import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { RecordStore } from '../../src/core/records.js';
import { registerDameReplayRoute } from '../../src/games/dame/web.js';
import type { DameReplay } from '../../src/games/dame/web-views.js';
import { registerOstseeschachWebRoutes } from '../../src/games/ostseeschach/web.js';
import { createTournament, runTournament } from '../../src/tournament/coordinator.js';
import type { Entrant, GameName, TournamentSpec } from '../../src/tournament/file.js';
import { createWebServer, type WebServer } from '../../src/web/server.js';
import { launchChromium, ROOT, SHOTS } from './browser.js';

/**
 * Issue 33 item 5: a tournament match's "replay" link opens the game's board, not JSON. Tiny
 * tournaments of our bots in Dame, Connect Four and Ostseeschach are played for real; the page of
 * each tournament links its matches to `#/matches/<id>`, which shows the board replay first (Dame
 * with the entrant names and the game's name). Catan's record view and Mia's rounds are covered
 * by their own pages' tests. Needs web/dist (npm test builds it first).
 */

const bot = (name: string, botName: string): Entrant => ({ name, kind: 'bot', bot: botName, options: {} });

describe('a tournament match\'s replay link', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spielhalle-replay-browser-'));
  const store = new RecordStore(':memory:');
  let web: WebServer;
  let browser: Browser;
  let base: string;
  const tournaments = new Map<GameName, string>();

  async function play(game: GameName, entrants: Entrant[]): Promise<void> {
    const spec: TournamentSpec = {
      name: `replay-${game}`,
      game,
      format: 'round-robin',
      entrants,
      gamesPerPairing: 2,
      rounds: 1,
      tableSize: 2,
      gamesPerTable: 20,
      moveTime: 0.2,
      seed: 5,
      parallel: 2,
    };
    const id = await createTournament(store, spec, null, Date.UTC(2026, 10, 29, 10, tournaments.size));
    expect(await runTournament(store, id, { log: silentLogger, workDir: dir })).toBe('finished');
    tournaments.set(game, id);
  }

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'web', 'dist', 'index.html')))
      throw new Error('The dashboard is not built: run `npm run build` (npm test does this first).');
    await play('dame', [bot('anna', 'depth2'), bot('bert', 'random')]);
    await play('connect4', [bot('cleo', 'strong'), bot('dora', 'easy')]);
    await play('ostseeschach', [bot('emil', 'depth2'), bot('fritz', 'random')]);
    web = createWebServer({
      servers: [],
      store,
      log: silentLogger,
      host: '127.0.0.1',
      port: 0,
      tournaments: { dataDir: dir, programs: [] },
      routes: [(app) => registerDameReplayRoute(app, store), (app) => registerOstseeschachWebRoutes(app, store)],
    });
    base = `http://127.0.0.1:${(await web.start()).port}`;
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser.close();
    await web.stop();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Opens the tournament's page and follows the first match's replay link. */
  async function followReplay(game: GameName): Promise<{ page: Page; errors: string[]; recordId: string }> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1100 } });
    page.setDefaultTimeout(15_000);
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(`${base}/#/tournaments/${tournaments.get(game) ?? ''}`);
    const link = page.getByTestId('match-record-link').first();
    await link.waitFor();
    await link.click();
    await page.waitForURL(/#\/matches\/.+/);
    const recordId = decodeURIComponent(page.url().split('#/matches/')[1] ?? '');
    expect(store.getMatch(recordId)?.game).toBe(game);
    await page.locator(`[data-testid="match-board"][data-game="${game}"]`).waitFor();
    return { page, errors, recordId };
  }

  it('Dame: opens the board at the final position, steps back to the start, names the entrants and the game', async () => {
    const { page, errors, recordId } = await followReplay('dame');
    const replay = page.getByTestId('dame-replay');
    await replay.waitFor();
    expect(await replay.getAttribute('data-match-id')).toBe(recordId);
    const record = store.getMatch(recordId);
    const names = record?.seats.map((s) => s.name) ?? [];
    expect([...names].sort()).toEqual(['anna', 'bert']);
    // White first, as seated.
    const players = (await page.getByTestId('dame-replay-players').textContent())?.replace(/\s+/g, ' ').trim();
    expect(players).toBe(`${names[0] ?? '?'} vs ${names[1] ?? '?'}`);
    expect(await page.getByTestId('dame-replay-game-name').textContent()).toMatch(/^Tournament t-.*\/1-\d$/);
    // The whole game: one position per recorded single move, the last one shown first.
    const moves = record?.events.filter((e) => e.type === 'move').length ?? 0;
    expect(moves).toBeGreaterThan(4);
    expect(await page.getByTestId('dame-replay-ply').textContent()).toBe(`${moves} of ${moves}`);
    const board = page.getByTestId('dame-replay-board');
    const piecesAtEnd = await board.locator('.dame-man').count();
    await page.getByTestId('dame-replay-first').click();
    expect(await page.getByTestId('dame-replay-ply').textContent()).toBe(`0 of ${moves}`);
    // The recorded start (the seeded opening): more pieces on it than at the end of a won game.
    const start = (record?.meta as { board: string[] }).board.join('').replace(/[^wbWB]/g, '').length;
    await expect.poll(() => board.locator('.dame-man').count()).toBe(start);
    expect(start).toBeGreaterThan(piecesAtEnd);
    await page.getByTestId('dame-replay-next').click();
    expect(await page.getByTestId('dame-replay-move').textContent()).toMatch(/^White [A-H][1-8]:[A-H][1-8]/);
    expect(await page.getByTestId('dame-replay-result').textContent()).toMatch(/(anna|bert) won|no winner/);
    // The meta is there in full on demand, not cut off.
    await page.getByTestId('match-meta').locator('summary').click();
    expect(await page.getByTestId('match-meta').locator('pre').textContent()).toContain('"toMove"');
    await page.screenshot({ path: join(SHOTS, 'replay-dame.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('Connect Four: the discs of the recorded columns', async () => {
    const { page, errors, recordId } = await followReplay('connect4');
    const columns = store.getMatch(recordId)?.events.filter((e) => e.type === 'move').length ?? 0;
    expect(columns).toBeGreaterThan(3);
    await page.getByTestId('c4-replay-board').waitFor();
    expect(await page.getByTestId('c4-replay-position').textContent()).toBe(`${columns} of ${columns}`);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('Ostseeschach: the replay of its turns', async () => {
    const { page, errors, recordId } = await followReplay('ostseeschach');
    const replay = page.getByTestId('ost-replay');
    await replay.waitFor();
    expect(await replay.getAttribute('data-match-id')).toBe(recordId);
    await page.getByTestId('ost-replay-board').waitFor();
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('the Dame replay API answers from the record, and 404 for another game\'s match', async () => {
    const dame = store.listMatches({ game: 'dame' })[0];
    const other = store.listMatches({ game: 'connect4' })[0];
    const ok = await fetch(`${base}/api/dame/replay/${encodeURIComponent(dame?.id ?? '')}`);
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as DameReplay;
    expect(body.checked).toBe(true);
    expect(body.problems).toEqual([]);
    expect(body.frames[0]?.move).toBeNull();
    expect(body.frames.at(-1)?.toMove).toBeNull();
    expect((await fetch(`${base}/api/dame/replay/${encodeURIComponent(other?.id ?? '')}`)).status).toBe(404);
  });
});
