import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/core/rng.js';
import { moveName, type Move, type PieceType, type Team } from '../../../src/games/ostseeschach/board.js';
import { MAX_MOVES, Position, codeToMove, moveToCode } from '../../../src/games/ostseeschach/engine/position.js';
import {
  apply,
  isOver,
  legalMoves,
  mementoOrder,
  pieceAt,
  status,
  validate,
  view,
  type State,
} from '../../../src/games/ostseeschach/rules.js';
import { createStart, fromPosition, fromSetup, layoutName, layoutOf, randomLayout } from '../../../src/games/ostseeschach/setup.js';
import { fixture, mv, position, readClientMoves, readMementos } from './helpers.js';

function play(s: State, ...moves: Move[]): State {
  for (const m of moves) {
    const r = apply(s, m);
    if (!r.ok) throw new Error(`${moveName(m)}: ${r.error.code}`);
    s = r.value;
  }
  return s;
}

const targets = (s: State, x: number, y: number): string[] =>
  legalMoves(s)
    .filter((m) => m.from.x === x && m.from.y === y)
    .map((m) => `${m.to.x}${m.to.y}`)
    .sort();

describe('piece patterns', () => {
  // A lone piece in the middle of the board, a far-away enemy so the game is running.
  const lone = (type: string, team: Team): State =>
    position(team === 'ONE' ? `ONE: 33${type}; TWO: 70M` : `ONE: 00M; TWO: 33${type}`, team === 'ONE' ? 0 : 1);

  it('Herzmuschel moves diagonally forward only', () => {
    expect(targets(lone('H', 'ONE'), 3, 3)).toEqual(['42', '44']);
    expect(targets(lone('H', 'TWO'), 3, 3)).toEqual(['22', '24']);
  });
  it('Moewe moves one square orthogonally', () => {
    expect(targets(lone('M', 'ONE'), 3, 3)).toEqual(['23', '32', '34', '43']);
    expect(targets(lone('M', 'TWO'), 3, 3)).toEqual(['23', '32', '34', '43']);
  });
  it('Seestern moves diagonally and straight forward', () => {
    expect(targets(lone('S', 'ONE'), 3, 3)).toEqual(['22', '24', '42', '43', '44']);
    expect(targets(lone('S', 'TWO'), 3, 3)).toEqual(['22', '23', '24', '42', '44']);
  });
  it('Robbe jumps like a knight, over anything', () => {
    const s = position('ONE: 33R 32M 34M 23M 43M 22M 24M 42M 44M; TWO: 70M');
    expect(targets(s, 3, 3)).toEqual(['12', '14', '21', '25', '41', '45', '52', '54']);
    expect(targets(lone('R', 'TWO'), 3, 3)).toEqual(['12', '14', '21', '25', '41', '45', '52', '54']);
  });
  it('stays on the board and never lands on an own piece', () => {
    const s = position('ONE: 00R 12M 21S; TWO: 77H');
    expect(targets(s, 0, 0)).toEqual([]);
    expect(targets(s, 1, 2)).toEqual(['02', '11', '13', '22']);
  });
});

