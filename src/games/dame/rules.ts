import { err, ok, type Result } from '../../core/result.js';
import {
  BLACK,
  MOVE_BY_KING,
  MOVE_CAPTURE,
  MOVE_PROMOTES,
  WHITE,
  generateMoves,
  hasMove,
  moveCaptured,
  moveFrom,
  moveTo,
} from './board.js';
import { Position, perftPosition } from './position.js';

/**
 * The Dame rules core (spec §3): pure functions over plain, JSON-serializable state. A move is one
 * single move; a turn is a sequence of them (a capture earns another move). Move generation runs on
 * int32 bitboards inside (board.ts); nothing here mutates its inputs.
 */

export type Side = 'white' | 'black';

/** A dark square, 0 = A1 … 31 = H8 (rank * 4 + file / 2); see notation.ts for names. */
export type Square = number;

export interface SingleMove {
  readonly from: Square;
  readonly to: Square;
  /** The square of the piece this move jumps, or null for a step. */
  readonly captured: Square | null;
  /** A man that ends this move on the far rank becomes a king. */
  readonly promotes: boolean;
}

/** Why a game ended: the §3 end conditions, or a protocol loss the server records (§2.5). */
export type WinReason = 'no-pieces' | 'no-moves' | ForfeitReason;
export type ForfeitReason = 'invalid-move' | 'timeout' | 'disconnect' | 'protocol-error';
export type DrawReason = 'repetition' | 'fifty-moves';

export type GameResult =
  | { readonly kind: 'won'; readonly winner: Side; readonly reason: WinReason }
  | { readonly kind: 'drawn'; readonly reason: DrawReason };

export interface DameState {
  /** Bitboards as uint32: bit s set = a piece of that colour (or a king) on square s. */
  readonly white: number;
  readonly black: number;
  readonly kings: number;
  readonly toMove: Side;
  /** The side to move has just captured and owes a follow-up single move (same turn). */
  readonly mustContinue: boolean;
  /** Consecutive single moves with no capture and no man move; 50 draws. */
  readonly quietMoves: number;
  /** Position keys at turn starts since the last capture or man move, the current one last when at a turn start. */
  readonly history: readonly string[];
  readonly lastMove: SingleMove | null;
  /** Single moves played so far. */
  readonly plies: number;
  readonly result: GameResult | null;
}

export type RuleErrorCode = 'game-over' | 'invalid-position' | 'no-own-piece' | 'occupied' | 'not-allowed';

export interface RuleError {
  readonly code: RuleErrorCode;
  readonly message: string;
}

export type Status =
  { readonly kind: 'running'; readonly toMove: Side; readonly mustContinue: boolean } | GameResult;

export const FIFTY_MOVE_LIMIT = 50;
export const REPETITION_LIMIT = 3;

export const sideIndex = (side: Side): number => (side === 'white' ? WHITE : BLACK);
export const sideOf = (index: number): Side => (index === WHITE ? 'white' : 'black');
export const opponent = (side: Side): Side => (side === 'white' ? 'black' : 'white');

/** The repetition key of a board with a side to move. */
export function positionKey(white: number, black: number, kings: number, toMove: Side): string {
  return `${(white >>> 0).toString(16)}/${(black >>> 0).toString(16)}/${(kings >>> 0).toString(16)}/${toMove[0] ?? ''}`;
}

/**
 * A state from a board and the side to move, e.g. one rebuilt from a BOARD block, as a turn start
 * (or as a follow-up when `mustContinue`). The §3 end checks apply at once.
 */
