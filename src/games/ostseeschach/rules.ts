import { err, ok, type Result } from '../../core/result.js';
import {
  AMBERS_TO_WIN,
  BOARD_SIZE,
  START_TEAM,
  TURN_LIMIT,
  canMoveBy,
  isLight,
  onBoard,
  opponent,
  sameSquare,
  startLine,
  vectors,
  type Coordinates,
  type Move,
  type Piece,
  type PieceEntry,
  type PieceType,
  type Team,
} from './board.js';

/**
 * The pure rules core of Ostseeschach (spec §2). The engine has its own mutable move generator
 * (engine/position.ts); perft proves both against the official counts and against each other.
 */

export interface State {
  /** Moves played so far; ONE moves at even turns. */
  readonly turn: number;
  /**
   * The pieces in the official server's insertion order: setup order, a move to an empty square
   * appends, a capture keeps the captured entry's place. The codec derives the memento's HashMap
   * order from it (spec §3.3); rules never depend on it.
   */
  readonly pieces: readonly PieceEntry[];
  readonly ambers: Readonly<Record<Team, number>>;
  /** The move just played (the memento's `lastMove`), null at turn 0 and in set-up positions. */
  readonly lastMove: Move | null;
}

/** Codes are the official `MoveMistake` names where one exists; checks run in this order. */
export type RuleErrorCode =
  /** The game is over; no move is accepted. */
  | 'GAME_OVER'
  /** `from` holds no piece of the side to move (also empty or off-board squares). */
  | 'WRONG_COLOR'
  /** `to` is off the board. */
  | 'OUT_OF_BOUNDS'
  /** to − from is not in the moving piece's pattern (includes from = to). */
  | 'INVALID_MOVEMENT'
  /** `to` holds a piece of the mover's own team. */
  | 'DESTINATION_BLOCKED';

export interface RuleError {
  readonly code: RuleErrorCode;
  readonly message: string;
}

export type EndReason = 'ambers' | 'round-limit';
/** What decided the winner at a regular end (spec §2 "Winner at a regular end"). */
export type Decision = 'ambers' | 'light-pieces' | 'draw';

/** The three score parts in wire order: Siegpunkte, Bernsteine, Leichtfiguren Vorne. */
export type ScoreParts = readonly [points: number, ambers: number, furthestLight: number];

export type Status =
  | { readonly kind: 'running'; readonly toMove: Team; readonly round: number }
  | {
      readonly kind: 'ended';
      /** null on a draw. */
      readonly winner: Team | null;
      readonly endedBy: EndReason;
      readonly decidedBy: Decision;
      /** A regular end is always `REGULAR` with an empty reason for both teams (spec §3.6). */
      readonly cause: 'REGULAR';
      readonly reason: '';
      readonly parts: Readonly<Record<Team, ScoreParts>>;
    };

export const toMove = (s: State): Team => (s.turn % 2 === 0 ? 'ONE' : 'TWO');
export const round = (s: State): number => Math.floor((s.turn + 1) / 2);

/** The official game-over check: only after TWO's move (even turn). */
export function isOver(s: State): boolean {
  return s.turn % 2 === 0 && (s.turn >= TURN_LIMIT || s.ambers.ONE >= AMBERS_TO_WIN || s.ambers.TWO >= AMBERS_TO_WIN);
}

export function pieceAt(s: State, c: Coordinates): Piece | null {
  return s.pieces.find((e) => sameSquare(e.coordinates, c))?.piece ?? null;
}

/** Distances |x − own start line| of a team's light pieces, largest first. */
export function lightDistances(s: State, team: Team): number[] {
  const line = startLine(team);
  return s.pieces
    .filter((e) => e.piece.team === team && isLight(e.piece.type))
    .map((e) => Math.abs(e.coordinates.x - line))
    .sort((a, b) => b - a);
}

/**
 * Parts 2 and 3 of a team's score, always taken from the current board (also after a rule
 * violation or timeout). A team without light pieces gets 0 (spec §4 #1: the official server
 * crashes there).
 */
export function boardParts(s: State, team: Team): { readonly ambers: number; readonly furthestLight: number } {
  return { ambers: s.ambers[team], furthestLight: lightDistances(s, team)[0] ?? 0 };
}

/** The regular-end winner: more ambers, else the light-piece distance lists, else a draw. */
export function regularWinner(s: State): { winner: Team | null; decidedBy: Decision } {
  if (s.ambers.ONE !== s.ambers.TWO) return { winner: s.ambers.ONE > s.ambers.TWO ? 'ONE' : 'TWO', decidedBy: 'ambers' };
  const one = lightDistances(s, 'ONE');
  const two = lightDistances(s, 'TWO');
  for (let i = 0; i < Math.min(one.length, two.length); i++) {
    const a = one[i] as number;
    const b = two[i] as number;
    if (a !== b) return { winner: a > b ? 'ONE' : 'TWO', decidedBy: 'light-pieces' };
  }
  return { winner: null, decidedBy: 'draw' };
}

