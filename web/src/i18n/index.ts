import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import de from './de.json';
import en from './en.json';

/**
 * The dashboard's two languages. Every UI string is a key in de.json and en.json; protocol words
 * (Dorf, Strasse, Rohstoffe, GAMEOVER …) are data and stay as the protocols spell them in both.
 * The choice: what the reader picked (localStorage), else German for a browser that prefers it
 * over English (navigator.languages), else English.
 */

export const LANGUAGES = ['de', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];
const STORAGE_KEY = 'spielhalle.lang';

/** Keys asked for but missing, for tests (`window.__i18nMissing`) and the console. */
declare global {
  interface Window {
    __i18nMissing?: string[];
  }
}

const isLanguage = (value: unknown): value is Language => value === 'de' || value === 'en';

export function initialLanguage(): Language {
  try {
    const saved = window.localStorage.getItem(STORAGE_KEY);
    if (isLanguage(saved)) return saved;
  } catch {
    // No storage (a locked-down browser): the browser's languages decide.
  }
  const asked = navigator.languages.length > 0 ? navigator.languages : [navigator.language];
  for (const tag of asked) {
    const primary = tag.toLowerCase().split('-')[0];
    if (isLanguage(primary)) return primary;
  }
  return 'en';
}

export function setLanguage(language: Language): void {
  try {
    window.localStorage.setItem(STORAGE_KEY, language);
  } catch {
    // Not remembered, but switched.
  }
  void i18next.changeLanguage(language);
}

const reportMissing = (languages: readonly string[], _ns: string, key: string) => {
  const entry = `${languages.join(',')}: ${key}`;
  (window.__i18nMissing ??= []).push(entry);
  console.error(`i18n: missing key ${entry}`);
};

void i18next.use(initReactI18next).init({
  resources: { de: { translation: de }, en: { translation: en } },
  lng: initialLanguage(),
  supportedLngs: LANGUAGES,
  // Each language must have every key (test/web/i18n.test.ts): no quiet fallback to the other.
  fallbackLng: false,
  saveMissing: true,
  missingKeyHandler: reportMissing,
  interpolation: { escapeValue: false },
  returnNull: false,
});

const showLanguage = (language: string) => {
  document.documentElement.lang = language;
};
showLanguage(i18next.language);
i18next.on('languageChanged', showLanguage);

export { i18next };