describe('captures, towers and ambers (official BoardTest cases)', () => {
  it('ONE Moewe (6,0)→(7,0) scores 1 and leaves the board', () => {
    const s = play(position('ONE: 60M; TWO: 33H'), mv(6, 0, 7, 0));
    expect(s.ambers).toEqual({ ONE: 1, TWO: 0 });
    expect(pieceAt(s, { x: 7, y: 0 })).toBeNull();
    expect(pieceAt(s, { x: 6, y: 0 })).toBeNull();
  });
  it('TWO Moewe (6,0)→(7,0) scores nothing on its own line', () => {
    const s = play(position('ONE: 00H; TWO: 60M', 1), mv(6, 0, 7, 0));
    expect(s.ambers).toEqual({ ONE: 0, TWO: 0 });
    expect(pieceAt(s, { x: 7, y: 0 })).toEqual({ type: 'Moewe', team: 'TWO', count: 1 });
  });
  it('ONE Robbe (6,0)→(7,2) scores nothing and stays', () => {
    const s = play(position('ONE: 60R; TWO: 33H'), mv(6, 0, 7, 2));
    expect(s.ambers.ONE).toBe(0);
    expect(pieceAt(s, { x: 7, y: 2 })).toEqual({ type: 'Robbe', team: 'ONE', count: 1 });
  });
  it('a Seestern tower capturing a Robbe scores 1 (count 3)', () => {
    const s = play(position('ONE: 33S2; TWO: 44R 70H'), mv(3, 3, 4, 4));
    expect(s.ambers.ONE).toBe(1);
    expect(s.pieces.map((e) => e.coordinates)).toEqual([{ x: 7, y: 0 }]);
  });
  it('a TWO Moewe capturing a ONE Seestern tower on x = 0 scores 2', () => {
    const s = play(position('ONE: 00S2 77R; TWO: 10M', 1), mv(1, 0, 0, 0));
    expect(s.ambers).toEqual({ ONE: 0, TWO: 2 });
    expect(pieceAt(s, { x: 0, y: 0 })).toBeNull();
  });
  it('a capture stacks under the mover: the tower keeps the mover type and team and moves like it', () => {
    let s = play(position('ONE: 22M; TWO: 32H 70H'), mv(2, 2, 3, 2));
    expect(pieceAt(s, { x: 3, y: 2 })).toEqual({ type: 'Moewe', team: 'ONE', count: 2 });
    expect(s.ambers).toEqual({ ONE: 0, TWO: 0 });
    s = play(s, mv(7, 0, 6, 1));
    expect(targets(s, 3, 2)).toEqual(['22', '31', '33', '42']);
  });
  it('a single piece capturing a tower scores, and a tower on the enemy line by a light piece scores 2', () => {
    const s1 = play(position('ONE: 22R; TWO: 43H2 77H'), mv(2, 2, 4, 3));
    expect(s1.ambers.ONE).toBe(1);
    expect(pieceAt(s1, { x: 4, y: 3 })).toBeNull();
    const s2 = play(position('ONE: 62S2; TWO: 73M 00H'), mv(6, 2, 7, 3));
    expect(s2.ambers.ONE).toBe(2);
  });
  it('a Robbe tower on the enemy line stays with count 2', () => {
    const s = play(position('ONE: 52R; TWO: 73M 00H'), mv(5, 2, 7, 3));
    expect(pieceAt(s, { x: 7, y: 3 })).toEqual({ type: 'Robbe', team: 'ONE', count: 2 });
    expect(s.ambers.ONE).toBe(0);
  });
});

describe('invalid moves, in the official check order', () => {
  const s = position('ONE: 33M 34H; TWO: 44S 70M');
  const code = (m: Move): string | undefined => validate(s, m)?.code;
  it('WRONG_COLOR for empty, enemy and off-board start squares, before anything else', () => {
    expect(code(mv(0, 0, 9, 9))).toBe('WRONG_COLOR');
    expect(code(mv(4, 4, 3, 3))).toBe('WRONG_COLOR');
    expect(code(mv(-1, 0, 0, 0))).toBe('WRONG_COLOR');
    expect(code(mv(8, 3, 7, 3))).toBe('WRONG_COLOR');
  });
  it('OUT_OF_BOUNDS before the pattern check', () => {
    expect(code(mv(3, 3, 3, 8))).toBe('OUT_OF_BOUNDS');
    expect(code(mv(3, 3, -3, 3))).toBe('OUT_OF_BOUNDS');
  });
  it('INVALID_MOVEMENT for vectors outside the pattern, including a null move', () => {
    expect(code(mv(3, 3, 4, 4))).toBe('INVALID_MOVEMENT');
    expect(code(mv(3, 3, 3, 3))).toBe('INVALID_MOVEMENT');
    expect(code(mv(3, 4, 2, 5))).toBe('INVALID_MOVEMENT');
  });
  it('DESTINATION_BLOCKED for an own piece on the target', () => {
    expect(code(mv(3, 3, 3, 4))).toBe('DESTINATION_BLOCKED');
  });
  it('apply returns the error and leaves the state alone', () => {
    const r = apply(s, mv(3, 3, 3, 4));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe('DESTINATION_BLOCKED');
    expect(apply(s, mv(3, 3, 4, 3)).ok).toBe(true);
  });
  it('GAME_OVER once the game has ended', () => {
    const over = position('ONE: 33M; TWO: 44S', 60);
    expect(validate(over, mv(3, 3, 4, 3))?.code).toBe('GAME_OVER');
    expect(legalMoves(over)).toEqual([]);
  });
});

