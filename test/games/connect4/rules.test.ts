import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  apply,
  COLUMNS,
  fromMoves,
  grid,
  initialState,
  legalMoves,
  ROWS,
  status,
  toMove,
  toNotation,
  view,
  type C4State,
  type C4Status,
  type Player,
} from '../../../src/games/connect4/rules.js';

function state(notation: string): C4State {
  const parsed = fromMoves(notation);
  if (!parsed.ok) throw new Error(`${notation}: ${parsed.error.message}`);
  return parsed.value;
}

function won(notation: string): Extract<C4Status, { kind: 'won' }> {
  const s = status(state(notation));
  if (s.kind !== 'won') throw new Error(`${notation} is not won: ${JSON.stringify(s)}`);
  return s;
}

/** Every four on a grid, found cell by cell (independent of the bitboards). */
function naiveFours(cells: (Player | null)[][]): { player: Player; cells: [number, number][] }[] {
  const out: { player: Player; cells: [number, number][] }[] = [];
  const dirs = [
    [1, 0],
    [0, 1],
    [1, 1],
    [1, -1],
  ] as const;
  for (let row = 0; row < ROWS; row++)
    for (let col = 0; col < COLUMNS; col++)
      for (const [dc, dr] of dirs) {
        const p = cells[row]?.[col];
        if (p === null || p === undefined) continue;
        const line: [number, number][] = [];
        for (let k = 0; k < 4; k++) {
          const c = col + k * dc;
          const r = row + k * dr;
          if (cells[r]?.[c] !== p) break;
          line.push([c + 1, r + 1]);
        }
        if (line.length === 4) out.push({ player: p, cells: line });
      }
  return out;
}

