import type { Rng } from '../../core/rng.js';
import { err, ok, type Result } from '../../core/result.js';
import {
  BOARD_SIZE,
  PIECE_LETTER,
  PIECE_TYPES,
  TEAMS,
  TURN_LIMIT,
  onBoard,
  type Move,
  type PieceEntry,
  type PieceType,
  type Team,
} from './board.js';
import type { State } from './rules.js';

/**
 * Start positions. The official server shuffles `[Herzmuschel, Moewe, Seestern, Robbe]×2`
 * uniformly, gives piece i to ONE at (0, i) and the same type to TWO at (7, 7−i): point-symmetric,
 * 2520 equally likely layouts, every piece with count 1 (spec §2 "Setup").
 */

/** ONE's piece types at (0,0)…(0,7); TWO's follow by point symmetry. */
export type Layout = readonly PieceType[];

export interface SetupError {
  readonly code: 'BAD_LAYOUT' | 'BAD_POSITION';
  readonly message: string;
}

const LETTER_TYPE = new Map<string, PieceType>(PIECE_TYPES.map((t) => [PIECE_LETTER[t], t]));

/** `"HMSRHMSR"` ↔ a layout. */
export function parseLayout(text: string): Layout | null {
  if (text.length !== BOARD_SIZE) return null;
  const out: PieceType[] = [];
  for (const ch of text.toUpperCase()) {
    const t = LETTER_TYPE.get(ch);
    if (!t) return null;
    out.push(t);
  }
  return out;
}

export const layoutName = (layout: Layout): string => layout.map((t) => PIECE_LETTER[t]).join('');

/** The layout a start position was built from (ONE's start line, y = 0…7). */
export function layoutOf(s: State): Layout | null {
  const out: PieceType[] = [];
  for (let y = 0; y < BOARD_SIZE; y++) {
    const e = s.pieces.find((p) => p.coordinates.x === 0 && p.coordinates.y === y && p.piece.team === 'ONE');
    if (!e) return null;
    out.push(e.piece.type);
  }
  return out;
}

/** A uniform random layout: Fisher–Yates over the eight start pieces with the seeded RNG. */
export function randomLayout(rng: Rng): Layout {
  return rng.shuffle([...PIECE_TYPES, ...PIECE_TYPES]);
}

/** The random start position of a new game; consumes from `rng`. */
export function createStart(rng: Rng): State {
  return startFromLayout(randomLayout(rng));
}

function startFromLayout(layout: Layout): State {
  const pieces: PieceEntry[] = [];
  // Insertion order as the official Board fills its HashMap: ONE's piece i, then TWO's.
  layout.forEach((type, i) => {
    pieces.push({ coordinates: { x: 0, y: i }, piece: { type, team: 'ONE', count: 1 } });
    pieces.push({ coordinates: { x: BOARD_SIZE - 1, y: BOARD_SIZE - 1 - i }, piece: { type, team: 'TWO', count: 1 } });
  });
  return { turn: 0, pieces, ambers: { ONE: 0, TWO: 0 }, lastMove: null };
}

/**
 * The start position of a fixed layout (the test hook the spec asks for, so that recorded games
 * replay on the same board). Accepts `"RMRSHSMH"` or eight piece types; any eight types are
 * allowed, although the official draw always has two of each.
 */
export function fromSetup(layout: string | Layout): Result<State, SetupError> {
  const parsed = typeof layout === 'string' ? parseLayout(layout) : layout;
  if (parsed?.length !== BOARD_SIZE || !parsed.every((t) => PIECE_TYPES.includes(t))) {
    return err({ code: 'BAD_LAYOUT', message: 'a layout is eight piece types (letters H, M, S, R)' });
  }
  return ok(startFromLayout(parsed));
}

export interface PositionInput {
  readonly turn?: number;
  /** In the official insertion order if it matters to the caller (memento byte order). */
  readonly pieces: readonly PieceEntry[];
  readonly ambers?: Readonly<Record<Team, number>>;
  readonly lastMove?: Move | null;
}

/** Any reachable-looking position (mid-game test vectors, a board read from a memento). */
export function fromPosition(input: PositionInput): Result<State, SetupError> {
  const bad = (message: string): Result<State, SetupError> => err({ code: 'BAD_POSITION', message });
  const turn = input.turn ?? 0;
  if (!Number.isInteger(turn) || turn < 0 || turn > TURN_LIMIT) return bad(`turn must be an integer in 0…${TURN_LIMIT}`);
  const ambers = input.ambers ?? { ONE: 0, TWO: 0 };
  for (const team of ['ONE', 'TWO'] as const) {
    const a = ambers[team];
    if (!Number.isInteger(a) || a < 0) return bad('ambers must be non-negative integers');
  }
  const seen = new Set<number>();
  const pieces: PieceEntry[] = [];
  for (const e of input.pieces) {
    const { coordinates: c, piece: p } = e;
    if (!onBoard(c)) return bad(`square ${c.x},${c.y} is off the board`);
    const key = c.x * BOARD_SIZE + c.y;
    if (seen.has(key)) return bad(`square ${c.x},${c.y} is listed twice`);
    seen.add(key);
    // Inputs may come from parsed data, so the union types are checked at run time too.
    if (!(PIECE_TYPES as readonly string[]).includes(p.type)) return bad(`unknown piece type ${p.type}`);
    if (!(TEAMS as readonly string[]).includes(p.team)) return bad(`unknown team ${p.team}`);
    if (p.count !== 1 && p.count !== 2) return bad('a stack on the board has count 1 or 2');
    pieces.push({ coordinates: { x: c.x, y: c.y }, piece: { type: p.type, team: p.team, count: p.count } });
  }
  const lastMove = input.lastMove ? { from: { ...input.lastMove.from }, to: { ...input.lastMove.to } } : null;
  return ok({ turn, pieces, ambers: { ONE: ambers.ONE, TWO: ambers.TWO }, lastMove });
}
