import { BEAT_PROBABILITY, clampProbability, DICE_COUNT, logit, MIA_PROBABILITY, sigmoid, TOP_INDEX } from './odds.js';

/**
 * Two curves over the claim a bot is about to make: how likely the next player is to SEE it, and
 * how likely the claimant still loses the round when the next player rolls instead. Both have a
 * prior shape; the adaptive bot bends them with what it observes, one bucket of claims at a time,
 * so a few observations move a whole neighbourhood and an unseen claim keeps the prior's shape.
 */

/** A stranger's chance to SEE a claim: rare for low claims, likely when hardly anything beats it. */
export const DEFAULT_SEE: readonly number[] = BEAT_PROBABILITY.map((beat) => 0.05 + 0.85 * (1 - beat) ** 2);

/**
 * P(the claimant loses the round after the next player rolls against `claim`). The next player
 * may roll Mia (everyone else loses); otherwise the higher the claim, the more likely the next
 * player fails to beat it or has to bluff. With more players the round less often comes back.
 */
export function defaultContinuation(claim: number, players: number): number {
  const mia = MIA_PROBABILITY;
  // above 6,6 only Mia is left: the next player rolls it or loses
  if (claim >= TOP_INDEX) return mia;
  const beatsHonestly = Math.max(0, (BEAT_PROBABILITY[claim] ?? 0) - mia);
  const mustBluff = Math.max(0, 1 - beatsHonestly - mia);
  // facing a true higher claim / facing a bluff, when the round comes back to the claimant
  const [back, facingTruth, facingBluff, laterMia] =
    players <= 2 ? [1, 0.55, 0.25, 0] : players === 3 ? [0.5, 0.5, 0.2, 0.03] : [1 / (players - 1), 0.45, 0.2, 0.05];
  return Math.min(0.99, mia + laterMia + back * (beatsHonestly * facingTruth + mustBluff * facingBluff));
}

const BUCKET_SIZE = 3;
const BUCKETS = Math.ceil(DICE_COUNT / BUCKET_SIZE);
const bucketOf = (claim: number): number => Math.min(BUCKETS - 1, Math.floor(Math.max(0, claim) / BUCKET_SIZE));

/**
 * A prior curve over claims, corrected per bucket by a Beta posterior: the curve keeps its shape
 * inside a bucket and moves by the log-odds the bucket's observations move it.
 */
export class BucketedCurve {
  private readonly hits = new Float64Array(BUCKETS);
  private readonly misses = new Float64Array(BUCKETS);
  private readonly priorMean = new Float64Array(BUCKETS);

  constructor(
    private readonly prior: readonly number[],
    /** Pseudo-observations the prior is worth in each bucket. */
    private readonly strength: number,
  ) {
    const sums = new Float64Array(BUCKETS);
    const counts = new Float64Array(BUCKETS);
    for (let c = 0; c <= TOP_INDEX; c++) {
      const b = bucketOf(c);
      sums[b] = (sums[b] ?? 0) + clampProbability(prior[c] ?? 0.5);
      counts[b] = (counts[b] ?? 0) + 1;
    }
    for (let b = 0; b < BUCKETS; b++) this.priorMean[b] = (counts[b] ?? 0) > 0 ? (sums[b] ?? 0) / (counts[b] ?? 1) : 0.5;
  }

  probability(claim: number): number {
    const b = bucketOf(claim);
    const prior = this.priorMean[b] ?? 0.5;
    const hits = this.hits[b] ?? 0;
    const n = hits + (this.misses[b] ?? 0);
    if (n === 0) return clampProbability(this.prior[claim] ?? prior);
    const posterior = clampProbability((this.strength * prior + hits) / (this.strength + n));
    return clampProbability(sigmoid(logit(clampProbability(this.prior[claim] ?? prior)) + logit(posterior) - logit(prior)));
  }

  observe(claim: number, hit: boolean): void {
    const b = bucketOf(claim);
    if (hit) this.hits[b] = (this.hits[b] ?? 0) + 1;
    else this.misses[b] = (this.misses[b] ?? 0) + 1;
  }

  observations(): number {
    let n = 0;
    for (let b = 0; b < BUCKETS; b++) n += (this.hits[b] ?? 0) + (this.misses[b] ?? 0);
    return n;
  }
}

export function continuationCurve(players: number): number[] {
  return Array.from({ length: DICE_COUNT }, (_, c) => defaultContinuation(c, players));
}
