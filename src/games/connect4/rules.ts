import { err, ok, type Result } from '../../core/result.js';
import {
  cellBit,
  fourStartsHi,
  fourStartsLo,
  hasFour,
  HEIGHT,
  LO_COLUMNS,
  STEPS,
  STRIDE,
  WIDTH,
} from './bitboard.js';

/**
 * Connect Four as pure data (spec §2): the state is the list of columns played, nothing else, so
 * it serializes as it is and replays trivially. Every function rebuilds the bitboards from the
 * moves (at most 42 steps); the solver keeps its own mutable position for speed.
 */

export const COLUMNS = WIDTH;
export const ROWS = HEIGHT;

/** 0 = the first player (who moves first). */
export type Player = 0 | 1;

export interface C4State {
  /** Columns 1–7 in play order. */
  readonly moves: readonly number[];
}

export type C4Status =
  | { kind: 'running'; toMove: Player }
  /** `line`: every cell (col 1–7, row 1–6 from the bottom) of the winner's four(s), sorted. */
  | { kind: 'won'; winner: Player; line: [col: number, row: number][] }
  | { kind: 'drawn' };

export interface RuleError {
  code: 'column-out-of-range' | 'column-full' | 'game-over' | 'bad-notation';
  message: string;
}

/** A rejected move sequence; `index` is the 0-based offending position in the sequence. */
export type SequenceError = RuleError & { index?: number };

interface Board {
  /** Stones per player, lo and hi words (see bitboard.ts). */
  readonly lo: [number, number];
  readonly hi: [number, number];
  readonly heights: number[];
  /** The player whose four ended the game, if any. */
  winner: Player | null;
  count: number;
}

function emptyBoard(): Board {
  return { lo: [0, 0], hi: [0, 0], heights: [0, 0, 0, 0, 0, 0, 0], winner: null, count: 0 };
}

/** Plays a 1-based column on a mutable board, or says why not. */
function place(board: Board, column: number): RuleError | null {
  if (board.winner !== null) return { code: 'game-over', message: 'the game is over: a four was already made' };
  if (!Number.isInteger(column) || column < 1 || column > WIDTH) {
    return { code: 'column-out-of-range', message: `column ${String(column)} is not a column 1–${WIDTH}` };
  }
  const col = column - 1;
  const height = board.heights[col]!;
  if (height >= HEIGHT) return { code: 'column-full', message: `column ${column} is full` };
  const player = (board.count & 1) as Player;
  const bit = cellBit(col, height);
  if (col < LO_COLUMNS) board.lo[player] |= bit;
  else board.hi[player] |= bit;
  board.heights[col] = height + 1;
  board.count++;
  if (hasFour(board.lo[player], board.hi[player])) board.winner = player;
  return null;
}

function build(moves: readonly number[]): Result<Board, SequenceError> {
  const board = emptyBoard();
  for (let i = 0; i < moves.length; i++) {
    const problem = place(board, moves[i]!);
    if (problem) return err({ ...problem, index: i });
  }
  return ok(board);
}

/** States only come from apply/fromMoves; a hand-made invalid one is a programming error. */
function boardOf(state: C4State): Board {
  const built = build(state.moves);
  if (!built.ok) throw new RangeError(`invalid Connect Four state: ${built.error.message}`);
  return built.value;
}

export function initialState(): C4State {
  return { moves: [] };
}

export function apply(state: C4State, column: number): Result<C4State, RuleError> {
  const board = boardOf(state);
  if (board.count === WIDTH * HEIGHT) return err({ code: 'game-over', message: 'the game is over: the board is full' });
  const problem = place(board, column);
  if (problem) return err(problem);
  return ok({ moves: [...state.moves, column] });
}

/**
 * Parses a position in Pons' notation (spec §6.1): digits 1–7, the empty string is the empty
 * board. Messages name the 1-based position of the offending character.
 */
export function fromMoves(notation: string): Result<C4State, SequenceError> {
  const board = emptyBoard();
  const moves: number[] = [];
  for (let i = 0; i < notation.length; i++) {
    const ch = notation.charCodeAt(i);
    // (The message's text only on an error: a solver set checks tens of thousands of moves.)
    if (ch < 0x31 || ch > 0x37) {
      return err({ code: 'bad-notation', message: `not a column at position ${i + 1}: ${JSON.stringify(notation[i])}`, index: i });
    }
    const column = ch - 0x30;
    const problem = place(board, column);
    if (problem) {
      const message =
        problem.code === 'column-full'
          ? `column ${column} is already full at position ${i + 1}`
          : `move at position ${i + 1} continues after a four`;
      return err({ code: problem.code, message, index: i });
    }
    moves.push(column);
  }
  return ok({ moves });
}

export function toNotation(state: C4State): string {
  return state.moves.join('');
}

export function toMove(state: C4State): Player {
  return (state.moves.length & 1) as Player;
}

function winLine(board: Board, winner: Player): [number, number][] {
  const lo = board.lo[winner];
  const hi = board.hi[winner];
  let cellsLo = 0;
  let cellsHi = 0;
  for (const step of STEPS) {
    const startsLo = fourStartsLo(lo, hi, step);
    const startsHi = fourStartsHi(hi, step);
    // A four starting in lo may reach into hi: spread each start over its four cells, crossing the split.
    for (let k = 0; k < 4; k++) {
      const s = k * step;
      cellsLo |= startsLo << s;
      cellsHi |= (s === 0 ? 0 : startsLo >>> (STRIDE * LO_COLUMNS - s)) | (startsHi << s);
    }
  }
  const line: [number, number][] = [];
  for (let col = 0; col < WIDTH; col++) {
    for (let row = 0; row < HEIGHT; row++) {
      const word = col < LO_COLUMNS ? cellsLo : cellsHi;
      if (word & cellBit(col, row)) line.push([col + 1, row + 1]);
    }
  }
  return line;
}

function statusOf(board: Board): C4Status {
  if (board.winner !== null) return { kind: 'won', winner: board.winner, line: winLine(board, board.winner) };
  if (board.count === WIDTH * HEIGHT) return { kind: 'drawn' };
  return { kind: 'running', toMove: (board.count & 1) as Player };
}

export function status(state: C4State): C4Status {
  return statusOf(boardOf(state));
}

export function legalMoves(state: C4State): number[] {
  const board = boardOf(state);
  if (board.winner !== null) return [];
  const out: number[] = [];
  for (let col = 0; col < WIDTH; col++) if (board.heights[col]! < HEIGHT) out.push(col + 1);
  return out;
}

function gridOf(moves: readonly number[]): (Player | null)[][] {
  const cells: (Player | null)[][] = Array.from({ length: HEIGHT }, () => Array<Player | null>(WIDTH).fill(null));
  const heights = [0, 0, 0, 0, 0, 0, 0];
  moves.forEach((column, i) => {
    const col = column - 1;
    const row = heights[col]!;
    cells[row]![col] = (i & 1) as Player;
    heights[col] = row + 1;
  });
  return cells;
}

/** `grid[row][col]`: row 0 = bottom, col 0 = column 1. */
export function grid(state: C4State): (Player | null)[][] {
  boardOf(state);
  return gridOf(state.moves);
}

/** Full information: every viewer sees the same. */
export function view(state: C4State): { moves: number[]; grid: (Player | null)[][]; status: C4Status } {
  const board = boardOf(state);
  return { moves: [...state.moves], grid: gridOf(state.moves), status: statusOf(board) };
}
