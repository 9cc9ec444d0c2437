import { Rng } from '../../../core/rng.js';
import type { CatanBot, DecisionContext } from './bot.js';
import { apply } from '../rules/apply.js';
import { parseCorner, parseEdge } from '../rules/geometry.js';
import { legalActions, type LegalActions } from '../rules/legal.js';
import { NO_DEV_CARDS } from '../rules/resources.js';
import type { State } from '../rules/state.js';
import { DEV_CARDS, RESOURCES, type Action, type ActionType, type DevCard, type Resource, type Resources } from '../rules/types.js';
import { determinize, knowledge, type Knowledge } from './determinize.js';
import { chooseSetupCorner, chooseSetupRoad } from './opening.js';
import { discards, withHand } from './hands.js';
import { AcceptanceModel, offerShapes } from './trading.js';
import { randomDiscard } from './random.js';
import { DEFAULT_WEIGHTS, evaluate, type Weights } from './value.js';

/**
 * The search bot: expectimax over the own turn on determinized states, with the value function of
 * value.ts at the leaves.
 *
 * A decision starts from what the view knows (determinize.ts) and draws `samples` complete states
 * that agree with it (the others' hands and development cards, the deck, the dice). In the main
 * phase each legal action is the root of a search over the rest of the own turn: up to `depth`
 * own actions (builds, sea trades, card purchases, Erfindung), the `beam` best children of each
 * node (by their own value) expanded further, the best sequence's end position valued. Chance is
 * averaged, not guessed: a card purchase over the types of the unknown cards in their proportions,
 * a steal or Monopol over the samples. Domestic offers (trading.ts: one or two cards for one, one
 * for two) are valued by the chance that someone takes them, with the others modelled as plain
 * planners over the sampled hands, times what the rest of the turn can reach with the new hand
 * beyond the best action (an offer costs nothing if refused); others' offers are taken when they
 * raise the own value enough and the offerer is not close to winning.
 * With `nextDepth` > 0 the `width` best candidates also look one own turn further: the
 * expectation over the next roll of the best that turn can reach (the others' turns left out; it
 * did not win more games in our measurements, so it is off by default). The robber, a knight
 * before the roll and discards are one-ply choices over the samples; setup placements come from
 * opening.ts. The budget is counted in positions, not time: a seed gives the same decisions on any
 * machine (`nodes` counts the positions valued so far).
 */

export interface SearchOptions {
  /** Sampled states per decision (steals and Monopol are averaged over them). */
  readonly samples?: number;
  /** Own actions looked ahead in the main phase (1: one ply). */
  readonly depth?: number;
  /** Children expanded per node below the root. */
  readonly beam?: number;
  /** Offer and accept domestic trades. */
  readonly trades?: boolean;
  /** Setup corners looked at in depth (1: the best corner by its own worth). */
  readonly opening?: number;
  /** Partners looked at for each first setup corner (1: the one worth most to it alone). */
  readonly partners?: number;
  /** Value an accepted offer must bring at least (more when the offerer has more than 4 points). */
  readonly acceptMargin?: number;
  /** Main-phase candidates that also look one own turn ahead, over the next roll. */
  readonly width?: number;
  /** Own actions planned in that next turn (0: no look beyond the current turn). */
  readonly nextDepth?: number;
  /** Domestic offers per turn at most. */
  readonly offers?: number;
  /** Value an offer must bring at least if taken. */
  readonly offerMargin?: number;
  /** Offers whose new hand is planned in full (0: valued by the hand alone, and made only when that beats the best action). */
  readonly offerPlan?: number;
  /** What a planned offer must add at least. */
  readonly offerMin?: number;
  /** Factor on the modelled chance that an offer is taken. */
  readonly trust?: number;
  /** What completing a trade costs per point the partner has above 3. */
  readonly feed?: number;
  readonly weights?: Weights;
}

export const SEARCH_DEFAULTS = { samples: 6, depth: 3, beam: 4, trades: true, opening: 8, partners: 8, acceptMargin: 40, width: 3, nextDepth: 0, offers: 4, offerMargin: 60, offerPlan: 3, offerMin: 20, trust: 1, feed: 40 } as const;

type Options = Required<Omit<SearchOptions, 'weights'>> & { readonly weights: Weights };

interface Scored {
  readonly action: Action;
  readonly value: number;
}

interface Planned {
  readonly value: number;
  readonly leaf: State;
}

/** The dice pairs of each sum but 7, with the number of ways out of 36 to roll that sum. */
const ROLLS: readonly (readonly [readonly [number, number], number])[] = [2, 3, 4, 5, 6, 8, 9, 10, 11, 12].map((sum) => [
  [Math.max(1, sum - 6), Math.min(6, sum - 1)] as const,
  6 - Math.abs(7 - sum),
]);

