import { Matrix, pseudoInverse, solve } from 'ml-matrix';
import { ordinal, rate, rating as openskillRating, type Rating } from 'openskill';
import { newtonFit } from './bt-fit.js';

/**
 * Ratings from finished games. npm has no maintained Elo or Bradley–Terry package (the Elo ones are
 * unmaintained one-liners, none fits Bradley–Terry with intervals), so the sequential Elo update and
 * the Bradley–Terry MM iteration are written here (a few lines of well-known arithmetic, tested
 * against hand-computed cases); the numerically delicate part, inverting the information matrix
 * for the intervals, is ml-matrix's. Multiplayer ratings for Catan and Mia come from the openskill
 * package (Weng–Lin).
 */

/** One 2-player game: `score` is what `a` scored (1 win, 0.5 draw, 0 loss). */
export interface PairGame {
  a: string;
  b: string;
  score: number;
}

export interface EloOptions {
  k?: number;
  initial?: number;
}

/** Sequential Elo over the games in the order given. */
export function elo(games: readonly PairGame[], options: EloOptions = {}): Map<string, number> {
  const k = options.k ?? 20;
  const initial = options.initial ?? 1500;
  const r = new Map<string, number>();
  for (const g of games) {
    const ra = r.get(g.a) ?? initial;
    const rb = r.get(g.b) ?? initial;
    const expected = 1 / (1 + 10 ** ((rb - ra) / 400));
    const delta = k * (g.score - expected);
    r.set(g.a, ra + delta);
    r.set(g.b, rb - delta);
  }
  return r;
}

export interface BradleyTerryOptions {
  /**
   * Virtual draws of each entrant against a fixed opponent of strength 1: keeps an unbeaten or
   * winless entrant finite and anchors the scale. 0 gives the plain maximum-likelihood fit, which
   * exists only when every entrant has both won and lost (scored and conceded) in a connected field.
   */
  prior?: number;
  /** Elo-like scale: rating = base + 400·log10(strength). */
  base?: number;
  maxIterations?: number;
  tolerance?: number;
  /**
   * How the fit is found (the optimum is the same): `newton` (the default with a prior, bt-fit.ts)
   * or the MM iteration (always without a prior: there the scale is free and Newton's matrix singular).
   */
  solver?: 'newton' | 'mm';
}

export interface BradleyTerryRating {
  name: string;
  /** γ: P(i beats j) = γi / (γi + γj). */
  strength: number;
  /** ln γ and its standard error from the observed information. */
  theta: number;
  se: number;
  /** On the Elo scale, with its 95 % interval. */
  rating: number;
  low: number;
  high: number;
}

const Z95 = 1.959963984540054;
const ELO_PER_NAT = 400 / Math.LN10;

/**
 * Bradley–Terry maximum-likelihood (or, with a prior, maximum a posteriori) fit over all games,
 * draws counting half a win to each side: with a prior by Newton's method (bt-fit.ts), without one
 * by minorisation–maximisation (Hunter 2004); intervals from the inverse of the observed
 * information at the optimum.
 */
export function bradleyTerry(
  games: readonly PairGame[],
  options: BradleyTerryOptions = {},
): BradleyTerryRating[] {
  const prior = options.prior ?? 1;
  const names = [...new Set(games.flatMap((g) => [g.a, g.b]))].sort();
  const n = names.length;
  const at = new Map(names.map((name, i) => [name, i]));
  const wins = new Float64Array(n).fill(prior / 2);
  const count = Array.from({ length: n }, () => new Float64Array(n));
  for (const g of games) {
    const i = at.get(g.a) as number;
    const j = at.get(g.b) as number;
    if (i === j) continue;
    wins[i] = (wins[i] as number) + g.score;
    wins[j] = (wins[j] as number) + 1 - g.score;
    (count[i] as Float64Array)[j] = ((count[i] as Float64Array)[j] as number) + 1;
    (count[j] as Float64Array)[i] = ((count[j] as Float64Array)[i] as number) + 1;
  }
  return bradleyTerryCounts(names, wins, count, options);
}

