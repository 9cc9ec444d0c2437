import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './browser.js';

/**
 * The dashboard's message files: German and English have the same keys, and every key the code
 * names (`t('…')`, `i18nKey="…"`, a `…Key: '…'` entry) is in both. Keys built at run time
 * (`t(\`status.${s}\`)`) are checked in the browser test, which fails on any missing key.
 */

type Messages = { [key: string]: string | Messages };
const load = (lang: string) =>
  JSON.parse(readFileSync(join(ROOT, 'web', 'src', 'i18n', `${lang}.json`), 'utf8')) as Messages;

function flatten(messages: Messages, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(messages)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    if (typeof value === 'string') out.set(path, value);
    else for (const [k, v] of flatten(value, path)) out.set(k, v);
  }
  return out;
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

const de = flatten(load('de'));
const en = flatten(load('en'));
const PLURAL = /_(zero|one|two|few|many|other)$/;

/** A key as code names it: plural forms count as their base key. */
const baseKeys = (keys: Iterable<string>) => new Set([...keys].map((k) => k.replace(PLURAL, '')));

describe('message files', () => {
  it('have the same keys in German and English, none of them empty', () => {
    expect([...de.keys()].sort()).toEqual([...en.keys()].sort());
    expect([...de].filter(([, v]) => v.trim() === '').map(([k]) => `de ${k}`)).toEqual([]);
    expect([...en].filter(([, v]) => v.trim() === '').map(([k]) => `en ${k}`)).toEqual([]);
  });

  it('use the same placeholders in both languages', () => {
    const names = (text: string) => [...text.matchAll(/\{\{\s*(\w+)/g)].map((m) => m[1]).sort();
    const differ = [...de].filter(
      ([key, text]) => JSON.stringify(names(text)) !== JSON.stringify(names(en.get(key) ?? '')),
    );
    expect(differ.map(([key]) => key)).toEqual([]);
  });

  it('hold every key the dashboard code names', () => {
    const known = baseKeys(de.keys());
    const used = new Map<string, string>();
    const patterns = [
      /\bt\(\s*'([^'$`]+)'/g,
      /\bt\(\s*"([^"$`]+)"/g,
      /i18nKey=["']([^"']+)["']/g,
      /i18nKey=\{\s*'([^']+)'\s*\}/g,
      /\b\w*[kK]ey:\s*'([a-zA-Z0-9]+\.[a-zA-Z0-9_.-]+)'/g,
    ];
    for (const path of files(join(ROOT, 'web', 'src'))) {
      const text = readFileSync(path, 'utf8');
      for (const pattern of patterns)
        for (const m of text.matchAll(pattern)) used.set(m[1]!, relative(ROOT, path));
    }
    expect(used.size).toBeGreaterThan(80);
    const missing = [...used].filter(([key]) => !known.has(key)).map(([key, file]) => `${file}: ${key}`);
    expect(missing).toEqual([]);
  });
});
