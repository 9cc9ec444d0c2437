import { rate, rating as openskillRating, type Rating } from 'openskill';
import { cholesky, choleskyAddPair, informationAt, inverseDiagonal, newtonFit, type PairCounts } from './bt-fit.js';
import { bradleyTerryCounts } from './ratings.js';
import { placingOf, type MatchResult, type SeatOutcome, type Standings, type StandingsOptions, type StandingsRow, type WinDrawLoss } from './standings.js';

/**
 * Standings that follow a tournament match by match (issue 38): `add` folds one finished match in
 * (O(seats²) counting, the sequential Elo step, the OpenSkill update), `leader` and `standings`
 * bring the Bradley–Terry fit up to date, warm-started from the last optimum (bt-fit.ts: chord
 * steps with a kept Cholesky factor, a fresh factor only when those stop contracting), and
 * `standings({ intervals: true })` adds the 95 % intervals (one factorisation and the diagonal of
 * its inverse) — only when asked, never per match.
 *
 * The result is computeStandings (standings.ts) of the same results in the same order: the counts
 * (W/D/L, placings, points, crashes, timeouts, games, head-to-head), the sequential Elo and the
 * OpenSkill ratings bit for bit (the same arithmetic in the same order); the Bradley–Terry rating
 * and its interval to the fit's tolerance (both fits stop when an MM step would change no ln γ by
 * more than `tolerance`, 1e-12 by default). test/tournament/live-standings.test.ts holds it to that
 * at every step of random tournaments.
 *
 * `toState`/`fromState` give it as JSON (the coordinator keeps it in the record store, so a reader
 * starts from there and folds only the results finished since: standings-store.ts).
 */

const SCORE: Record<SeatOutcome, number> = { win: 1, draw: 0.5, loss: 0 };
const Z95 = 1.959963984540054;
const ELO_PER_NAT = 400 / Math.LN10;

/** The JSON form of live standings (version 1). */
export interface LiveStandingsState {
  v: 1;
  /** Options it was computed with; a reader with others starts afresh. */
  eloK: number;
  prior: number;
  /** Results folded in. */
  size: number;
  names: string[];
  multiplayer: boolean;
  /** The most seats of a match with at least two. */
  maxSeats: number;
  games: number[];
  wins: number[];
  draws: number[];
  losses: number[];
  points: number[];
  crashes: number[];
  timeouts: number[];
  placings: number[][];
  /** headToHead[a][3b..3b+2]: a's wins, draws, losses against b. */
  headToHead: number[][];
  /** Entrants in a 2-player game with an outcome (those Bradley–Terry rates), 0/1. */
  rated: number[];
  score: number[];
  /** Games between i < j, row by row: (0,1), (0,2), …, (1,2), … */
  pairs: number[];
  theta: number[];
  elo: number[];
  /** OpenSkill μ, σ (null: never placed). */
  skill: ([number, number] | null)[];
}

export class LiveStandings {
  private readonly names: string[] = [];
  private readonly at = new Map<string, number>();
  private readonly eloK: number;
  private readonly prior: number;
  private readonly base: number;
  private readonly tolerance: number;
  private readonly maxIterations: number;
  private size = 0;
  private multiplayer = false;
  private maxSeats = 0;
  private games: number[] = [];
  private wins: number[] = [];
  private draws: number[] = [];
  private losses: number[] = [];
  private points: number[] = [];
  private crashes: number[] = [];
  private timeouts: number[] = [];
  private placings: number[][] = [];
  private h2h: number[][] = [];
  private rated: boolean[] = [];
  private score: number[] = [];
  /** Dense n × n counts (n = names.length, grown on a new name). */
  private count: Float64Array = new Float64Array(0);
  private theta: Float64Array = new Float64Array(0);
  private elo: number[] = [];
  private skill: (Rating | null)[] = [];
  /** The Bradley–Terry fit is behind the counts. */
  private stale = false;
  /** A Cholesky factor of the information at a recent θ, kept for the next warm start. */
  private factor: Float64Array | null = null;
  /** Games folded into the factor since the last fit. */
  private unfitted = 0;
  /** What the last fits cost (for the benchmark). */
  readonly work = { fits: 0, steps: 0, factorisations: 0 };

