import type { Rng } from '../../../core/rng.js';
import { moveName, type Move, type Team } from '../board.js';
import { apply, status, toMove, type State, type Status } from '../rules.js';
import type { Bot } from './types.js';

export interface GameRecord {
  readonly start: State;
  readonly final: State;
  readonly moves: readonly Move[];
  readonly status: Status;
  /** Wall time of each move (ms), in move order. */
  readonly moveMs: readonly number[];
  /** Set when a bot sent an invalid move; the game ends there and that team loses. */
  readonly invalid: { readonly team: Team; readonly move: string; readonly code: string } | null;
}

/**
 * Plays one game in-process between two bots, as a server would run it but without sockets:
 * an invalid move ends the game (RULE_VIOLATION in the official protocol).
 */
export function playGame(
  start: State,
  bots: Readonly<Record<Team, Bot>>,
  budgetMs: number,
  rng: Rng,
  now: () => number = () => performance.now(),
): GameRecord {
  let state = start;
  const moves: Move[] = [];
  const moveMs: number[] = [];
  while (status(state).kind === 'running') {
    const team = toMove(state);
    const t0 = now();
    const move = bots[team](state, budgetMs, rng);
    moveMs.push(now() - t0);
    const r = apply(state, move);
    if (!r.ok) {
      return { start, final: state, moves, status: status(state), moveMs, invalid: { team, move: moveName(move), code: r.error.code } };
    }
    moves.push(move);
    state = r.value;
  }
  return { start, final: state, moves, status: status(state), moveMs, invalid: null };
}

/** The winner of a played game: by rule violation, else the regular result; null on a draw. */
export function gameWinner(g: GameRecord): Team | null {
  if (g.invalid) return g.invalid.team === 'ONE' ? 'TWO' : 'ONE';
  return g.status.kind === 'ended' ? g.status.winner : null;
}