/**
 * The fit of bradleyTerry from what it needs of the games: per entrant `wins` (what it scored plus
 * prior/2) and the games between each pair (`count[i][j]`, symmetric). The live standings use it
 * for a fit without a prior.
 */
export function bradleyTerryCounts(
  names: readonly string[],
  wins: Float64Array,
  count: readonly Float64Array[],
  options: BradleyTerryOptions = {},
): BradleyTerryRating[] {
  const prior = options.prior ?? 1;
  const base = options.base ?? 1500;
  const maxIterations = options.maxIterations ?? 10_000;
  const tolerance = options.tolerance ?? 1e-12;
  const gamma =
    prior > 0 && options.solver !== 'mm'
      ? newtonStrengths(wins, count, prior, tolerance, maxIterations)
      : mmStrengths(wins, count, prior, tolerance, maxIterations);
  const covariance = invertInformation(information(gamma, count, prior), prior === 0);
  return names.map((name, i) => {
    const strength = gamma[i] as number;
    const theta = Math.log(strength);
    const se = Math.sqrt(Math.max(0, (covariance[i] as Float64Array)[i] as number));
    const rating = base + ELO_PER_NAT * theta;
    return {
      name,
      strength,
      theta,
      se,
      rating,
      low: rating - Z95 * ELO_PER_NAT * se,
      high: rating + Z95 * ELO_PER_NAT * se,
    };
  });
}

/** The Newton fit (bt-fit.ts) of γ from the same counts. */
function newtonStrengths(wins: Float64Array, count: readonly Float64Array[], prior: number, tolerance: number, maxIterations: number): Float64Array {
  const n = wins.length;
  const flat = new Float64Array(n * n);
  count.forEach((row, i) => flat.set(row, i * n));
  const score = wins.map((w) => w - prior / 2);
  const fit = newtonFit({ n, score, count: flat }, prior, new Float64Array(n), { tolerance, maxIterations: Math.min(maxIterations, 200) });
  return fit.theta.map(Math.exp);
}

/** γ by minorisation–maximisation (Hunter 2004), from γ = 1. */
function mmStrengths(wins: Float64Array, count: readonly Float64Array[], prior: number, tolerance: number, maxIterations: number): Float64Array {
  const n = wins.length;
  let gamma = new Float64Array(n).fill(1);
  for (let it = 0; it < maxIterations; it++) {
    const next = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const gi = gamma[i] as number;
      let denominator = prior / (gi + 1);
      const row = count[i] as Float64Array;
      for (let j = 0; j < n; j++) {
        const nij = row[j] as number;
        if (nij > 0) denominator += nij / (gi + (gamma[j] as number));
      }
      next[i] = denominator > 0 ? (wins[i] as number) / denominator : gi;
    }
    if (prior === 0) {
      // without an anchor the scale is free: fix the geometric mean at 1
      let logSum = 0;
      for (const v of next) logSum += Math.log(v);
      const scale = Math.exp(-logSum / n);
      for (let i = 0; i < n; i++) next[i] = (next[i] as number) * scale;
    }
    let change = 0;
    for (let i = 0; i < n; i++)
      change = Math.max(change, Math.abs(Math.log((next[i] as number) / (gamma[i] as number))));
    gamma = next;
    if (change < tolerance) break;
  }
  return gamma;
}

