import { COST } from '../rules/resources.js';
import { WINNING_POINTS, totalPoints, type State } from '../rules/state.js';
import { seaRates } from '../rules/trade.js';
import { RESOURCES, type Resource, type ResourceCounts, type Resources } from '../rules/types.js';
import { bestSpots, boardInfo, missing, production } from './features.js';

/**
 * The search bot's value of a position for one seat, in thousandths of a victory point. It reads
 * the seat's own cards, and of the others only what is public (buildings, roads, the robber, card
 * counts, knights, points without hidden Siegpunkt cards), so a deterministic action has the same
 * value in every determinization.
 *
 * Terms: points; production (pips weighted by the board's scarcity, with diminishing returns per
 * resource, and a bonus per resource produced at all); where to expand (the best free spots 0, 1 and
 * 2 roads away); the hand (how close it is to a Stadt, a Dorf, a card, a road); development cards;
 * knights and road length as progress towards the awards; harbours; a 7's risk for a big hand; and
 * the others' production, weighted by their points (what the robber hurts). Production and
 * expansion count less as the game nears its end (`remaining`).
 */

export interface Weights {
  readonly production: number;
  readonly diversity: number;
  readonly reach: readonly [number, number, number];
  readonly city: number;
  readonly settlement: number;
  readonly devTarget: number;
  readonly roadTarget: number;
  readonly card: number;
  readonly knightCard: number;
  readonly progressCard: number;
  readonly knight: number;
  readonly armyRace: number;
  readonly road: number;
  readonly roadRace: number;
  readonly harbour: number;
  readonly bigHand: number;
  readonly enemy: number;
  /** The others' production again, for those close to winning (not faded with the game's progress). */
  readonly enemyLead: number;
  /**
   * How fast the worth of a target fades with the rounds its missing cards take to arrive (by
   * the own production, bank trades of spare cards counted); 0: by the count of missing cards.
   */
  readonly pace: number;
}

/** Tuned by self-play (docs/catan-ai.md). */
export const DEFAULT_WEIGHTS: Weights = {
  production: 90,
  diversity: 150,
  reach: [45, 22, 9],
  city: 380,
  settlement: 330,
  devTarget: 110,
  roadTarget: 90,
  card: 14,
  knightCard: 160,
  progressCard: 170,
  knight: 70,
  armyRace: 250,
  road: 18,
  roadRace: 220,
  harbour: 70,
  bigHand: 22,
  enemy: 0.35,
  enemyLead: 0.4,
  pace: 0,
};

const CLOSE = [1, 0.55, 0.3, 0.15, 0.07, 0.03, 0.01];
const closeness = (m: number): number => CLOSE[Math.min(m, CLOSE.length - 1)]!;

/**
 * Closeness of the hand to a cost in expected rounds: each missing card arrives at the seat's
 * production rate of its type (4 rolls a round, a little from trades and steals anyway), and
 * spare cards the bank takes at the seat's rate fill the largest gaps first.
 */
function nearness(hand: Resources, cost: ResourceCounts, prod: readonly number[], rates: Readonly<Record<Resource, number>>, pace: number): number {
  const gap = [0, 0, 0, 0, 0];
  let trades = 0;
  for (let r = 0; r < 5; r++) {
    const res = RESOURCES[r]!;
    const need = cost[res] ?? 0;
    gap[r] = Math.max(0, need - hand[res]);
    trades += Math.floor(Math.max(0, hand[res] - need) / rates[res]);
  }
  for (; trades > 0; trades--) {
    let worst = -1;
    for (let r = 0; r < 5; r++) if (gap[r]! > 0 && (worst < 0 || gap[r]! / (prod[r]! + 1) > gap[worst]! / (prod[worst]! + 1))) worst = r;
    if (worst < 0) break;
    gap[worst] = gap[worst]! - 1;
  }
  let sum = 0;
  let max = 0;
  for (let r = 0; r < 5; r++) {
    if (gap[r] === 0) continue;
    const rounds = gap[r]! / ((4 * prod[r]!) / 36 + 0.25);
    sum += rounds;
    max = Math.max(max, rounds);
  }
  return Math.exp(-pace * (max + 0.3 * (sum - max)));
}

