import type { CheckClientScenarioView } from '../../../src/web/check-client-api.js';
import botsDe from './bots.de.json';
import scenariosDe from './scenarios.de.json';

/**
 * Texts the server's API sends in English (each game's check-client scenarios, our bots'
 * descriptions), in German when the dashboard speaks German. Keyed by game and scenario id or
 * bot name (test/web/i18n-api-texts.test.ts checks that every one the games have is here). In
 * the German texts, `backticks` mark protocol words, which the page shows as sent, in code.
 */

type Texts = Record<string, Record<string, { title: string; rule: string; section: string; hint: string }>>;
const SCENARIOS: Texts = scenariosDe;
const BOTS: Record<string, Record<string, string>> = botsDe;

export interface ScenarioTexts {
  title: string;
  rule: string;
  section: string;
  hint: string;
  /** True when `backticks` mark the protocol words (the German texts). */
  marked: boolean;
}

export function scenarioTexts(language: string, game: string, s: CheckClientScenarioView): ScenarioTexts {
  const de = language === 'de' ? SCENARIOS[game]?.[s.id] : undefined;
  if (de) return { ...de, marked: true };
  return { title: s.title, rule: s.rule, section: s.section, hint: s.hint, marked: false };
}

/** A bot's description in the dashboard's language (marked with backticks when German). */
export function botDescription(language: string, game: string, bot: { name: string; description: string }): { text: string; marked: boolean } {
  const de = language === 'de' ? BOTS[game]?.[bot.name] : undefined;
  return de === undefined ? { text: bot.description, marked: false } : { text: de, marked: true };
}
