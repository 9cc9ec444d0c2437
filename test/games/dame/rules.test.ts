import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/core/rng.js';
import { popcount } from '../../../src/games/dame/board.js';
import { formatMove, parsePieces, parseSquare } from '../../../src/games/dame/notation.js';
import {
  apply,
  createState,
  forfeit,
  initialState,
  legalMoves,
  packedMoves,
  perft,
  positionOf,
  status,
  view,
  type DameState,
  type Side,
  type SingleMove,
} from '../../../src/games/dame/rules.js';

interface Vectors {
  perftStart: number[];
  startMoves: string[];
  positions: {
    id: string;
    pieces: string;
    moves: string[];
    perft?: number[];
    then?: { play: string; toMove?: Side; moves?: string[]; result?: string }[];
  }[];
}

const vectors = JSON.parse(
  readFileSync(new URL('../../fixtures/dame/vectors.json', import.meta.url), 'utf8'),
) as Vectors;

function stateOf(pieces: string, toMove: Side = 'white', quietMoves = 0): DameState {
  const board = parsePieces(pieces);
  if (!board.ok) throw new Error(board.error);
  return createState(board.value, toMove, { quietMoves });
}

/** The spec's listing: `FROM:TO`, with an `x` for captures. */
const listing = (m: SingleMove): string => formatMove(m) + (m.captured === null ? '' : 'x');
const listed = (s: DameState): string[] => legalMoves(s).map(listing).sort();

