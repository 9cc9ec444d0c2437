/**
 * The Bradley–Terry fit by Newton's method on θ = ln γ (issue 38), and the dense linear algebra it
 * needs (a Cholesky factor of the information matrix, solves with it, the diagonal of its inverse).
 *
 * Why not the minorisation–maximisation iteration (Hunter 2004) that ratings.ts used alone before:
 * its convergence slows down as the games pile up (measured on 200 entrants: 880 iterations at
 * 1,000 games, 41,000 at 80,000, 2.9 s), because each step moves every γ only by what the others'
 * current values allow. With a prior (> 0) the log posterior is strictly concave in θ, so Newton's
 * method converges quadratically: a handful of steps from θ = 0, each one factorisation of the
 * n × n information matrix (n = entrants, independent of the number of games). Warm-started from
 * the previous optimum after one more game, a factor kept from an earlier step (a chord iteration;
 * the live standings update it by a rank-one step per game) brings the fit back to the tolerance in
 * a few solves of O(n²) each (fewer than ten for 200 entrants), and a fresh factor is made only when a
 * step stops shrinking the MM change fourfold — that is what the live standings do per match
 * (live-standings.ts).
 *
 * The stopping rule is the MM iteration's, so `tolerance` means what it meant: the fit is converged
 * when one MM step would change no ln γᵢ by more than `tolerance`, i.e. |ln(Wᵢ / (γᵢ Dᵢ))| < tol with
 * Wᵢ what i scored plus prior/2 and Dᵢ = prior/(γᵢ+1) + Σⱼ nᵢⱼ/(γᵢ+γⱼ).
 */

/** Games between entrants, as the fit needs them: `n` entrants, dense symmetric counts. */
export interface PairCounts {
  n: number;
  /** What each entrant scored (win 1, draw ½), without the prior. */
  score: ArrayLike<number>;
  /** count[i * n + j] = count[j * n + i]: games between i and j (the diagonal is 0). */
  count: ArrayLike<number>;
}

/**
 * Lower-triangular Cholesky factor L (row-major n × n, L·Lᵀ = A) of the lower triangle of A, in
 * place (A is overwritten; its upper triangle is neither read nor changed), or null when A is not
 * positive definite. In place because a fresh 200 × 200 array costs as much as half the factorisation.
 */
export function cholesky(a: Float64Array, n: number): Float64Array | null {
  const l = a;
  for (let i = 0; i < n; i++) {
    const ri = i * n;
    for (let j = 0; j <= i; j++) {
      const rj = j * n;
      // the dot product of rows i and j up to column j, in four sums (the loop that costs n³/6)
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let k = 0;
      for (; k + 3 < j; k += 4) {
        s0 += (l[ri + k] as number) * (l[rj + k] as number);
        s1 += (l[ri + k + 1] as number) * (l[rj + k + 1] as number);
        s2 += (l[ri + k + 2] as number) * (l[rj + k + 2] as number);
        s3 += (l[ri + k + 3] as number) * (l[rj + k + 3] as number);
      }
      for (; k < j; k++) s0 += (l[ri + k] as number) * (l[rj + k] as number);
      const sum = (l[ri + j] as number) - (s0 + s1 + (s2 + s3));
      if (i === j) {
        if (!(sum > 0)) return null;
        l[ri + i] = Math.sqrt(sum);
      } else l[ri + j] = sum / (l[rj + j] as number);
    }
  }
  return l;
}

/** x with L·Lᵀ·x = b. */
export function choleskySolve(l: Float64Array, n: number, b: ArrayLike<number>): Float64Array {
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const ri = i * n;
    let sum = b[i] as number;
    for (let k = 0; k < i; k++) sum -= (l[ri + k] as number) * (y[k] as number);
    y[i] = sum / (l[ri + i] as number);
  }
  for (let i = n - 1; i >= 0; i--) {
    let sum = y[i] as number;
    for (let k = i + 1; k < n; k++) sum -= (l[k * n + i] as number) * (y[k] as number);
    y[i] = sum / (l[i * n + i] as number);
  }
  return y;
}

/**
 * L·Lᵀ + w·(e_a − e_b)(e_a − e_b)ᵀ refactored in place, in O(n²): what one more game between a and
 * b adds to the information matrix (at the weight w = p(1−p) of the current θ).
 */
