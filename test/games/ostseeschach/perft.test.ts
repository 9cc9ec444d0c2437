import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/core/rng.js';
import { divide, perft, perftPure } from '../../../src/games/ostseeschach/engine/perft.js';
import { MAX_MOVES, Position } from '../../../src/games/ostseeschach/engine/position.js';
import { apply, legalMoves, status, type State } from '../../../src/games/ostseeschach/rules.js';
import { createStart, fromSetup } from '../../../src/games/ostseeschach/setup.js';
import { fixture, position } from './helpers.js';

interface Vectors {
  layouts: { layout: string; counts: number[] }[];
  midgame: {
    turn: number;
    ambers: { ONE: number; TWO: number };
    pieces: string;
    counts: number[];
    depth1: string;
    countingEndsAtEveryPly: (number | null)[];
  };
}
const vectors = JSON.parse(fixture('perft.json')) as Vectors;
const mid = vectors.midgame;
const midState = position(mid.pieces, mid.turn, mid.ambers);

function start(layout: string): State {
  const r = fromSetup(layout);
  if (!r.ok) throw new Error(layout);
  return r.value;
}

describe('perft (spec §5, official counts)', () => {
  for (const { layout, counts } of vectors.layouts) {
    it(`${layout} depths 1–5`, () => {
      const s = start(layout);
      expect(counts.map((_, i) => perft(s, i + 1))).toEqual(counts);
    });
  }

  it('mid-game (turn 10, ambers 1:1) depths 1–5', () => {
    expect(mid.counts.map((_, i) => perft(midState, i + 1))).toEqual(mid.counts);
  });

  it('mid-game depth-1 move list', () => {
    expect([...divide(midState, 1).keys()].sort()).toEqual(mid.depth1.split(' '));
  });

  it('the mid-game vector tells the right end rule from the wrong one', () => {
    // Counting game-ending moves as 1 at every ply gives the spec's diagnostic (wrong) numbers.
    const wrong = (p: Position, depth: number): number => {
      if (depth === 0 || p.isOver()) return 1;
      const buf = new Int32Array(MAX_MOVES);
      const n = p.generate(buf, 0);
      let nodes = 0;
      for (let i = 0; i < n; i++) {
        p.make(buf[i]!);
        nodes += wrong(p, depth - 1);
        p.unmake();
      }
      return nodes;
    };
    const p = Position.fromState(midState);
    expect([3, 4].map((d) => wrong(p, d))).toEqual(mid.countingEndsAtEveryPly.slice(2, 4));
    expect(perft(midState, 3)).not.toBe(wrong(p, 3));
  });

  it('the pure rules core agrees with the fast generator (depth 3 on the vectors, depth 2 on random positions)', () => {
    for (const { layout, counts } of vectors.layouts) expect(perftPure(start(layout), 3)).toBe(counts[2]);
    expect(perftPure(midState, 3)).toBe(mid.counts[2]);
    const rng = Rng.seeded('perft-random');
    for (let g = 0; g < 20; g++) {
      let s = createStart(rng);
      const plies = rng.int(4, 50);
      for (let i = 0; i < plies && status(s).kind === 'running'; i++) {
        const moves = legalMoves(s);
        if (moves.length === 0) break;
        const r = apply(s, rng.pick(moves));
        if (!r.ok) throw new Error(r.error.code);
        s = r.value;
      }
      expect(perftPure(s, 2)).toBe(perft(s, 2));
    }
  });
});
