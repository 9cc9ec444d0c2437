import { nextInt, type RngState } from '../../core/rng.js';
import { err, ok, type Result } from '../../core/result.js';
import { isHigher, isMia, makeDice, type Dice } from './dice.js';

/**
 * One Mia round as pure data. The server owns registration, tokens and timers; this owns who
 * is to act, the dice, and who loses. Every transition returns the public events it causes, in the
 * order the protocol sends them.
 */

export type LossReason =
  | 'SEE_BEFORE_FIRST_ROLL'
  | 'LIED_ABOUT_MIA'
  | 'ANNOUNCED_LOSING_DICE'
  | 'DID_NOT_ANNOUNCE'
  | 'DID_NOT_TAKE_TURN'
  | 'INVALID_TURN'
  | 'SEE_FAILED'
  | 'CAUGHT_BLUFFING'
  | 'MIA';

export type Phase = 'turn' | 'announce' | 'over';

export interface RoundState {
  readonly number: number;
  /** Participants in turn order. */
  readonly players: readonly string[];
  /** Index of the player to act. */
  readonly current: number;
  readonly phase: Phase;
  /** The dice of the latest roll; secret from everyone but the roller until revealed. */
  readonly actual: Dice | null;
  /** The latest announcement and its announcer's index. */
  readonly announced: Dice | null;
  readonly announcer: number | null;
  readonly rng: RngState;
  readonly result: RoundResult | null;
}

export interface RoundResult {
  readonly losers: readonly string[];
  readonly reason: LossReason;
}

export type RoundMove =
  /** `dice` fixes the roll (replays of recorded rounds, scripted tests); otherwise the RNG rolls. */
  | { readonly type: 'roll'; readonly dice?: Dice }
  | { readonly type: 'see' }
  | { readonly type: 'announce'; readonly dice: Dice }
  | { readonly type: 'timeout' };

/** Events in wire order. `rolled` goes to the roller alone; all others to everyone. */
export type RoundEvent =
  | { readonly type: 'yourTurn'; readonly name: string }
  | { readonly type: 'playerRolls'; readonly name: string }
  | { readonly type: 'rolled'; readonly name: string; readonly dice: Dice }
  | { readonly type: 'announced'; readonly name: string; readonly dice: Dice }
  | { readonly type: 'wantsToSee'; readonly name: string }
  | { readonly type: 'actualDice'; readonly dice: Dice }
  | { readonly type: 'lost'; readonly names: readonly string[]; readonly reason: LossReason };

export interface RuleError {
  readonly code: 'round-over' | 'wrong-phase';
  readonly message: string;
}

export interface Step {
  readonly state: RoundState;
  readonly events: readonly RoundEvent[];
}

/**
 * Shuffles the joined players into turn order (or takes `fixedOrder`, a permutation of them, when a
 * recorded round is replayed). Needs at least two players; the server cancels otherwise.
 */
export function startRound(number: number, joined: readonly string[], rng: RngState, fixedOrder?: readonly string[]): Step {
  if (joined.length < 2) throw new RangeError('a round needs at least two players');
  if (fixedOrder && (fixedOrder.length !== joined.length || !joined.every((p) => fixedOrder.includes(p)))) {
    throw new RangeError('the fixed order must be a permutation of the joined players');
  }
  const order = fixedOrder ? fixedOrder.slice() : joined.slice();
  let r = rng;
  for (let i = fixedOrder ? 0 : order.length - 1; i > 0; i--) {
    let j: number;
    [j, r] = nextInt(r, 0, i);
    const tmp = order[i] as string;
    order[i] = order[j] as string;
    order[j] = tmp;
  }
  const state: RoundState = {
    number,
    players: order,
    current: 0,
    phase: 'turn',
    actual: null,
    announced: null,
    announcer: null,
    rng: r,
    result: null,
  };
  return { state, events: [{ type: 'yourTurn', name: order[0] as string }] };
}

export const currentPlayer = (s: RoundState): string => s.players[s.current] as string;

export function legalMoves(s: RoundState): RoundMove['type'][] {
  if (s.phase === 'turn') return ['roll', 'see', 'timeout'];
  if (s.phase === 'announce') return ['announce', 'timeout'];
  return [];
}

function end(s: RoundState, losers: readonly string[], reason: LossReason, events: RoundEvent[]): Step {
  events.push({ type: 'lost', names: losers, reason });
  return { state: { ...s, phase: 'over', result: { losers, reason } }, events };
}

