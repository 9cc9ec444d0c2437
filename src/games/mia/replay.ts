import type { MatchDetail } from '../../core/records.js';
import type { RngState } from '../../core/rng.js';
import { parseDice } from './dice.js';
import { apply, startRound, type RoundMove, type RoundState } from './rules.js';

interface RoundResult {
  order?: string[];
  losers?: string[];
  reason?: string;
  round?: number;
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