/** Observed information −∇² log L in θ = ln γ (a weighted graph Laplacian, plus the prior's diagonal). */
export function information(
  gamma: Float64Array,
  count: readonly Float64Array[],
  prior: number,
): Float64Array[] {
  const n = gamma.length;
  const info = Array.from({ length: n }, () => new Float64Array(n));
  for (let i = 0; i < n; i++) {
    const gi = gamma[i] as number;
    const row = info[i] as Float64Array;
    const p0 = gi / (gi + 1);
    row[i] = prior * p0 * (1 - p0);
    for (let j = 0; j < n; j++) {
      const nij = (count[i] as Float64Array)[j] as number;
      if (j === i || nij === 0) continue;
      const p = gi / (gi + (gamma[j] as number));
      const w = nij * p * (1 - p);
      row[i] = (row[i] as number) + w;
      row[j] = (row[j] as number) - w;
    }
  }
  return info;
}

/**
 * The covariance of θ, inverted by ml-matrix. Without a prior the information is singular along
 * (1,…,1); its Moore–Penrose pseudo-inverse is then the covariance under the constraint Σθ = 0. A
 * singular matrix (a field split into parts that never met) gives NaN, i.e. no interval.
 */
function invertInformation(info: readonly Float64Array[], centred: boolean): Float64Array[] {
  const matrix = new Matrix(info.map((row) => Array.from(row)));
  let inverse: Matrix;
  try {
    inverse = centred ? pseudoInverse(matrix) : solve(matrix, Matrix.eye(info.length), false);
  } catch {
    return info.map((row) => new Float64Array(row.length).fill(Number.NaN));
  }
  const rows = inverse.to2DArray().map((row) => Float64Array.from(row));
  return rows.every((row) => row.every(Number.isFinite)) ? rows : rows.map((row) => row.fill(Number.NaN));
}

/** One multiplayer game: each entrant's placing, 1 for the winner; equal placings tie. */
export interface PlacingGame {
  placings: readonly { name: string; place: number }[];
}

export interface MultiplayerRating {
  name: string;
  mu: number;
  sigma: number;
  /** Conservative skill μ − 3σ (openskill's ordinal), the usual leaderboard sort key. */
  ordinal: number;
  /** 95 % interval of μ. */
  low: number;
  high: number;
}

/** Weng–Lin ratings (openskill, Plackett–Luce by default) updated game by game from placings. */
export function multiplayerRatings(games: readonly PlacingGame[]): MultiplayerRating[] {
  const ratings = new Map<string, Rating>();
  for (const g of games) {
    if (g.placings.length < 2) continue;
    const teams = g.placings.map((p) => [ratings.get(p.name) ?? openskillRating()]);
    const updated = rate(teams, { rank: g.placings.map((p) => p.place) });
    g.placings.forEach((p, i) => {
      const r = updated[i]?.[0];
      if (r) ratings.set(p.name, r);
    });
  }
  return [...ratings].map(([name, r]) => ({
    name,
    mu: r.mu,
    sigma: r.sigma,
    ordinal: ordinal(r),
    low: r.mu - Z95 * r.sigma,
    high: r.mu + Z95 * r.sigma,
  }));
}

/** Ranks 1..n with ties sharing their average rank. */
export function averageRanks(values: readonly number[]): number[] {
  const order = values.map((v, i) => ({ v, i })).sort((x, y) => x.v - y.v);
  const ranks = new Array<number>(values.length).fill(0);
  for (let s = 0; s < order.length;) {
    let e = s;
    while (e + 1 < order.length && order[e + 1]?.v === order[s]?.v) e++;
    for (let k = s; k <= e; k++) ranks[(order[k] as { i: number }).i] = (s + e) / 2 + 1;
    s = e + 1;
  }
  return ranks;
}

/** Spearman's rank correlation (Pearson on average ranks, so ties are handled); NaN if a side is constant. */
export function spearman(xs: readonly number[], ys: readonly number[]): number {
  if (xs.length !== ys.length) throw new RangeError('spearman needs two lists of the same length');
  const rx = averageRanks(xs);
  const ry = averageRanks(ys);
  const n = xs.length;
  const mean = (n + 1) / 2;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = (rx[i] as number) - mean;
    const dy = (ry[i] as number) - mean;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxy / Math.sqrt(sxx * syy);
}