describe('connect4 rules', () => {
  it('starts empty with the first player to move and every column legal', () => {
    const s = initialState();
    expect(s.moves).toEqual([]);
    expect(status(s)).toEqual({ kind: 'running', toMove: 0 });
    expect(legalMoves(s)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(toMove(s)).toBe(0);
    expect(grid(s).flat().every((c) => c === null)).toBe(true);
  });

  it('drops stones to the lowest free cell and alternates players', () => {
    const s = state('4435');
    const g = grid(s);
    expect(g[0]).toEqual([null, null, 0, 0, 1, null, null]);
    expect(g[1]).toEqual([null, null, null, 1, null, null, null]);
    expect(toMove(s)).toBe(0);
    expect(toNotation(s)).toBe('4435');
    expect(view(s)).toEqual({ moves: [4, 4, 3, 5], grid: g, status: { kind: 'running', toMove: 0 } });
  });

  it('apply returns a new state and leaves the old one alone', () => {
    const s0 = state('44');
    const r = apply(s0, 3);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.value.moves).toEqual([4, 4, 3]);
    expect(s0.moves).toEqual([4, 4]);
  });

  it('detects a vertical four with its cells', () => {
    expect(won('4343434')).toEqual({ kind: 'won', winner: 0, line: [[4, 1], [4, 2], [4, 3], [4, 4]] });
  });

  it('detects horizontal fours, also across the middle of the board', () => {
    expect(won('1122334').line).toEqual([[1, 1], [2, 1], [3, 1], [4, 1]]);
    expect(won('4455667').line).toEqual([[4, 1], [5, 1], [6, 1], [7, 1]]);
    expect(won('3344556').line).toEqual([[3, 1], [4, 1], [5, 1], [6, 1]]);
    const second = won('12233445');
    expect(second.winner).toBe(1);
    expect(second.line).toEqual([[2, 1], [3, 1], [4, 1], [5, 1]]);
  });

  it('detects both diagonals', () => {
    expect(won('12234334544').line).toEqual([[1, 1], [2, 2], [3, 3], [4, 4]]);
    expect(won('76654554344').line).toEqual([[4, 4], [5, 3], [6, 2], [7, 1]]);
  });

  it('reports five in a row as one line of five cells', () => {
    // The first player holds 1, 2, 4, 5 on the bottom row, then 3 joins them.
    const s = won('172746563');
    expect(s.winner).toBe(0);
    expect(s.line).toEqual([[1, 1], [2, 1], [3, 1], [4, 1], [5, 1]]);
  });

  it('refuses a move after a win', () => {
    const r = apply(state('4343434'), 1);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe('game-over');
    expect(legalMoves(state('4343434'))).toEqual([]);
  });

  it('refuses a full column and a column out of range', () => {
    const full = state('444444');
    const r = apply(full, 4);
    expect(r.ok ? null : r.error.code).toBe('column-full');
    expect(legalMoves(full)).toEqual([1, 2, 3, 5, 6, 7]);
    for (const bad of [0, 8, -1, 2.5, Number.NaN]) {
      const e = apply(initialState(), bad);
      expect(e.ok ? null : e.error.code).toBe('column-out-of-range');
    }
  });

  // A full board without a four: columns filled in pairs so that no line of four forms.
  const drawn = '121212343434565656212121434343656565777777';

  it('ends in a draw when the 42nd stone makes no four', () => {
    const s = state(drawn);
    expect(s.moves).toHaveLength(42);
    expect(naiveFours(grid(s))).toEqual([]);
    expect(status(s)).toEqual({ kind: 'drawn' });
    expect(legalMoves(s)).toEqual([]);
    const r = apply(s, 1);
    expect(r.ok ? null : r.error.code).toBe('game-over');
  });

  it('counts a four made by the 42nd stone as a win', () => {
    // Found by random play: the second player's 21st stone completes a diagonal.
    const notation = '747767521132336473571626662532354511514244';
    const before = state(notation.slice(0, 41));
    expect(status(before)).toEqual({ kind: 'running', toMove: 1 });
    const last = apply(before, 4);
    expect(last.ok).toBe(true);
    if (!last.ok) return;
    expect(status(last.value)).toEqual({ kind: 'won', winner: 1, line: [[4, 6], [5, 5], [6, 4], [7, 3]] });
  });

  it('parses notation and names the offending position', () => {
    expect(fromMoves('').ok).toBe(true);
    const bad = fromMoves('4448x');
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error.code).toBe('bad-notation');
      expect(bad.error.index).toBe(3);
      expect(bad.error.message).toContain('position 4');
    }
    const overfull = fromMoves('1111111');
    expect(overfull.ok ? null : overfull.error).toMatchObject({ code: 'column-full', index: 6 });
    if (!overfull.ok) expect(overfull.error.message).toContain('position 7');
    const after = fromMoves('43434341');
    expect(after.ok ? null : after.error).toMatchObject({ code: 'game-over', index: 7 });
    for (const text of [' 4', '4 ', '0', '9', '4a', '٤']) expect(fromMoves(text).ok).toBe(false);
  });

  it('keeps the state plain JSON', () => {
    const s = state('4455');
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
    expect(status(JSON.parse(JSON.stringify(s)) as C4State)).toEqual(status(s));
  });

  it('agrees with a naive grid scan on random games', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 60 }), (choices) => {
        let s = initialState();
        for (const choice of choices) {
          const legal = legalMoves(s);
          if (legal.length === 0) break;
          const next = apply(s, legal[choice % legal.length]!);
          if (!next.ok) throw new Error(next.error.message);
          s = next.value;
        }
        const cells = grid(s);
        const stones = cells.flat().filter((c) => c !== null).length;
        expect(stones).toBe(s.moves.length);
        const fours = naiveFours(cells);
        const st = status(s);
        if (fours.length > 0) {
          expect(st.kind).toBe('won');
          if (st.kind !== 'won') return;
          // Only the last mover can have a four, since play stops at the first one.
          expect(st.winner).toBe(((s.moves.length - 1) % 2) as Player);
          expect(fours.every((f) => f.player === st.winner)).toBe(true);
          const expected = new Set(fours.flatMap((f) => f.cells.map(([c, r]) => `${c},${r}`)));
          expect(new Set(st.line.map(([c, r]) => `${c},${r}`))).toEqual(expected);
        } else if (s.moves.length === 42) {
          expect(st).toEqual({ kind: 'drawn' });
        } else {
          expect(st).toEqual({ kind: 'running', toMove: (s.moves.length % 2) as Player });
        }
        expect(fromMoves(toNotation(s))).toEqual({ ok: true, value: s });
      }),
      { numRuns: 500 },
    );
  });
});
