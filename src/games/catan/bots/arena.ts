import { Rng } from '../../../core/rng.js';
import { legalFromView } from '../client-legal.js';
import { ClientGame } from '../client-view.js';
import type { CatanBot } from './bot.js';
import { censorEvent, type GameEvent } from '../events.js';
import { lobbyPlayer, messagesFor, wireMap, type MessageContext } from '../messages.js';
import { apply } from '../rules/apply.js';
import { COLOURS, newGame, totalPoints, type Action, type LegalActions, type State, type Status } from '../rules/index.js';
import { randomDiscard } from './random.js';

/**
 * Games between bots in one process, without sockets but with the wire's knowledge: every player
 * has a `ClientGame` (the TCP client's view machinery) fed with exactly the server messages the
 * server would send it (`messagesFor(censorEvent(event, id))`, after a Willkommen and the lobby
 * Statusupdates), and each decision gets that view and `legalFromView` of it, as `BotDriver` does.
 * Refused actions are offered again as refused, and after 6 refusals the driver's fallback acts.
 * Offers are put to each other player once before the offerer acts again (a fast network).
 */

export interface ArenaOptions {
  readonly seed: string | number;
  /** The bots in turn order (the order is fixed so seat rotation is the caller's choice). */
  readonly bots: readonly CatanBot[];
  /** Stop without a winner after this many turns. */
  readonly turnCap?: number;
  /** Time each decision (performance.now). */
  readonly timing?: boolean;
  /** Test hook: changes the dealt state before anything is sent (e.g. hidden parts only). */
  readonly prepare?: (state: State) => State;
  /** Every accepted action with its events. */
  readonly onAction?: (seat: number, action: Action, events: readonly GameEvent[]) => void;
}

export interface SeatStats {
  readonly strategy: string;
  decisions: number;
  /** Milliseconds per decision (with `timing`). */
  readonly times: number[];
  /** Actions the rules refused (a server would answer Fehler), and why. */
  refused: number;
  readonly refusedCodes: Record<string, number>;
  /** Decisions taken by the driver's fallback. */
  fallbacks: number;
  actions: number;
}

export interface ArenaResult {
  /** Seat (index into `bots`) of the winner, null if the turn cap was hit. */
  readonly winner: number | null;
  readonly turns: number;
  /** Final points, hidden Siegpunkt cards included. */
  readonly points: readonly number[];
  readonly seats: readonly SeatStats[];
  readonly state: State;
}

const ACTING: ReadonlySet<Status> = new Set<Status>(['Dorf bauen', 'Strasse bauen', 'Wuerfeln', 'Karten wegen Raeuber abgeben', 'Raeuber versetzen', 'Handeln oder Bauen']);
const FALLBACK_AFTER = 6;
const same = (a: Action, b: Action): boolean => JSON.stringify(a) === JSON.stringify(b);

