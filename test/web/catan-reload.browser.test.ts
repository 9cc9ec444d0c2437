import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboard, SHOTS as shots, type BrowserRig } from './browser.js';
import { silentLogger } from '../../src/core/log.js';
import { RecordStore } from '../../src/core/records.js';
import { createCatanBot } from '../../src/games/catan/client.js';
import { catan } from '../../src/games/catan/index.js';
import { createCatanServer, type CatanServer } from '../../src/games/catan/server.js';

/**
 * Issue #33, item 12: two people play Catan in two tabs of a real headless Chromium with two of
 * our AI players; one tab reloads in the middle of the game. Leaving asks first (beforeunload),
 * the tab comes back to the Play tab (the tab is in the address) with the same seat, hand and
 * game, the other person sees "reconnecting…" while it is away, and the game goes on for everyone.
 * Needs web/dist (npm test builds it first).
 */

const STATUS = '[data-testid="catan-play-status"]';

interface El {
  getAttribute(name: string): string | null;
  readonly disabled?: boolean;
}
interface Doc {
  querySelector(selector: string): El | null;
  querySelectorAll(selector: string): ArrayLike<El>;
}
type Next =
  | { kind: 'none'; version: string }
  | { kind: 'decline'; testId: string; version: string }
  | { kind: 'spot'; version: string; count: number }
  | { kind: 'discard'; version: string; count: number }
  | { kind: 'button'; testId: string; version: string };

