import { PIECE_TYPES, type PieceEntry, type PieceType, type Team } from '../src/games/ostseeschach/board.js';
import type { State } from '../src/games/ostseeschach/rules.js';
import { fromPosition, fromSetup } from '../src/games/ostseeschach/setup.js';

/**
 * The spec's positions the Ostseeschach benches share: three start layouts and the mid-game
 * vector, each with its official perft counts for depths 1–5.
 */
export interface SpecPosition {
  readonly name: string;
  readonly state: State;
  readonly counts: readonly number[];
}

const piece = (x: number, y: number, type: PieceType, team: Team, count = 1): PieceEntry => ({
  coordinates: { x, y },
  piece: { type, team, count },
});

export function specPositions(): SpecPosition[] {
  const positions: SpecPosition[] = [];
  for (const [layout, counts] of [
    ['HMSRHMSR', [17, 289, 4879, 82369, 1467187]],
    ['RRSSMMHH', [16, 256, 4320, 72900, 1313518]],
    ['MHSRRSHM', [20, 400, 8080, 163216, 3379624]],
  ] as const) {
    const r = fromSetup(layout);
    if (!r.ok) throw new Error(`start layout ${layout}: ${JSON.stringify(r.error)}`);
    positions.push({ name: `start ${layout}`, state: r.value, counts });
  }
  const mid = fromPosition({
    turn: 10,
    ambers: { ONE: 1, TWO: 1 },
    pieces: [
      piece(0, 0, 'Herzmuschel', 'ONE'),
      piece(2, 1, 'Robbe', 'ONE', 2),
      piece(3, 3, 'Moewe', 'ONE'),
      piece(6, 6, 'Seestern', 'ONE'),
      piece(6, 1, 'Moewe', 'ONE'),
      piece(4, 4, 'Seestern', 'TWO', 2),
      piece(5, 2, 'Robbe', 'TWO'),
      piece(1, 5, 'Moewe', 'TWO'),
      piece(7, 7, 'Herzmuschel', 'TWO'),
      piece(1, 6, 'Herzmuschel', 'TWO'),
    ],
  });
  if (!mid.ok) throw new Error(`spec mid-game: ${JSON.stringify(mid.error)}`);
  positions.push({ name: 'spec mid-game', state: mid.value, counts: [18, 323, 3551, 60708, 677389] });
  return positions;
}

/**
 * A position as the public Rust bot nikohass/rust-socha2022 reads it (`GameState::from_fen`), the
 * input of the perft harness and the gauntlet's `ext:` protocol: ply, the eight piece bitboards (ONE
 * = its RED first: Herzmuschel, Moewe, Seestern, Robbe, then TWO's; bit x + 8·y), towers, ambers
 * ONE | TWO << 4.
 */
export function rustFen(s: State): string {
  const boards = Array.from({ length: 8 }, () => 0n);
  let stacked = 0n;
  for (const e of s.pieces) {
    const bit = 1n << BigInt(e.coordinates.x + e.coordinates.y * 8);
    const i = (e.piece.team === 'ONE' ? 0 : 4) + PIECE_TYPES.indexOf(e.piece.type);
    boards[i] = boards[i]! | bit;
    if (e.piece.count === 2) stacked |= bit;
  }
  return `${s.turn} ${boards.join(' ')} ${stacked} ${s.ambers.ONE | (s.ambers.TWO << 4)}`;
}