export function playArenaGame(o: ArenaOptions): ArenaResult {
  const n = o.bots.length;
  const idRng = Rng.seeded(`${String(o.seed)}/ids`);
  const ids: number[] = [];
  while (ids.length < n) {
    const id = idRng.int(1, 2 ** 31 - 1);
    if (!ids.includes(id)) ids.push(id);
  }
  const players = ids.map((id, i) => ({ id, name: `${o.bots[i]!.strategy} ${i + 1}`, colour: COLOURS[i]! }));
  const started = newGame({ seed: o.seed, players, fixedOrder: true });
  if (!started.ok) throw new Error(started.error);
  let state = o.prepare ? o.prepare(started.value.state) : started.value.state;
  const map = wireMap(state);
  const ctx: MessageContext = { map: () => map, order: () => players };
  const games = ids.map((id) => {
    const g = new ClientGame();
    g.apply({ type: 'welcome', id });
    return g;
  });
  // The lobby as the server shows it: everyone's Statusupdate, names and colours set, started.
  for (const p of players) {
    for (let i = 0; i < n; i++) {
      games[i]!.apply({ type: 'status', player: lobbyPlayer({ id: p.id, name: p.name, colour: p.colour, status: 'Wartet auf Spielbeginn' }, p.id === ids[i]) });
    }
  }
  const deliver = (events: readonly GameEvent[]): void => {
    for (const e of events) {
      for (let i = 0; i < n; i++) for (const m of messagesFor(censorEvent(e, ids[i]!), ctx)) games[i]!.apply(m);
    }
  };
  deliver(started.value.events);

  const stats: SeatStats[] = o.bots.map((b) => ({ strategy: b.strategy, decisions: 0, times: [], refused: 0, refusedCodes: {}, fallbacks: 0, actions: 0 }));
  const fallbackRng = Rng.seeded(`${String(o.seed)}/fallback`);
  const answered = ids.map(() => new Set<number>());
  const cap = o.turnCap ?? 1000;

  /** One decision of seat i, as BotDriver makes it; returns whether an action was applied. */
  const turn = (i: number, acting: boolean): boolean => {
    const g = games[i]!;
    const refused: Action[] = [];
    for (;;) {
      const view = g.view();
      let legal: LegalActions = legalFromView(view);
      if (!acting) {
        const fresh = g.offersByOthers().filter((t) => !answered[i]!.has(t));
        for (const t of fresh) answered[i]!.add(t);
        legal = { ...legal, actions: legal.actions.filter((a) => (a.type === 'acceptTrade' || a.type === 'cancelTrade') && fresh.includes(a.tradeId)) };
        if (legal.actions.length === 0) return false;
      }
      if (refused.length > 0) legal = { ...legal, actions: legal.actions.filter((a) => !refused.some((r) => same(a, r))) };
      let action: Action | null = null;
      if (refused.length < FALLBACK_AFTER) {
        const t0 = o.timing ? performance.now() : 0;
        action = o.bots[i]!.decide({ view, legal, refused });
        if (o.timing) stats[i]!.times.push(performance.now() - t0);
        stats[i]!.decisions++;
      }
      if (action === null && acting) {
        action = fallback(legal, fallbackRng);
        if (action) stats[i]!.fallbacks++;
      }
      if (action === null) return false;
      const result = apply(state, ids[i]!, action);
      if (!result.ok) {
        stats[i]!.refused++;
        stats[i]!.refusedCodes[result.error.code] = (stats[i]!.refusedCodes[result.error.code] ?? 0) + 1;
        refused.push(action);
        if (refused.length > 40) throw new Error(`seat ${i} (${o.bots[i]!.strategy}): every action refused, last ${JSON.stringify(action)}: ${result.error.code}`);
        continue;
      }
      stats[i]!.actions++;
      state = result.value.state;
      o.onAction?.(i, action, result.value.events);
      deliver(result.value.events);
      return true;
    }
  };

  while (state.phase !== 'over' && state.turnNumber < cap) {
    // Offers first: each other player answers each open offer once.
    let answeredOne = false;
    if (state.trades.length > 0) {
      for (let i = 0; i < n; i++) {
        if (i === state.turn) continue;
        if (games[i]!.offersByOthers().some((t) => !answered[i]!.has(t)) && turn(i, false)) answeredOne = true;
      }
    }
    if (answeredOne) continue;
    const discarder = state.players.findIndex((p) => p.status === 'Karten wegen Raeuber abgeben');
    if (discarder >= 0) {
      turn(discarder, true);
      continue;
    }
    const active = state.players.findIndex((p) => ACTING.has(p.status));
    if (active < 0) throw new Error(`nobody to act in phase ${state.phase}`);
    turn(active, true);
  }
  return {
    winner: state.winner,
    turns: state.turnNumber,
    points: state.players.map((p) => totalPoints(p)),
    seats: stats,
    state,
  };
}

/** BotDriver's safe action when a bot has none. */
function fallback(legal: LegalActions, rng: Rng): Action | null {
  if (legal.discard) return { type: 'discard', cards: randomDiscard(legal.discard.hand, legal.discard.count, rng) };
  if (legal.status === 'Wuerfeln') return { type: 'roll' };
  if (legal.status === 'Handeln oder Bauen') return { type: 'endTurn' };
  return legal.actions.length > 0 ? rng.pick(legal.actions) : null;
}
