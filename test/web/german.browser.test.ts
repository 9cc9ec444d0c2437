import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordStore } from '../../src/core/records.js';
import { GAMES } from '../../src/games/registry.js';
import { openAllGames, PAGES, type AllGamesRig } from './all-games.js';
import { seedTournament } from './course-fixtures.js';
import { seedStore, T0 } from './fixtures.js';

/**
 * A student who reads German sees German on every page and tab (issue #33, item 10): the visible
 * text outside code and pre elements (protocol words stay as sent, in code) holds none of a list
 * of English words. Scenario texts of "Test your client", bot descriptions, result reasons, game
 * names and protocol lines are all part of what is walked.
 */

/** Whole words (case-sensitive) that are English and not German. */
const ENGLISH = [
  'the', 'The', 'and', 'with', 'must', 'when', 'When', 'which', 'your', 'you', 'You', 'from', 'this', 'that',
  'after', 'before', 'only', 'never', 'every', 'Every', 'loses', 'wins', 'won', 'lost', 'beat', 'draw',
  'Players', 'Player', 'player', 'players', 'Round', 'Rounds', 'round', 'rounds', 'Game', 'Games', 'game', 'games',
  'Match', 'Matches', 'match', 'matches', 'Move', 'Moves', 'move', 'moves', 'Turn', 'turn', 'Board', 'board',
  'Winner', 'winner', 'Score', 'Points', 'points', 'Seat', 'seat', 'seats', 'opponent', 'opponents', 'sends', 'send',
  'over', 'peer', 'Checkers', 'Connect', 'Four', 'Mia', 'Watch', 'Play', 'Records', 'random', 'search',
  'strongest', 'weakest', 'engine', 'legal', 'until', 'while', 'its', 'his', 'their', 'then', 'than',
  'should', 'will', 'does', 'not', 'Not', 'no', 'No', 'yes', 'Yes', 'loading', 'Loading', 'none', 'None',
  'of', 'to', 'on', 'at', 'by', 'for', 'or', 'is', 'are', 'be', 'it', 'a',
];
const ENGLISH_RE = new RegExp(`(?<![\\p{L}\\p{N}_.-])(${ENGLISH.join('|')})(?![\\p{L}\\p{N}_-])`, 'u');

/** A game's raw id where its name belongs ("Teste deinen catan-Client"). */
const RAW_ID = /(?<![\p{L}\p{N}_./#-])(catan|mia|connect4|dame|ostseeschach)(?![\p{L}\p{N}_./])/u;

/**
 * Names, which are data and stay as chosen: the fixtures' players and entrants, the house bots'
 * players and games (Dame's "House game 1.2: depth2 (White) v engine 250 ms (Black)", Ostseeschach's
 * "House 1 A (engine 500 ms)"), sent over the wire as names.
 */
const NAMES = [
  /\b(alice|bob|carol|red-bot|yellow-bot|random-\d|greedy-\d)\b/g,
  /House game [\d.]+: .*?\(Black\)/g,
  /House \d+ [AB] \([^)]*\)/g,
  /\bMia\b/g, // Mäxchen's other name, as the course calls it
];
/** A text that is only bot names (a seat list such as "engine, depth4"). */
const ONLY_BOT_NAMES = /^((engine|random|greedy|depth\d+|adaptive|probabilistic|honest|builder|weighted|search|perfect|strong|easy)(, |$))+$/;

interface Finding {
  where: string;
  text: string;
  word: string;
}

/** Visible text nodes outside code/pre/kbd/samp and outside the boards' SVG text, with the English words in them. */
async function englishOn(page: Page, where: string): Promise<Finding[]> {
  const texts = await page.evaluate<string[]>(`(() => {
    const out = [];
    const skip = (el) => el.closest('code, pre, kbd, samp, script, style, [data-protocol], select, textarea, input, .wire');
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const text = n.textContent.trim();
      if (text === '') continue;
      const el = n.parentElement;
      if (!el || skip(el)) continue;
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden' || style.display === 'none') continue;
      if (el.getClientRects().length === 0) continue;
      out.push(text);
    }
    return out;
  })()`);
  const found: Finding[] = [];
  for (const text of texts) {
    if (ONLY_BOT_NAMES.test(text)) continue;
    let rest = text;
    for (const name of NAMES) rest = rest.replace(name, ' ');
    const m = ENGLISH_RE.exec(rest) ?? RAW_ID.exec(rest);
    if (m) found.push({ where, text: text.slice(0, 160), word: m[1]! });
  }
  return found;
}

describe('the dashboard in German', () => {
  const store = new RecordStore(':memory:');
  let rig: AllGamesRig | undefined;
  let tournament = '';

  beforeAll(async () => {
    seedStore(store);
    tournament = (await seedTournament(store, T0 + 120_000)).id;
    rig = await openAllGames(store, { houseBots: true });
  }, 60_000);

  afterAll(async () => {
    await rig?.close();
    store.close();
  });

  it('shows no English words on any page or tab (protocol words in code stay as sent)', async () => {
    const context = await rig!.context({ width: 1280, height: 900, locale: 'de-DE' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    const pages = [
      ...PAGES,
      ...GAMES.filter((g) => g.conformance).map((g) => `#/${g.name}/check-client`),
      '#/matches?status=any',
      '#/matches/mia-round-1',
      '#/matches/connect4-1',
      `#/tournaments/${tournament}`,
      `#/tournaments/${tournament}/entrants/random-1`,
    ];
    const found: Finding[] = [];
    for (const hash of [...new Set(pages)]) {
      await page.goto('about:blank');
      await page.goto(`${rig!.base}/${hash}`);
      await page.locator('main').first().waitFor();
      await page.waitForLoadState('networkidle').catch(() => undefined);
      await page.waitForTimeout(400);
      expect(await page.evaluate<string>('document.documentElement.lang')).toBe('de');
      if (hash === '#/tournaments') {
        await page.getByTestId('new-tournament-toggle').click();
        await page.getByTestId('entrant-row').first().waitFor();
        // Every game's bots, each with its description.
        for (const game of GAMES.filter((g) => g.tournament)) {
          await page.getByTestId('tournament-game').selectOption(game.name);
          const bots = page.getByTestId('entrant-bot').first();
          const names = await page.evaluate<string[]>(`[...document.querySelector('[data-testid="entrant-bot"]').options].map((o) => o.value)`);
          for (const bot of names) {
            await bots.selectOption(bot);
            found.push(...(await englishOn(page, `${hash} ${game.name} bot ${bot}`)));
          }
        }
        continue;
      }
      found.push(...(await englishOn(page, hash)));
      const tabs = page.getByRole('tab');
      for (let i = 0; i < (await tabs.count()); i++) {
        await tabs.nth(i).click();
        await page.waitForTimeout(300);
        found.push(...(await englishOn(page, `${hash} tab ${i} (${(await tabs.nth(i).textContent()) ?? ''})`)));
      }
    }
    const unique = [...new Map(found.map((f) => [f.text, f])).values()];
    expect(unique.map((f) => `${f.where}: «${f.word}» in "${f.text}"`)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 180_000);
});
