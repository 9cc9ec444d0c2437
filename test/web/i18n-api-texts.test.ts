import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import i18next from 'i18next';
import { describe, expect, it } from 'vitest';
import { GAMES } from '../../src/games/registry.js';
import { reasonText } from '../../web/src/matchResult.js';
import { ROOT } from './browser.js';

/**
 * The English texts the API sends, in German (issue #33, item 10): every check-client scenario of
 * every game has a German title, rule, section and hint (web/src/i18n/scenarios.de.json), every
 * bot a tournament entrant may name has a German description (bots.de.json), and the reasons a
 * tournament records read as German phrases. A new scenario or bot without German fails here.
 */

const readJson = (name: string) => JSON.parse(readFileSync(join(ROOT, 'web', 'src', 'i18n', name), 'utf8')) as unknown;
const scenarios = readJson('scenarios.de.json') as Record<string, Record<string, Record<string, string>>>;
const bots = readJson('bots.de.json') as Record<string, Record<string, string>>;

/** Backticks mark protocol words: they come in pairs. */
const balanced = (text: string) => (text.match(/`/g) ?? []).length % 2 === 0;

describe('German texts of the API', () => {
  const withScenarios = GAMES.filter((g) => g.conformance !== undefined);

  it('cover every check-client scenario of every game, and no other', () => {
    expect(withScenarios.length).toBeGreaterThanOrEqual(5);
    for (const game of withScenarios) {
      const ids = game.conformance!.scenarios.map((s) => s.id);
      expect({ game: game.name, ids: Object.keys(scenarios[game.name] ?? {}).sort() }).toEqual({ game: game.name, ids: [...ids].sort() });
    }
    expect(Object.keys(scenarios).sort()).toEqual(withScenarios.map((g) => g.name).sort());
  });

  it('give every scenario a German title, rule, section and hint (not the English one)', () => {
    const problems: string[] = [];
    for (const game of withScenarios)
      for (const s of game.conformance!.scenarios) {
        const de = scenarios[game.name]?.[s.id];
        for (const field of ['title', 'rule', 'section', 'hint'] as const) {
          const text = de?.[field];
          if (typeof text !== 'string' || text.trim() === '') problems.push(`${game.name}/${s.id}: no German ${field}`);
          else if (field !== 'section' && text === s[field]) problems.push(`${game.name}/${s.id}: ${field} is the English one`);
          else if (!balanced(text)) problems.push(`${game.name}/${s.id}: ${field} has an odd number of backticks`);
        }
      }
    expect(problems).toEqual([]);
  });

  it('describe every bot a tournament entrant may name', () => {
    const problems: string[] = [];
    for (const game of GAMES.filter((g) => g.tournament))
      for (const bot of game.tournament!.bots) {
        const de = bots[game.name]?.[bot.name];
        if (typeof de !== 'string' || de.trim() === '') problems.push(`${game.name}/${bot.name}: no German description`);
        else if (de === bot.description) problems.push(`${game.name}/${bot.name}: the English description`);
        else if (!balanced(de)) problems.push(`${game.name}/${bot.name}: odd number of backticks`);
      }
    expect(problems).toEqual([]);
  });
});

describe('tournament reasons', () => {
  const instance = (lng: 'de' | 'en') => {
    const i = i18next.createInstance();
    void i.init({
      lng,
      resources: { [lng]: { translation: readJson(`${lng}.json`) as Record<string, string> } },
      interpolation: { escapeValue: false },
      initAsync: false,
    });
    return (key: string, values: Record<string, unknown>) => i.t(key, values);
  };
  const de = instance('de');
  const en = instance('en');

  // What each game's tournament support records (src/games/*/tournament.ts).
  const RECORDED: [string, string][] = [
    ['no-moves: random-bot loses', 'kein erlaubter Zug mehr: random-bot verliert'],
    ['timeout: anna loses', 'Zeit abgelaufen: anna verliert'],
    ['REGULAR: anna wins 2:0', 'REGULAR: anna gewinnt 2:0'],
    ['REGULAR: draw 1:1', 'REGULAR: unentschieden 1:1'],
    ['SOFT_TIMEOUT: bert (Did not respond in time)', 'SOFT_TIMEOUT: bert (Did not respond in time)'],
    ['draw: the board is full', 'unentschieden: das Brett ist voll'],
    ['four in a row: anna', 'vier in einer Reihe: anna'],
    ['bert no move within 2000 ms', 'bert: kein Zug binnen 2000 ms'],
    ['anna went silent; bert sent stage 5 without a final move', 'anna ist verstummt; bert hat Stage 5 ohne letzten Zug gesendet'],
    ['20 rounds played: anna 3, bert 1', '20 Runden gespielt: anna 3, bert 1'],
    ['only anna registered: no round can be played', 'nur anna hat sich registriert: keine Runde möglich'],
    ['no game: anna, bert did not join', 'keine Partie: anna, bert nicht beigetreten'],
    ['bye', 'Freilos'],
    ['Spiel beendet: Sieger anna', 'Spiel beendet: Sieger anna'],
  ];

  it('read as German phrases, names and protocol words as recorded', () => {
    expect(RECORDED.map(([r]) => reasonText(r, de))).toEqual(RECORDED.map(([, g]) => g));
  });

  it('read in English as recorded', () => {
    const english = RECORDED.map(([r]) => r).filter((r) => !r.startsWith('no-moves') && !r.startsWith('timeout'));
    expect(english.map((r) => reasonText(r, en))).toEqual(english);
  });
});
