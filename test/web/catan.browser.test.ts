import { join } from 'node:path';
import type { JSHandle, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDashboard, SHOTS as shots, type BrowserRig } from './browser.js';
import { silentLogger } from '../../src/core/log.js';
import { RecordStore } from '../../src/core/records.js';
import { CatanClient, createCatanBot } from '../../src/games/catan/client.js';
import { catan } from '../../src/games/catan/index.js';
import { verifyCatanMatch } from '../../src/games/catan/replay.js';
import { createCatanServer, type CatanServer } from '../../src/games/catan/server.js';

/**
 * The Catan page in a real headless Chromium against the real routes and a real Catan server
 * with house bots: start a game of our AI, fill a waiting network client's lobby with it and
 * watch that game live, then a person joins the lobby, has the
 * AI fill the empty seats, hears the server refuse a taken colour, and plays a whole game by
 * clicking the board and the action buttons the page offers. Needs web/dist (npm test builds it first).
 */

const STATUS = '[data-testid="catan-play-status"]';

/** The little of the DOM the page functions use (this file is compiled without the DOM types). */
interface El {
  getAttribute(name: string): string | null;
  readonly disabled?: boolean;
  readonly textContent?: string | null;
}
/** What the scripted person looks at before each move. */
interface Seen {
  phase: string | null;
  version: string | null;
  status: string;
  discard: number;
  spots: string[];
  buttons: string[];
}
interface Doc {
  querySelector(selector: string): El | null;
  querySelectorAll(selector: string): ArrayLike<El>;
}