/** Actions searched below the root (the rest are root-only: robber moves, Monopol, answers). */
const INNER: ReadonlySet<ActionType> = new Set<ActionType>(['build', 'seaTrade', 'buyDevCard', 'playYearOfPlenty']);

const stochastic = (a: Action): boolean =>
  a.type === 'playMonopoly' || ((a.type === 'moveRobber' || a.type === 'playKnight') && a.victim !== undefined);

function after(s: State, id: number, a: Action): State | null {
  const r = apply(s, id, a);
  return r.ok ? r.value.state : null;
}

class SearchBot implements CatanBot {
  readonly strategy = 'search';
  private readonly rng: Rng;
  private offers = new Set<string>();
  /**
   * Players who lost cards this turn (a trade completed with them, a steal, Monopol), with the types
   * they may have lost: their acceptances from before may no longer be covered.
   */
  private partners = new Map<number, Set<Resource>>();
  /** Positions valued so far (the budget's unit). */
  nodes = 0;

  constructor(
    seed: string | number,
    private readonly o: Options,
  ) {
    this.rng = Rng.seeded(`${String(seed)}/search-bot`);
  }

  decide({ view, legal }: DecisionContext): Action | null {
    const k = knowledge(view);
    if (!k) return null;
    if (legal.status !== 'Handeln oder Bauen') {
      this.offers = new Set();
      this.partners = new Map();
    }
    if (legal.discard) return this.discard(k, legal.discard.hand, legal.discard.count);
    const actions = legal.actions;
    if (actions.length === 0) return null;
    switch (legal.status) {
      case 'Dorf bauen': {
        const corners = actions.map((a) => (a.type === 'build' ? parseCorner(a.at) : -1));
        return actions[corners.indexOf(chooseSetupCorner(k.base, k.seat, corners, this.o.opening, this.o.partners))] ?? actions[0]!;
      }
      case 'Strasse bauen': {
        const edges = actions.map((a) => (a.type === 'build' ? parseEdge(a.at) : -1));
        return actions[edges.indexOf(chooseSetupRoad(k.base, k.seat, edges))] ?? actions[0]!;
      }
      case 'Wuerfeln':
      case 'Raeuber versetzen':
        return actions.length === 1 ? actions[0]! : this.choose(k, legal, false);
      case 'Handeln oder Bauen':
        return this.choose(k, legal, true);
      default:
        return this.answer(k, actions);
    }
  }

  private value(s: State, seat: number): number {
    this.nodes++;
    return evaluate(s, seat, this.o.weights);
  }

  private samples(k: Knowledge, count: number): State[] {
    return Array.from({ length: count }, () => determinize(k, this.rng));
  }

  private discard(k: Knowledge, hand: Resources, count: number): Action {
    const s = this.samples(k, 1)[0]!;
    let best: Partial<Record<Resource, number>> | null = null;
    let bestValue = -Infinity;
    for (const d of discards(hand, count)) {
      const left = { ...hand };
      for (const r of RESOURCES) left[r] -= d[r] ?? 0;
      const v = this.value(withHand(s, k.seat, left), k.seat);
      if (v > bestValue) {
        bestValue = v;
        best = d;
      }
    }
    return { type: 'discard', cards: best ?? randomDiscard(hand, count, this.rng) };
  }

  /** The expected value of buying a card: each unknown card type in its proportion. */
  private buyValue(s: State, me: number, seat: number, pool: readonly DevCard[]): number {
    if (s.drawn >= s.deck.length) return -Infinity;
    let sum = 0;
    let weight = 0;
    for (const card of DEV_CARDS) {
      const n = pool.reduce((x, c) => (c === card ? x + 1 : x), 0);
      if (n === 0) continue;
      const deck = s.deck.slice();
      deck[s.drawn] = card;
      const next = after({ ...s, deck }, me, { type: 'buyDevCard' });
      if (!next) return -Infinity;
      sum += n * this.value(next, seat);
      weight += n;
    }
    return weight > 0 ? sum / weight : -Infinity;
  }