describe('a Catan browser game across a reload', () => {
  const store = new RecordStore(':memory:');
  let server: CatanServer;
  let rig: BrowserRig | undefined;
  let ada: Page;
  let bert: Page;
  let base: string;
  const errors: string[] = [];

  beforeAll(async () => {
    server = createCatanServer({
      host: '127.0.0.1',
      port: 0,
      seed: 'browser-reload',
      log: silentLogger,
      store,
      botThinkMs: 0,
      botStrategy: (seed) => createCatanBot('builder', seed),
    });
    await server.start();
    rig = await openDashboard({ module: catan, server, store, viewport: { width: 1280, height: 1200 } });
    ({ base, page: ada } = rig);
    // The other person: a page of its own (its own storage, so its own seat).
    bert = await ada.context().browser()!.newPage({ viewport: { width: 1280, height: 1200 } });
    bert.setDefaultTimeout(15_000);
    for (const p of [ada, bert]) p.on('pageerror', (err) => errors.push(err.message));
  });

  afterAll(async () => {
    await rig?.close();
    await server.stop();
    store.close();
  });

  /** What the person in `page` would do now (the first spot, roll, end the turn, decline offers). */
  const look = (page: Page, declined: readonly string[]): Promise<Next> =>
    page.evaluate(
      ([sel, done]) => {
        const doc = (globalThis as unknown as { document: Doc }).document;
        const el = doc.querySelector(sel);
        const version = el?.getAttribute('data-version') ?? '';
        if (el?.getAttribute('data-phase') !== 'game') return { kind: 'none', version } as const;
        for (const row of Array.from(doc.querySelectorAll('[data-testid="catan-offer-row"]'))) {
          const id = row.getAttribute('data-trade') ?? '';
          const button = doc.querySelector(`[data-testid="catan-cancel-${id}"]`);
          if (!done.includes(id) && button && button.disabled !== true)
            return { kind: 'decline', testId: `catan-cancel-${id}`, version } as const;
        }
        if (el.getAttribute('data-acting') !== 'true') return { kind: 'none', version } as const;
        const status = el.getAttribute('data-status') ?? '';
        if (status === 'Dorf bauen' || status === 'Strasse bauen' || status === 'Raeuber versetzen')
          return { kind: 'spot', version, count: 0 } as const;
        if (status === 'Karten wegen Raeuber abgeben') {
          const count = Number(doc.querySelector('[data-testid="catan-discard"]')?.getAttribute('data-count') ?? 0);
          return { kind: 'discard', version, count } as const;
        }
        if (status === 'Wuerfeln') return { kind: 'button', testId: 'catan-act-roll', version } as const;
        return { kind: 'button', testId: 'catan-act-endTurn', version } as const;
      },
      [STATUS, declined] as const,
    );

  /** Plays both tabs by clicking until `done`; counts each tab's rolls. */
  async function playUntil(done: () => boolean | Promise<boolean>, rolls: Map<Page, number>): Promise<void> {
    const acted = new Map<Page, string>();
    const declined = new Map<Page, string[]>([
      [ada, []],
      [bert, []],
    ]);
    const deadline = Date.now() + 40_000;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error('the game did not go on');
      let moved = false;
      for (const page of [ada, bert]) {
        const next = await look(page, declined.get(page)!);
        if (next.kind === 'none') continue;
        if (next.kind === 'decline') {
          declined.get(page)!.push(next.testId.replace('catan-cancel-', ''));
          await page.getByTestId(next.testId).click();
          moved = true;
          continue;
        }
        // Once per new state: the page's own move waits for the server.
        if (acted.get(page) === next.version) continue;
        acted.set(page, next.version);
        moved = true;
        if (next.kind === 'spot') {
          await page.locator('[data-testid="catan-play-board"] [data-spot]').first().click();
          const victims = page.getByTestId('catan-victims');
          if ((await victims.count()) > 0) await victims.getByRole('button').first().click();
        } else if (next.kind === 'discard') {
          let chosen = 0;
          for (const r of ['Holz', 'Lehm', 'Wolle', 'Getreide', 'Erz']) {
            const plus = page.getByTestId(`catan-discard-${r}-plus`);
            while (chosen < next.count && (await plus.isEnabled())) {
              await plus.click();
              chosen++;
            }
          }
          await page.getByTestId('catan-discard-send').click();
        } else {
          await page.getByTestId(next.testId).click();
          if (next.testId === 'catan-act-roll') rolls.set(page, (rolls.get(page) ?? 0) + 1);
        }
      }
      if (!moved) await ada.waitForTimeout(30);
    }
  }

  const hand = (page: Page): Promise<string[]> =>
    Promise.all(
      ['Holz', 'Lehm', 'Wolle', 'Getreide', 'Erz'].map(
        async (r) => `${r} ${await page.getByTestId(`catan-hand-${r}`).getAttribute('data-count')}`,
      ),
    );

  it('keeps the seat, the tab and the game when a page reloads, and shows the others who is reconnecting', async () => {
    // Ada opens the Play tab by clicking: the address says so.
    await ada.goto(`${base}/#/catan`);
    await ada.getByTestId('catan-tab-play').click();
    expect(new URL(ada.url()).hash).toBe('#/catan?tab=play');
    await ada.getByTestId('catan-play-name').fill('Ada');
    await ada.getByTestId('catan-play-colour').selectOption('Rot');
    await ada.getByTestId('catan-play-join').click();
    await expect.poll(() => ada.locator(STATUS).getAttribute('data-phase')).toBe('lobby');
    // Bert opens the address with the tab in it: the Play tab at once.
    await bert.goto(`${base}/#/catan?tab=play`);
    expect(await bert.getByTestId('catan-tab-play').getAttribute('aria-selected')).toBe('true');
    await bert.getByTestId('catan-play-name').fill('Bert');
    await bert.getByTestId('catan-play-colour').selectOption('Blau');
    await bert.getByTestId('catan-play-join').click();
    await expect.poll(() => ada.getByTestId('catan-lobby-member').count()).toBe(2);
    await ada.getByTestId('catan-play-fill').click();
    await expect.poll(() => ada.getByTestId('catan-lobby-member').count()).toBe(4);
    await ada.getByTestId('catan-play-start').click();
    await bert.getByTestId('catan-play-start').click();
    for (const p of [ada, bert]) await expect.poll(() => p.locator(STATUS).getAttribute('data-phase')).toBe('game');

    const rolls = new Map<Page, number>();
    // Into the game: the setup is over and Ada holds cards.
    await playUntil(async () => (await hand(ada)).some((h) => !h.endsWith(' 0')), rolls);
    const me = await ada.locator(STATUS).getAttribute('data-me');
    const match = await ada.locator(STATUS).getAttribute('data-match');
    expect(me).toMatch(/^\d+$/);
    expect(match).not.toBe('');
    const handBefore = await hand(ada);
    const bertMe = await bert.locator(STATUS).getAttribute('data-me');

    // The reload asks first (a game is in progress); accepted, the page reloads into the same seat.
    const dialogs: string[] = [];
    const accept = (d: { type(): string; accept(): Promise<void> }) => {
      dialogs.push(d.type());
      void d.accept();
    };
    ada.on('dialog', accept);
    await ada.reload();
    expect(dialogs).toEqual(['beforeunload']);
    expect(new URL(ada.url()).hash).toBe('#/catan?tab=play');
    expect(await ada.getByTestId('catan-tab-play').getAttribute('aria-selected')).toBe('true');
    await expect.poll(() => ada.locator(STATUS).getAttribute('data-phase')).toBe('game');
    expect(await ada.locator(STATUS).getAttribute('data-me')).toBe(me);
    expect(await ada.locator(STATUS).getAttribute('data-match')).toBe(match);
    expect(await hand(ada)).toEqual(handBefore);
    expect(await ada.getByTestId('catan-play-log').getByTestId('catan-log-entry').count()).toBeGreaterThan(5);
    await ada.screenshot({ path: join(shots, 'catan-reloaded.png') });

    // Away a little longer: Bert sees Ada reconnecting, then back.
    await ada.goto('about:blank');
    const adaRow = bert.locator(`[data-testid="catan-play-players"] [data-player="${me}"]`);
    await expect.poll(() => adaRow.getByTestId('catan-reconnecting').count()).toBe(1);
    await bert.screenshot({ path: join(shots, 'catan-reconnecting.png') });
    await ada.goto(`${base}/#/catan?tab=play`);
    await expect.poll(() => ada.locator(STATUS).getAttribute('data-me')).toBe(me);
    await expect.poll(() => adaRow.getByTestId('catan-reconnecting').count()).toBe(0);

    // The game goes on, same seats for everyone: both roll the dice after the reload.
    rolls.clear();
    await playUntil(() => (rolls.get(ada) ?? 0) >= 1 && (rolls.get(bert) ?? 0) >= 1, rolls);
    expect(await ada.locator(STATUS).getAttribute('data-me')).toBe(me);
    expect(await bert.locator(STATUS).getAttribute('data-me')).toBe(bertMe);
    store.flush();
    expect(store.getMatch(match!)!.status).toBe('running');

    // Leaving is not a reload: the game ends for everyone (D9), as for any client.
    ada.off('dialog', accept);
    await ada.getByTestId('catan-play-leave').click();
    await expect.poll(() => bert.locator(STATUS).getAttribute('data-phase')).toBe('over');
    expect(await bert.getByTestId('catan-play-result').textContent()).toContain(
      'Spieler Ada hat die Verbindung verloren. Spiel abgebrochen.',
    );
    // Nothing asks any more once the game is over.
    const bertDialogs: string[] = [];
    bert.on('dialog', (d) => {
      bertDialogs.push(d.type());
      void d.accept();
    });
    await bert.reload();
    expect(bertDialogs).toEqual([]);
    expect(errors).toEqual([]);
  }, 120_000);
});