  constructor(entrants: readonly string[] = [], options: Omit<StandingsOptions, 'entrants'> = {}) {
    this.eloK = options.eloK ?? 20;
    this.prior = options.bradleyTerry?.prior ?? 1;
    this.base = options.bradleyTerry?.base ?? 1500;
    this.tolerance = options.bradleyTerry?.tolerance ?? 1e-12;
    this.maxIterations = options.bradleyTerry?.maxIterations ?? 10_000;
    this.grow(entrants);
  }

  /** Results folded in so far. */
  get results(): number {
    return this.size;
  }

  private index(name: string): number {
    return this.at.get(name) ?? (this.grow([name]), this.names.length - 1);
  }

  /** Adds these names (new ones, once each), growing every per-entrant list and the dense counts once. */
  private grow(names: readonly string[]): void {
    const before = this.names.length;
    for (const name of names) {
      if (this.at.has(name)) continue;
      this.at.set(name, this.names.length);
      this.names.push(name);
    }
    const n = this.names.length;
    const added = n - before;
    if (added === 0) return;
    for (const list of [this.games, this.wins, this.draws, this.losses, this.points, this.crashes, this.timeouts, this.score])
      for (let k = 0; k < added; k++) list.push(0);
    for (let k = 0; k < added; k++) {
      this.placings.push([]);
      this.rated.push(false);
      this.elo.push(1500);
      this.skill.push(null);
    }
    for (const row of this.h2h) for (let k = 0; k < 3 * added; k++) row.push(0);
    for (let i = before; i < n; i++) this.h2h.push(new Array<number>(3 * n).fill(0));
    // the dense counts and θ grow by the new rows and columns
    const count = new Float64Array(n * n);
    for (let r = 0; r < before; r++) count.set(this.count.subarray(r * before, r * before + before), r * n);
    this.count = count;
    const theta = new Float64Array(n);
    theta.set(this.theta);
    this.theta = theta;
    this.factor = null;
  }

  /** Folds one finished match in, as computeStandings counts it. */
  add(m: MatchResult): void {
    this.size++;
    const seats = m.seats.map((seat) => this.index(seat.name));
    m.seats.forEach((seat, s) => {
      const i = seats[s] as number;
      this.points[i] = (this.points[i] as number) + seat.points;
      if (seat.crashed === true) this.crashes[i] = (this.crashes[i] as number) + 1;
      if (seat.timedOut === true) this.timeouts[i] = (this.timeouts[i] as number) + 1;
    });
    if (m.seats.length < 2) return; // a bye: points only
    if (m.seats.length > 2) this.multiplayer = true;
    this.maxSeats = Math.max(this.maxSeats, m.seats.length);
    if (m.seats.length === 2 && m.seats.every((seat) => seat.outcome === 'loss')) {
      // A double forfeit: a loss for each, and nothing for the ratings.
      const [a, b] = seats as [number, number];
      for (const [me, them] of [
        [a, b],
        [b, a],
      ] as const) {
        this.games[me] = (this.games[me] as number) + 1;
        this.losses[me] = (this.losses[me] as number) + 1;
        this.place(me, 2);
        if (me !== them) this.bump(me, them, 2);
      }
      return;
    }
    const places = m.seats.map(placingOf);
    let best = Number.POSITIVE_INFINITY;
    for (const p of places) if (p !== undefined && p < best) best = p;
    const sharedFirst = places.filter((p) => p === best).length > 1;
    m.seats.forEach((_seat, s) => {
      const i = seats[s] as number;
      this.games[i] = (this.games[i] as number) + 1;
      const place = places[s];
      if (place === undefined) return;
      this.place(i, place);
      if (place === best && !sharedFirst) this.wins[i] = (this.wins[i] as number) + 1;
      else if (place === best) this.draws[i] = (this.draws[i] as number) + 1;
      else this.losses[i] = (this.losses[i] as number) + 1;
      places.forEach((theirs, t) => {
        const j = seats[t] as number;
        if (t === s || theirs === undefined || j === i) return;
        this.bump(i, j, place < theirs ? 0 : place === theirs ? 1 : 2);
      });
    });
    const [a, b] = m.seats;
    if (m.seats.length === 2 && a && b && a.outcome !== undefined) this.pairGame(seats[0] as number, seats[1] as number, SCORE[a.outcome]);
    if (places.every((p) => p !== undefined)) this.placingGame(seats, places);
  }

