import type { Team } from './board.js';
import { leftReason, timeoutReason, type DisconnectCause } from './messages.js';
import type { GameResult, ScoreCause, ScoreEntry } from './protocol.js';
import { boardParts, isOver, regularWinner, type State } from './rules.js';

/**
 * The result of a game, by the official `Game.getScoreFor` and `AbstractGame.winner` (spec §2
 * "Score parts", §3.5–§3.7), with the crash of spec §4 #1 fixed: a team without a light piece
 * gets 0 for "Leichtfiguren Vorne" instead of no result at all.
 */

/** How one seat ended the game. */
export interface SeatOutcome {
  readonly team: Team;
  readonly name: string;
  readonly left: DisconnectCause | null;
  /** The RULE_VIOLATION reason. */
  readonly violation: string | null;
  readonly softTimeout: boolean;
  readonly hardTimeout: boolean;
}

export interface TimeLimits {
  readonly softTimeoutMs: number;
  readonly hardTimeoutMs: number;
}

/** Both seats, ONE then TWO. */
export function scoreGame(
  state: State,
  seats: readonly [SeatOutcome, SeatOutcome],
  limits: TimeLimits,
): GameResult {
  const over = isOver(state);
  const regular = over ? regularWinner(state).winner : null;
  const scores = seats.map((seat, i): ScoreEntry => {
    const opponent = seats[1 - i] as SeatOutcome;
    let points = over ? (regular === null ? 1 : regular === seat.team ? 2 : 0) : 0;
    let cause: ScoreCause = 'REGULAR';
    let reason = '';
    // An opponent's fault wins, and then the seat's own state is not looked at (both can get 2).
    if (
      (opponent.violation !== null && seat.violation === null) ||
      (opponent.left !== null && seat.left === null) ||
      opponent.softTimeout ||
      opponent.hardTimeout
    ) {
      points = 2;
    } else if (seat.softTimeout) {
      cause = 'SOFT_TIMEOUT';
      reason = timeoutReason(limits.softTimeoutMs);
    } else if (seat.hardTimeout) {
      // Reported as SOFT_TIMEOUT, as the official server does (spec §4 #2).
      cause = 'SOFT_TIMEOUT';
      reason = timeoutReason(limits.hardTimeoutMs);
    } else if (seat.violation !== null) {
      cause = 'RULE_VIOLATION';
      reason = seat.violation;
    } else if (seat.left !== null) {
      cause = 'LEFT';
      reason = leftReason(seat.left);
    }
    const parts = boardParts(state, seat.team);
    return {
      team: seat.team,
      name: seat.name,
      cause,
      reason,
      parts: [points, parts.ambers, parts.furthestLight],
    };
  });
  // The one seat that neither violated nor left wins; else the board decides (no winner on a
  // timeout, spec §4 #2).
  const fine = seats.filter((s) => s.violation === null && s.left === null);
  const winner = fine.length === 1 ? (fine[0] as SeatOutcome).team : regular;
  return { scores, winner };
}
