import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../../src/core/rng.js';
import { BLACK_PROMOTION, WHITE_PROMOTION, generateMoves } from '../../../src/games/dame/board.js';
import {
  endgameTables,
  probeTable,
  tableIndex,
  type EndgameTables,
} from '../../../src/games/dame/engine/endgame.js';
import { DameEngine } from '../../../src/games/dame/engine/index.js';
import { Position } from '../../../src/games/dame/position.js';
import { createState, type DameState } from '../../../src/games/dame/rules.js';

interface EndgameRow {
  class: string;
  white: string;
  black: string;
  positions: number;
  win: number;
  loss: number;
  draw: number;
  longest: number;
}
const vectors = JSON.parse(
  readFileSync(new URL('../../fixtures/dame/vectors.json', import.meta.url), 'utf8'),
) as { endgames: EndgameRow[] };

interface Placement {
  white: number;
  black: number;
  kings: number;
}

/** Every placement of a class (`KM` v `K` …): distinct dark squares, no man on its promotion rank. */
function placements(white: string, black: string): Placement[] {
  const kinds: number[] = Array.from(white, (c) => (c === 'K' ? 1 : 0) as number).concat(
    Array.from(black, (c) => (c === 'K' ? 3 : 2)),
  );
  const out: Placement[] = [];
  const squares: number[] = [];
  const place = (i: number, used: number): void => {
    if (i === kinds.length) {
      const p = { white: 0, black: 0, kings: 0 };
      kinds.forEach((k, j) => {
        const bit = 1 << squares[j]!;
        if (k >= 2) p.black |= bit;
        else p.white |= bit;
        if (k & 1) p.kings |= bit;
      });
      out.push(p);
      return;
    }
    const k = kinds[i]!;
    for (let s = 0; s < 32; s++) {
      const bit = 1 << s;
      if (used & bit) continue;
      if ((k === 0 && bit & WHITE_PROMOTION) || (k === 2 && bit & BLACK_PROMOTION)) continue;
      if (i > 0 && kinds[i - 1] === k && s < squares[i - 1]!) continue; // identical pieces in order
      squares[i] = s;
      place(i + 1, used | bit);
    }
  };
  place(0, 0);
  return out;
}

let tables: EndgameTables;
beforeAll(() => {
  tables = endgameTables();
  console.log(`endgame tables: ${tables.positions} positions in ${tables.buildMs.toFixed(0)} ms`);
});

describe('≤3-piece tables against §5.3', () => {
  for (const row of vectors.endgames.filter((r) => r.white.length + r.black.length <= 3)) {
    it(`${row.class}: ${row.win} wins, ${row.loss} losses, ${row.draw} draws, longest ${row.longest}`, () => {
      const all = placements(row.white, row.black);
      let win = 0;
      let loss = 0;
      let draw = 0;
      let longest = 0;
      for (const p of all) {
        const v = tables.values[tableIndex(p.white, p.black, p.kings, 0)]!;
        if (v > 0) {
          win++;
          longest = Math.max(longest, v - 1);
        } else if (v < 0) loss++;
        else draw++;
      }
      expect({ positions: all.length, win, loss, draw, longest }).toEqual({
        positions: row.positions,
        win: row.win,
        loss: row.loss,
        draw: row.draw,
        longest: row.longest,
      });
    });
  }

  it('is consistent one single move deep everywhere (sampled)', () => {
    const rng = Rng.seeded('tables');
    const pos = new Position();
    const moves = new Int32Array(256);
    for (let n = 0; n < 20000; n++) {
      const count = rng.int(2, 3);
      let white = 0;
      let black = 0;
      let kings = 0;
      for (let i = 0; i < count; i++) {
        const s = rng.int(0, 31);
        const bit = 1 << s;
        if ((white | black) & bit) continue;
        const isBlack = i === 1 ? true : i === 0 ? false : rng.chance(0.5);
        const king = rng.chance(0.5) || (bit & (isBlack ? BLACK_PROMOTION : WHITE_PROMOTION)) !== 0;
        if (isBlack) black |= bit;
        else white |= bit;
        if (king) kings |= bit;
      }
      if (white === 0 || black === 0) continue;
      const side = rng.int(0, 1);
      const v = probeTable(white, black, kings, side)!;
      const end = generateMoves(white, black, kings, side, moves, 0);
      pos.set(white, black, kings, side, 0);
      let best: number | null = end === 0 ? -1 : null;
      for (let i = 0; i < end; i++) {
        pos.make(moves[i]!);
        const c = probeTable(pos.white, pos.black, pos.kings, pos.side)!;
        const outcome = pos.side === side ? c : -c;
        // one move later: a win gets one longer, a loss too; a draw stays a draw
        const mine = outcome > 0 ? outcome + 1 : outcome < 0 ? outcome - 1 : 0;
        if (best === null || rank(mine) > rank(best)) best = mine;
        pos.unmake(moves[i]!);
      }
      expect(v, `${white}/${black}/${kings}/${side}`).toBe(best);
    }
  });
});