export function createState(
  board: { white: number; black: number; kings: number },
  toMove: Side = 'white',
  options: { mustContinue?: boolean; quietMoves?: number } = {},
): DameState {
  const white = board.white >>> 0;
  const black = (board.black & ~board.white) >>> 0;
  const kings = (board.kings & (white | black)) >>> 0;
  const mustContinue = options.mustContinue ?? false;
  const base: DameState = {
    white,
    black,
    kings,
    toMove,
    mustContinue,
    quietMoves: options.quietMoves ?? 0,
    history: mustContinue ? [] : [positionKey(white, black, kings, toMove)],
    lastMove: null,
    plies: 0,
    result: null,
  };
  const me = sideIndex(toMove);
  const own = me === WHITE ? white : black;
  const opp = me === WHITE ? black : white;
  if (opp === 0 && own !== 0)
    return { ...base, result: { kind: 'won', winner: toMove, reason: 'no-pieces' } };
  if (own === 0 || !hasMove(white | 0, black | 0, kings | 0, me)) {
    const reason = own === 0 ? 'no-pieces' : 'no-moves';
    return { ...base, result: { kind: 'won', winner: opponent(toMove), reason } };
  }
  return base;
}

/** The start position: White men on ranks 1–3, Black men on ranks 6–8, White to move. */
export function initialState(): DameState {
  return createState({ white: 0x00000fff, black: 0xfff00000, kings: 0 }, 'white');
}

export function packedMoves(state: DameState): Int32Array {
  const buf = new Int32Array(256);
  const end = generateMoves(
    state.white | 0,
    state.black | 0,
    state.kings | 0,
    sideIndex(state.toMove),
    buf,
    0,
  );
  return buf.subarray(0, end);
}

export function unpackMove(m: number): SingleMove {
  return {
    from: moveFrom(m),
    to: moveTo(m),
    captured: m & MOVE_CAPTURE ? moveCaptured(m) : null,
    promotes: (m & MOVE_PROMOTES) !== 0,
  };
}

/** Every legal single move of the side to move (steps and captures; capture is never compulsory). */
export function legalMoves(state: DameState): SingleMove[] {
  if (state.result !== null) return [];
  return Array.from(packedMoves(state), unpackMove);
}

/** The packed form of a legal move (by from/to), or an error saying why it is not legal. */
export function findMove(state: DameState, from: Square, to: Square): Result<number, RuleError> {
  if (state.result !== null) return err({ code: 'game-over', message: 'the game is over' });
  if (!isSquare(from) || !isSquare(to))
    return err({ code: 'invalid-position', message: 'not a dark square' });
  const own = state.toMove === 'white' ? state.white : state.black;
  if (!((own >>> from) & 1))
    return err({ code: 'no-own-piece', message: 'no own piece on the start square' });
  if (((state.white | state.black) >>> to) & 1)
    return err({ code: 'occupied', message: 'the destination is occupied' });
  for (const m of packedMoves(state)) if (moveFrom(m) === from && moveTo(m) === to) return ok(m);
  return err({ code: 'not-allowed', message: 'not a legal single move' });
}

const isSquare = (s: number): boolean => Number.isInteger(s) && s >= 0 && s < 32;

/** Plays one single move and runs the §3 checks (no pieces, no moves, then the draw rules). */
export function apply(state: DameState, move: SingleMove): Result<DameState, RuleError> {
  const found = findMove(state, move.from, move.to);
  if (!found.ok) return found;
  const m = found.value;
  if (
    (m & MOVE_CAPTURE ? moveCaptured(m) : null) !== move.captured ||
    ((m & MOVE_PROMOTES) !== 0) !== move.promotes
  ) {
    return err({ code: 'not-allowed', message: 'the captured square or promotion does not match the move' });
  }
  return ok(applyPacked(state, m));
}

/** apply() for a packed move known to be legal (search and bots). */
export function applyPacked(state: DameState, m: number): DameState {
  const me = sideIndex(state.toMove);
  const from = moveFrom(m);
  const to = moveTo(m);
  const moveBits = (1 << from) | (1 << to);
  let white = state.white | 0;
  let black = state.black | 0;
  let kings = state.kings | 0;
  if (me === WHITE) white ^= moveBits;
  else black ^= moveBits;
  if (m & MOVE_BY_KING) kings ^= moveBits;
  else if (m & MOVE_PROMOTES) kings |= 1 << to;
  const capture = (m & MOVE_CAPTURE) !== 0;
  if (capture) {
    const bit = 1 << moveCaptured(m);
    if (me === WHITE) black &= ~bit;
    else white &= ~bit;
    kings &= ~bit;
  }
  const opp = me === WHITE ? black : white;
  const again = capture && opp !== 0 && hasMove(white, black, kings, me);
  const toMove = again ? state.toMove : opponent(state.toMove);
  const irreversible = capture || !(m & MOVE_BY_KING);
  const quietMoves = irreversible ? 0 : state.quietMoves + 1;
  let history: readonly string[] = [];
  if (!again) {
    const key = positionKey(white, black, kings, toMove);
    history = irreversible ? [key] : [...state.history, key];
  }
  const next: DameState = {
    white: white >>> 0,
    black: black >>> 0,
    kings: kings >>> 0,
    toMove,
    mustContinue: again,
    quietMoves,
    history,
    lastMove: unpackMove(m),
    plies: state.plies + 1,
    result: null,
  };
  return { ...next, result: judge(next, state.toMove) };
}