describe('end of the game (official GameStateTest, GameTest)', () => {
  const pieces = 'ONE: 33M 11H; TWO: 44S 66H';
  it('is over at turn 60, not at 58 or 59', () => {
    expect(isOver(position(pieces, 58))).toBe(false);
    expect(isOver(position(pieces, 59))).toBe(false);
    expect(isOver(position(pieces, 60))).toBe(true);
  });
  it('the game-over check runs only after TWO: ONE at 2 ambers gets TWO a reply', () => {
    let s = position('ONE: 60M 11H; TWO: 22H 55S', 10, { ONE: 1, TWO: 1 });
    s = play(s, mv(6, 0, 7, 0));
    expect(s.ambers.ONE).toBe(2);
    expect(status(s).kind).toBe('running');
    s = play(s, mv(2, 2, 1, 3));
    const st = status(s);
    expect(st).toMatchObject({ kind: 'ended', winner: 'ONE', endedBy: 'ambers', decidedBy: 'ambers', cause: 'REGULAR', reason: '' });
  });
  it('TWO can equalise with its reply, and then the light pieces decide', () => {
    let s = position('ONE: 60M 21H; TWO: 12S 55M', 11 - 1, { ONE: 1, TWO: 1 });
    s = play(s, mv(6, 0, 7, 0), mv(1, 2, 0, 3));
    expect(s.ambers).toEqual({ ONE: 2, TWO: 2 });
    // ONE: Herzmuschel at distance 2; TWO: Moewe (5,5) at distance 2 → equal lists → draw.
    expect(status(s)).toMatchObject({ kind: 'ended', winner: null, decidedBy: 'draw' });
  });
  it('GameTest: ambers 2:2, ONE Herzmuschel (6,6) vs TWO Seestern (2,1): ONE wins, parts [2,2,6] and [0,2,5]', () => {
    const s = position('ONE: 66H; TWO: 21S', 60, { ONE: 2, TWO: 2 });
    expect(status(s)).toEqual({
      kind: 'ended',
      winner: 'ONE',
      endedBy: 'ambers',
      decidedBy: 'light-pieces',
      cause: 'REGULAR',
      reason: '',
      parts: { ONE: [2, 2, 6], TWO: [0, 2, 5] },
    });
  });
  it('compares the sorted distance lists index by index up to the shorter one', () => {
    // ONE [5,3], TWO [5,4,1]: index 1 decides for TWO.
    const s = position('ONE: 50H 30M 02R; TWO: 21S 31M 61H', 60);
    expect(status(s)).toMatchObject({ winner: 'TWO', decidedBy: 'light-pieces', endedBy: 'round-limit' });
    // ONE [5,3], TWO [5,3,1]: equal up to the shorter length → draw.
    const d = position('ONE: 50H 30M; TWO: 21S 41M 61H', 60);
    expect(status(d)).toMatchObject({ winner: null, decidedBy: 'draw' });
  });
  it('a team without light pieces: draw on equal ambers, part 3 is 0 (spec §4 #1 fix)', () => {
    const s = position('ONE: 33R; TWO: 21S', 60, { ONE: 1, TWO: 1 });
    expect(status(s)).toMatchObject({ winner: null, decidedBy: 'draw', parts: { ONE: [1, 1, 0], TWO: [1, 1, 5] } });
  });
  it('more ambers win regardless of pieces', () => {
    const s = position('ONE: 66H; TWO: 21S', 60, { ONE: 0, TWO: 1 });
    expect(status(s)).toMatchObject({ winner: 'TWO', decidedBy: 'ambers', parts: { ONE: [0, 0, 6], TWO: [2, 1, 5] } });
  });
  it('running status names the side to move and the round', () => {
    expect(status(position(pieces, 7))).toEqual({ kind: 'running', toMove: 'TWO', round: 4 });
    expect(view(position(pieces, 8))).toMatchObject({ turn: 8, round: 4, startTeam: 'ONE', toMove: 'ONE' });
  });
});

describe('setup', () => {
  it('createStart is point-symmetric with two of each type, count 1, ONE to move', () => {
    const s = createStart(Rng.seeded(7));
    expect(s.turn).toBe(0);
    expect(s.pieces).toHaveLength(16);
    for (let y = 0; y < 8; y++) {
      const a = pieceAt(s, { x: 0, y });
      const b = pieceAt(s, { x: 7, y: 7 - y });
      expect(a?.team).toBe('ONE');
      expect(b).toEqual({ ...a, team: 'TWO' });
    }
    const letters = layoutName(layoutOf(s)!).split('').sort().join('');
    expect(letters).toBe('HHMMRRSS');
  });
  it('is reproducible per seed and spreads over the layouts', () => {
    expect(createStart(Rng.seeded('a'))).toEqual(createStart(Rng.seeded('a')));
    const rng = Rng.seeded(1);
    const seen = new Set<string>();
    const atZero = new Map<PieceType, number>();
    for (let i = 0; i < 4000; i++) {
      const layout = randomLayout(rng);
      seen.add(layoutName(layout));
      atZero.set(layout[0]!, (atZero.get(layout[0]!) ?? 0) + 1);
    }
    expect(seen.size).toBeGreaterThan(1900); // 2520 layouts; 4000 uniform draws cover ~2030 of them
    for (const n of atZero.values()) expect(Math.abs(n - 1000)).toBeLessThan(150);
  });
  it('fromSetup builds the transcript layout in the official insertion order', () => {
    const r = fromSetup('RMRSHSMH');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.pieces.slice(0, 4)).toEqual([
      { coordinates: { x: 0, y: 0 }, piece: { type: 'Robbe', team: 'ONE', count: 1 } },
      { coordinates: { x: 7, y: 7 }, piece: { type: 'Robbe', team: 'TWO', count: 1 } },
      { coordinates: { x: 0, y: 1 }, piece: { type: 'Moewe', team: 'ONE', count: 1 } },
      { coordinates: { x: 7, y: 6 }, piece: { type: 'Moewe', team: 'TWO', count: 1 } },
    ]);
    expect(fromSetup('RMRSHSM').ok).toBe(false);
    expect(fromSetup('RMRSHSMX').ok).toBe(false);
  });
  it('fromPosition rejects impossible boards', () => {
    const bad = (input: Parameters<typeof fromPosition>[0]): string | undefined => {
      const r = fromPosition(input);
      return r.ok ? undefined : r.error.code;
    };
    const p = (x: number, y: number, count = 1) => ({ coordinates: { x, y }, piece: { type: 'Moewe' as const, team: 'ONE' as const, count } });
    expect(bad({ pieces: [p(0, 0), p(0, 0)] })).toBe('BAD_POSITION');
    expect(bad({ pieces: [p(8, 0)] })).toBe('BAD_POSITION');
    expect(bad({ pieces: [p(0, 0, 3)] })).toBe('BAD_POSITION');
    expect(bad({ pieces: [p(0, 0)], turn: 61 })).toBe('BAD_POSITION');
    expect(bad({ pieces: [p(0, 0)], turn: 3 })).toBeUndefined();
  });
});