export function choleskyAddPair(l: Float64Array, n: number, a: number, b: number, w: number): void {
  if (a === b || !(w > 0)) return;
  const x = new Float64Array(n);
  const root = Math.sqrt(w);
  x[a] = root;
  x[b] = -root;
  for (let k = Math.min(a, b); k < n; k++) {
    const xk = x[k] as number;
    if (xk === 0) continue;
    const lkk = l[k * n + k] as number;
    const r = Math.hypot(lkk, xk);
    const c = r / lkk;
    const s = xk / lkk;
    l[k * n + k] = r;
    for (let i = k + 1; i < n; i++) {
      const lik = ((l[i * n + k] as number) + s * (x[i] as number)) / c;
      l[i * n + k] = lik;
      x[i] = c * (x[i] as number) - s * lik;
    }
  }
}

/** The diagonal of (L·Lᵀ)⁻¹: (A⁻¹)ᵢᵢ = Σₖ ((L⁻¹)ₖᵢ)², L⁻¹ by forward substitution (n³/6 steps). */
export function inverseDiagonal(l: Float64Array, n: number): Float64Array {
  const diagonal = new Float64Array(n);
  const x = new Float64Array(n);
  for (let c = 0; c < n; c++) {
    // column c of L⁻¹: zero above c
    x.fill(0);
    x[c] = 1 / (l[c * n + c] as number);
    let sq = (x[c] as number) ** 2;
    for (let i = c + 1; i < n; i++) {
      const ri = i * n;
      let sum = 0;
      for (let k = c; k < i; k++) sum -= (l[ri + k] as number) * (x[k] as number);
      const v = sum / (l[ri + i] as number);
      x[i] = v;
      sq += v * v;
    }
    // (A⁻¹)_cc = Σ_k (L⁻¹)_kc²
    diagonal[c] = sq;
  }
  return diagonal;
}

/** Where the fit stands at θ: the gradient of the log posterior, the MM change, the information matrix. */
export interface FitPoint {
  gradient: Float64Array;
  /** max over i of |ln(Wᵢ / (γᵢ Dᵢ))|: the largest change one MM step would make. */
  change: number;
}

/** Gradient and MM change at θ (O(n²)). */
export function fitPoint(counts: PairCounts, prior: number, theta: ArrayLike<number>): FitPoint {
  const { n, score, count } = counts;
  const gamma = new Float64Array(n);
  for (let i = 0; i < n; i++) gamma[i] = Math.exp(theta[i] as number);
  // D_i = prior/(γi+1) + Σ_j n_ij/(γi+γj), each pair's quotient computed once for both
  const denominator = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const gi = gamma[i] as number;
    const ri = i * n;
    let di = (denominator[i] as number) + prior / (gi + 1);
    for (let j = i + 1; j < n; j++) {
      const nij = count[ri + j] as number;
      if (nij > 0) {
        const q = nij / (gi + (gamma[j] as number));
        di += q;
        denominator[j] = (denominator[j] as number) + q;
      }
    }
    denominator[i] = di;
  }
  const gradient = new Float64Array(n);
  let change = 0;
  for (let i = 0; i < n; i++) {
    const w = (score[i] as number) + prior / 2;
    const expected = (gamma[i] as number) * (denominator[i] as number);
    gradient[i] = w - expected;
    if (w > 0 && expected > 0) change = Math.max(change, Math.abs(Math.log(w / expected)));
    else if (w !== expected) change = Number.POSITIVE_INFINITY;
  }
  return { gradient, change };
}

/**
 * The observed information −∇² log posterior at θ: its lower triangle with the diagonal (row-major
 * n × n, the upper triangle left 0), which is all `cholesky` reads; into `into` when it is n × n.
 */
