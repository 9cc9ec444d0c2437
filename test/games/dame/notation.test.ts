import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  boardLines,
  formatMove,
  interpretPlay,
  parseBoardLines,
  parsePieces,
  parsePlay,
  parseSquare,
  squareName,
} from '../../../src/games/dame/notation.js';
import { createState, initialState, type DameState } from '../../../src/games/dame/rules.js';

interface Vectors {
  positions: { id: string; pieces: string }[];
  wire: { position: string; play: string; applied?: string[]; followUpOwed?: boolean; error?: string }[];
}
const vectors = JSON.parse(
  readFileSync(new URL('../../fixtures/dame/vectors.json', import.meta.url), 'utf8'),
) as Vectors;

function positionNamed(id: string): DameState {
  if (id === 'start') return initialState();
  const p = vectors.positions.find((q) => q.id === id);
  const board = parsePieces(p?.pieces ?? '');
  if (!board.ok) throw new Error(board.error);
  return createState(board.value, 'white');
}

describe('squares', () => {
  it('names the 32 dark squares and reads them back in any case', () => {
    const names = Array.from({ length: 32 }, (_, s) => squareName(s));
    expect(names.slice(0, 5)).toEqual(['A1', 'C1', 'E1', 'G1', 'B2']);
    expect(names[31]).toBe('H8');
    for (let s = 0; s < 32; s++) {
      expect(parseSquare(names[s]!)).toBe(s);
      expect(parseSquare(names[s]!.toLowerCase())).toBe(s);
    }
  });

  it('has no square for light squares or malformed names', () => {
    for (const bad of ['A2', 'B1', 'H1', 'A8', 'I1', 'A9', 'A0', '', 'A', 'A11', '1A'])
      expect(parseSquare(bad), bad).toBeNull();
  });
});

describe('PLAY command', () => {
  it('expands colon chains and semicolon parts into the same single moves', () => {
    const steps = [
      { from: 'E3', to: 'C5' },
      { from: 'C5', to: 'B6' },
    ];
    expect(parsePlay('E3:C5;C5:B6')).toEqual({ ok: true, value: steps });
    expect(parsePlay('E3:C5:B6')).toEqual({ ok: true, value: steps });
    expect(parsePlay('e3:c5:b6')).toEqual({ ok: true, value: steps });
    expect(parsePlay('C3:E5:C7;C7:D8')).toEqual({
      ok: true,
      value: [
        { from: 'C3', to: 'E5' },
        { from: 'E5', to: 'C7' },
        { from: 'C7', to: 'D8' },
      ],
    });
  });

  it('rejects malformed commands as syntax errors', () => {
    for (const bad of [
      '',
      'C3-D4',
      'C3:',
      ':D4',
      'C3',
      'C3:D4;',
      ';C3:D4',
      'C3::D4',
      'C3:D4 ;D4:E5',
      'C3 :D4',
      'I3:D4',
      'C9:D4',
      'C3:D4;D4',
    ]) {
      expect(parsePlay(bad), bad).toEqual({ ok: false, error: 'Syntax error' });
    }
  });

  it('formats single moves the way it parses them', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 31 }), fc.integer({ min: 0, max: 31 }), (from, to) => {
        const text = formatMove({ from, to });
        const parsed = parsePlay(text);
        return (
          parsed.ok &&
          parsed.value.length === 1 &&
          parseSquare(parsed.value[0]!.from) === from &&
          parseSquare(parsed.value[0]!.to) === to
        );
      }),
    );
  });

  for (const c of vectors.wire) {
    it(`${c.position}: PLAY ${c.play}`, () => {
      const s = positionNamed(c.position);
      const r = interpretPlay(s, c.play);
      if (c.error !== undefined) {
        expect(r).toEqual({ ok: false, error: { reason: c.error } });
        return;
      }
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      expect(r.value.applied.map(formatMove)).toEqual(c.applied);
      expect(r.value.followUpOwed).toBe(c.followUpOwed);
      expect(r.value.state.toMove).toBe(c.followUpOwed ? s.toMove : s.toMove === 'white' ? 'black' : 'white');
    });
  }

  it('validates atomically: an illegal later part rejects the whole command', () => {
    // P6: E3:C5 is a capture that owes a follow-up; C5:C7 is not a legal follow-up
    const s = positionNamed('P6');
    expect(interpretPlay(s, 'E3:C5;C5:C7')).toEqual({
      ok: false,
      error: { reason: 'Destination is already occupied' },
    });
    expect(interpretPlay(s, 'E3:C5;C5:D6')).toEqual({
      ok: false,
      error: { reason: 'Destination is already occupied' },
    });
    expect(interpretPlay(s, 'E3:C5:A7')).toEqual({
      ok: false,
      error: { reason: 'Destination is already occupied' },
    });
    expect(interpretPlay(s, 'E3:C5;C5:E7')).toEqual({
      ok: false,
      error: { reason: 'Destination is already occupied' },
    });
    expect(interpretPlay(s, 'E3:C5;D6:E5')).toEqual({ ok: false, error: { reason: 'No own piece' } });
    expect(interpretPlay(s, 'E3:C5;C5:A3')).toEqual({
      ok: false,
      error: { reason: 'Destination is already occupied' },
    });
    expect(interpretPlay(s, 'E3:C5;C5:D4')).toEqual({ ok: false, error: { reason: 'Move not allowed' } });
  });

  it('ignores the rest of the command once the game is over', () => {
    const s = positionNamed('P7'); // w C3; b D4
    const r = interpretPlay(s, 'C3:E5;E5:F6;A1:A2');
    expect(r.ok && r.value.applied.map(formatMove)).toEqual(['C3:E5']);
    expect(r.ok && r.value.followUpOwed).toBe(false);
    expect(r.ok && r.value.state.result).toEqual({ kind: 'won', winner: 'white', reason: 'no-pieces' });
  });

  it('ignores the rest after a capture that passes the turn (P8)', () => {
    const board = parsePieces('w E5; b F6 F8 H8');
    if (!board.ok) throw new Error(board.error);
    const r = interpretPlay(createState(board.value), 'E5:G7;G7:H6');
    expect(r.ok && r.value.applied.map(formatMove)).toEqual(['E5:G7']);
    expect(r.ok && r.value.state.toMove).toBe('black');
    expect(r.ok && r.value.followUpOwed).toBe(false);
  });
});

