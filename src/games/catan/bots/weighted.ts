import type { Rng } from '../../../core/rng.js';
import { stateFromView } from '../client-legal.js';
import type { CatanBot, DecisionContext } from './bot.js';
import { CORNER_LAND, HEX_CORNERS, parseCorner, parseEdge, parseLandHex } from '../rules/geometry.js';
import type { LegalActions } from '../rules/legal.js';
import { COST } from '../rules/resources.js';
import type { State } from '../rules/state.js';
import { RESOURCES, type Action, type Resource, type ResourceCounts, type Resources } from '../rules/types.js';
import { Rng as SeededRng } from '../../../core/rng.js';
import { bestSpots, boardInfo, cornerValue, missing, production, roadTargets } from './features.js';

/**
 * The weighted bot: a fixed plan without search. It places by pips and resource variety, saves
 * for the cheapest worthwhile target (Stadt, Dorf, a road towards a good spot, a development card),
 * builds by a value per piece, trades with the bank or the others for the one or two cards it
 * lacks, robs the strongest opponent, and discards what its target does not need. It reads only
 * the stand-in state of its view: others' hands only as counts.
 *
 * `weightedChoice` also drives every player in the search bot's playouts (with trades off).
 */

export type Target = 'Stadt' | 'Dorf' | 'Strasse' | 'Entwicklungskarte';

export interface WeightedMemo {
  /** Offers made this turn (`give>get`), so one is not repeated; null: never offer. */
  offers: Set<string> | null;
}

const TARGET_COST: Readonly<Record<Target, ResourceCounts>> = {
  Stadt: COST.Stadt,
  Dorf: COST.Dorf,
  Strasse: COST.Strasse,
  Entwicklungskarte: COST.Entwicklungskarte,
};

export interface Plan {
  readonly target: Target | null;
  readonly cost: ResourceCounts;
  readonly missing: number;
}

/** What the seat saves for: the target with the best worth per missing card. */
export function plan(s: State, seat: number): Plan {
  const p = s.players[seat]!;
  const hand = p.resources;
  const options: [Target, number][] = [];
  // An upgraded Dorf goes back to the supply: 5 − settlementsLeft stand on the board.
  if (p.citiesLeft > 0 && p.settlementsLeft < 5) options.push(['Stadt', 10]);
  if (p.settlementsLeft > 0) {
    const prod = production(s, seat);
    const [d0, d1, d2] = bestSpots(s, seat, prod);
    if (d0 > 0) options.push(['Dorf', 9]);
    else if (p.roadsLeft > 0 && (d1 > 0 || d2 > 0)) options.push(['Strasse', 5]);
  }
  if (s.deck.length - s.drawn > 0) options.push(['Entwicklungskarte', 4]);
  let best: Plan = { target: null, cost: {}, missing: 0 };
  let bestScore = -1;
  for (const [t, worth] of options) {
    const m = missing(hand, TARGET_COST[t]);
    const score = worth / (1 + m);
    if (score > bestScore) {
      bestScore = score;
      best = { target: t, cost: TARGET_COST[t], missing: m };
    }
  }
  return best;
}

/** Cards to give up: always from the type the plan needs least, largest pile first. */
export function planDiscard(hand: Resources, count: number, cost: ResourceCounts): Partial<Record<Resource, number>> {
  const left = { ...hand };
  const out: Partial<Record<Resource, number>> = {};
  for (let i = 0; i < count; i++) {
    let pick: Resource = RESOURCES[0];
    let score = -Infinity;
    for (const r of RESOURCES) {
      if (left[r] === 0) continue;
      const spare = left[r] - (cost[r] ?? 0);
      const sc = spare * 10 + left[r];
      if (sc > score) {
        score = sc;
        pick = r;
      }
    }
    left[pick] -= 1;
    out[pick] = (out[pick] ?? 0) + 1;
  }
  return out;
}