/** The §3 end checks after a single move by `mover`, in order: no pieces, no moves, then draws. */
function judge(s: DameState, mover: Side): GameResult | null {
  const oppBoard = mover === 'white' ? s.black : s.white;
  if (oppBoard === 0) return { kind: 'won', winner: mover, reason: 'no-pieces' };
  if (!s.mustContinue && !hasMove(s.white | 0, s.black | 0, s.kings | 0, sideIndex(s.toMove))) {
    return { kind: 'won', winner: opponent(s.toMove), reason: 'no-moves' };
  }
  if (!s.mustContinue) {
    const key = s.history[s.history.length - 1];
    let seen = 0;
    for (const k of s.history) if (k === key) seen++;
    if (seen >= REPETITION_LIMIT) return { kind: 'drawn', reason: 'repetition' };
  }
  if (s.quietMoves >= FIFTY_MOVE_LIMIT) return { kind: 'drawn', reason: 'fifty-moves' };
  return null;
}

export function status(state: DameState): Status {
  return state.result ?? { kind: 'running', toMove: state.toMove, mustContinue: state.mustContinue };
}

/** Ends the game with a protocol loss of `loser` (timeout, invalid move, disconnect, §2.5). */
export function forfeit(state: DameState, loser: Side, reason: ForfeitReason): DameState {
  if (state.result !== null) return state;
  return { ...state, result: { kind: 'won', winner: opponent(loser), reason } };
}

export type Piece = 'w' | 'b' | 'W' | 'B';

/** The piece on a square, in the wire's letters, or null. */
export function pieceAt(state: Pick<DameState, 'white' | 'black' | 'kings'>, s: Square): Piece | null {
  const king = (state.kings >>> s) & 1;
  if ((state.white >>> s) & 1) return king ? 'W' : 'w';
  if ((state.black >>> s) & 1) return king ? 'B' : 'b';
  return null;
}

export interface DameView {
  /** 32 entries, square index order (A1, C1, … H8). */
  readonly squares: readonly (Piece | null)[];
  readonly toMove: Side;
  readonly mustContinue: boolean;
  readonly lastMove: SingleMove | null;
  readonly quietMoves: number;
  readonly plies: number;
  readonly status: Status;
}

/** Dame has no hidden information: every seat (and every spectator) sees the whole board. */
export function view(state: DameState): DameView {
  return {
    squares: Array.from({ length: 32 }, (_, s) => pieceAt(state, s)),
    toMove: state.toMove,
    mustContinue: state.mustContinue,
    lastMove: state.lastMove,
    quietMoves: state.quietMoves,
    plies: state.plies,
    status: status(state),
  };
}

/** Perft as §5.1 defines it: sequences of `depth` single moves from `state`, draw rules ignored. */
export function perft(state: DameState, depth: number): number {
  const pos = new Position();
  pos.set(state.white | 0, state.black | 0, state.kings | 0, sideIndex(state.toMove), 0);
  return perftPosition(pos, depth, new Int32Array(64 * 256));
}

/** A mutable search position loaded from a state. */
export function positionOf(state: DameState): Position {
  const pos = new Position();
  pos.set(state.white | 0, state.black | 0, state.kings | 0, sideIndex(state.toMove), state.quietMoves);
  return pos;
}
