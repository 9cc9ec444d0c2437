import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cycles, importGraph, importsOf } from './lib/import-graph.js';

/**
 * No import cycle anywhere in the server (src/) or the dashboard (web/src/) — issue 16 broke the
 * four there were (catan driver ↔ bots, house-bot ↔ lobby, protocol ↔ protocol-server, connect4
 * peer ↔ auto-player). Type-only imports and re-exports count as edges.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');

describe('the import graph', () => {
  it('catches a cycle through a type-only import and a re-export (the check itself works)', () => {
    const a = join(SRC, 'games', 'x', 'a.ts');
    const b = join(SRC, 'games', 'x', 'bots', 'b.ts');
    const c = join(SRC, 'games', 'x', 'c.ts');
    const graph = new Map([
      [a, importsOf(a, "export { x } from './bots/b.js';", SRC)],
      [b, importsOf(b, "import type { C } from '../c.js';\nimport { readFileSync } from 'node:fs';", SRC)],
      [c, importsOf(c, "import {\n  y,\n} from './a.js';", SRC)],
    ]);
    expect(cycles(graph)).toEqual([[a, b, c].sort()]);
    graph.set(c, importsOf(c, "import { y } from '../../core/rng.js';", SRC));
    expect(cycles(graph)).toEqual([]);
  });

  for (const dir of ['src', 'web/src']) {
    it(`has no cycle in ${dir}`, () => {
      const root = join(ROOT, dir);
      const graph = importGraph(root);
      expect(graph.size).toBeGreaterThan(dir === 'src' ? 200 : 40);
      if (dir === 'src') {
        // The parse sees multi-line imports and re-exports.
        expect(graph.get(join(SRC, 'games', 'catan', 'protocol.ts'))).toContain(join(SRC, 'games', 'catan', 'protocol-server.ts'));
        expect(graph.get(join(SRC, 'games', 'connect4', 'peer.ts'))).toContain(join(SRC, 'games', 'connect4', 'peer', 'board.ts'));
      }
      const found = cycles(graph).map((c) => c.map((f) => relative(root, f)).join(', '));
      expect(found).toEqual([]);
    });
  }
});
