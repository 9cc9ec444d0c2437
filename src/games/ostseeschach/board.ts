/**
 * Ostseeschach (Software-Challenge 2022): the vocabulary of the board. Names and coordinates are
 * exactly those of the wire (`<piece type="Moewe" team="ONE" count="1"/>`, `<from x= y=/>`), so a
 * codec maps them 1:1.
 */

export type Team = 'ONE' | 'TWO';
export const TEAMS: readonly Team[] = ['ONE', 'TWO'];

export type PieceType = 'Herzmuschel' | 'Moewe' | 'Seestern' | 'Robbe';
/** The order is also the internal type index of the engine (0…3). */
export const PIECE_TYPES: readonly PieceType[] = ['Herzmuschel', 'Moewe', 'Seestern', 'Robbe'];

/** One-letter codes used in layouts (`HMSRHMSR`) and in test vectors. */
export const PIECE_LETTER: Readonly<Record<PieceType, string>> = {
  Herzmuschel: 'H',
  Moewe: 'M',
  Seestern: 'S',
  Robbe: 'R',
};

export interface Coordinates {
  readonly x: number;
  readonly y: number;
}

export interface Piece {
  readonly type: PieceType;
  readonly team: Team;
  /** Stack height; only 1 and 2 remain on the board (3 or more becomes an amber at once). */
  readonly count: number;
}

/** One square of the board, shaped like the memento's `<entry><coordinates/><piece/></entry>`. */
export interface PieceEntry {
  readonly coordinates: Coordinates;
  readonly piece: Piece;
}

export interface Move {
  readonly from: Coordinates;
  readonly to: Coordinates;
}

export const BOARD_SIZE = 8;
/** The game ends after TWO's move once `round >= ROUND_LIMIT`, i.e. at turn 60. */
export const ROUND_LIMIT = 30;
export const TURN_LIMIT = 2 * ROUND_LIMIT;
/** Ambers a team needs to end the game (checked after TWO's move only). */
export const AMBERS_TO_WIN = 2;
export const START_TEAM: Team = 'ONE';

export const opponent = (team: Team): Team => (team === 'ONE' ? 'TWO' : 'ONE');
/** ONE starts on x = 0 and moves towards +x; TWO starts on x = 7 and moves towards −x. */
export const startLine = (team: Team): number => (team === 'ONE' ? 0 : BOARD_SIZE - 1);
export const forward = (team: Team): number => (team === 'ONE' ? 1 : -1);

/** Light pieces score an amber on the opponent's start line; the Robbe does not. */
export const isLight = (type: PieceType): boolean => type !== 'Robbe';

export const onBoard = (c: Coordinates): boolean =>
  Number.isInteger(c.x) && Number.isInteger(c.y) && c.x >= 0 && c.x < BOARD_SIZE && c.y >= 0 && c.y < BOARD_SIZE;

export const sameSquare = (a: Coordinates, b: Coordinates): boolean => a.x === b.x && a.y === b.y;

/** The move vectors (dx, dy) of a piece type for a team, as the rules table lists them. */
export function vectors(type: PieceType, team: Team): readonly (readonly [number, number])[] {
  const d = forward(team);
  switch (type) {
    case 'Herzmuschel':
      return [
        [d, 1],
        [d, -1],
      ];
    case 'Moewe':
      return [
        [1, 0],
        [-1, 0],
        [0, 1],
        [0, -1],
      ];
    case 'Seestern':
      return [
        [1, 1],
        [1, -1],
        [-1, 1],
        [-1, -1],
        [d, 0],
      ];
    case 'Robbe':
      return [
        [1, 2],
        [1, -2],
        [-1, 2],
        [-1, -2],
        [2, 1],
        [2, -1],
        [-2, 1],
        [-2, -1],
      ];
  }
}

export function canMoveBy(type: PieceType, team: Team, dx: number, dy: number): boolean {
  return vectors(type, team).some(([vx, vy]) => vx === dx && vy === dy);
}

/** `x,y` → `"xy"`; a move → `"xy-xy"` (the notation of the spec's test vectors). */
export const squareName = (c: Coordinates): string => `${c.x}${c.y}`;
export const moveName = (m: Move): string => `${squareName(m.from)}-${squareName(m.to)}`;

export function parseMoveName(text: string): Move | null {
  const m = /^([0-7])([0-7])-([0-7])([0-7])$/.exec(text);
  if (!m) return null;
  return { from: { x: Number(m[1]), y: Number(m[2]) }, to: { x: Number(m[3]), y: Number(m[4]) } };
}