describe('the recorded official game (fullgame, layout RMRSHSMH)', () => {
  const mementos = readMementos(fixture('fullgame-p1.server-to-client.xml'));
  const one = readClientMoves(fixture('fullgame-p1.client-to-server.txt'));
  const two = readClientMoves(fixture('fullgame-p2.client-to-server.txt'));
  const moves = one.flatMap((m, i) => [m, two[i]!]);

  it('replays all 60 moves and matches every memento: board, entry order, ambers, lastMove', () => {
    expect(mementos).toHaveLength(61);
    expect(moves).toHaveLength(60);
    const start = fromSetup('RMRSHSMH');
    if (!start.ok) throw new Error('layout');
    let s = start.value;
    for (let turn = 0; turn <= 60; turn++) {
      const m = mementos[turn]!;
      expect(m.turn).toBe(turn);
      const ours = mementoOrder(s.pieces).map((e) => ({ ...e.coordinates, ...e.piece }));
      expect(ours).toEqual(m.pieces);
      expect(s.lastMove).toEqual(m.lastMove);
      expect(s.ambers.ONE).toBe(m.ambers.ONE ?? 0);
      expect(s.ambers.TWO).toBe(m.ambers.TWO ?? 0);
      if (turn < 60) {
        expect(status(s).kind).toBe('running');
        expect(legalMoves(s).map(moveName)).toContain(moveName(moves[turn]!));
        s = play(s, moves[turn]!);
      }
    }
    expect(status(s)).toMatchObject({
      kind: 'ended',
      winner: 'TWO',
      endedBy: 'round-limit',
      decidedBy: 'ambers',
      parts: { ONE: [0, 0, 5], TWO: [2, 1, 5] },
    });
  });
});

describe('properties over random playouts', () => {
  it('listed moves always apply, inputs stay untouched, games end by turn 60, and the engine board agrees', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const rng = Rng.seeded(seed);
        let s = createStart(rng);
        const fast = Position.fromState(s);
        const buf = new Int32Array(MAX_MOVES);
        while (status(s).kind === 'running') {
          const moves = legalMoves(s);
          const n = fast.generate(buf, 0);
          expect(Array.from(buf.subarray(0, n), (c) => moveName(codeToMove(c))).sort()).toEqual(moves.map(moveName).sort());
          if (moves.length === 0) break;
          const frozen = JSON.stringify(s);
          const m = rng.pick(moves);
          const r = apply(s, m);
          expect(r.ok).toBe(true);
          expect(JSON.stringify(s)).toBe(frozen);
          if (!r.ok) return;
          fast.make(moveToCode(m));
          s = r.value;
          const rebuilt = Position.fromState(s);
          expect(Array.from(fast.board)).toEqual(Array.from(rebuilt.board));
          expect([fast.hashLo, fast.hashHi, fast.turn, ...fast.ambers]).toEqual([rebuilt.hashLo, rebuilt.hashHi, rebuilt.turn, ...rebuilt.ambers]);
          expect(fast.isOver()).toBe(isOver(s));
        }
        expect(s.turn).toBeLessThanOrEqual(60);
        expect(status(s).kind === 'ended' || legalMoves(s).length === 0).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});