/** How much a robber move hurts the others (and spares the mover); the victim by cards and points. */
export function robberScore(s: State, seat: number, action: Extract<Action, { type: 'moveRobber' | 'playKnight' }>): number {
  const hex = parseLandHex(action.hex);
  const info = boardInfo(s.board);
  const pips = info.hexPips[hex]!;
  let score = 0;
  for (const c of HEX_CORNERS[hex]!) {
    const b = s.buildings[c]!;
    if (b === -1) continue;
    const owner = b >> 1;
    const k = b & 1 ? 2 : 1;
    if (owner === seat) score -= 4 * pips * k;
    else score += pips * k * (1 + 0.25 * s.players[owner]!.points);
  }
  if (action.victim !== undefined) {
    const v = s.players.find((p) => p.id === action.victim)!;
    const cards = v.resources.Holz + v.resources.Lehm + v.resources.Wolle + v.resources.Getreide + v.resources.Erz;
    score += Math.min(cards, 8) * 0.6 + v.points * 0.8;
  }
  return score;
}

function bestBy<T>(items: readonly T[], score: (t: T) => number): T | null {
  let best: T | null = null;
  let bestScore = -Infinity;
  for (const t of items) {
    const sc = score(t);
    if (sc > bestScore) {
      bestScore = sc;
      best = t;
    }
  }
  return best;
}

/** Whether the seat's own production sits under the robber (worth a knight before rolling). */
export function robbedSelf(s: State, seat: number): number {
  const info = boardInfo(s.board);
  let lost = 0;
  for (const c of HEX_CORNERS[s.robber]!) {
    const b = s.buildings[c]!;
    if (b !== -1 && b >> 1 === seat) lost += info.hexPips[s.robber]! * (b & 1 ? 2 : 1);
  }
  return lost;
}

function setupChoice(s: State, seat: number, actions: readonly Action[]): Action | null {
  const prod = production(s, seat, false);
  if (actions[0]?.type === 'build' && actions[0].piece === 'Dorf') {
    return bestBy(actions, (a) => (a.type === 'build' ? cornerValue(s, parseCorner(a.at), prod) + 0.01 * CORNER_LAND[parseCorner(a.at)]!.length : 0));
  }
  const edges = actions.map((a) => (a.type === 'build' ? parseEdge(a.at) : -1));
  const values = roadTargets(s, seat, edges, prod);
  return actions[values.indexOf(Math.max(...values))] ?? null;
}

function cardPlay(s: State, seat: number, actions: readonly Action[], goal: Plan): Action | null {
  const p = s.players[seat]!;
  const knights = actions.filter((a): a is Extract<Action, { type: 'playKnight' }> => a.type === 'playKnight');
  if (knights.length > 0) {
    const holder = s.largestArmy === null ? 2 : s.players[s.largestArmy]!.knights;
    const army = s.largestArmy !== seat && p.knights + 1 > holder;
    if (robbedSelf(s, seat) >= 3 || army) return bestBy(knights, (a) => robberScore(s, seat, a));
  }
  const yop = actions.filter((a): a is Extract<Action, { type: 'playYearOfPlenty' }> => a.type === 'playYearOfPlenty');
  if (yop.length > 0 && goal.target !== null && goal.missing > 0 && goal.missing <= 2) {
    return bestBy(yop, (a) => -missing({ ...p.resources, ...addTo(p.resources, a.resources) }, goal.cost));
  }
  const mono = actions.filter((a): a is Extract<Action, { type: 'playMonopoly' }> => a.type === 'playMonopoly');
  const othersCards = s.players.reduce((n, q, i) => (i === seat ? n : n + q.resources.Holz + q.resources.Lehm + q.resources.Wolle + q.resources.Getreide + q.resources.Erz), 0);
  if (mono.length > 0 && othersCards >= 7 && goal.target !== null) {
    const want = RESOURCES.find((r) => (goal.cost[r] ?? 0) > p.resources[r]) ?? 'Erz';
    return mono.find((a) => a.resource === want) ?? null;
  }
  const roads = actions.filter((a): a is Extract<Action, { type: 'playRoadBuilding' }> => a.type === 'playRoadBuilding');
  if (roads.length > 0 && p.settlementsLeft > 0) {
    const prod = production(s, seat);
    const edges = roads.map((a) => parseEdge(a.road1));
    const v1 = roadTargets(s, seat, edges, prod);
    const best = bestBy(
      roads.map((a, i) => [a, v1[i]!] as const),
      ([a, v]) => v + (a.road2 ? 0.5 : 0),
    );
    if (best && best[1] > 0) return best[0];
  }
  return null;
}