function play(s: DameState, text: string): DameState {
  const [from, to] = text.split(':').map((n) => parseSquare(n));
  const move = legalMoves(s).find((m) => m.from === from && m.to === to);
  if (!move) throw new Error(`${text} is not legal`);
  const r = apply(s, move);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

describe('perft (§5.1)', () => {
  it('matches depths 1–7 from the start position', () => {
    const start = initialState();
    for (let depth = 1; depth <= 7; depth++)
      expect(perft(start, depth), `depth ${depth}`).toBe(vectors.perftStart[depth - 1]);
  });

  it('lists the 7 opening moves', () => {
    expect(listed(initialState())).toEqual([...vectors.startMoves].sort());
  });
});

describe('positions P1–P9 (§5.2)', () => {
  for (const p of vectors.positions) {
    it(`${p.id}: ${p.pieces}`, () => {
      let s = stateOf(p.pieces);
      expect(listed(s)).toEqual([...p.moves].sort());
      if (p.perft)
        for (let d = 1; d <= p.perft.length; d++) expect(perft(s, d), `perft ${d}`).toBe(p.perft[d - 1]);
      for (const step of p.then ?? []) {
        s = play(s, step.play);
        if (step.toMove) {
          expect(status(s)).toMatchObject({ kind: 'running', toMove: step.toMove });
          expect(s.mustContinue).toBe(step.toMove === 'white');
        }
        if (step.moves) expect(listed(s)).toEqual([...step.moves].sort());
        if (step.result) {
          const [winner, reason] = step.result.split(' ');
          expect(status(s)).toEqual({ kind: 'won', winner, reason });
        }
      }
    });
  }

  it('P5: the man promotes on a capture and the new king makes the follow-up', () => {
    const s = play(stateOf('w B6 H2; b C7 G5'), 'B6:D8');
    expect(view(s).squares[parseSquare('D8')!]).toBe('W');
    expect(s.lastMove).toEqual({
      from: parseSquare('B6'),
      to: parseSquare('D8'),
      captured: parseSquare('C7'),
      promotes: true,
    });
  });

  it('P9: every king move of White lets Black capture the last white piece', () => {
    const s = stateOf('W A1; B H8');
    for (const m of legalMoves(s)) {
      const after = apply(s, m);
      expect(after.ok).toBe(true);
      if (!after.ok) continue;
      const capture = legalMoves(after.value).find((b) => b.captured !== null);
      expect(capture, listing(m)).toBeDefined();
      const end = apply(after.value, capture!);
      expect(end.ok && status(end.value)).toEqual({ kind: 'won', winner: 'black', reason: 'no-pieces' });
    }
  });

  it('P8: a capture with no follow-up passes the turn', () => {
    const s = play(stateOf('w E5; b F6 F8 H8'), 'E5:G7');
    expect(s.toMove).toBe('black');
    expect(s.mustContinue).toBe(false);
    expect(s.result).toBeNull();
  });
});

describe('game end and draws', () => {
  it('a side without legal moves at its turn start loses', () => {
    // the white man on A7 is blocked by B8; Black to move plays elsewhere and White is stuck
    const s = stateOf('w A7; b B8 H8', 'black');
    const after = play(s, 'H8:G7');
    expect(status(after)).toEqual({ kind: 'won', winner: 'black', reason: 'no-moves' });
    expect(status(stateOf('w A7; b B8', 'white'))).toEqual({
      kind: 'won',
      winner: 'black',
      reason: 'no-moves',
    });
  });

  it('draws on the third occurrence of a turn-start position', () => {
    let s = stateOf('W A1; B H2');
    const cycle = ['A1:B2', 'H2:G1', 'B2:A1', 'G1:H2'];
    for (let i = 0; i < 7; i++) {
      s = play(s, cycle[i % 4]!);
      expect(s.result, `after ${i + 1} moves`).toBeNull();
    }
    s = play(s, cycle[3]!);
    expect(status(s)).toEqual({ kind: 'drawn', reason: 'repetition' });
    expect(s.history.length).toBe(9);
  });

  it('draws after 50 single moves without capture or man move, and a man move resets the count', () => {
    const s = stateOf('W A1, w C1; B H8', 'white', 49);
    expect(status(play(s, 'A1:B2'))).toEqual({ kind: 'drawn', reason: 'fifty-moves' });
    const reset = play(s, 'C1:D2');
    expect(reset.quietMoves).toBe(0);
    expect(reset.result).toBeNull();
  });

  it('a win beats a draw on the same single move', () => {
    // the 50th quiet move also leaves the black man without a move
    const s = stateOf('W F6, w C1; b A3', 'white', 49);
    expect(status(play(s, 'F6:B2'))).toEqual({ kind: 'won', winner: 'white', reason: 'no-moves' });
  });

  it('rejects moves with machine-readable codes and never mutates the state', () => {
    const s = initialState();
    const frozen = JSON.stringify(s);
    const cases: [SingleMove, string][] = [
      [{ from: parseSquare('D4')!, to: parseSquare('E5')!, captured: null, promotes: false }, 'no-own-piece'],
      [{ from: parseSquare('B2')!, to: parseSquare('C3')!, captured: null, promotes: false }, 'occupied'],
      [{ from: parseSquare('C3')!, to: parseSquare('C5')!, captured: null, promotes: false }, 'not-allowed'],
      [
        { from: parseSquare('C3')!, to: parseSquare('D4')!, captured: parseSquare('A1'), promotes: false },
        'not-allowed',
      ],
      [{ from: 40, to: 3, captured: null, promotes: false }, 'invalid-position'],
    ];
    for (const [move, code] of cases) {
      const r = apply(s, move);
      expect(r.ok ? 'ok' : r.error.code).toBe(code);
    }
    expect(JSON.stringify(s)).toBe(frozen);
    const over = forfeit(s, 'white', 'timeout');
    expect(status(over)).toEqual({ kind: 'won', winner: 'black', reason: 'timeout' });
    expect(legalMoves(over)).toEqual([]);
    const r = apply(over, legalMoves(s)[0]!);
    expect(r.ok ? 'ok' : r.error.code).toBe('game-over');
  });

  it('keeps the state JSON-serializable', () => {
    const s = play(play(initialState(), 'C3:D4'), 'F6:E5');
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
  });
});

describe('random playouts (property)', () => {
  it('listed moves always apply, pieces are conserved, every game ends', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const rng = Rng.seeded(seed);
        let s = initialState();
        const pos = positionOf(s);
        for (let ply = 0; s.result === null; ply++) {
          if (ply > 3000) return false;
          const moves = legalMoves(s);
          expect(moves.length).toBeGreaterThan(0);
          const packed = packedMoves(s);
          const i = rng.int(0, moves.length - 1);
          const move = moves[i]!;
          const before = popcount(s.white | s.black);
          const r = apply(s, move);
          if (!r.ok) return false;
          const next = r.value;
          if (popcount(next.white | next.black) !== before - (move.captured === null ? 0 : 1)) return false;
          if ((next.white & next.black) !== 0 || (next.kings & ~(next.white | next.black)) !== 0)
            return false;
          // the internal make/unmake agrees with the pure apply, and unmake restores the key
          const key = [pos.hashLo, pos.hashHi];
          pos.make(packed[i]!);
          const same =
            pos.white >>> 0 === next.white &&
            pos.black >>> 0 === next.black &&
            pos.kings >>> 0 === next.kings &&
            (pos.side === 0) === (next.toMove === 'white');
          pos.unmake(packed[i]!);
          if (!same || pos.hashLo !== key[0] || pos.hashHi !== key[1]) return false;
          pos.make(packed[i]!);
          s = next;
        }
        return s.plies > 0;
      }),
      { numRuns: 150 },
    );
  });
});