  /**
   * The best value the rest of the own turn can reach from `s` in at most `depth` more actions,
   * and the position where that sequence ends.
   */
  private plan(s: State, me: number, seat: number, depth: number, pool: readonly DevCard[]): Planned {
    const base = this.value(s, seat);
    if (depth <= 0 || s.phase !== 'main' || s.winner !== null) return { value: base, leaf: s };
    const kids: { state: State; value: number; chance: boolean }[] = [];
    for (const a of legalActions(s, me).actions) {
      if (!INNER.has(a.type)) continue;
      const next = after(s, me, a);
      if (!next) continue;
      // A purchase is valued over all card types; its leaf (one sampled card) is only a position.
      if (a.type === 'buyDevCard') kids.push({ state: next, value: this.buyValue(s, me, seat, pool), chance: true });
      else kids.push({ state: next, value: this.value(next, seat), chance: false });
    }
    kids.sort((x, y) => y.value - x.value);
    let best: Planned = { value: base, leaf: s };
    kids.forEach((kid, i) => {
      const p = !kid.chance && i < this.o.beam && depth > 1 ? this.plan(kid.state, me, seat, depth - 1, pool) : { value: kid.value, leaf: kid.state };
      if (p.value > best.value) best = p;
    });
    return best;
  }

  /**
   * What the own next turn adds to a turn that ends in `leaf`: the expectation over the next roll
   * (the others' turns in between left out) of the best the next turn can then reach, minus the
   * value of `leaf` itself. A 7 is taken as no change.
   */
  private nextTurnGain(leaf: State, me: number, seat: number, pool: readonly DevCard[]): number {
    const base = this.value(leaf, seat);
    if (leaf.winner !== null) return 0;
    const start: State = {
      ...leaf,
      phase: 'roll',
      turn: seat,
      dice: null,
      devCardPlayed: false,
      trades: [],
      players: leaf.players.map((p, i) => ({ ...p, status: i === seat ? 'Wuerfeln' : 'Warten', boughtThisTurn: i === seat ? NO_DEV_CARDS : p.boughtThisTurn })),
    };
    let sum = 6 * base;
    for (const [dice, ways] of ROLLS) {
      const rolled = after(start, me, { type: 'roll', dice });
      sum += ways * (rolled ? this.plan(rolled, me, seat, this.o.nextDepth, pool).value : base);
    }
    return sum / 36 - base;
  }

  private choose(k: Knowledge, legal: LegalActions, main: boolean): Action {
    const o = this.o;
    const seat = k.seat;
    const me = k.base.players[seat]!.id;
    const dets = this.samples(k, o.samples);
    const det0 = dets[0]!;
    const now = this.value(det0, seat);
    const depth = main ? o.depth - 1 : 0;
    const scored: (Scored & { readonly leaf: State })[] = [];
    for (const a of legal.actions) {
      if (a.type === 'cancelTrade') continue;
      if (a.type === 'completeTrade' && this.unsure(k, a.tradeId, a.partner)) continue;
      if (a.type === 'roll' || a.type === 'endTurn') {
        scored.push({ action: a, value: now, leaf: det0 });
        continue;
      }
      const next = after(det0, me, a);
      if (!next) continue;
      // Chance outcomes are averaged; the rest of the turn is planned on the first sample.
      const p = depth > 0 ? this.plan(next, me, seat, depth, k.pool) : { value: this.value(next, seat), leaf: next };
      let value = p.value;
      // Cards to someone ahead bring them closer to winning.
      if (a.type === 'completeTrade') value -= this.o.feed * Math.max(0, (det0.players.find((q) => q.id === a.partner)?.points ?? 0) - 3);
      if (a.type === 'buyDevCard') value += this.buyValue(det0, me, seat, k.pool) - this.value(next, seat);
      else if (stochastic(a)) {
        let sum = 0;
        let n = 0;
        for (const d of dets) {
          const other = after(d, me, a);
          if (!other) continue;
          sum += this.value(other, seat);
          n++;
        }
        value += sum / n - this.value(next, seat);
      }
      scored.push({ action: a, value, leaf: p.leaf });
    }
    // The close leaders also look one own turn further, over the next roll.
    if (main && o.nextDepth > 0 && scored.length > 1) {
      scored.sort((x, y) => y.value - x.value);
      const top = scored[0]!.value;
      for (let i = 0; i < Math.min(o.width, scored.length); i++) {
        const c = scored[i]!;
        if (top - c.value > 800) break;
        scored[i] = { ...c, value: c.value + this.nextTurnGain(c.leaf, me, seat, k.pool) };
      }
    }
    // Where the turn stands without another action, on the same footing as the candidates.
    const stay = scored.find((x) => x.action.type === 'endTurn')?.value ?? now;
    let best = scored.reduce<Scored | null>((b, x) => (b === null || x.value > b.value ? x : b), null);
    if (main && o.trades && legal.offer) {
      const offer = this.offer(k, dets, now, stay, best?.value ?? now);
      if (offer) best = offer;
    }
    if (!best) return legal.actions[0]!;
    if (best.action.type === 'offerTrade') this.offers.add(JSON.stringify(best.action));
    const a = best.action;
    if (a.type === 'completeTrade') {
      const t = k.base.trades.find((x) => x.id === a.tradeId);
      this.drained(a.partner, RESOURCES.filter((r) => (t?.request[r] ?? 0) > 0));
    } else if (a.type === 'playMonopoly' && k.base.trades.length > 0) {
      for (const p of k.base.players) this.drained(p.id, [a.resource]);
    } else if (a.type === 'playKnight' && a.victim !== undefined && k.base.trades.length > 0) {
      this.drained(a.victim, RESOURCES);
    }
    return best.action;
  }

