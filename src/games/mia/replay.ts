import type { MatchDetail, MatchRecord } from '../../core/records.js';
import type { RngState } from '../../core/rng.js';
import { parseDice } from './dice.js';
import { apply, startRound, type RoundMove, type RoundState } from './rules.js';

interface RoundResult {
  order?: string[];
  losers?: string[];
  reason?: string;
  round?: number;
  /** Points each participant gained in the round (1 for everybody who did not lose). */
  points?: Record<string, number>;
  /** Why a round that never started was canceled (NO_PLAYERS, ONLY_ONE_PLAYER). */
  canceled?: string;
  /** Since the compact records: who joined (only when no order), and the moves as [turn index, type, dice?]. */
  joined?: string[];
  moves?: [number, string, string?][];
}

interface MoveEvent {
  seq: number;
  seat: number | null;
  type: string;
  data: unknown;
}

/** The compact moves of a result as the events older records have (a roll's dice as its own `rolled`). */
function movesAsEvents(moves: readonly [number, string, string?][]): MoveEvent[] {
  const out: MoveEvent[] = [];
  moves.forEach(([seat, type, dice], i) => {
    out.push({ seq: i + 1, seat, type, data: type === 'announce' ? (dice ?? null) : null });
    if (type === 'roll' && dice !== undefined) out.push({ seq: i + 1, seat: null, type: 'rolled', data: dice });
  });
  return out;
}

/**
 * Replays a recorded Mia round through the rules core: the recorded joins, order, moves and dice
 * must lead to the recorded losers and reason. Returns what differs (empty when the record holds).
 */
export function verifyRound(match: MatchDetail): { checked: boolean; problems: string[] } {
  const result = match.result as RoundResult | null;
  if (match.status !== 'finished' || !result?.order || !result.losers) return { checked: false, problems: [] };
  const meta = match.meta as { round?: number; rng?: RngState } | null;
  const problems: string[] = [];
  const joinEvents = match.events.filter((e) => e.type === 'join').map((e) => (e.data as { name: string }).name);
  const joined = result.joined ?? (joinEvents.length > 0 ? joinEvents : result.order);
  let state: RoundState = startRound(result.round ?? meta?.round ?? 0, joined, meta?.rng ?? [0, 0, 0, 0], result.order).state;
  const moves = result.moves ? movesAsEvents(result.moves) : match.events.filter((e) => ['roll', 'rolled', 'announce', 'see', 'timeout'].includes(e.type));
  for (let i = 0; i < moves.length; i++) {
    const e = moves[i]!;
    let move: RoundMove;
    if (e.type === 'roll') {
      const rolled = moves[i + 1];
      const dice = rolled?.type === 'rolled' ? parseDice(rolled.data as string) : null;
      move = dice ? { type: 'roll', dice } : { type: 'roll' };
    } else if (e.type === 'rolled') continue;
    else if (e.type === 'announce') {
      const dice = parseDice(e.data as string);
      if (!dice) {
        problems.push(`move ${e.seq}: unreadable dice ${String(e.data)}`);
        break;
      }
      move = { type: 'announce', dice };
    } else move = { type: e.type as 'see' | 'timeout' };
    if (e.seat !== null && e.seat !== state.current) problems.push(`event ${e.seq}: seat ${e.seat} acted, but seat ${state.current} was to act`);
    const step = apply(state, move);
    if (!step.ok) {
      problems.push(`event ${e.seq}: ${step.error.message}`);
      break;
    }
    state = step.value.state;
  }
  if (!state.result) problems.push('the recorded moves do not end the round');
  else {
    if (state.result.reason !== result.reason) problems.push(`reason: recorded ${String(result.reason)}, replayed ${state.result.reason}`);
    const losers = [...state.result.losers].sort();
    if (losers.join(',') !== [...result.losers].sort().join(',')) problems.push(`losers: recorded ${result.losers.join(',')}, replayed ${losers.join(',')}`);
  }
  return { checked: true, problems };
}

const MOVE_TYPES = ['roll', 'announce', 'see', 'timeout'];

/**
 * A recorded round in one line for `spielhalle matches` and `replay`: who lost and why, and who
 * gained a point (`lost: bob (CAUGHT_BLUFFING); +1: alice, carol`), or why it was canceled.
 */
export function summarizeRound(match: MatchRecord): { result: string; moves: number | null } {
  const result = (match.result ?? {}) as RoundResult;
  const round = typeof result.round === 'number' ? `round ${result.round}: ` : '';
  let moves: number | null = Array.isArray(result.moves) ? result.moves.length : null;
  if (moves === null && 'events' in match) moves = (match as MatchDetail).events.filter((e) => MOVE_TYPES.includes(e.type)).length;
  if (typeof result.canceled === 'string') return { result: `${round}canceled (${result.canceled})`, moves };
  if (!Array.isArray(result.losers)) return { result: `${round}${match.status}${typeof result.reason === 'string' ? ` (${result.reason})` : ''}`, moves };
  const points = result.points ?? Object.fromEntries((result.order ?? []).map((p) => [p, result.losers?.includes(p) ? 0 : 1]));
  const gained = Object.entries(points)
    .filter(([, n]) => n > 0)
    .map(([name, n]) => (n === 1 ? name : `${name} (+${n})`))
    .sort();
  const lost = `lost: ${result.losers.join(', ') || 'nobody'} (${String(result.reason)})`;
  return { result: `${round}${lost}; +1: ${gained.join(', ') || 'nobody'}`, moves };
}
