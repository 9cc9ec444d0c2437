import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The import graph of src/games/connect4 has no cycle. Every edge counts, type-only imports and
 * re-exports (`export … from`) included: a cycle of types today is a cycle of values tomorrow,
 * and a re-export loads its module like an import does.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const GAME = join(ROOT, 'src', 'games', 'connect4');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The files of the folder that `file` imports or re-exports (relative specifiers inside the folder only). */
function importsOf(file: string, text: string): string[] {
  const info = ts.preProcessFile(text, true, true);
  const out: string[] = [];
  for (const ref of info.importedFiles) {
    if (!ref.fileName.startsWith('.')) continue;
    const target = resolve(dirname(file), ref.fileName).replace(/\.js$/, '.ts');
    if (target.startsWith(GAME)) out.push(target);
  }
  return out;
}

/** Every cycle found by a depth-first search, as the list of files on it (the first repeated at the end). */
function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const s = state.get(next);
      if (s === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (s === undefined) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

describe('the import graph of src/games/connect4', () => {
  it('finds a cycle when there is one (the check itself works)', () => {
    const a = join(GAME, 'a.ts');
    const b = join(GAME, 'sub', 'b.ts');
    const graph = new Map([
      [a, importsOf(a, "export { x } from './sub/b.js';")],
      [b, importsOf(b, "import type { A } from '../a.js';\nimport { y } from 'node:fs';")],
    ]);
    expect(findCycles(graph)).toEqual([[a, b, a]]);
  });

  it('has no cycle, type-only imports and re-exports included', () => {
    const graph = new Map<string, string[]>();
    for (const file of sourceFiles(GAME)) graph.set(file, importsOf(file, readFileSync(file, 'utf8')));
    expect(graph.size).toBeGreaterThan(20);
    expect(graph.get(join(GAME, 'peer.ts'))).toContain(join(GAME, 'peer', 'board.ts'));
    const cycles = findCycles(graph).map((c) => c.map((f) => relative(GAME, f)).join(' -> '));
    expect(cycles).toEqual([]);
  });
});
