import { rngState, type RngState } from '../../core/rng.js';
import { makeDice, type Dice } from './dice.js';
import type { MiaBot, ObservedEvent, RoundContext } from './bots/types.js';
import { apply, startRound, type LossReason, type RoundEvent, type RoundMove, type RoundState } from './rules.js';

/**
 * Mia without sockets: seeded rounds among named bots, driven by the pure rules. Each bot learns
 * exactly what a network client would: the public events in wire order, its own roll when it
 * rolls, and a RoundContext built from ROUND STARTED and ANNOUNCED. A bot that throws or answers
 * with impossible dice is treated like a client that never answered: it runs into the timeout.
 */

export interface ArenaSeat {
  readonly name: string;
  readonly bot: MiaBot;
}

export interface ArenaOptions {
  readonly seats: readonly ArenaSeat[];
  readonly rounds: number;
  readonly seed: string | number;
  /** Keep every round's events in the result (default true; the benchmark turns it off). */
  readonly keepRounds?: boolean;
}

export interface ArenaRound {
  readonly number: number;
  /** Participants in turn order. */
  readonly players: readonly string[];
  /** Every event in wire order, the private `rolled` and `yourTurn` included. */
  readonly events: readonly RoundEvent[];
  readonly losers: readonly string[];
  readonly reason: LossReason;
}

export interface SeatTally {
  readonly name: string;
  readonly strategy: string;
  points: number;
  rounds: number;
  /** Rounds lost, whatever the reason. */
  lost: number;
  losses: Partial<Record<LossReason, number>>;
}

export interface ArenaResult {
  readonly rounds: number;
  readonly seats: readonly SeatTally[];
  /** Empty when `keepRounds` is false. */
  readonly results: readonly ArenaRound[];
}

/** Points implied by recorded rounds: +1 to every participant who is not among the losers. */
export function pointsFromRounds(rounds: readonly ArenaRound[]): Map<string, number> {
  const points = new Map<string, number>();
  for (const r of rounds) for (const p of r.players) points.set(p, (points.get(p) ?? 0) + (r.losers.includes(p) ? 0 : 1));
  return points;
}

function validDice(d: unknown): Dice | null {
  if (typeof d !== 'object' || d === null) return null;
  const { high, low } = d as { high?: unknown; low?: unknown };
  const ok = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= 6;
  return ok(high) && ok(low) ? makeDice(high, low) : null;
}

function observedFrom(e: RoundEvent): ObservedEvent | null {
  switch (e.type) {
    case 'announced':
      return { type: 'announced', name: e.name, dice: e.dice };
    case 'wantsToSee':
      return { type: 'wantsToSee', name: e.name };
    case 'actualDice':
      return { type: 'actualDice', dice: e.dice };
    case 'lost':
      return { type: 'lost', names: e.names, reason: e.reason };
    default:
      return null;
  }
}

export function runArena(options: ArenaOptions): ArenaResult {
  const { seats, rounds } = options;
  const names = seats.map((s) => s.name);
  if (seats.length < 2) throw new RangeError('an arena needs at least two bots');
  if (new Set(names).size !== names.length) throw new RangeError('bot names must be unique');
  const bots = new Map(seats.map((s) => [s.name, s.bot]));
  const tallies = new Map<string, SeatTally>(
    seats.map((s) => [s.name, { name: s.name, strategy: s.bot.strategy, points: 0, rounds: 0, lost: 0, losses: {} }]),
  );
  const keep = options.keepRounds ?? true;
  const results: ArenaRound[] = [];

  const tell = (event: ObservedEvent): void => {
    for (const s of seats) {
      try {
        s.bot.observe?.(event);
      } catch {
        // a bot's bookkeeping failing must not change the game for the others
      }
    }
  };

  let rng: RngState = rngState(options.seed);
  for (let number = 1; number <= rounds; number++) {
    const start = startRound(number, names, rng);
    let state: RoundState = start.state;
    const players = state.players;
    const announcements: { name: string; dice: Dice }[] = [];
    const context = (me: string): RoundContext => ({ me, round: number, players, announcements: announcements.slice() });
    const events: RoundEvent[] = [...start.events];
    tell({ type: 'roundStarted', round: number, players });

    for (let i = 0; i < events.length; i++) {
      const e = events[i] as RoundEvent;
      let move: RoundMove | null = null;
      if (e.type === 'yourTurn') {
        const bot = bots.get(e.name);
        let action: unknown = null;
        try {
          action = bot?.onTurn(context(e.name));
        } catch {
          action = null;
        }
        move = action === 'roll' ? { type: 'roll' } : action === 'see' ? { type: 'see' } : { type: 'timeout' };
      } else if (e.type === 'rolled') {
        const bot = bots.get(e.name);
        let claim: Dice | null = null;
        try {
          claim = validDice(bot?.onRolled(context(e.name), e.dice));
        } catch {
          claim = null;
        }
        move = claim ? { type: 'announce', dice: claim } : { type: 'timeout' };
      } else {
        if (e.type === 'announced') announcements.push({ name: e.name, dice: e.dice });
        const observed = observedFrom(e);
        if (observed) tell(observed);
      }
      if (move) {
        const step = apply(state, move);
        if (!step.ok) throw new Error(`arena: rules refused ${move.type} in round ${number}: ${step.error.message}`);
        state = step.value.state;
        events.push(...step.value.events);
      }
    }

    const result = state.result;
    if (result === null) throw new Error(`arena: round ${number} did not finish`);
    for (const p of players) {
      const t = tallies.get(p);
      if (!t) continue;
      t.rounds++;
      if (result.losers.includes(p)) {
        t.lost++;
        t.losses[result.reason] = (t.losses[result.reason] ?? 0) + 1;
      } else t.points++;
    }
    if (keep) results.push({ number, players, events, losers: result.losers, reason: result.reason });
    rng = state.rng;
  }

  if (keep) {
    // the tally and the record must tell the same story
    const recomputed = pointsFromRounds(results);
    for (const t of tallies.values()) {
      if ((recomputed.get(t.name) ?? 0) !== t.points) throw new Error(`arena: points of ${t.name} disagree with the recorded rounds`);
    }
  }
  return { rounds, seats: [...tallies.values()], results };
}