const addTo = (hand: Resources, extra: ResourceCounts): Record<Resource, number> => {
  const out = { ...hand };
  for (const r of RESOURCES) out[r] += extra[r] ?? 0;
  return out;
};

function seaTradeFor(s: State, seat: number, actions: readonly Action[], goal: Plan): Action | null {
  if (goal.target === null || goal.missing === 0) return null;
  const hand = s.players[seat]!.resources;
  const trades = actions.filter((a): a is Extract<Action, { type: 'seaTrade' }> => a.type === 'seaTrade');
  const useful = trades.filter((a) => {
    const give = RESOURCES.find((r) => (a.offer[r] ?? 0) > 0)!;
    const get = RESOURCES.find((r) => (a.request[r] ?? 0) > 0)!;
    return (goal.cost[get] ?? 0) > hand[get] && hand[give] - (a.offer[give] ?? 0) >= (goal.cost[give] ?? 0);
  });
  // Only when the bank can close the gap this turn (or the hand is at risk of a 7 anyway).
  const total = hand.Holz + hand.Lehm + hand.Wolle + hand.Getreide + hand.Erz;
  if (useful.length === 0 || (goal.missing > 1 && total <= 7 && goal.missing * 4 > total)) return null;
  return bestBy(useful, (a) => {
    const give = RESOURCES.find((r) => (a.offer[r] ?? 0) > 0)!;
    return hand[give] - (a.offer[give] ?? 0);
  });
}

function offerFor(s: State, seat: number, goal: Plan, memo: WeightedMemo): Action | null {
  if (!memo.offers || goal.target === null || goal.missing === 0 || goal.missing > 2) return null;
  const hand = s.players[seat]!.resources;
  const get = RESOURCES.find((r) => (goal.cost[r] ?? 0) > hand[r]);
  const give = bestBy(
    RESOURCES.filter((r) => hand[r] - (goal.cost[r] ?? 0) > 0 && r !== get),
    (r) => hand[r] - (goal.cost[r] ?? 0),
  );
  if (!get || !give) return null;
  const key = `${give}>${get}`;
  if (memo.offers.has(key)) return null;
  memo.offers.add(key);
  return { type: 'offerTrade', offer: { [give]: 1 }, request: { [get]: 1 } };
}

/** Whether to take someone's offer: it must bring what the plan lacks for what it does not need. */
export function acceptable(s: State, seat: number, offer: ResourceCounts, request: ResourceCounts, offererPoints: number): boolean {
  if (offererPoints >= 8) return false;
  const hand = s.players[seat]!.resources;
  const goal = plan(s, seat);
  if (goal.target === null) return false;
  const after = addTo(hand, offer);
  for (const r of RESOURCES) after[r] -= request[r] ?? 0;
  const gives = RESOURCES.reduce((n, r) => n + (request[r] ?? 0), 0);
  const gets = RESOURCES.reduce((n, r) => n + (offer[r] ?? 0), 0);
  return gives <= gets + 1 && missing(after, goal.cost) < goal.missing;
}