export function apply(s: RoundState, move: RoundMove): Result<Step, RuleError> {
  if (s.phase === 'over') return err({ code: 'round-over', message: 'the round is over' });
  const name = currentPlayer(s);
  const events: RoundEvent[] = [];

  if (move.type === 'timeout') {
    return ok(end(s, [name], s.phase === 'turn' ? 'DID_NOT_TAKE_TURN' : 'DID_NOT_ANNOUNCE', events));
  }

  if (s.phase === 'turn') {
    if (move.type === 'roll') {
      let r = s.rng;
      let dice = move.dice;
      if (dice === undefined) {
        let a: number, b: number;
        [a, r] = nextInt(r, 1, 6);
        [b, r] = nextInt(r, 1, 6);
        dice = makeDice(a, b);
      }
      events.push({ type: 'playerRolls', name }, { type: 'rolled', name, dice });
      return ok({ state: { ...s, phase: 'announce', actual: dice, rng: r }, events });
    }
    if (move.type === 'see') {
      events.push({ type: 'wantsToSee', name });
      if (s.actual === null || s.announced === null || s.announcer === null) {
        return ok(end(s, [name], 'SEE_BEFORE_FIRST_ROLL', events));
      }
      events.push({ type: 'actualDice', dice: s.actual });
      if (isHigher(s.announced, s.actual)) {
        return ok(end(s, [s.players[s.announcer] as string], 'CAUGHT_BLUFFING', events));
      }
      return ok(end(s, [name], 'SEE_FAILED', events));
    }
    return err({ code: 'wrong-phase', message: `${move.type} is not an answer to YOUR TURN` });
  }

  // phase 'announce'
  if (move.type !== 'announce') return err({ code: 'wrong-phase', message: `${move.type} while an announcement is due` });
  const dice = move.dice;
  events.push({ type: 'announced', name, dice });
  if (s.announced !== null && !isHigher(dice, s.announced)) {
    return ok(end(s, [name], 'ANNOUNCED_LOSING_DICE', events));
  }
  if (isMia(dice)) {
    const actual = s.actual as Dice;
    events.push({ type: 'actualDice', dice: actual });
    if (isMia(actual)) {
      return ok(end(s, s.players.filter((p) => p !== name), 'MIA', events));
    }
    return ok(end(s, [name], 'LIED_ABOUT_MIA', events));
  }
  const next = (s.current + 1) % s.players.length;
  events.push({ type: 'yourTurn', name: s.players[next] as string });
  return ok({ state: { ...s, phase: 'turn', announced: dice, announcer: s.current, current: next }, events });
}

/** Points each participant gains from a finished round: +1 for everyone not among the losers. */
export function roundPoints(s: RoundState): Map<string, number> {
  const out = new Map<string, number>();
  if (s.result === null) return out;
  for (const p of s.players) if (!s.result.losers.includes(p)) out.set(p, 1);
  return out;
}

export type RoundStatus =
  | { readonly kind: 'running'; readonly toAct: string; readonly phase: Exclude<Phase, 'over'> }
  | { readonly kind: 'over'; readonly losers: readonly string[]; readonly reason: LossReason };

export function status(s: RoundState): RoundStatus {
  if (s.result !== null) return { kind: 'over', losers: s.result.losers, reason: s.result.reason };
  return { kind: 'running', toAct: currentPlayer(s), phase: s.phase === 'announce' ? 'announce' : 'turn' };
}

/** What one seat may know: everything public, plus its own roll while it has to announce. */
export interface RoundView {
  readonly number: number;
  readonly players: readonly string[];
  readonly toAct: string | null;
  readonly phase: Phase;
  readonly announced: Dice | null;
  readonly announcer: string | null;
  /** Set only for the roller while announcing, and for everyone once revealed at the end. */
  readonly actual: Dice | null;
  readonly result: RoundResult | null;
}

export function view(s: RoundState, seat: string | null): RoundView {
  const revealed =
    s.result !== null && s.actual !== null && ['SEE_FAILED', 'CAUGHT_BLUFFING', 'MIA', 'LIED_ABOUT_MIA'].includes(s.result.reason);
  const ownRoll = s.phase === 'announce' && seat !== null && currentPlayer(s) === seat;
  return {
    number: s.number,
    players: s.players,
    toAct: s.phase === 'over' ? null : currentPlayer(s),
    phase: s.phase,
    announced: s.announced,
    announcer: s.announcer === null ? null : (s.players[s.announcer] ?? null),
    actual: revealed || ownRoll ? s.actual : null,
    result: s.result,
  };
}