  private place(i: number, place: number): void {
    const list = this.placings[i] as number[];
    while (list.length < place) list.push(0);
    list[place - 1] = (list[place - 1] as number) + 1;
  }

  private bump(i: number, j: number, k: 0 | 1 | 2): void {
    const row = this.h2h[i] as number[];
    row[3 * j + k] = (row[3 * j + k] as number) + 1;
  }

  /** A 2-player game for Bradley–Terry and the sequential Elo (ratings.ts `elo`, step for step). */
  private pairGame(a: number, b: number, score: number): void {
    this.rated[a] = true;
    this.rated[b] = true;
    if (a !== b) {
      const n = this.names.length;
      this.score[a] = (this.score[a] as number) + score;
      this.score[b] = (this.score[b] as number) + 1 - score;
      this.count[a * n + b] = (this.count[a * n + b] as number) + 1;
      this.count[b * n + a] = (this.count[b * n + a] as number) + 1;
      this.stale = true;
      // The kept factor follows the new game, so warm starts keep contracting fast — while fits
      // come often; games folded in bulk (a reader catching up) make a fresh factor cheaper.
      if (this.factor !== null && ++this.unfitted > n / 8) this.factor = null;
      if (this.factor !== null) {
        const p = 1 / (1 + Math.exp((this.theta[b] as number) - (this.theta[a] as number)));
        choleskyAddPair(this.factor, n, a, b, p * (1 - p));
      }
    }
    const ra = this.elo[a] as number;
    const rb = this.elo[b] as number;
    const expected = 1 / (1 + 10 ** ((rb - ra) / 400));
    const delta = this.eloK * (score - expected);
    this.elo[a] = ra + delta;
    this.elo[b] = rb - delta;
  }

  /** One OpenSkill update (ratings.ts `multiplayerRatings`, step for step). */
  private placingGame(seats: readonly number[], places: readonly number[]): void {
    const teams = seats.map((i) => [this.skill[i] ?? openskillRating()]);
    const updated = rate(teams, { rank: [...places] });
    seats.forEach((i, s) => {
      const r = updated[s]?.[0];
      if (r) this.skill[i] = r;
    });
  }

  private get counts(): PairCounts {
    return { n: this.names.length, score: this.score, count: this.count };
  }

  /** Brings the Bradley–Terry fit up to date (warm-started; nothing to do when no game came in). */
  private fit(): void {
    if (!this.stale || this.multiplayer) return;
    this.stale = false;
    this.unfitted = 0;
    this.work.fits++;
    if (this.prior <= 0) {
      // without a prior: the MM fit of ratings.ts, from scratch (not used by tournaments)
      this.theta = this.mmFit().theta;
      return;
    }
    const fit = newtonFit(this.counts, this.prior, this.theta, {
      tolerance: this.tolerance,
      maxIterations: Math.min(this.maxIterations, 200),
      factor: this.factor,
    });
    this.theta = fit.theta;
    this.factor = fit.factor;
    this.work.steps += fit.iterations;
    this.work.factorisations += fit.factorisations;
  }

  /** Rank 1 of the standings (no intervals needed): the highest rating, then points, then name. */
  leader(): string | null {
    if (this.names.length === 0) return null;
    const ratings = this.ratings();
    let best = -1;
    for (let i = 0; i < this.names.length; i++) {
      if (best < 0 || ahead(ratings[i] as number, this.points[i] as number, this.names[i] as string, ratings[best] as number, this.points[best] as number, this.names[best] as string))
        best = i;
    }
    return this.names[best] ?? null;
  }

  /** How the rating column is computed (as computeStandings decides it). */
  get method(): Standings['method'] {
    return this.multiplayer ? 'openskill' : 'bradley-terry';
  }

  /** Each entrant's rating as the standings show it (no intervals), by name. */
  ratingsByName(): Record<string, number> {
    const ratings = this.ratings();
    return Object.fromEntries(this.names.map((name, i) => [name, ratings[i] as number]));
  }

  /** Each entrant's rating as the standings show it (no intervals). */
  ratings(): number[] {
    if (this.multiplayer) {
      return this.names.map((_, i) => {
        const s = this.skill[i];
        return s ? s.mu : this.games[i] === 0 ? 25 : 0;
      });
    }
    this.fit();
    return this.names.map((_, i) =>
      this.rated[i] === true ? this.base + ELO_PER_NAT * (this.theta[i] as number) : this.games[i] === 0 ? this.base : 0,
    );
  }