function mainChoice(s: State, seat: number, legal: LegalActions, memo: WeightedMemo): Action | null {
  const actions = legal.actions;
  const p = s.players[seat]!;
  const goal = plan(s, seat);
  const prod = production(s, seat);
  const complete = actions.filter((a) => a.type === 'completeTrade');
  if (complete.length > 0) return complete[0]!;
  const card = cardPlay(s, seat, actions, goal);
  if (card) return card;
  const info = boardInfo(s.board);
  let roadValues: Map<Action, number> | null = null;
  const roadActions = actions.filter((a) => a.type === 'build' && a.piece === 'Strasse');
  const wantRoad = goal.target === 'Strasse' || (p.settlementsLeft > 0 && goal.target === null);
  if (roadActions.length > 0 && wantRoad) {
    const v = roadTargets(s, seat, roadActions.map((a) => (a.type === 'build' ? parseEdge(a.at) : -1)), prod);
    roadValues = new Map(roadActions.map((a, i) => [a, v[i]!]));
  }
  const build = bestBy(
    actions.filter((a) => a.type === 'build' || a.type === 'buyDevCard'),
    (a) => {
      if (a.type === 'buyDevCard') {
        // A card only when it does not eat into a nearer Stadt or Dorf.
        const after = addTo(p.resources, {});
        after.Wolle -= 1;
        after.Getreide -= 1;
        after.Erz -= 1;
        const hurts = goal.target !== 'Entwicklungskarte' && goal.target !== null && missing(after, goal.cost) > goal.missing;
        return hurts ? -1 : 4;
      }
      if (a.piece === 'Stadt') return 20 + info.cornerPips[parseCorner(a.at)]!;
      if (a.piece === 'Dorf') return 15 + cornerValue(s, parseCorner(a.at), prod);
      const v = roadValues?.get(a) ?? 0;
      return v > 0 ? 1 + v / 10 : -1;
    },
  );
  if (build && !(build.type === 'buyDevCard' && goal.target !== 'Entwicklungskarte' && goal.target !== null && goal.missing <= 1)) {
    const sc = build.type === 'build' && build.piece === 'Strasse' ? (roadValues?.get(build) ?? 0) : 1;
    if (sc > 0) return build;
  }
  const sea = seaTradeFor(s, seat, actions, goal);
  if (sea) return sea;
  if (legal.offer) {
    const offer = offerFor(s, seat, goal, memo);
    if (offer) return offer;
  }
  return actions.find((a) => a.type === 'endTurn') ?? null;
}

/** The weighted bot's action for `seat` in state `s`, or null (no answer to an offer). */
export function weightedChoice(s: State, seat: number, legal: LegalActions, rng: Rng, memo: WeightedMemo): Action | null {
  if (legal.discard) return { type: 'discard', cards: planDiscard(legal.discard.hand, legal.discard.count, plan(s, seat).cost) };
  const actions = legal.actions;
  if (actions.length === 0) return null;
  switch (legal.status) {
    case 'Dorf bauen':
    case 'Strasse bauen':
      return setupChoice(s, seat, actions);
    case 'Raeuber versetzen':
      return bestBy(actions, (a) => (a.type === 'moveRobber' ? robberScore(s, seat, a) + rng.float() * 1e-3 : -Infinity));
    case 'Wuerfeln': {
      const knights = actions.filter((a): a is Extract<Action, { type: 'playKnight' }> => a.type === 'playKnight');
      if (knights.length > 0 && robbedSelf(s, seat) >= 3) return bestBy(knights, (a) => robberScore(s, seat, a));
      return actions.find((a) => a.type === 'roll') ?? actions[0]!;
    }
    case 'Handeln oder Bauen':
      return mainChoice(s, seat, legal, memo);
    default: {
      // Answering offers: accept what fits the plan, stay silent otherwise.
      for (const a of actions) {
        if (a.type !== 'acceptTrade') continue;
        const t = s.trades.find((x) => x.id === a.tradeId);
        if (t && acceptable(s, seat, t.offer, t.request, s.players[t.seat]!.points)) return a;
      }
      return null;
    }
  }
}

/** The weighted strategy behind the CatanBot interface; `trades: false` neither offers nor accepts. */
export function weightedBot(seed: string | number, options: { readonly trades?: boolean } = {}): CatanBot {
  const rng = SeededRng.seeded(`${String(seed)}/weighted-bot`);
  const trades = options.trades ?? true;
  const memo: WeightedMemo = { offers: trades ? new Set() : null };
  return {
    strategy: 'weighted',
    decide: ({ view, legal }: DecisionContext) => {
      const s = stateFromView(view);
      const seat = view.players.findIndex((p) => p.id === view.me);
      if (!s || seat < 0) return null;
      if (!trades && legal.status !== 'Handeln oder Bauen' && !legal.discard && legal.actions.every((a) => a.type === 'acceptTrade' || a.type === 'cancelTrade')) return null;
      if (trades && legal.status !== 'Handeln oder Bauen') memo.offers = new Set();
      return weightedChoice(s, seat, legal, rng, memo);
    },
  };
}
