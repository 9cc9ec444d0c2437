import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './browser.js';

/**
 * The record shapes are declared once, in src/core/record-types.ts: the store and the dashboard
 * import them from there, so a field added to a record cannot be missing on one side.
 */

const NAMES = ['MatchStatus', 'SeatRecord', 'MatchRecord', 'EventRecord', 'WireRecord', 'MatchDetail'];
const names = NAMES.join('|');
const declares = new RegExp(`^(?:export\\s+)?(?:interface\\s+(${names})\\b|type\\s+(${names})\\s*=)`, 'gm');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

describe('record types', () => {
  it('are declared only in src/core/record-types.ts', () => {
    const where = [...files(join(ROOT, 'src')), ...files(join(ROOT, 'web', 'src'))].flatMap((path) =>
      [...readFileSync(path, 'utf8').matchAll(declares)].map(
        (m) => `${relative(ROOT, path)}: ${m[1] ?? m[2]}`,
      ),
    );
    expect(where.sort()).toEqual(NAMES.map((n) => `src/core/record-types.ts: ${n}`).sort());
  });

  it('reach the dashboard and the store from there', () => {
    const web = readFileSync(join(ROOT, 'web', 'src', 'types.ts'), 'utf8');
    expect(web).toMatch(/from '\.\.\/\.\.\/src\/core\/record-types\.js'/);
    const store = readFileSync(join(ROOT, 'src', 'core', 'records.ts'), 'utf8');
    expect(store).toMatch(/from '\.\/record-types\.js'/);
  });
});
