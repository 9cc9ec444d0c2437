import { err, ok, type Result } from '../../core/result.js';
import { squareAt, squareFile, squareRank } from './board.js';
import {
  applyPacked,
  findMove,
  pieceAt,
  unpackMove,
  type DameState,
  type SingleMove,
  type Square,
} from './rules.js';

/**
 * Squares as the wire spells them (`A1`–`H8`), the PLAY command (§2.4) and the BOARD rows (§2.3).
 * Parsing never throws.
 */

const FILES = 'ABCDEFGH';

/** `A1` … `H8` for a dark square index. */
export function squareName(s: Square): string {
  return `${FILES[squareFile(s)] ?? '?'}${squareRank(s) + 1}`;
}

/** A dark square from its name (any case), or null for a light square or no square at all. */
export function parseSquare(name: string): Square | null {
  const coord = parseCoord(name);
  if (coord === null) return null;
  const s = squareAt(coord.file, coord.rank);
  return s < 0 ? null : s;
}

function parseCoord(name: string): { file: number; rank: number } | null {
  if (name.length !== 2) return null;
  const file = FILES.indexOf(name[0]!.toUpperCase());
  const rank = name.charCodeAt(1) - 49; // '1'
  if (file < 0 || rank < 0 || rank > 7) return null;
  return { file, rank };
}

/** `C3:D4`: one single move as the PLAY command spells it. */
export function formatMove(move: Pick<SingleMove, 'from' | 'to'>): string {
  return `${squareName(move.from)}:${squareName(move.to)}`;
}

/** One expanded part of a PLAY command, square names upper-cased (light squares still possible). */
export interface PlayStep {
  readonly from: string;
  readonly to: string;
}

const SQUARE = '[A-Ha-h][1-8]';
const PART = new RegExp(`^${SQUARE}(?::${SQUARE})+$`);

/**
 * The part after `PLAY `: `<part>(;<part>)*`, each part `SQ:SQ(:SQ)*`. Colon chains expand, so
 * `E3:C5:B6` gives the same steps as `E3:C5;C5:B6`.
 */
export function parsePlay(text: string): Result<PlayStep[], 'Syntax error'> {
  const command = text.trim();
  if (command === '') return err('Syntax error');
  const steps: PlayStep[] = [];
  for (const part of command.split(';')) {
    if (!PART.test(part)) return err('Syntax error');
    const squares = part.split(':').map((sq) => sq.toUpperCase());
    for (let i = 1; i < squares.length; i++) steps.push({ from: squares[i - 1]!, to: squares[i]! });
  }
  return ok(steps);
}

export type InvalidMoveReason =
  | 'Syntax error'
  | 'Invalid position'
  | 'No own piece'
  | 'Destination is already occupied'
  | 'Move not allowed';

export interface PlayOutcome {
  /** The single moves the server carried out, in order. */
  readonly applied: SingleMove[];
  readonly state: DameState;
  /** The command ran out after a capture while the same side still has to move (§2.4: ask again). */
  readonly followUpOwed: boolean;
}

const REASONS = {
  'game-over': 'Move not allowed',
  'invalid-position': 'Invalid position',
  'no-own-piece': 'No own piece',
  occupied: 'Destination is already occupied',
  'not-allowed': 'Move not allowed',
} as const satisfies Record<string, InvalidMoveReason>;

/**
 * The server's reading of a PLAY command (§2.4): the single moves run in order; the rest is
 * ignored after a non-capture, after a capture that passes the turn, or once the game is over.
 * Validation is atomic: on any error nothing is applied (the input state is never changed anyway).
 */