  /** The standings as computeStandings gives them; intervals (O(n³)) only when asked. */
  standings(options: { intervals?: boolean } = {}): Standings {
    const intervals = options.intervals ?? true;
    const n = this.names.length;
    const maxPlace = this.multiplayer ? this.maxSeats : 2;
    const rows: StandingsRow[] = this.names.map((name, i) => {
      const own = this.placings[i] as number[];
      const row: StandingsRow = {
        rank: 0,
        name,
        rating: 0,
        low: 0,
        high: 0,
        games: this.games[i] as number,
        wins: this.wins[i] as number,
        draws: this.draws[i] as number,
        losses: this.losses[i] as number,
        placings: Array.from({ length: Math.max(maxPlace, own.length) }, (_, k) => own[k] ?? 0),
        points: this.points[i] as number,
        crashes: this.crashes[i] as number,
        timeouts: this.timeouts[i] as number,
      };
      return row;
    });
    let method: Standings['method'];
    if (this.multiplayer) {
      method = 'openskill';
      rows.forEach((row, i) => {
        const s = this.skill[i];
        if (s) Object.assign(row, { rating: s.mu, low: s.mu - Z95 * s.sigma, high: s.mu + Z95 * s.sigma });
        else if (row.games === 0) Object.assign(row, { rating: 25, low: 25 - 1.959964 * (25 / 3), high: 25 + 1.959964 * (25 / 3) });
      });
    } else {
      method = 'bradley-terry';
      const { theta, se } = this.btFit(intervals);
      rows.forEach((row, i) => {
        if (this.rated[i] === true) {
          const rating = this.base + ELO_PER_NAT * (theta[i] as number);
          const half = Z95 * ELO_PER_NAT * (se[i] as number);
          Object.assign(row, { rating, low: rating - half, high: rating + half });
        } else if (row.games === 0)
          Object.assign(row, { rating: this.base, low: Number.NEGATIVE_INFINITY, high: Number.POSITIVE_INFINITY });
        row.elo = this.elo[i] as number;
      });
    }
    const headToHead: Record<string, Record<string, WinDrawLoss>> = {};
    for (let a = 0; a < n; a++) {
      const row = this.h2h[a] as number[];
      const cells: Record<string, WinDrawLoss> = {};
      for (let b = 0; b < n; b++)
        if (a !== b) cells[this.names[b] as string] = { wins: row[3 * b] as number, draws: row[3 * b + 1] as number, losses: row[3 * b + 2] as number };
      headToHead[this.names[a] as string] = cells;
    }
    const sorted = [...rows].sort((x, y) => y.rating - x.rating || y.points - x.points || (x.name < y.name ? -1 : 1));
    sorted.forEach((row, i) => {
      const prev = sorted[i - 1];
      row.rank = prev && prev.rating === row.rating && prev.points === row.points ? prev.rank : i + 1;
    });
    return { method, rows: sorted, headToHead };
  }

  /** θ of every entrant and, when asked, its standard error (NaN without). */
  private btFit(intervals: boolean): { theta: Float64Array; se: Float64Array } {
    const n = this.names.length;
    if (this.prior <= 0) return this.mmFit();
    this.fit();
    const se = new Float64Array(n).fill(Number.NaN);
    if (intervals && n > 0) {
      const l = cholesky(informationAt(this.counts, this.prior, this.theta), n);
      if (l !== null) {
        const variance = inverseDiagonal(l, n);
        for (let i = 0; i < n; i++) se[i] = Math.sqrt(Math.max(0, variance[i] as number));
      }
    }
    return { theta: this.theta, se };
  }