  /**
   * The best domestic offer by the value its cards would bring times the chance that someone
   * takes it (trading.ts: the others as plain planners, over the sampled hands). Players with
   * 8 points or more are left out of that chance: a trade should not be counted on them (a
   * completion with them costs `feed` per point above 3).
   */
  private offer(k: Knowledge, dets: readonly State[], now: number, stay: number, bestAction: number): Scored | null {
    if (this.offers.size >= this.o.offers) return null;
    const seat = k.seat;
    const s = dets[0]!;
    const me = s.players[seat]!.id;
    const hand = s.players[seat]!.resources;
    const model = new AcceptanceModel(dets, seat);
    const found: { action: Action; chance: number; gain: number; state: State }[] = [];
    for (const c of offerShapes(hand)) {
      const action: Action = { type: 'offerTrade', offer: c.offer, request: c.request };
      if (this.offers.has(JSON.stringify(action))) continue;
      let nobody = 1;
      model.chances(c).forEach((p, i) => {
        if (i !== seat && s.players[i]!.points < 8) nobody *= 1 - p;
      });
      if (nobody >= 1) continue;
      const left = { ...hand };
      for (const r of RESOURCES) left[r] += (c.request[r] ?? 0) - (c.offer[r] ?? 0);
      const state = withHand(s, seat, left);
      const gain = this.value(state, seat) - now;
      if (gain > this.o.offerMargin) found.push({ action, chance: (1 - nobody) * this.o.trust, gain, state });
    }
    let best: Scored | null = null;
    if (this.o.offerPlan > 0) {
      // An offer costs nothing: if nobody takes it, the best action is still there. What it is
      // worth is the chance times what the turn can reach with the new hand beyond that action.
      found.sort((x, y) => y.chance * y.gain - x.chance * x.gain);
      for (const f of found.slice(0, this.o.offerPlan)) {
        const reach = this.plan(f.state, me, seat, this.o.depth - 1, k.pool).value;
        const value = bestAction + f.chance * (reach - bestAction);
        if (value > bestAction + this.o.offerMin && (!best || value > best.value)) best = { action: f.action, value };
      }
      return best;
    }
    for (const f of found) {
      const value = stay + f.chance * f.gain;
      if (value > bestAction && (!best || value > best.value)) best = { action: f.action, value };
    }
    return best;
  }

  private drained(player: number, types: readonly Resource[]): void {
    const set = this.partners.get(player) ?? new Set<Resource>();
    for (const r of types) set.add(r);
    this.partners.set(player, set);
  }

  /** Whether the partner may have lost, since it accepted, what this trade asks of it. */
  private unsure(k: Knowledge, tradeId: number, partner: number): boolean {
    const gave = this.partners.get(partner);
    const t = k.base.trades.find((x) => x.id === tradeId);
    return gave !== undefined && (!t || RESOURCES.some((r) => (t.request[r] ?? 0) > 0 && gave.has(r)));
  }

  /** Takes the offer that raises the own value most, if enough; silence otherwise. */
  private answer(k: Knowledge, actions: readonly Action[]): Action | null {
    if (!this.o.trades) return null;
    const s = k.base;
    const hand = s.players[k.seat]!.resources;
    const now = this.value(s, k.seat);
    let best: Action | null = null;
    let bestGain = 0;
    for (const a of actions) {
      if (a.type !== 'acceptTrade') continue;
      const t = s.trades.find((x) => x.id === a.tradeId);
      if (!t) continue;
      const offerer = s.players[t.seat]!;
      if (offerer.points >= 8) continue;
      const left = { ...hand };
      for (const r of RESOURCES) left[r] += (t.offer[r] ?? 0) - (t.request[r] ?? 0);
      const gain = this.value(withHand(s, k.seat, left), k.seat) - now;
      // Helping someone ahead costs more.
      const margin = this.o.acceptMargin + 50 * Math.max(0, offerer.points - 4);
      if (gain > margin && gain > bestGain) {
        bestGain = gain;
        best = a;
      }
    }
    return best;
  }
}

export function searchBot(seed: string | number, options: SearchOptions = {}): CatanBot & { readonly nodes: number } {
  const o: Options = { ...SEARCH_DEFAULTS, ...options, weights: options.weights ?? DEFAULT_WEIGHTS };
  return new SearchBot(seed, o);
}
