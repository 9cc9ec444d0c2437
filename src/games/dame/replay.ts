import type { MatchDetail } from '../../core/records.js';
import { boardLines, parseBoardLines, parseSquare, squareName } from './notation.js';
import { applyPacked, createState, findMove, unpackMove, type DameState, type Side } from './rules.js';
import type { DameReplay, DameReplayFrame } from './web-views.js';

/**
 * Replays a recorded Dame game through the rules core: from the recorded start position, every
 * recorded single move must be legal for the seat that made it, and the game must end on the
 * recorded board with the recorded result. Returns what differs (empty when the record holds).
 */

const NATURAL = new Set(['no-pieces', 'no-moves', 'repetition', 'fifty-moves']);

export function verifyDameMatch(match: MatchDetail): { checked: boolean; problems: string[] } {
  const meta = match.meta as { board?: string[]; toMove?: Side } | null;
  const result = match.result as { winner?: 0 | 1 | null; reason?: string; board?: string[] } | null;
  if (match.status !== 'finished' || !meta?.board || !result?.board || result.reason === undefined) return { checked: false, problems: [] };
  const start = parseBoardLines(meta.board);
  if (!start.ok) return { checked: true, problems: [`unreadable start board: ${start.error}`] };
  let state: DameState = createState(start.value, meta.toMove ?? 'white');
  const problems: string[] = [];
  for (const e of match.events) {
    if (e.type !== 'move') continue;
    const text = (e.data as { move?: string } | null)?.move ?? '';
    const [from, to] = text.split(':').map(parseSquare);
    const seat = state.toMove === 'white' ? 0 : 1;
    if (e.seat !== seat) problems.push(`event ${e.seq}: ${text} by seat ${String(e.seat)}, but seat ${seat} is to move`);
    const found = from === null || from === undefined || to === null || to === undefined ? null : findMove(state, from, to);
    if (!found?.ok) {
      problems.push(`event ${e.seq}: ${text} is not legal${found ? `: ${found.error.message}` : ''}`);
      return { checked: true, problems };
    }
    state = applyPacked(state, found.value);
  }
  if (boardLines(state).join('/') !== result.board.join('/')) problems.push('the final board differs from the recorded one');
  const r = state.result;
  if (NATURAL.has(result.reason)) {
    if (r?.reason !== result.reason) problems.push(`the rules end with ${r?.reason ?? 'a running game'}, the record says ${result.reason}`);
    const winner = r?.kind === 'won' ? (r.winner === 'white' ? 0 : 1) : null;
    if (r && winner !== (result.winner ?? null)) problems.push(`the rules give winner ${String(winner)}, the record ${String(result.winner)}`);
  } else if (r !== null) problems.push(`the game was over by the rules (${r.reason}) before the recorded ${result.reason}`);
  return { checked: true, problems };
}

/**
 * A record as the dashboard's board replay shows it: the start position and the board after every
 * recorded single move, as far as the moves are legal (a move that is not stops the frames; the
 * check says why). Null when the record has no start board (it cannot be replayed).
 */
export function replayDameMatch(match: MatchDetail): DameReplay | null {
  const meta = match.meta as { board?: string[]; toMove?: Side; gameId?: string; gameName?: string; tournamentMatch?: string } | null;
  if (!meta?.board) return null;
  const start = parseBoardLines(meta.board);
  if (!start.ok) return null;
  let state: DameState = createState(start.value, meta.toMove ?? 'white');
  const frame = (move: string | null, side: Side | null, captured: string | null): DameReplayFrame => ({
    board: boardLines(state),
    move,
    side,
    captured,
    toMove: state.result === null ? state.toMove : null,
    mustContinue: state.mustContinue,
  });
  const frames: DameReplayFrame[] = [frame(null, null, null)];
  for (const e of match.events) {
    if (e.type !== 'move') continue;
    const text = (e.data as { move?: string } | null)?.move ?? '';
    const [from, to] = text.split(':').map(parseSquare);
    if (from === null || from === undefined || to === null || to === undefined) break;
    const found = findMove(state, from, to);
    if (!found.ok) break;
    const move = unpackMove(found.value);
    const side = state.toMove;
    state = applyPacked(state, found.value);
    frames.push(frame(text, side, move.captured === null ? null : squareName(move.captured)));
  }
  const result = match.result as { winner?: 0 | 1 | null; reason?: string } | null;
  const name = (seat: number, fallback: string): string => match.seats.find((s) => s.seat === seat)?.name ?? fallback;
  const check = verifyDameMatch(match);
  return {
    matchId: match.id,
    status: match.status,
    names: [name(0, 'White'), name(1, 'Black')],
    gameId: meta.gameId ?? null,
    gameName: meta.gameName ?? null,
    tournamentMatch: meta.tournamentMatch ?? null,
    frames,
    result: result?.reason === undefined ? null : { winner: result.winner ?? null, reason: result.reason },
    checked: check.checked,
    problems: check.problems,
  };
}