  /** Without a prior: the plain maximum-likelihood fit of ratings.ts over the rated entrants, from scratch. */
  private mmFit(): { theta: Float64Array; se: Float64Array } {
    const n = this.names.length;
    const theta = new Float64Array(n);
    const se = new Float64Array(n).fill(Number.NaN);
    const rated = this.names.flatMap((name, i) => (this.rated[i] === true ? [{ name, i }] : [])).sort((x, y) => (x.name < y.name ? -1 : 1));
    const wins = Float64Array.from(rated, (r) => (this.score[r.i] as number) + this.prior / 2);
    const count = rated.map((r) => Float64Array.from(rated, (c) => this.count[r.i * n + c.i] as number));
    const fit = bradleyTerryCounts(
      rated.map((r) => r.name),
      wins,
      count,
      { prior: this.prior, tolerance: this.tolerance, maxIterations: this.maxIterations },
    );
    fit.forEach((f, k) => {
      const i = (rated[k] as { i: number }).i;
      theta[i] = f.theta;
      se[i] = f.se;
    });
    return { theta, se };
  }

  /** The JSON form (numbers round-trip exactly through JSON). */
  toState(): LiveStandingsState {
    this.fit();
    const n = this.names.length;
    const pairs: number[] = [];
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) pairs.push(this.count[i * n + j] as number);
    return {
      v: 1,
      eloK: this.eloK,
      prior: this.prior,
      size: this.size,
      names: [...this.names],
      multiplayer: this.multiplayer,
      maxSeats: this.maxSeats,
      games: [...this.games],
      wins: [...this.wins],
      draws: [...this.draws],
      losses: [...this.losses],
      points: [...this.points],
      crashes: [...this.crashes],
      timeouts: [...this.timeouts],
      placings: this.placings.map((p) => [...p]),
      headToHead: this.h2h.map((r) => [...r]),
      rated: this.rated.map((r) => (r ? 1 : 0)),
      score: [...this.score],
      pairs,
      theta: Array.from(this.theta),
      elo: [...this.elo],
      skill: this.skill.map((s) => (s ? [s.mu, s.sigma] : null)),
    };
  }

  /**
   * Live standings from their JSON form, or null when it does not fit: another version, other
   * options, or entrants that are not its first names.
   */
  static fromState(state: unknown, entrants: readonly string[] = [], options: Omit<StandingsOptions, 'entrants'> = {}): LiveStandings | null {
    const s = state as Partial<LiveStandingsState> | null;
    const live = new LiveStandings([], options);
    if (s === null || typeof s !== 'object' || s.v !== 1 || !Array.isArray(s.names)) return null;
    const full = s as LiveStandingsState;
    if (full.eloK !== live.eloK || full.prior !== live.prior) return null;
    if (entrants.some((name, i) => full.names[i] !== name)) return null;
    const n0 = full.names.length;
    if (new Set(full.names).size !== n0) return null;
    const perEntrant = [full.games, full.wins, full.draws, full.losses, full.points, full.crashes, full.timeouts, full.placings, full.headToHead, full.rated, full.score, full.theta, full.elo, full.skill];
    if (perEntrant.some((list) => !Array.isArray(list) || list.length !== n0) || !Array.isArray(full.pairs) || full.pairs.length !== (n0 * (n0 - 1)) / 2)
      return null;
    live.grow(full.names);
    const n = full.names.length;
    live.size = full.size;
    live.multiplayer = full.multiplayer;
    live.maxSeats = full.maxSeats;
    live.games = [...full.games];
    live.wins = [...full.wins];
    live.draws = [...full.draws];
    live.losses = [...full.losses];
    live.points = [...full.points];
    live.crashes = [...full.crashes];
    live.timeouts = [...full.timeouts];
    live.placings = full.placings.map((p) => [...p]);
    live.h2h = full.headToHead.map((r) => [...r]);
    live.rated = full.rated.map((r) => r === 1);
    live.score = [...full.score];
    let k = 0;
    for (let i = 0; i < n; i++)
      for (let j = i + 1; j < n; j++) {
        const c = full.pairs[k++] as number;
        live.count[i * n + j] = c;
        live.count[j * n + i] = c;
      }
    live.theta = Float64Array.from(full.theta);
    live.elo = [...full.elo];
    live.skill = full.skill.map((r) => (r === null ? null : openskillRating({ mu: r[0], sigma: r[1] })));
    // θ was fitted to these counts when it was saved; a fit checks it at the next question.
    live.stale = true;
    return live;
  }
}

/** Whether (rating, points, name) x is ranked ahead of y, as the standings sort. */
function ahead(rx: number, px: number, nx: string, ry: number, py: number, ny: string): boolean {
  return rx !== ry ? rx > ry : px !== py ? px > py : nx < ny;
}
