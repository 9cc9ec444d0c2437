import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/core/rng.js';
import { MAX_MOVES, Position } from '../../../src/games/ostseeschach/engine/position.js';
import { apply, legalMoves, status, type State } from '../../../src/games/ostseeschach/rules.js';
import { createStart } from '../../../src/games/ostseeschach/setup.js';

/** Everything make/unmake must restore, as plain numbers. */
const snapshot = (p: Position): number[] => [...p.board, ...p.occ, ...p.ambers, p.turn, p.hashLo, p.hashHi];

function playout(seed: string): State[] {
  const rng = Rng.seeded(seed);
  let s = createStart(rng);
  const states = [s];
  while (status(s).kind === 'running') {
    const moves = legalMoves(s);
    if (moves.length === 0) break;
    const r = apply(s, rng.pick(moves));
    if (!r.ok) throw new Error(r.error.code);
    s = r.value;
    states.push(s);
  }
  return states;
}

describe('engine board (position.ts)', () => {
  it('make/unmake and null moves restore board, occupancy, ambers, turn and hash two plies deep', () => {
    const buf = new Int32Array(MAX_MOVES);
    const reply = new Int32Array(MAX_MOVES);
    for (let g = 0; g < 8; g++) {
      for (const s of playout(`position-${g}`)) {
        const p = Position.fromState(s);
        if (p.isOver()) continue;
        const before = snapshot(p);
        const n = p.generate(buf, 0);
        expect(p.countMoves()).toBe(n);
        for (let i = 0; i < n; i++) {
          p.make(buf[i]!);
          const after = snapshot(p);
          // The incremental board equals one rebuilt from scratch.
          const fresh = p.clone();
          expect(snapshot(fresh)).toEqual(after);
          if (!p.isOver()) {
            const k = p.generate(reply, 0);
            expect(p.countMoves()).toBe(k);
            for (let j = 0; j < k; j++) {
              p.make(reply[j]!);
              p.unmake();
            }
            p.makeNull();
            expect(p.turn).toBe(fresh.turn + 1);
            p.unmakeNull();
          }
          expect(snapshot(p)).toEqual(after);
          p.unmake();
          expect(snapshot(p)).toEqual(before);
        }
      }
    }
  });

  it('a clone has its own memory', () => {
    const s = playout('position-clone')[10]!;
    const p = Position.fromState(s);
    const q = p.clone();
    const buf = new Int32Array(MAX_MOVES);
    p.generate(buf, 0);
    p.make(buf[0]!);
    expect(snapshot(q)).toEqual(snapshot(Position.fromState(s)));
    expect(snapshot(p)).not.toEqual(snapshot(q));
  });

  it('turn can be set, and rebuild keeps it while emptying the undo stack', () => {
    const p = Position.fromState(playout('position-turn')[6]!);
    const buf = new Int32Array(MAX_MOVES);
    p.generate(buf, 0);
    p.make(buf[0]!);
    const turn = p.turn;
    p.rebuild();
    expect(p.turn).toBe(turn);
    p.turn = 20;
    p.rebuild();
    expect(p.turn).toBe(20);
    expect(p.sideToMove).toBe(0);
  });
});