describe('BOARD rows', () => {
  it('prints the start position as the server does', () => {
    expect(boardLines(initialState())).toEqual([
      '8 * b * b * b * b',
      '7 b * b * b * b *',
      '6 * b * b * b * b',
      '5 * * * * * * * *',
      '4 * * * * * * * *',
      '3 w * w * w * w *',
      '2 * w * w * w * w',
      '1 w * w * w * w *',
    ]);
  });

  it('prints the transcript position after C3:D4 F6:E5 D4:F6 with kings in capitals', () => {
    let s = initialState();
    for (const cmd of ['C3:D4', 'F6:E5', 'D4:F6']) {
      const r = interpretPlay(s, cmd);
      if (!r.ok) throw new Error(r.error.reason);
      s = r.value.state;
    }
    expect(boardLines(s)).toEqual([
      '8 * b * b * b * b',
      '7 b * b * b * b *',
      '6 * b * b * w * b',
      '5 * * * * * * * *',
      '4 * * * * * * * *',
      '3 w * * * w * w *',
      '2 * w * w * w * w',
      '1 w * w * w * w *',
    ]);
    const kings = parsePieces('W A1; B H8');
    if (!kings.ok) throw new Error(kings.error);
    expect(boardLines(kings.value)[0]).toBe('8 * * * * * * * B');
    expect(boardLines(kings.value)[7]).toBe('1 W * * * * * * *');
  });

  it('reads back every board it prints, with or without the "+ " prefix', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('w', 'b', 'W', 'B', null), { minLength: 32, maxLength: 32 }),
        (cells) => {
          let white = 0;
          let black = 0;
          let kings = 0;
          cells.forEach((c, s) => {
            if (c === 'w' || c === 'W') white |= 1 << s;
            if (c === 'b' || c === 'B') black |= 1 << s;
            if (c === 'W' || c === 'B') kings |= 1 << s;
          });
          const board = { white: white >>> 0, black: black >>> 0, kings: kings >>> 0 };
          const lines = boardLines(board);
          expect(parseBoardLines(lines)).toEqual({ ok: true, value: board });
          expect(parseBoardLines(lines.map((l) => `+ ${l}`))).toEqual({ ok: true, value: board });
        },
      ),
    );
  });

  it('rejects malformed rows', () => {
    const good = boardLines(initialState());
    expect(parseBoardLines(good.slice(1)).ok).toBe(false);
    expect(parseBoardLines([...good.slice(0, 7), '1 w * w * w * w']).ok).toBe(false);
    expect(parseBoardLines([...good.slice(0, 7), '2 w * w * w * w *']).ok).toBe(false);
    expect(parseBoardLines([...good.slice(0, 7), '1 w * w * w * x *']).ok).toBe(false);
    expect(parseBoardLines([...good.slice(0, 7), '1 w w w * w * w *']).ok).toBe(false); // a piece on B1 (light)
  });
});
