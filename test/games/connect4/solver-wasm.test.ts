import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  Book,
  defaultSolver,
  Position,
  SearchAborted,
  solvablePosition,
  Solver,
  wasmPath,
} from '../../../src/games/connect4/solver/index.js';
import { fixture } from './fixtures.js';


function position(notation: string): Position {
  const p = solvablePosition(notation);
  if (!p.ok) throw new Error(`${notation}: ${p.error.message}`);
  return p.value;
}

const built = wasmPath() !== null;
/** `npm test` builds before vitest, and CI runs `npm test`: there the core must exist. */
const buildExpected = process.env.CI !== undefined || existsSync(new URL('../../../dist/cli.js', import.meta.url));

describe('connect4 solver engines', () => {
  it('uses the WebAssembly core whenever the build has made it', () => {
    if (buildExpected) expect(wasmPath(), 'dist/wasm/connect4-solver.wasm (run `npm run build`)').not.toBeNull();
    expect(defaultSolver().engine).toBe(built ? 'wasm' : 'ts');
    expect(new Solver({ tableLog: 17, engine: 'ts' }).engine).toBe('ts');
    if (!built) expect(() => new Solver({ tableLog: 17, engine: 'wasm' })).toThrow(/npm run build/);
  });
});

describe.skipIf(!built)(`connect4 solver in WebAssembly${built ? '' : ' (skipped: dist/wasm/connect4-solver.wasm not built; run `npm run build`)'}`, () => {
  /**
   * Solves a set with both engines, each with one table for the whole set (never reset, so a
   * difference in what either stores would show in later counts), and compares per position.
   */
  function compare(cases: [string, number][], book: Book | null, tableLog = 20): number {
    const ts = new Solver({ tableLog, book, engine: 'ts' });
    const wasm = new Solver({ tableLog, book, engine: 'wasm' });
    for (const [moves, score] of cases) {
      const p = position(moves);
      const t0 = ts.nodeCount;
      const w0 = wasm.nodeCount;
      expect(wasm.solve(p), moves).toBe(score);
      expect(ts.solve(p), moves).toBe(score);
      expect(wasm.nodeCount - w0, moves).toBe(ts.nodeCount - t0);
    }
    expect(wasm.nodeCount).toBeGreaterThan(cases.length);
    return wasm.nodeCount;
  }

  it('gives the same scores and node counts as the TypeScript search on End-Easy and Middle-Easy', () => {
    compare(fixture('Test_L3_R1'), null);
    compare(fixture('Test_L2_R1'), null);
  });

  it('gives the same node counts on harder positions and with a small table full of collisions', () => {
    compare(fixture('Test_L2_R2').slice(0, 15), null, 17);
    compare(fixture('Test_L1_R1').slice(0, 40), null, 17);
  });

  it('consults a book like the TypeScript search, at every node up to its depth', () => {
    // A book of the exact scores of the children of every other position: the searches of those
    // positions end one ply down, the others may meet the entries by transposition.
    const cases = fixture('Test_L2_R1').slice(0, 200);
    const book = new Book(42);
    const plain = new Solver({ tableLog: 20, engine: 'ts' });
    for (const [moves] of cases.filter((_, i) => i % 2 === 0)) {
      const p = position(moves);
      for (let col = 0; col < 7; col++) {
        if (!p.canPlay(col) || p.isWinningMove(col)) continue;
        const child = p.clone();
        child.playCol(col);
        book.set(child, plain.solve(child));
      }
    }
    const withBook = compare(cases, book);
    expect(withBook).toBeLessThan(0.8 * compare(cases, null));
  });

  it('empties its table on reset: fresh-table counts equal the TypeScript search’s', () => {
    // Pons' means (Middle-Easy 449.6) need his 2^23 slots (64 MB to clear per position: the bench
    // checks them); any size gives both engines the same counts.
    const ts = new Solver({ tableLog: 17, engine: 'ts' });
    const wasm = new Solver({ tableLog: 17, engine: 'wasm' });
    for (const [moves] of fixture('Test_L2_R1').slice(0, 300)) {
      ts.reset();
      wasm.reset();
      expect(wasm.solve(position(moves))).toBe(ts.solve(position(moves)));
      expect(wasm.nodeCount, moves).toBe(ts.nodeCount);
    }
  });

  it('stays exact when the table generation wraps after 2^24 resets (then the memory is wiped)', () => {
    const cases = fixture('Test_L2_R1').slice(0, 30);
    const ts = new Solver({ tableLog: 17, engine: 'ts' });
    const wasm = new Solver({ tableLog: 17, engine: 'wasm' });
    for (const [moves] of cases) wasm.solve(position(moves));
    for (let i = 0; i < 2 ** 24 - 4; i++) wasm.reset();
    for (let k = 0; k < 8; k++) {
      ts.reset();
      wasm.reset();
      for (const [moves, score] of cases) expect(wasm.solve(position(moves)), moves).toBe(score);
      for (const [moves] of cases) ts.solve(position(moves));
      expect(wasm.nodeCount).toBe(ts.nodeCount);
    }
  });

  it('agrees on weak solves, analyse and bestMoves', () => {
    const ts = new Solver({ tableLog: 20, engine: 'ts' });
    const wasm = new Solver({ tableLog: 20, engine: 'wasm' });
    for (const [moves, score] of fixture('Test_L2_R1').slice(0, 40)) {
      const p = position(moves);
      expect(wasm.solve(p, true), moves).toBe(Math.sign(score));
      expect(ts.solve(p, true), moves).toBe(Math.sign(score));
      expect(wasm.analyse(p), moves).toEqual(ts.analyse(p));
      expect(wasm.bestMoves(p), moves).toEqual(ts.bestMoves(p));
      expect(wasm.nodeCount).toBe(ts.nodeCount);
    }
  });

  it('sees changes to its book (the copy in wasm memory follows Book.revision)', () => {
    const [moves = '', score = 0] = fixture('Test_L2_R1')[0] ?? [];
    const p = position(moves);
    const book = new Book(p.moves);
    const wasm = new Solver({ tableLog: 17, engine: 'wasm', book });
    expect(wasm.solve(p)).toBe(score);
    // A made-up score for the position itself: the root node finds it in the book.
    const fake = score === 3 ? 4 : 3;
    book.set(p, fake);
    wasm.reset();
    expect(wasm.solve(p)).toBe(fake);
    wasm.book = null;
    wasm.reset();
    expect(wasm.solve(p)).toBe(score);
  });

  it('stops at its deadline with SearchAborted, through the wasm frames, and stays usable', () => {
    const s = new Solver({ tableLog: 20, engine: 'wasm' });
    s.deadline = Date.now() - 1;
    expect(() => s.solve(position('44'))).toThrow(SearchAborted);
    // A deadline set before a long search: the next look at the clock comes within ~1024 nodes.
    const started = Date.now();
    s.deadline = started + 30;
    expect(() => s.solve(new Position())).toThrow(SearchAborted);
    expect(Date.now() - started).toBeLessThan(5000);
    s.deadline = Infinity;
    expect(s.solve(position('4455'))).toBe(18);
    for (const [moves, score] of fixture('Test_L2_R1').slice(0, 50)) expect(s.solve(position(moves)), moves).toBe(score);
  });

  it('reports progress every 8192 nodes (the TypeScript search: 2^16) and lets the callback abort', () => {
    const s = new Solver({ tableLog: 20, engine: 'wasm' });
    const seen: number[] = [];
    s.onCheckpoint = (nodes) => {
      seen.push(nodes);
      if (seen.length === 3) throw new SearchAborted();
    };
    expect(() => s.solve(new Position())).toThrow(SearchAborted);
    expect(seen).toEqual([8192, 16384, 24576]);
    expect(s.nodeCount).toBe(24576);
    s.onCheckpoint = null;
    s.nodeCount = 0;
    expect(s.solve(position('44455554221'))).toBe(-15);
  });

  it('refuses table sizes that could give false hits', () => {
    expect(() => new Solver({ tableLog: 16, engine: 'wasm' })).toThrow(RangeError);
    expect(() => new Solver({ tableLog: 29, engine: 'wasm' })).toThrow(RangeError);
  });
});