export function interpretPlay(
  state: DameState,
  text: string,
): Result<PlayOutcome, { reason: InvalidMoveReason }> {
  const parsed = parsePlay(text);
  if (!parsed.ok) return err({ reason: parsed.error });
  let current = state;
  const applied: SingleMove[] = [];
  for (const step of parsed.value) {
    const from = parseSquare(step.from);
    const to = parseSquare(step.to);
    if (from === null || to === null) return err({ reason: 'Invalid position' });
    const found = findMove(current, from, to);
    if (!found.ok) return err({ reason: REASONS[found.error.code] });
    const move = unpackMove(found.value);
    const next = applyPacked(current, found.value);
    applied.push(move);
    current = next;
    if (move.captured === null || current.result !== null || !current.mustContinue) break;
  }
  return ok({ applied, state: current, followUpOwed: current.result === null && current.mustContinue });
}

const CELL_OF = { w: 'w', b: 'b', W: 'W', B: 'B' } as const;

/** The 8 BOARD rows as the server prints them, rank 8 first, without the `+ ` prefix. */
export function boardLines(state: Pick<DameState, 'white' | 'black' | 'kings'>): string[] {
  const lines: string[] = [];
  for (let rank = 7; rank >= 0; rank--) {
    const cells: string[] = [];
    for (let file = 0; file < 8; file++) {
      const s = squareAt(file, rank);
      const piece = s < 0 ? null : pieceAt(state, s);
      cells.push(piece === null ? '*' : CELL_OF[piece]);
    }
    lines.push(`${rank + 1} ${cells.join(' ')}`);
  }
  return lines;
}

export interface Board {
  readonly white: number;
  readonly black: number;
  readonly kings: number;
}

/**
 * Reads the 8 rows of a BOARD block (rank 8 first; an optional `+ ` prefix is accepted), as a
 * client needs to rebuild its position. Pieces on light squares are an error.
 */
export function parseBoardLines(lines: readonly string[]): Result<Board, string> {
  if (lines.length !== 8) return err(`expected 8 board rows, got ${lines.length}`);
  let white = 0;
  let black = 0;
  let kings = 0;
  for (let i = 0; i < 8; i++) {
    const rank = 7 - i;
    const line = lines[i]!.startsWith('+ ') ? lines[i]!.slice(2) : lines[i]!;
    const tokens = line.split(' ');
    if (tokens.length !== 9 || tokens[0] !== String(rank + 1)) return err(`bad board row: ${line}`);
    for (let file = 0; file < 8; file++) {
      const cell = tokens[file + 1]!;
      if (cell === '*') continue;
      const s = squareAt(file, rank);
      if (!['w', 'b', 'W', 'B'].includes(cell)) return err(`bad cell ${cell} in row ${rank + 1}`);
      if (s < 0) return err(`a piece on the light square ${FILES[file] ?? '?'}${rank + 1}`);
      const bit = 1 << s;
      if (cell === 'w' || cell === 'W') white |= bit;
      else black |= bit;
      if (cell === 'W' || cell === 'B') kings |= bit;
    }
  }
  return ok({ white: white >>> 0, black: black >>> 0, kings: kings >>> 0 });
}

/**
 * A board from a piece list as the spec's tables write it: `W D4, w F2; b B6 C3 F6` (a letter
 * w/W/b/B, then its squares; groups split by `;` or `,`). For tests, tools and the docs.
 */
export function parsePieces(text: string): Result<Board, string> {
  let white = 0;
  let black = 0;
  let kings = 0;
  for (const group of text.split(/[;,]/)) {
    const tokens = group
      .trim()
      .split(/\s+/)
      .filter((t) => t !== '');
    if (tokens.length === 0) continue;
    const kind = tokens[0]!;
    if (!['w', 'b', 'W', 'B'].includes(kind)) return err(`bad piece letter ${kind}`);
    for (const name of tokens.slice(1)) {
      const s = parseSquare(name);
      if (s === null) return err(`bad square ${name}`);
      const bit = 1 << s;
      if ((white | black) & bit) return err(`two pieces on ${name}`);
      if (kind === 'w' || kind === 'W') white |= bit;
      else black |= bit;
      if (kind === 'W' || kind === 'B') kings |= bit;
    }
  }
  return ok({ white: white >>> 0, black: black >>> 0, kings: kings >>> 0 });
}