describe('Catan in a browser', () => {
  const store = new RecordStore(':memory:');
  let server: CatanServer;
  let rig: BrowserRig | undefined;
  let page: Page;
  let base: string;
  let pageErrors: string[] = [];
  let slow: CatanClient | null = null;

  beforeAll(async () => {
    server = createCatanServer({
      host: '127.0.0.1',
      port: 0,
      seed: 'browser',
      log: silentLogger,
      store,
      botThinkMs: 0,
      botStrategy: (seed) => createCatanBot('builder', seed),
    });
    await server.start();
    rig = await openDashboard({
      module: catan,
      server: server,
      store,
      viewport: { width: 1280, height: 1200 },
    });
    ({ base, page, pageErrors } = rig);
  });

  afterAll(async () => {
    await slow?.stop();
    await rig?.close();
    await server.stop();
    store.close();
  });

  it('starts games of our AI from the lobby tab and watches one live', async () => {
    await page.goto(`${base}/#/catan`);
    await expect.poll(() => page.getByTestId('ws-state').getAttribute('data-state')).toBe('open');
    expect(await page.getByTestId('catan-port').textContent()).toBe(String(server.port));
    await page.getByTestId('catan-new-ai-game').click();
    const note = (await page.getByTestId('catan-lobby-note').textContent()) ?? '';
    const started = /^game (\S+) started$/.exec(note)?.[1];
    expect(started, note).toBeDefined();
    await expect.poll(() => store.listMatches({ game: 'catan' }).some((m) => m.id === started)).toBe(true);

    // A network client that takes its time waits in the lobby; the button gives it three AI opponents.
    slow = new CatanClient({
      host: '127.0.0.1',
      port: server.port,
      name: 'Langsam',
      thinkMs: 100,
      bot: createCatanBot('builder', 'slow'),
      log: silentLogger,
    });
    await slow.start();
    const row = page.locator('[data-testid="catan-lobby-row"]', { hasText: 'Langsam' });
    await expect.poll(() => row.count()).toBe(1);
    const lobby = (await row.getAttribute('data-lobby')) ?? '';
    await page.getByTestId(`catan-fill-${lobby}`).click();
    await expect
      .poll(() => page.getByTestId('catan-lobby-note').textContent())
      .toBe(`3 AI players joined ${lobby}`);
    const match = await vi.waitFor(
      () => server.snapshot().matches.find((m) => m.players.some((p) => p.name === 'Langsam'))!,
      { timeout: 10_000 },
    );

    await page.getByTestId('catan-tab-watch').click();
    await page.getByTestId(`catan-watch-${match.id}`).click();
    const board = page.getByTestId('catan-watch-board');
    await expect
      .poll(async () => Number(await board.getAttribute('data-buildings')), { timeout: 15_000 })
      .toBeGreaterThanOrEqual(8);
    expect(await page.getByTestId('catan-watch').getAttribute('data-match')).toBe(match.id);
    expect(await page.getByTestId('catan-watch-players').getByTestId('catan-player-row').count()).toBe(4);
    expect(await page.getByTestId('catan-watch-log').getByTestId('catan-log-entry').count()).toBeGreaterThan(
      5,
    );
    // A spectator sees no hand by type.
    expect(await page.getByTestId('catan-watch-log').textContent()).not.toMatch(
      /gets (Holz|Lehm|Wolle|Getreide|Erz) \d/,
    );
    await page.screenshot({ path: join(shots, 'catan-watch.png') });
    await slow.stop();
    expect(pageErrors).toEqual([]);
  }, 40_000);

  it('plays a whole game against three AI players by clicking the page', async () => {
    await page.goto(`${base}/#/catan`);
    await page.getByTestId('catan-tab-play').click();
    await page.getByTestId('catan-play-name').fill('Ada');
    await page.getByTestId('catan-play-colour').selectOption('Rot');
    await page.getByTestId('catan-play-join').click();
    const status = page.locator(STATUS);
    await expect.poll(() => status.getAttribute('data-phase')).toBe('lobby');
    await page.getByTestId('catan-play-fill').click();
    await expect.poll(() => page.getByTestId('catan-lobby-member').count()).toBe(4);
    // A colour a bot has taken: the server's Fehler is shown.
    await page.getByTestId('catan-lobby-colour').selectOption('Blau');
    await page.getByTestId('catan-lobby-recolour').click();
    await expect
      .poll(() => page.getByTestId('catan-fehler-last').textContent())
      .toBe('Farbe bereits vergeben');
    await page.getByTestId('catan-play-start').click();
    await expect.poll(() => status.getAttribute('data-phase')).toBe('game');

    let decisions = 0;
    const clicked = new Map<string, number>();
    const click = async (testId: string, what: string): Promise<void> => {
      await page.getByTestId(testId).click();
      clicked.set(what, (clicked.get(what) ?? 0) + 1);
    };
    let last: string | null = null;
    const answered = new Set<string>();
    const spots = page.locator('[data-testid="catan-play-board"] [data-spot]');
    for (;;) {
      // What a person sees once it is their move (a new one): the status, the buttons and board spots on offer.
      const looked: JSHandle<Seen | false> = await page.waitForFunction(
        ([sel, before, done]) => {
          const doc = (globalThis as unknown as { document: Doc }).document;
          const el = doc.querySelector(sel);
          if (el?.getAttribute('data-phase') === 'over')
            return { phase: 'over', version: '', status: '', discard: 0, spots: [], buttons: [] };
          // An offer by a bot not answered yet: accept it if the page offers that, else decline.
          for (const row of Array.from(doc.querySelectorAll('[data-testid="catan-offer-row"]'))) {
            const id = row.getAttribute('data-trade') ?? '';
            if (done.includes(id)) continue;
            const answer = [`catan-accept-${id}`, `catan-cancel-${id}`]
              .map((t) => doc.querySelector(`[data-testid="${t}"]`))
              .find((b) => b !== null && b.disabled !== true && b.textContent !== 'Withdraw');
            const testId = answer?.getAttribute('data-testid');
            if (testId)
              return { phase: 'offer', version: id, status: '', discard: 0, spots: [], buttons: [testId] };
          }
          if (el?.getAttribute('data-acting') !== 'true' || el.getAttribute('data-version') === before)
            return false;
          const ids = (css: string) =>
            Array.from(doc.querySelectorAll(css))
              .filter((b) => b.disabled !== true)
              .map((b) => b.getAttribute('data-testid') ?? '');
          return {
            phase: el.getAttribute('data-phase'),
            version: el.getAttribute('data-version'),
            status: el.getAttribute('data-status') ?? '',
            discard: Number(
              doc.querySelector('[data-testid="catan-discard"]')?.getAttribute('data-count') ?? 0,
            ),
            spots: ids('[data-testid="catan-play-board"] [data-spot]'),
            buttons: ids('[data-testid="catan-actions"] button, [data-testid="catan-sea"] button'),
          };
        },
        [STATUS, last, [...answered]] as const,
        { timeout: 20_000, polling: 15 },
      );
      const seen = (await looked.jsonValue()) as Seen;
      if (seen.phase === 'over') break;
      if (seen.phase === 'offer') {
        // The bots wait for everyone's answer to their offers; a person answers in the dialog.
        answered.add(seen.version ?? '');
        const button = seen.buttons[0]!;
        await click(button, button.startsWith('catan-accept-') ? 'accept' : 'decline');
        continue;
      }
      last = seen.version;
      if (decisions === 1) await page.screenshot({ path: join(shots, 'catan-play-start.png') });
      if (decisions === 50) await page.screenshot({ path: join(shots, 'catan-play-mid.png') });
      decisions++;
      const first = (prefix: string) => seen.buttons.find((b) => b.startsWith(prefix));
      if (seen.status === 'Karten wegen Raeuber abgeben') {
        let chosen = 0;
        for (const r of ['Holz', 'Lehm', 'Wolle', 'Getreide', 'Erz']) {
          const plus = page.getByTestId(`catan-discard-${r}-plus`);
          while (chosen < seen.discard && (await plus.isEnabled())) {
            await plus.click();
            chosen++;
          }
        }
        await click('catan-discard-send', 'discard');
      } else if (
        seen.status === 'Dorf bauen' ||
        seen.status === 'Strasse bauen' ||
        seen.status === 'Raeuber versetzen'
      ) {
        // A person clicks a marked spot on the board (and for the robber, whom to rob).
        await click(seen.spots[0]!, seen.status);
        const victims = page.getByTestId('catan-victims');
        if (seen.status === 'Raeuber versetzen' && (await victims.count()) > 0)
          await victims.getByRole('button').first().click();
      } else if (seen.status === 'Wuerfeln') {
        await click('catan-act-roll', 'roll');
      } else if (first('catan-monopoly-') ?? first('catan-yop-')) {
        // A development card in hand is played at once: Monopol or Erfindung in one click each.
        const card = (first('catan-monopoly-') ?? first('catan-yop-'))!;
        await click(card, card.startsWith('catan-monopoly-') ? 'monopoly' : 'yop');
      } else if (first('catan-act-knight')) {
        // Knight: the button marks the hexes; a click on one moves the robber, then whom to rob.
        await click('catan-act-knight', 'knight');
        await spots.first().click();
        await page.waitForTimeout(100);
        const victims = page.getByTestId('catan-victims');
        if ((await victims.count()) > 0) await victims.getByRole('button').first().click();
      } else if (first('catan-act-roads')) {
        // Strassenbau: two roads clicked on the board (or only one where a single one is left).
        await click('catan-act-roads', 'roads');
        await spots.first().click();
        await page.waitForTimeout(100);
        // Still in the road dialog: the second road, or only the first where no second fits.
        if ((await page.getByTestId('catan-roads').count()) > 0) {
          if ((await spots.count()) > 0) await spots.first().click();
          else await page.getByTestId('catan-roads-single').click();
        }
      } else {
        // Handeln oder Bauen: a city, a settlement, a road, a card, a trade with the bank; else the end of the turn.
        const choice =
          first('catan-build-Stadt-') ??
          first('catan-build-Dorf-') ??
          first('catan-build-Strasse-') ??
          first('catan-act-buyDevCard') ??
          first('catan-sea-') ??
          'catan-act-endTurn';
        await click(choice, choice.replace(/^catan-(build-|act-)?/, '').replace(/-.*$/, ''));
      }
    }
    const result = page.getByTestId('catan-play-result');
    const winner = Number(await result.getAttribute('data-winner'));
    expect(await result.textContent()).toMatch(/Spieler .* hat das Spiel gewonnen\./);
    await page.screenshot({ path: join(shots, 'catan-play-end.png') });
    expect(decisions).toBeGreaterThan(30);
    for (const what of ['Dorf bauen', 'Strasse bauen', 'roll', 'endTurn', 'Strasse', 'Dorf'])
      expect(clicked.get(what), what).toBeGreaterThan(0);
    // Development cards were bought and played through their dialogs.
    expect(
      ['knight', 'roads', 'monopoly', 'yop'].filter((what) => (clicked.get(what) ?? 0) > 0),
      JSON.stringify([...clicked]),
    ).not.toEqual([]);
    // The AI players offered trades and the person answered them in the trade dialog.
    expect((clicked.get('accept') ?? 0) + (clicked.get('decline') ?? 0)).toBeGreaterThan(0);

    // The server recorded the person as a human client; the record replays.
    store.flush();
    const match = store
      .listMatches({ game: 'catan', status: 'finished' })
      .map((m) => store.getMatch(m.id)!)
      .find((m) => m.seats.some((s) => s.name === 'Ada'))!;
    expect(match.seats.find((s) => s.name === 'Ada')).toMatchObject({ kind: 'human' });
    expect((match.result as { winner: number }).winner).toBe(winner);
    expect(verifyCatanMatch(match)).toEqual({ checked: true, problems: [] });

    // Its record on the finished-games tab: the final board, replayed through the rules.
    await page.getByTestId('catan-tab-records').click();
    // The record opens below the list; the window goes to its board.
    await page.setViewportSize({ width: 1280, height: 500 });
    await page.getByTestId(`catan-record-${match.id}`).click();
    await expect
      .poll(() => page.getByTestId('catan-record-check').textContent())
      .toBe('replays through the rules');
    await expect.poll(async () => (await page.getByTestId('catan-record').boundingBox())?.y ?? -1).toBeGreaterThanOrEqual(0);
    expect((await page.getByTestId('catan-record').boundingBox())?.y).toBeLessThan(50);
    await page.setViewportSize({ width: 1280, height: 1200 });
    expect(
      Number(await page.getByTestId('catan-record-board').getAttribute('data-buildings')),
    ).toBeGreaterThan(8);
    await page.screenshot({ path: join(shots, 'catan-record.png') });
    expect(pageErrors).toEqual([]);
  }, 180_000);
});