/** Production worth of one seat: scarcity-weighted pips with diminishing returns, plus variety. */
export function productionValue(s: State, seat: number, w: Weights = DEFAULT_WEIGHTS): number {
  const prod = production(s, seat);
  const { scarcity } = boardInfo(s.board);
  let v = 0;
  let kinds = 0;
  for (let r = 0; r < 5; r++) {
    const p = prod[r]!;
    if (p > 0) kinds++;
    v += scarcity[r]! * (p <= 10 ? p : 10 + 0.6 * (p - 10));
  }
  return w.production * v + w.diversity * kinds;
}

/** How much of the game is left, 1 at the start down to 0.15 when someone is about to win. */
export function remaining(s: State): number {
  let top = 0;
  for (const p of s.players) top = Math.max(top, p.points);
  return Math.min(1, Math.max(0.15, (WINNING_POINTS - top) / 8));
}

export function evaluate(s: State, seat: number, w: Weights = DEFAULT_WEIGHTS): number {
  const me = s.players[seat]!;
  const vp = totalPoints(me);
  if (s.winner !== null) return s.winner === seat ? 1e6 + 1000 * vp : 1000 * vp - 1e5;
  const rem = remaining(s);
  let v = 1000 * vp;

  v += rem * productionValue(s, seat, w);
  const prod = production(s, seat);
  const hand = me.resources;
  const rates = seaRates(s, seat);
  const near = (cost: ResourceCounts): number => (w.pace > 0 ? nearness(hand, cost, prod, rates, w.pace) : closeness(missing(hand, cost)));

  // Expansion and the hand's closeness to each target.
  let spot0 = 0;
  if (me.settlementsLeft > 0) {
    const [d0, d1, d2] = bestSpots(s, seat, prod);
    spot0 = d0;
    v += rem * (w.reach[0] * d0 + w.reach[1] * d1 + w.reach[2] * d2);
    if (d0 > 0) v += w.settlement * near(COST.Dorf);
    else if (me.roadsLeft > 0 && d1 + d2 > 0) v += w.roadTarget * near(COST.Strasse);
  }
  // A Dorf upgraded to a Stadt goes back to the supply: 5 − settlementsLeft stand on the board.
  if (me.citiesLeft > 0 && me.settlementsLeft < 5) v += w.city * near(COST.Stadt);
  if (s.deck.length - s.drawn > 0) v += w.devTarget * near(COST.Entwicklungskarte);
  const cards = hand.Holz + hand.Lehm + hand.Wolle + hand.Getreide + hand.Erz;
  v += w.card * Math.min(cards, 7);
  if (cards > 7) v -= w.bigHand * Math.floor(cards / 2);

  // Development cards (Siegpunkt cards are in the points already).
  const d = me.devCards;
  v += w.knightCard * d.Ritter + w.progressCard * (d.Monopol + d.Erfindung) + (me.roadsLeft > 1 && spot0 === 0 ? w.progressCard : w.progressCard / 3) * d.Strassenbau;

  // Progress towards the awards.
  let armyTop = 0;
  let roadTop = 0;
  for (let i = 0; i < s.players.length; i++) {
    if (i === seat) continue;
    armyTop = Math.max(armyTop, s.players[i]!.knights);
    roadTop = Math.max(roadTop, s.players[i]!.roadLength);
  }
  v += w.knight * me.knights;
  if (s.largestArmy !== seat && me.knights + d.Ritter >= Math.max(3, armyTop + 1)) v += w.armyRace * rem;
  v += w.road * Math.min(me.roadLength, 9);
  if (s.longestRoad !== seat && me.roadLength >= 4 && me.roadLength + 2 > roadTop) v += w.roadRace * rem * (me.roadLength >= roadTop ? 1 : 0.5);

  // Harbours that fit the production.
  for (let r = 0; r < 5; r++) {
    const rate = rates[RESOURCES[r]!];
    if (rate === 2 && prod[r]! >= 4) v += rem * w.harbour;
    else if (rate === 3) v += (rem * w.harbour) / 5;
  }

  // The others: what they produce, more for those ahead.
  let enemy = 0;
  for (let i = 0; i < s.players.length; i++) {
    if (i === seat) continue;
    const q = s.players[i]!;
    const pv = productionValue(s, i, w);
    enemy += pv * (w.enemy * rem * (0.5 + q.points / 8) + w.enemyLead * Math.max(0, q.points - 5) / 4);
  }
  v -= enemy;
  return v;
}