export function informationAt(counts: PairCounts, prior: number, theta: ArrayLike<number>, into?: Float64Array): Float64Array {
  const { n, count } = counts;
  const gamma = new Float64Array(n);
  for (let i = 0; i < n; i++) gamma[i] = Math.exp(theta[i] as number);
  const info = into?.length === n * n ? into.fill(0) : new Float64Array(n * n);
  const diagonal = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const gi = gamma[i] as number;
    const p0 = gi / (gi + 1);
    const ri = i * n;
    let di = prior * p0 * (1 - p0);
    for (let j = 0; j < i; j++) {
      const nij = count[ri + j] as number;
      if (nij === 0) continue;
      const gj = gamma[j] as number;
      const sum = gi + gj;
      const w = (nij * gi * gj) / (sum * sum); // n·p·(1 − p)
      di += w;
      diagonal[j] = (diagonal[j] as number) + w;
      info[ri + j] = -w;
    }
    diagonal[i] = (diagonal[i] as number) + di;
  }
  for (let i = 0; i < n; i++) info[i * n + i] = diagonal[i] as number;
  return info;
}

/** The log posterior at θ (up to a constant): for the line search of a long Newton step. */
function logPosterior(counts: PairCounts, prior: number, theta: ArrayLike<number>): number {
  const { n, score, count } = counts;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const ti = theta[i] as number;
    sum += ((score[i] as number) + prior / 2) * ti - prior * softplus(ti);
    const ri = i * n;
    for (let j = i + 1; j < n; j++) {
      const nij = count[ri + j] as number;
      if (nij > 0) sum -= nij * (ti + softplus((theta[j] as number) - ti));
    }
  }
  return sum;
}

/** ln(1 + eˣ) without overflow. */
function softplus(x: number): number {
  return x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x));
}

export interface NewtonOptions {
  tolerance: number;
  maxIterations: number;
  /** A Cholesky factor of the information at some earlier θ, to try first (chord steps). */
  factor?: Float64Array | null;
}

export interface NewtonFit {
  theta: Float64Array;
  /** The factor last used: of the information at a recent θ (kept for the next warm start). */
  factor: Float64Array | null;
  iterations: number;
  /** Factorisations done (each O(n³)). */
  factorisations: number;
  converged: boolean;
}

/** A step this long (in ln γ) is checked against the log posterior and halved while it lowers it. */
const LONG_STEP = 0.5;
/** A chord step that shrinks the MM change by less than this factor means the kept factor is stale. */
const CHORD_CONTRACTION = 0.25;

/**
 * Maximises the log posterior (prior > 0) from `start` by Newton steps. With `options.factor`, the
 * kept factor is used (chord steps, O(n²) each) as long as each step shrinks the MM change by at
 * least 4×; otherwise (and without one) the information is factorised afresh at the current θ.
 */
export function newtonFit(counts: PairCounts, prior: number, start: ArrayLike<number>, options: NewtonOptions): NewtonFit {
  const n = counts.n;
  const theta = Float64Array.from({ length: n }, (_, i) => start[i] ?? 0);
  let factor = options.factor !== undefined && options.factor !== null && options.factor.length === n * n ? options.factor : null;
  let buffer = factor;
  let fresh = false;
  let factorisations = 0;
  let point = fitPoint(counts, prior, theta);
  let iterations = 0;
  while (point.change >= options.tolerance && iterations < options.maxIterations) {
    iterations++;
    if (factor === null) {
      // the dropped factor's array is reused (a fresh one costs as much as half a factorisation)
      buffer = cholesky(informationAt(counts, prior, theta, buffer ?? undefined), n);
      factor = buffer;
      factorisations++;
      fresh = true;
      if (factor === null) break; // not positive definite: cannot happen with prior > 0
    }
    const step = choleskySolve(factor, n, point.gradient);
    let longest = 0;
    for (let i = 0; i < n; i++) longest = Math.max(longest, Math.abs(step[i] as number));
    let scale = 1;
    if (longest > LONG_STEP) {
      const before = logPosterior(counts, prior, theta);
      const trial = new Float64Array(n);
      for (let halvings = 0; halvings < 30; halvings++, scale /= 2) {
        for (let i = 0; i < n; i++) trial[i] = (theta[i] as number) + scale * (step[i] as number);
        if (logPosterior(counts, prior, trial) >= before) break;
      }
    }
    for (let i = 0; i < n; i++) theta[i] = (theta[i] as number) + scale * (step[i] as number);
    const next = fitPoint(counts, prior, theta);
    // A kept factor that no longer contracts well is dropped: the next step factorises afresh.
    if (!fresh && next.change > CHORD_CONTRACTION * point.change) factor = null;
    fresh = false;
    point = next;
  }
  return { theta, factor, iterations, factorisations, converged: point.change < options.tolerance };
}
