import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The import graph of src/games/catan has no cycle (issue 16). Every edge counts: type-only
 * imports and re-exports (`export … from`) too, since a re-export loads its module like an import
 * and a cycle of types is one refactoring away from a cycle of values.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const GAME = join(ROOT, 'src', 'games', 'catan');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The game's own files that `file` imports or re-exports (relative specifiers only). */
function edges(file: string, source: string): string[] {
  const { importedFiles } = ts.preProcessFile(source, true, true);
  return importedFiles
    .filter((f) => f.fileName.startsWith('.'))
    .map((f) => resolve(dirname(file), f.fileName).replace(/\.js$/, '.ts'))
    .filter((target) => target.startsWith(GAME + '/'));
}

/** The strongly connected components with more than one file (or a file importing itself): every cycle lies in one. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

describe('the import graph of src/games/catan', () => {
  it('catches a cycle through a type-only import and a re-export (the check itself works)', () => {
    const a = join(GAME, 'a.ts');
    const b = join(GAME, 'bots', 'b.ts');
    const c = join(GAME, 'c.ts');
    const graph = new Map([
      [a, edges(a, "export { x } from './bots/b.js';")],
      [b, edges(b, "import type { C } from '../c.js';\nimport { readFileSync } from 'node:fs';")],
      [c, edges(c, "import { y } from './a.js';")],
    ]);
    expect(cycles(graph)).toEqual([[a, b, c].sort()]);
    graph.set(c, edges(c, "import { y } from '../../core/rng.js';"));
    expect(cycles(graph)).toEqual([]);
  });

  it('has no cycle', () => {
    const graph = new Map<string, string[]>();
    for (const file of tsFiles(GAME)) graph.set(file, edges(file, readFileSync(file, 'utf8')));
    expect(graph.size).toBeGreaterThan(40);
    // The parse sees multi-line imports and re-exports (protocol.ts re-exports parseServer).
    expect(graph.get(join(GAME, 'protocol.ts'))).toContain(join(GAME, 'protocol-server.ts'));
    expect(graph.get(join(GAME, 'lobby.ts'))).toContain(join(GAME, 'house-bot.ts'));
    const found = cycles(graph).map((c) => c.map((f) => relative(GAME, f)).join(', '));
    expect(found).toEqual([]);
  });
});
