import { COST, total } from '../rules/resources.js';
import type { State } from '../rules/state.js';
import { RESOURCES, type Resource, type ResourceCounts, type Resources } from '../rules/types.js';
import { bestSpots, missing, production } from './features.js';

/**
 * Domestic trades for the search bot: which offers to make and how likely another player takes
 * one. The others are modelled as plain planners (nobody's code is read): a player takes an offer
 * when it holds what is asked, gives at most one card more than it gets, and comes closer to the
 * build it saves for (the one with the best worth per missing card). The chance is the share of
 * the sampled states (their hands drawn by determinize.ts) in which that holds, so it follows what
 * each player produces and how many cards it holds.
 */

export type Cards = Partial<Record<Resource, number>>;

export interface Goal {
  readonly cost: ResourceCounts;
  readonly worth: number;
}

/** What a seat could be saving for, with a worth each: Stadt, Dorf (or a road towards one), a card. */
export function goalsOf(s: State, seat: number): Goal[] {
  const p = s.players[seat]!;
  const out: Goal[] = [];
  if (p.citiesLeft > 0 && p.settlementsLeft < 5) out.push({ cost: COST.Stadt, worth: 10 });
  if (p.settlementsLeft > 0) {
    const [d0, d1, d2] = bestSpots(s, seat, production(s, seat));
    if (d0 > 0) out.push({ cost: COST.Dorf, worth: 9 });
    else if (p.roadsLeft > 0 && d1 + d2 > 0) out.push({ cost: COST.Strasse, worth: 5 });
  }
  if (s.deck.length - s.drawn > 0) out.push({ cost: COST.Entwicklungskarte, worth: 4 });
  return out;
}

/** The target with the best worth per missing card, and how many cards it lacks. */
function nearest(hand: Resources, goals: readonly Goal[]): { goal: ResourceCounts | null; missing: number } {
  let goal: ResourceCounts | null = null;
  let best = -1;
  let lack = 0;
  for (const g of goals) {
    const m = missing(hand, g.cost);
    const score = g.worth / (1 + m);
    if (score > best) {
      best = score;
      goal = g.cost;
      lack = m;
    }
  }
  return { goal, missing: lack };
}

/** Whether the seat, as a plain planner, would take `gets` for `gives`. */
export function wouldTake(hand: Resources, goals: readonly Goal[], gets: Cards, gives: Cards): boolean {
  for (const r of RESOURCES) if ((gives[r] ?? 0) > hand[r]) return false;
  if (total(gives) > total(gets) + 1) return false;
  const { goal, missing: before } = nearest(hand, goals);
  if (!goal || before === 0) return false;
  const after = { ...hand };
  for (const r of RESOURCES) after[r] += (gets[r] ?? 0) - (gives[r] ?? 0);
  return missing(after, goal) < before;
}

export interface OfferCandidate {
  readonly offer: Cards;
  readonly request: Cards;
}

/** One or two cards for one, and one card for two: every shape a planner might take. */
export function offerShapes(hand: Resources): OfferCandidate[] {
  const out: OfferCandidate[] = [];
  const gives: Cards[] = [];
  for (const a of RESOURCES) {
    if (hand[a] >= 1) gives.push({ [a]: 1 });
    if (hand[a] >= 2) gives.push({ [a]: 2 });
    for (const b of RESOURCES) if (b > a && hand[a] >= 1 && hand[b] >= 1) gives.push({ [a]: 1, [b]: 1 });
  }
  const gets: Cards[] = [];
  for (const a of RESOURCES) {
    gets.push({ [a]: 1 });
    gets.push({ [a]: 2 });
    for (const b of RESOURCES) if (b > a) gets.push({ [a]: 1, [b]: 1 });
  }
  for (const give of gives) {
    for (const get of gets) {
      if (total(give) + total(get) > 3) continue;
      if (RESOURCES.some((r) => (give[r] ?? 0) > 0 && (get[r] ?? 0) > 0)) continue;
      out.push({ offer: give, request: get });
    }
  }
  return out;
}

/**
 * For each seat but `seat`, the chance (over the samples) that it would take the offer. What a
 * seat saves for depends only on public facts (its pieces, the board, the deck's size), so the
 * targets are worked out once; the hands are the samples'.
 */
export class AcceptanceModel {
  private readonly goals: (readonly Goal[])[];

  constructor(
    private readonly samples: readonly State[],
    private readonly seat: number,
  ) {
    const s = samples[0]!;
    this.goals = s.players.map((_, i) => (i === seat ? [] : goalsOf(s, i)));
  }

  /** Chance per seat (0 for the offerer). */
  chances(c: OfferCandidate): number[] {
    const n = this.goals.length;
    const out = Array.from({ length: n }, () => 0);
    for (const d of this.samples) {
      for (let i = 0; i < n; i++) {
        if (i === this.seat) continue;
        if (wouldTake(d.players[i]!.resources, this.goals[i]!, c.offer, c.request))
          out[i]! += 1 / this.samples.length;
      }
    }
    return out;
  }
}
