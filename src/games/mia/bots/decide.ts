import type { Rng } from '../../../core/rng.js';
import type { Dice } from '../dice.js';
import { diceAt, diceIndex, DICE_COUNT, lastClaims, MIA_INDEX, nextPlayer, ROLL_PROBABILITY } from './odds.js';
import type { RoundContext } from './types.js';

/**
 * The decision rule of the thinking bots: pick whatever loses the round least often. What they
 * believe about the other players comes in through an Outlook; the probabilistic bot's is fixed,
 * the adaptive bot's is learned per opponent.
 */
export interface Outlook {
  /** P(the roll behind `claim` by `announcer` is at least `claim`). */
  truth(announcer: string, claim: number, previous: number): number;
  /** P(`responder` SEEs our `claim`); responder null when the turn order is unknown. */
  see(responder: string | null, claim: number): number;
  /** P(we still lose this round when the next player rolls against our `claim`). */
  continuation(claim: number, players: number): number;
}

/** Candidate claims within this much loss probability of the best are treated as equally good. */
export const TIE_TOLERANCE = 0.01;

interface ClaimCosts {
  readonly floor: number;
  /** Loss probability of claim a when it is true (a ≤ roll) and when it is a lie (a > roll). */
  readonly ifTrue: Float64Array;
  readonly ifLie: Float64Array;
}

/**
 * Claiming a loses when the next player SEEs it and it is a lie, or when the next player rolls
 * and the round still goes against us. Mia is left out: it is revealed at once, so it costs
 * nothing when rolled and always loses when not.
 */
function claimCosts(ctx: RoundContext, floor: number, outlook: Outlook): ClaimCosts {
  const responder = nextPlayer(ctx.players, ctx.me);
  const players = Math.max(2, ctx.players.length);
  const ifTrue = new Float64Array(DICE_COUNT).fill(Number.POSITIVE_INFINITY);
  const ifLie = new Float64Array(DICE_COUNT).fill(Number.POSITIVE_INFINITY);
  for (let a = Math.max(0, floor + 1); a < MIA_INDEX; a++) {
    const see = outlook.see(responder, a);
    const rolled = (1 - see) * outlook.continuation(a, players);
    ifTrue[a] = rolled;
    ifLie[a] = see + rolled;
  }
  return { floor, ifTrue, ifLie };
}

const costOf = (costs: ClaimCosts, roll: number, a: number): number =>
  a === MIA_INDEX ? (roll === MIA_INDEX ? 0 : 1) : ((a > roll ? costs.ifLie[a] : costs.ifTrue[a]) ?? Number.POSITIVE_INFINITY);

/** The least loss probability of any legal claim, for each roll: O(21) with running minima. */
function bestCosts(costs: ClaimCosts): Float64Array {
  const { floor, ifTrue, ifLie } = costs;
  const out = new Float64Array(DICE_COUNT);
  const lieFrom = new Float64Array(DICE_COUNT + 1).fill(Number.POSITIVE_INFINITY);
  for (let a = MIA_INDEX - 1; a >= 0; a--) lieFrom[a] = Math.min(lieFrom[a + 1] ?? Infinity, ifLie[a] ?? Infinity);
  let trueUpTo = Number.POSITIVE_INFINITY;
  for (let r = 0; r < DICE_COUNT; r++) {
    if (r < MIA_INDEX) trueUpTo = Math.min(trueUpTo, ifTrue[r] ?? Infinity);
    const mia = r === MIA_INDEX ? 0 : 1;
    out[r] = Math.min(mia, trueUpTo, lieFrom[Math.max(r + 1, floor + 1)] ?? Infinity);
  }
  return out;
}

export interface TurnDecision {
  readonly action: 'roll' | 'see';
  readonly lossIfSee: number;
  readonly lossIfRoll: number;
}

export function decideTurn(ctx: RoundContext, outlook: Outlook): TurnDecision {
  const last = ctx.announcements[ctx.announcements.length - 1];
  const { claim, previous } = lastClaims(ctx.announcements);
  const best = bestCosts(claimCosts(ctx, claim, outlook));
  let lossIfRoll = 0;
  for (let r = 0; r < DICE_COUNT; r++) lossIfRoll += (ROLL_PROBABILITY[r] ?? 0) * (best[r] ?? 1);
  // SEE before the first roll loses outright
  if (last === undefined) return { action: 'roll', lossIfSee: 1, lossIfRoll };
  const lossIfSee = claim === MIA_INDEX ? 1 : outlook.truth(last.name, claim, previous);
  return { action: lossIfSee < lossIfRoll ? 'see' : 'roll', lossIfSee, lossIfRoll };
}

/**
 * The claim after rolling `rolled`: always strictly higher than the previous claim (announcing
 * losing dice is a certain loss), Mia only when rolled — unless the previous claim is 6,6 and the
 * roll is not Mia, where every answer loses and we still announce Mia, the only higher claim.
 */
export function chooseClaim(ctx: RoundContext, rolled: Dice, outlook: Outlook, rng: Rng): Dice {
  const { claim: floor } = lastClaims(ctx.announcements);
  const r = diceIndex(rolled);
  if (r === MIA_INDEX) return rolled;
  const costs = claimCosts(ctx, floor, outlook);
  let min = Number.POSITIVE_INFINITY;
  for (let a = Math.max(0, floor + 1); a < DICE_COUNT; a++) min = Math.min(min, costOf(costs, r, a));
  const near: number[] = [];
  for (let a = Math.max(0, floor + 1); a < DICE_COUNT; a++) if (costOf(costs, r, a) <= min + TIE_TOLERANCE) near.push(a);
  return diceAt(near.length > 0 ? rng.pick(near) : Math.min(MIA_INDEX, Math.max(floor + 1, r)));
}
