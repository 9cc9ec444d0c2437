import type { MatchDetail } from '../../core/records.js';
import { parseMoveName, type Team } from './board.js';
import type { ScoreEntry } from './protocol.js';
import { apply, boardParts, isOver, mementoOrder, round, status, toMove, type State } from './rules.js';
import { fromSetup } from './setup.js';
import type { OstseeschachBoardView, OstseeschachReplay } from './snapshot.js';

/**
 * A recorded Ostseeschach game (room.ts writes it) replayed through the rules core: the start
 * position from the recorded layout, then every recorded move, which must be legal for the team
 * that made it. `verifyOstseeschachMatch` compares the end with the recorded result;
 * `replayOstseeschachMatch` gives the dashboard one board per turn, so the browser never applies
 * a rule itself.
 */

interface RecordedMeta {
  layout?: string;
  roomId?: string;
}

interface RecordedResult {
  turn?: number;
  ambers?: Record<Team, number>;
  winner?: Team | null;
  scores?: ScoreEntry[];
  reason?: string;
}

export type { OstseeschachReplay } from './snapshot.js';

const teamOfSeat = (seat: number | null): Team | null => (seat === 0 ? 'ONE' : seat === 1 ? 'TWO' : null);

export function boardView(s: State): OstseeschachBoardView {
  return {
    turn: s.turn,
    round: round(s),
    toMove: toMove(s),
    pieces: mementoOrder(s.pieces),
    ambers: { ...s.ambers },
    lastMove: s.lastMove,
  };
}

interface Walk {
  states: State[];
  moves: string[];
  problems: string[];
}

/** The recorded moves from the recorded layout; stops at the first one the rules refuse. */
function walk(match: MatchDetail, start: State): Walk {
  const states = [start];
  const moves: string[] = [];
  const problems: string[] = [];
  let state = start;
  for (const e of match.events) {
    if (e.type !== 'move') continue;
    const data = e.data as { move?: unknown; turn?: unknown } | null;
    const text = typeof data?.move === 'string' ? data.move : '';
    const move = parseMoveName(text);
    if (!move) {
      problems.push(`event ${e.seq}: unreadable move "${text}"`);
      break;
    }
    if (isOver(state)) {
      problems.push(`event ${e.seq}: ${text} after the end of the game (turn ${state.turn})`);
      break;
    }
    const team = toMove(state);
    if (teamOfSeat(e.seat) !== team) problems.push(`event ${e.seq}: ${text} by seat ${String(e.seat)}, but ${team} is to move`);
    const next = apply(state, move);
    if (!next.ok) {
      problems.push(`event ${e.seq}: ${text} is not legal (${next.error.code})`);
      break;
    }
    state = next.value;
    if (data?.turn !== state.turn) problems.push(`event ${e.seq}: recorded turn ${String(data?.turn)}, the rules say ${state.turn}`);
    states.push(state);
    moves.push(text);
  }
  return { states, moves, problems };
}

/** What differs between the record and the rules (nothing: an empty list). */
function checkResult(match: MatchDetail, final: State, problems: string[]): void {
  const result = match.result as RecordedResult | null;
  if (match.status !== 'finished' || !result?.scores || result.scores.length !== 2) return;
  if (result.turn !== final.turn) problems.push(`the record ends at turn ${String(result.turn)}, the moves at ${final.turn}`);
  if (result.ambers && (result.ambers.ONE !== final.ambers.ONE || result.ambers.TWO !== final.ambers.TWO))
    problems.push(`recorded ambers ${result.ambers.ONE}:${result.ambers.TWO}, the rules give ${final.ambers.ONE}:${final.ambers.TWO}`);
  // Ambers and the furthest light piece always come from the board, however the game ended.
  for (const score of result.scores) {
    const b = boardParts(final, score.team);
    if (score.parts[1] !== b.ambers || score.parts[2] !== b.furthestLight)
      problems.push(`${score.team}'s parts ${score.parts.join(',')} do not match the board (${b.ambers}, ${b.furthestLight})`);
  }
  const early = match.events.some((e) => ['violation', 'softTimeout', 'hardTimeout', 'left'].includes(e.type));
  if (early) return;
  const st = status(final);
  if (st.kind !== 'ended') {
    // Only an administrator's cancel ends a game early without an event: no points for anybody.
    if (result.scores.some((s) => s.parts[0] !== 0)) problems.push('the game is not over by the rules, yet points were given');
    return;
  }
  if ((result.winner ?? null) !== st.winner) problems.push(`the rules give winner ${st.winner ?? 'none'}, the record ${result.winner ?? 'none'}`);
  for (const score of result.scores) {
    const expected = st.parts[score.team][0];
    if (score.parts[0] !== expected) problems.push(`${score.team} got ${String(score.parts[0])} Siegpunkte, the rules give ${expected}`);
  }
}

function startOf(match: MatchDetail): State | null {
  const layout = (match.meta as RecordedMeta | null)?.layout ?? '';
  if (layout === '') return null;
  const start = fromSetup(layout);
  return start.ok ? start.value : null;
}

/** `spielhalle replay`'s check; `checked` is false for games from a position without a layout. */
export function verifyOstseeschachMatch(match: MatchDetail): { checked: boolean; problems: string[] } {
  const start = startOf(match);
  if (!start) return { checked: false, problems: [] };
  const { states, problems } = walk(match, start);
  checkResult(match, states[states.length - 1] ?? start, problems);
  return { checked: true, problems };
}

/** Every board of a recorded game for the dashboard's replay; null when it has no layout. */
export function replayOstseeschachMatch(match: MatchDetail): OstseeschachReplay | null {
  const start = startOf(match);
  if (!start) return null;
  const { states, moves, problems } = walk(match, start);
  checkResult(match, states[states.length - 1] ?? start, problems);
  const result = match.result as RecordedResult | null;
  const ended = [...match.events].reverse().find((e) => ['violation', 'softTimeout', 'hardTimeout', 'left'].includes(e.type));
  const detail = (data: unknown): string => {
    const d = data as { reason?: unknown; cause?: unknown; elapsedMs?: unknown; limitMs?: unknown } | null;
    if (typeof d?.reason === 'string') return d.reason;
    if (typeof d?.cause === 'string') return d.cause;
    if (typeof d?.elapsedMs === 'number') return `a move after ${d.elapsedMs} ms`;
    if (typeof d?.limitMs === 'number') return `no move within ${d.limitMs} ms`;
    return '';
  };
  const name = (seat: number): string => match.seats.find((s) => s.seat === seat)?.name ?? (seat === 0 ? 'ONE' : 'TWO');
  return {
    matchId: match.id,
    roomId: (match.meta as RecordedMeta | null)?.roomId ?? null,
    status: match.status,
    layout: (match.meta as RecordedMeta).layout ?? '',
    names: [name(0), name(1)],
    frames: states.map(boardView),
    moves,
    ending: ended ? { team: teamOfSeat(ended.seat), type: ended.type, detail: detail(ended.data) } : null,
    winner: result?.winner ?? null,
    scores: result?.scores ?? [],
    problems,
  };
}