/** Orders table values by preference: short wins, then draws, then long losses. */
function rank(v: number): number {
  if (v > 0) return 1000 - v;
  if (v < 0) return -1000 - v;
  return 0;
}

function sample(rows: string[][], want: (v: number) => boolean, count: number, seed: string): DameState[] {
  const rng = Rng.seeded(seed);
  const pool = rows
    .flatMap(([w, b]) => placements(w!, b!))
    .filter((p) => want(tables.values[tableIndex(p.white, p.black, p.kings, 0)]!));
  return Array.from({ length: count }, () => createState(rng.pick(pool), 'white'));
}

describe('the engine in ≤3-piece endings', () => {
  const classes = [
    ['KM', 'K'],
    ['MM', 'M'],
    ['M', 'MM'],
    ['KK', 'K'],
    ['M', 'M'],
  ];

  it('keeps every sampled long win and shortens it by one single move', () => {
    const engine = new DameEngine(16);
    for (const s of sample(classes, (v) => v - 1 >= 9, 300, 'long-wins')) {
      const v = probeTable(s.white, s.black, s.kings, 0)!;
      const r = engine.think(s, { timeMs: 1000 });
      const pos = new Position();
      pos.set(s.white, s.black, s.kings, 0, 0);
      pos.make(packed(s, r.move.from, r.move.to));
      const c = probeTable(pos.white, pos.black, pos.kings, pos.side)!;
      const outcome = pos.side === 0 ? c : -c;
      expect(outcome, `win in ${v - 1}`).toBe(v - 1);
    }
  });

  it('never loses a sampled drawn position', () => {
    const engine = new DameEngine(16);
    for (const s of sample(classes, (v) => v === 0, 300, 'draws')) {
      const r = engine.think(s, { timeMs: 1000 });
      const pos = new Position();
      pos.set(s.white, s.black, s.kings, 0, 0);
      pos.make(packed(s, r.move.from, r.move.to));
      const c = probeTable(pos.white, pos.black, pos.kings, pos.side)!;
      expect(Math.abs(c)).toBe(0);
    }
  });

  it('finds short wins by search alone, without the tables', () => {
    const engine = new DameEngine(16);
    for (const s of sample(
      [
        ['K', 'M'],
        ['KM', 'K'],
      ],
      (v) => v - 1 >= 3 && v - 1 <= 5,
      20,
      'search-wins',
    )) {
      const r = engine.think(s, { timeMs: 1e9, maxDepth: 9, tables: 'off' });
      const pos = new Position();
      pos.set(s.white, s.black, s.kings, 0, 0);
      pos.make(packed(s, r.move.from, r.move.to));
      const c = probeTable(pos.white, pos.black, pos.kings, pos.side)!;
      expect(pos.side === 0 ? c : -c).toBeGreaterThan(0);
    }
  });
});

function packed(s: DameState, from: number, to: number): number {
  const moves = new Int32Array(256);
  const end = generateMoves(s.white, s.black, s.kings, s.toMove === 'white' ? 0 : 1, moves, 0);
  for (let i = 0; i < end; i++)
    if ((moves[i]! & 31) === from && ((moves[i]! >> 5) & 31) === to) return moves[i]!;
  throw new Error('not a legal move');
}
