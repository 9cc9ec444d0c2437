import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboard, SHOTS as shots, type BrowserRig } from './browser.js';
import type { Stoppable } from '../../src/core/lifecycle.js';
import { silentLogger } from '../../src/core/log.js';
import { RecordStore } from '../../src/core/records.js';
import type { Move, PieceEntry } from '../../src/games/ostseeschach/board.js';
import { depth2Bot, randomBot } from '../../src/games/ostseeschach/bots/index.js';
import { OstseeschachClient, playOnServer } from '../../src/games/ostseeschach/client.js';
import { startHouseGames } from '../../src/games/ostseeschach/house.js';
import { ostseeschach } from '../../src/games/ostseeschach/index.js';
import { replayOstseeschachMatch } from '../../src/games/ostseeschach/replay.js';
import { createOstseeschachServer, type OstseeschachServer } from '../../src/games/ostseeschach/server.js';

/**
 * The Ostseeschach page in a real headless Chromium against the real routes and a real server:
 * a house game of two engine bots (in their worker thread, over TCP) updates live on the board,
 * and finished games show their result, their score causes and a replay. Needs web/dist
 * (npm test builds it first).
 */


/** The page's `data-pieces` of a board (the same key Board.tsx writes). */
const piecesKey = (pieces: readonly PieceEntry[]): string =>
  pieces
    .map((e) => `${e.coordinates.x}${e.coordinates.y}${e.piece.type[0]!}${e.piece.count}${e.piece.team === 'ONE' ? 'O' : 'T'}`)
    .sort()
    .join(' ');

