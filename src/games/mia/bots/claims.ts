import { DICE_COUNT, MIA_INDEX, NONE, ROLL_PROBABILITY, TOP_INDEX } from './odds.js';

/**
 * How likely is a claim to be true? That depends on how its announcer makes claims, which nobody
 * sees directly. We describe a handful of announcer types (each a distribution of the claim given
 * the roll and the previous claim), keep a weight for every type, and read the probability that a
 * claim is true off the weighted mixture. A fixed prior over the types is the probabilistic bot's
 * view of a stranger; the adaptive bot updates the weights per opponent with Bayes' rule from every
 * announcement it hears, using the revealed roll whenever ACTUAL DICE shows it.
 */

export interface ClaimType {
  readonly name: string;
  readonly prior: number;
  /** Distribution over the 21 claims, given the roll and the previous claim (NONE for the first). */
  readonly policy: (roll: number, previous: number) => Float64Array;
}

/** Weights 1, ½, ¼ … over the claims above `floor` up to 6,6 (Mia itself when nothing else is higher). */
function geometricAbove(floor: number, out: Float64Array, mass: number): void {
  if (floor >= TOP_INDEX) {
    out[MIA_INDEX] = (out[MIA_INDEX] ?? 0) + mass;
    return;
  }
  let total = 0;
  for (let c = floor + 1, w = 1; c <= TOP_INDEX; c++, w /= 2) total += w;
  for (let c = floor + 1, w = 1; c <= TOP_INDEX; c++, w /= 2) out[c] = (out[c] ?? 0) + (mass * w) / total;
}

function uniformAbove(floor: number, out: Float64Array, mass: number): void {
  if (floor >= TOP_INDEX) {
    out[MIA_INDEX] = (out[MIA_INDEX] ?? 0) + mass;
    return;
  }
  const count = TOP_INDEX - floor;
  for (let c = floor + 1; c <= TOP_INDEX; c++) out[c] = (out[c] ?? 0) + mass / count;
}

/** Truthful when the roll beats the previous claim, except for an occasional inflated claim; bluffs low. */
function oddsPlayer(inflate: number): ClaimType['policy'] {
  return (roll, previous) => {
    const out = new Float64Array(DICE_COUNT);
    if (roll > previous) {
      if (roll >= TOP_INDEX) out[roll] = 1;
      else {
        out[roll] = 1 - inflate;
        geometricAbove(roll, out, inflate);
      }
    } else geometricAbove(previous, out, 1);
    return out;
  };
}

export const CLAIM_TYPES: readonly ClaimType[] = [
  {
    name: 'truthful',
    prior: 0.15,
    policy: (roll) => {
      const out = new Float64Array(DICE_COUNT);
      out[roll] = 1;
      return out;
    },
  },
  {
    name: 'minimal',
    prior: 0.2,
    policy: (roll, previous) => {
      const out = new Float64Array(DICE_COUNT);
      out[roll > previous ? roll : Math.min(previous + 1, MIA_INDEX)] = 1;
      return out;
    },
  },
  { name: 'cautious', prior: 0.15, policy: oddsPlayer(0.1) },
  { name: 'bold', prior: 0.15, policy: oddsPlayer(0.35) },
  { name: 'reckless', prior: 0.1, policy: oddsPlayer(0.7) },
  {
    name: 'inflating',
    prior: 0.1,
    policy: (roll, previous) => {
      const out = new Float64Array(DICE_COUNT);
      if (roll > previous) {
        if (roll >= TOP_INDEX) out[roll] = 1;
        else {
          out[roll] = 0.5;
          uniformAbove(roll, out, 0.5);
        }
      } else uniformAbove(previous, out, 1);
      return out;
    },
  },
  { name: 'random', prior: 0.1, policy: () => new Float64Array(DICE_COUNT).fill(1 / DICE_COUNT) },
  {
    name: 'always-6,6',
    prior: 0.05,
    policy: (roll) => {
      const out = new Float64Array(DICE_COUNT);
      out[roll === MIA_INDEX ? MIA_INDEX : TOP_INDEX] = 1;
      return out;
    },
  },
];

/** Everybody slips sometimes: no type rules a claim out completely. */
const SMOOTHING = 0.02;
const TYPES = CLAIM_TYPES.length;
/** previous + 1: 0 for NONE, then one row per possible previous claim (Mia never has a successor). */
const PREVIOUS_ROWS = DICE_COUNT;