export function status(s: State): Status {
  if (!isOver(s)) return { kind: 'running', toMove: toMove(s), round: round(s) };
  const { winner, decidedBy } = regularWinner(s);
  const partsOf = (team: Team): ScoreParts => {
    const b = boardParts(s, team);
    const points = winner === null ? 1 : winner === team ? 2 : 0;
    return [points, b.ambers, b.furthestLight];
  };
  const endedBy: EndReason = s.ambers.ONE >= AMBERS_TO_WIN || s.ambers.TWO >= AMBERS_TO_WIN ? 'ambers' : 'round-limit';
  return {
    kind: 'ended',
    winner,
    endedBy,
    decidedBy,
    cause: 'REGULAR',
    reason: '',
    parts: { ONE: partsOf('ONE'), TWO: partsOf('TWO') },
  };
}

function boardArray(s: State): (Piece | null)[] {
  const board: (Piece | null)[] = new Array<Piece | null>(BOARD_SIZE * BOARD_SIZE).fill(null);
  for (const e of s.pieces) board[e.coordinates.x * BOARD_SIZE + e.coordinates.y] = e.piece;
  return board;
}

/**
 * Every legal move of the side to move, ordered by from-square (x, then y) and then by the
 * pattern order of board.ts. Empty once the game is over. It may be empty in a running game too
 * (no piece can move); the official server does not detect that (spec §4 #8).
 */
export function legalMoves(s: State): Move[] {
  if (isOver(s)) return [];
  const team = toMove(s);
  const board = boardArray(s);
  const moves: Move[] = [];
  for (let x = 0; x < BOARD_SIZE; x++) {
    for (let y = 0; y < BOARD_SIZE; y++) {
      const p = board[x * BOARD_SIZE + y];
      if (!p || p.team !== team) continue;
      for (const [dx, dy] of vectors(p.type, team)) {
        const to = { x: x + dx, y: y + dy };
        if (!onBoard(to)) continue;
        if (board[to.x * BOARD_SIZE + to.y]?.team === team) continue;
        moves.push({ from: { x, y }, to });
      }
    }
  }
  return moves;
}

/** Checks a move in the official order (spec §2 "Invalid moves") without playing it. */
export function validate(s: State, move: Move): RuleError | null {
  if (isOver(s)) return { code: 'GAME_OVER', message: 'the game is over' };
  const team = toMove(s);
  const mover = onBoard(move.from) ? pieceAt(s, move.from) : null;
  if (mover?.team !== team) return { code: 'WRONG_COLOR', message: `no piece of ${team} on the start square` };
  if (!onBoard(move.to)) return { code: 'OUT_OF_BOUNDS', message: 'the destination is off the board' };
  if (!canMoveBy(mover.type, team, move.to.x - move.from.x, move.to.y - move.from.y)) {
    return { code: 'INVALID_MOVEMENT', message: `${mover.type} cannot move by that vector` };
  }
  if (pieceAt(s, move.to)?.team === team) return { code: 'DESTINATION_BLOCKED', message: 'the destination holds an own piece' };
  return null;
}

/** Ambers a move onto `to` scores: one for a stack of 3+, one for a light piece on the enemy line. */
export function amberScore(type: PieceType, team: Team, count: number, to: Coordinates): number {
  return (count >= 3 ? 1 : 0) + (isLight(type) && to.x === startLine(opponent(team)) ? 1 : 0);
}

export function apply(s: State, move: Move): Result<State, RuleError> {
  const error = validate(s, move);
  if (error) return err(error);
  const team = toMove(s);
  const from = { x: move.from.x, y: move.from.y };
  const to = { x: move.to.x, y: move.to.y };
  const mover = pieceAt(s, from) as Piece;
  const captured = pieceAt(s, to);
  const count = mover.count + (captured?.count ?? 0);
  const gained = amberScore(mover.type, team, count, to);
  const stack: PieceEntry | null = gained > 0 ? null : { coordinates: to, piece: { type: mover.type, team, count } };

  const pieces: PieceEntry[] = [];
  for (const e of s.pieces) {
    if (sameSquare(e.coordinates, from)) continue;
    if (sameSquare(e.coordinates, to)) {
      if (stack) pieces.push(stack);
      continue;
    }
    pieces.push(e);
  }
  if (!captured && stack) pieces.push(stack);

  const ambers = { ...s.ambers, [team]: s.ambers[team] + gained } as Record<Team, number>;
  return ok({ turn: s.turn + 1, pieces, ambers, lastMove: { from, to } });
}

/** Full information: Ostseeschach has nothing hidden, so every seat and spectator sees this. */
export interface View {
  readonly turn: number;
  readonly round: number;
  readonly startTeam: Team;
  readonly toMove: Team;
  readonly pieces: readonly PieceEntry[];
  readonly ambers: Readonly<Record<Team, number>>;
  readonly lastMove: Move | null;
  readonly status: Status;
}

export function view(s: State): View {
  return {
    turn: s.turn,
    round: round(s),
    startTeam: START_TEAM,
    toMove: toMove(s),
    pieces: s.pieces,
    ambers: s.ambers,
    lastMove: s.lastMove,
    status: status(s),
  };
}

/**
 * The pieces in the order the official memento lists them: Java HashMap order at capacity 32,
 * i.e. buckets by (y − x) mod 32 ascending, insertion order within a bucket (spec §3.3).
 */
export function mementoOrder(pieces: readonly PieceEntry[]): PieceEntry[] {
  const bucket = (e: PieceEntry): number => (((e.coordinates.y - e.coordinates.x) % 32) + 32) % 32;
  return pieces
    .map((e, i) => ({ e, i, b: bucket(e) }))
    .sort((a, b) => a.b - b.b || a.i - b.i)
    .map((x) => x.e);
}