describe('Ostseeschach in a browser', () => {
  const store = new RecordStore(':memory:');
  let server: OstseeschachServer;
  let rig: BrowserRig | undefined;
  let page: Page;
  let base: string;
  let house: Stoppable[] = [];
  let pageErrors: string[] = [];

  beforeAll(async () => {
    server = createOstseeschachServer({ host: '127.0.0.1', port: 0, seed: 'browser', log: silentLogger, store });
    await server.start();
    rig = await openDashboard({ module: ostseeschach, server: server, store, viewport: { width: 1280, height: 1200 } });
    ({ base, page, pageErrors } = rig);
  });

  afterAll(async () => {
    for (const part of house) await part.stop();
    await rig?.close();
    await server.stop();
    store.close();
  });

  it('shows a house game of two engine bots live, and its result when it ends', async () => {
    house = await startHouseGames({ games: 1, host: '127.0.0.1', port: server.port, adminPassword: 'examplepassword', moveTimeMs: 250, pauseMs: 4000, seed: 'browser', log: silentLogger });
    await page.goto(`${base}/#/ostseeschach`);
    await expect.poll(() => page.getByTestId('ws-state').getAttribute('data-state')).toBe('open');
    expect(await page.getByTestId('ost-port').textContent()).toBe(String(server.port));
    expect(await page.getByTestId('ost-command').textContent()).toBe(`npm run -s spielhalle -- bot ostseeschach -h 127.0.0.1 -p ${server.port}`);
    expect(await page.getByTestId('ost-command-installed').textContent()).toBe(`spielhalle bot ostseeschach -h 127.0.0.1 -p ${server.port}`);

    const live = page.getByTestId('ost-live');
    const board = page.getByTestId('ost-live-board');
    const turn = async () => Number((await board.getAttribute('data-turn')) ?? '-1');
    await expect.poll(turn, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
    const roomId = (await live.getAttribute('data-room-id')) ?? '';
    // The house line-ups include weak bots (issue 16) whose games end soon: look at the room's row first.
    const row = page.locator(`[data-testid="ost-room-row"][data-room-id="${roomId}"]`);
    expect(await row.getAttribute('data-status')).toBe('running');
    expect(await row.textContent()).toMatch(/House 1 A.*House 1 B|House 1 B.*House 1 A/);
    const seen = await turn();
    await expect.poll(turn).toBeGreaterThan(seen);
    // The board is the server's board; the last move is marked.
    expect(await board.getAttribute('data-last-move')).toMatch(/^[0-7]{2}-[0-7]{2}$/);
    await page.screenshot({ path: join(shots, 'ostseeschach-live.png') });

    // The game ends: the last board stays with its result, and the result row appears.
    await expect.poll(() => live.getAttribute('data-over'), { timeout: 30_000 }).toBe('true');
    const result = server.snapshot().recent.find((r) => r.roomId === roomId)!;
    expect(result.scores.map((s) => s.cause)).toEqual(['REGULAR', 'REGULAR']);
    const text = (await page.getByTestId('ost-live-result').textContent()) ?? '';
    expect(text).toMatch(/wins \(2 : 0\)|wins \(0 : 2\)|draw \(1 : 1\)/);
    const record = store.getMatch(result.matchId!)!;
    const final = replayOstseeschachMatch(record)!.frames.at(-1)!;
    expect(await board.getAttribute('data-pieces')).toBe(piecesKey(final.pieces));
    expect(Number(await board.getAttribute('data-turn'))).toBe(result.turn);
    const resultRow = page.locator(`[data-testid="ost-result-row"][data-room-id="${roomId}"]`);
    expect(await resultRow.getByTestId('ost-result-text').textContent()).toBe(text);
    expect(await resultRow.getByTestId('ost-result-causes').textContent()).toBe('REGULAR');
    await page.screenshot({ path: join(shots, 'ostseeschach-over.png') });
    for (const part of house.splice(0)) await part.stop();
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it('shows a rule violation with its cause, and replays a recorded game step by step', async () => {
    // ONE sends a move its piece cannot make; TWO wins by RULE_VIOLATION.
    let joined: () => void = () => undefined;
    const inRoom = new Promise<void>((r) => (joined = r));
    const cheat = new OstseeschachClient({
      host: '127.0.0.1',
      port: server.port,
      join: { kind: 'join' },
      bot: (): Move => ({ from: { x: 0, y: 0 }, to: { x: 3, y: 3 } }),
      onPacket: (p) => {
        if (p.type === 'joined') joined();
      },
    });
    await cheat.start();
    await inRoom;
    await playOnServer({ host: '127.0.0.1', port: server.port, join: { kind: 'join' }, bot: randomBot });
    const cheated = await cheat.finished;
    const violationRow = page.locator(`[data-testid="ost-result-row"][data-room-id="${cheated.roomId}"]`);
    await expect.poll(() => violationRow.count()).toBe(1);
    expect(await violationRow.getByTestId('ost-result-text').textContent()).toBe('TWO wins (0 : 2)');
    expect(await violationRow.getByTestId('ost-result-causes').textContent()).toBe(
      "ONE: RULE_VIOLATION – %s kann sich nicht um %s bewegen bei Zug 'Zug von [0|0] zu [3|3]'",
    );

    // A whole game between two bots, then its replay.
    const [a] = await Promise.all([
      playOnServer({ host: '127.0.0.1', port: server.port, join: { kind: 'join' }, bot: depth2Bot, budgetMs: 100 }),
      playOnServer({ host: '127.0.0.1', port: server.port, join: { kind: 'join' }, bot: randomBot, budgetMs: 100 }),
    ]);
    const row = server.snapshot().recent.find((r) => r.roomId === a.roomId)!;
    const replay = replayOstseeschachMatch(store.getMatch(row.matchId!)!)!;
    const gameRow = page.locator(`[data-testid="ost-result-row"][data-room-id="${a.roomId}"]`);
    await expect.poll(() => gameRow.count()).toBe(1);
    // The replay opens below the results; the window goes to it rather than staying at the list.
    await page.setViewportSize({ width: 1280, height: 600 });
    await gameRow.getByTestId('ost-replay-button').click();
    const replayBoard = page.getByTestId('ost-replay-board');
    await expect.poll(() => replayBoard.getAttribute('data-turn')).toBe('0');
    await expect.poll(async () => (await page.getByTestId('ost-replay').boundingBox())?.y ?? -1).toBeGreaterThanOrEqual(0);
    expect((await page.getByTestId('ost-replay').boundingBox())?.y).toBeLessThan(50);
    expect((await replayBoard.boundingBox())?.y).toBeLessThan(600);
    await page.setViewportSize({ width: 1280, height: 1200 });
    expect(await replayBoard.getAttribute('data-pieces')).toBe(piecesKey(replay.frames[0]!.pieces));
    expect((await replayBoard.getAttribute('data-pieces'))?.split(' ')).toHaveLength(16);
    await page.getByTestId('ost-replay-next').click();
    await expect.poll(() => replayBoard.getAttribute('data-turn')).toBe('1');
    expect(await page.getByTestId('ost-replay-move').textContent()).toBe(replay.moves[0]);
    expect(await replayBoard.getAttribute('data-last-move')).toBe(replay.moves[0]);
    await page.getByTestId('ost-replay-next').click();
    await expect.poll(() => replayBoard.getAttribute('data-turn')).toBe('2');
    await page.getByTestId('ost-replay-prev').click();
    await expect.poll(() => replayBoard.getAttribute('data-turn')).toBe('1');
    await page.getByTestId('ost-replay-last').click();
    await expect.poll(() => replayBoard.getAttribute('data-turn')).toBe(String(row.turn));
    expect(await replayBoard.getAttribute('data-pieces')).toBe(piecesKey(replay.frames.at(-1)!.pieces));
    expect(await page.getByTestId('ost-replay-result').textContent()).toBe(await gameRow.getByTestId('ost-result-text').textContent());
    expect(await page.getByTestId('ost-replay-moves').locator('li').count()).toBe(replay.moves.length);
    await page.screenshot({ path: join(shots, 'ostseeschach-replay.png') });
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