/** JOINT[t][p+1][r*21+c] = P(roll r) · P(claim c | r, p) for type t. */
const JOINT: Float64Array[][] = [];
/** Marginal probability of claim c, and of c together with the roll being at least c. */
const CLAIMED: Float64Array[][] = [];
const CLAIMED_TRUE: Float64Array[][] = [];

for (const type of CLAIM_TYPES) {
  const joint: Float64Array[] = [];
  const claimed: Float64Array[] = [];
  const claimedTrue: Float64Array[] = [];
  for (let row = 0; row < PREVIOUS_ROWS; row++) {
    const previous = row - 1;
    const j = new Float64Array(DICE_COUNT * DICE_COUNT);
    const m = new Float64Array(DICE_COUNT);
    const t = new Float64Array(DICE_COUNT);
    for (let r = 0; r < DICE_COUNT; r++) {
      const dist = type.policy(r, previous);
      const pr = ROLL_PROBABILITY[r] ?? 0;
      for (let c = 0; c < DICE_COUNT; c++) {
        const p = pr * ((1 - SMOOTHING) * (dist[c] ?? 0) + SMOOTHING / DICE_COUNT);
        j[r * DICE_COUNT + c] = p;
        m[c] = (m[c] ?? 0) + p;
        if (r >= c) t[c] = (t[c] ?? 0) + p;
      }
    }
    joint.push(j);
    claimed.push(m);
    claimedTrue.push(t);
  }
  JOINT.push(joint);
  CLAIMED.push(claimed);
  CLAIMED_TRUE.push(claimedTrue);
}

const at = (table: Float64Array[][], t: number, row: number, i: number): number => table[t]?.[row]?.[i] ?? 0;
const rowOf = (previous: number): number => Math.min(Math.max(previous, NONE), PREVIOUS_ROWS - 2) + 1;

/** Weights over the announcer types for one announcer (or for strangers). */
export class ClaimBelief {
  private readonly logWeights = new Float64Array(TYPES);
  private revealedClaims = 0;
  private revealedLies = 0;
  private cached: number[] | null = null;

  constructor() {
    CLAIM_TYPES.forEach((t, i) => (this.logWeights[i] = Math.log(t.prior)));
  }

  /** Normalised type weights. */
  weights(): number[] {
    if (this.cached) return this.cached.slice();
    const max = Math.max(...this.logWeights);
    const w = Array.from(this.logWeights, (l) => Math.exp(l - max));
    const sum = w.reduce((a, b) => a + b, 0);
    this.cached = w.map((x) => x / sum);
    return this.cached.slice();
  }

  /** P(the roll behind `claim` is at least `claim`), given the claim before it. */
  truthProbability(claim: number, previous: number): number {
    if (!this.cached) this.weights();
    const w = this.cached ?? [];
    const row = rowOf(previous);
    let claimed = 0;
    let claimedTrue = 0;
    for (let t = 0; t < TYPES; t++) {
      const wt = w[t] ?? 0;
      claimed += wt * at(CLAIMED, t, row, claim);
      claimedTrue += wt * at(CLAIMED_TRUE, t, row, claim);
    }
    return claimed > 0 ? claimedTrue / claimed : 0.5;
  }

  /** Bayes' rule for one announcement; `actual` is the revealed roll behind it, or NONE. */
  observeClaim(claim: number, previous: number, actual: number): void {
    const row = rowOf(previous);
    for (let t = 0; t < TYPES; t++) {
      const likelihood = actual === NONE ? at(CLAIMED, t, row, claim) : (JOINT[t]?.[row]?.[actual * DICE_COUNT + claim] ?? 0);
      this.logWeights[t] = (this.logWeights[t] ?? 0) + Math.log(Math.max(likelihood, 1e-12));
    }
    // keep the numbers near zero; only differences matter
    const max = Math.max(...this.logWeights);
    for (let t = 0; t < TYPES; t++) this.logWeights[t] = (this.logWeights[t] ?? 0) - max;
    this.cached = null;
    if (actual !== NONE) {
      this.revealedClaims++;
      if (claim > actual) this.revealedLies++;
    }
  }

  /**
   * The share of this announcer's revealed claims that were lies, as a Beta(1, 1) posterior mean.
   * Revealed claims are the suspicious ones (someone chose to SEE them), so this overstates lying
   * in general; it is a summary for people, the decisions use the type weights.
   */
  revealedLieRate(): { rate: number; revealed: number } {
    return { rate: (this.revealedLies + 1) / (this.revealedClaims + 2), revealed: this.revealedClaims };
  }
}
