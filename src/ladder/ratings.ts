import glicko2 from 'glicko2-lite';
import { rate as openskillRate } from 'openskill';
import type { LadderGame, Rating } from './types.js';

/**
 * The ladder's ratings. The 2-player games use Glicko-2 (glicko2-lite) with one rating period per
 * game, as lichess does for an always-on pool: nobody waits for a period to close, and a game's
 * effect is visible at once. Catan (3–4 players) uses OpenSkill (Weng–Lin, Plackett–Luce, the same
 * model the tournaments use), shown on the Glicko scale so that every ladder table reads alike.
 * Pure arithmetic: no I/O, no clock, no randomness.
 */

export const GLICKO_START = { rating: 1500, rd: 350, vol: 0.06 } as const;
/** Glickman's recommended range is 0.3–1.2; 0.5 is the usual middle (and glicko2-lite's default). */
export const DEFAULT_TAU = 0.5;

export type RatingSystem = 'glicko2' | 'openskill';

/** Catan is the one ladder game with more than two seats; Mia's ladder game is played 1-on-1. */
export function ratingSystemOf(game: LadderGame): RatingSystem {
  return game === 'catan' ? 'openskill' : 'glicko2';
}

/** A fresh entry: 1500 ± 350 on either system (OpenSkill keeps no volatility, so its vol is 0). */
export function initialRating(game?: LadderGame): Rating {
  const vol = game !== undefined && ratingSystemOf(game) === 'openskill' ? 0 : GLICKO_START.vol;
  return { rating: GLICKO_START.rating, rd: GLICKO_START.rd, vol, games: 0 };
}

export interface GlickoOptions {
  /** Glicko-2 system constant τ: how fast the volatility may move. */
  tau?: number;
}

/** One result inside a rating period, from the rated player's side. */
export interface PeriodResult {
  rating: number;
  rd: number;
  /** 1 win, 0.5 draw, 0 loss. */
  score: number;
}

function checkScore(score: number): void {
  if (!(score >= 0 && score <= 1)) throw new RangeError(`a score must lie in [0, 1], got ${score}`);
}

/**
 * One Glicko-2 rating period with any number of results (the ladder calls it with one). Exported
 * so that the period arithmetic can be checked against Glickman's published example.
 */
export function ratePeriod(
  player: Rating,
  opponents: readonly PeriodResult[],
  options: GlickoOptions = {},
): Rating {
  for (const o of opponents) checkScore(o.score);
  if (opponents.length === 0) return { ...player };
  // glicko2-lite's .d.ts calls the third tuple member `vol`, but index.js reads it as the score.
  const tuples = opponents.map((o): [number, number, number] => [o.rating, o.rd, o.score]);
  const next = glicko2(player.rating, player.rd, player.vol, tuples, {
    rating: GLICKO_START.rating,
    tau: options.tau ?? DEFAULT_TAU,
  });
  return { rating: next.rating, rd: next.rd, vol: next.vol, games: player.games + opponents.length };
}

/** One 2-player game, each side rated against the other's rating from before the game. */
export function rateTwo(
  a: Rating,
  b: Rating,
  scoreA: number,
  options: GlickoOptions = {},
): { a: Rating; b: Rating } {
  checkScore(scoreA);
  return {
    a: ratePeriod(a, [{ rating: b.rating, rd: b.rd, score: scoreA }], options),
    b: ratePeriod(b, [{ rating: a.rating, rd: a.rd, score: 1 - scoreA }], options),
  };
}

/** A game against a house bot: the bot is a fixed yardstick, so only the player moves. */
export function rateAgainstAnchor(
  player: Rating,
  anchor: { rating: number; rd: number },
  score: number,
  options: GlickoOptions = {},
): Rating {
  return ratePeriod(player, [{ rating: anchor.rating, rd: anchor.rd, score }], options);
}

/*
 * OpenSkill on the Glicko display scale. OpenSkill starts at μ = 25, σ = 25/3; Glicko at 1500 ± 350.
 * The affine map
 *     rating = 1500 + (μ − 25) · 42,    rd = σ · 42        (42 = 350 / (25/3))
 * sends a fresh OpenSkill player to exactly 1500 ± 350 and is inverted by
 *     μ = 25 + (rating − 1500) / 42,    σ = rd / 42.
 * A Rating stores the image of (μ, σ) and nothing else is needed to invert it; the round trip is
 * exact up to floating-point rounding (a few ulps, far below any displayed digit), so storing the
 * display values loses nothing the next game needs.
 */
const OPENSKILL_MU = 25;
const OPENSKILL_SIGMA = 25 / 3;
export const OPENSKILL_SCALE = GLICKO_START.rd / OPENSKILL_SIGMA;

export function toOpenSkill(r: { rating: number; rd: number }): { mu: number; sigma: number } {
  return {
    mu: OPENSKILL_MU + (r.rating - GLICKO_START.rating) / OPENSKILL_SCALE,
    sigma: r.rd / OPENSKILL_SCALE,
  };
}

export function fromOpenSkill(mu: number, sigma: number, games: number): Rating {
  return {
    rating: GLICKO_START.rating + (mu - OPENSKILL_MU) * OPENSKILL_SCALE,
    rd: sigma * OPENSKILL_SCALE,
    vol: 0,
    games,
  };
}

/**
 * One multiplayer game. `places[i]` is seat i's place (1 the winner; equal places tie). A seat with
 * `anchored[i]` is a house bot: its rating takes part in the update of the others but comes back
 * unchanged (games not counted), as a fixed yardstick should.
 */
export function rateMulti(
  ratings: readonly Rating[],
  places: readonly number[],
  anchored: readonly boolean[] = [],
): Rating[] {
  if (ratings.length < 2) throw new RangeError('a multiplayer game needs at least two seats');
  if (places.length !== ratings.length) throw new RangeError('one place per seat is needed');
  if (anchored.length > ratings.length) throw new RangeError('more anchor flags than seats');
  if (!places.every(Number.isFinite)) throw new RangeError('places must be finite numbers');
  const teams = ratings.map((r) => [toOpenSkill(r)]);
  const updated = openskillRate(teams, { rank: [...places] });
  return ratings.map((r, i) => {
    if (anchored[i] === true) return { ...r };
    const next = updated[i]?.[0];
    if (next === undefined) throw new Error('openskill returned fewer teams than it was given');
    return fromOpenSkill(next.mu, next.sigma, r.games + 1);
  });
}

export function isEstablished(r: Rating, minGames: number): boolean {
  return r.games >= minGames;
}

/** The rating's 95 % interval, as the tables show it (rating ± 1.96 RD). */
export function interval95(r: { rating: number; rd: number }): [low: number, high: number] {
  return [r.rating - 1.96 * r.rd, r.rating + 1.96 * r.rd];
}

/** A house bot at a fixed strength: the ladder's yardstick and the partner of last resort. */
export type HouseLevel = { id: string; game: LadderGame; label: string; rating: number; rd: number };

const ANCHOR_RD = 50;

function levels(
  game: LadderGame,
  rows: readonly [id: string, label: string, rating: number][],
): readonly HouseLevel[] {
  return rows.map(([id, label, rating]) => ({ id, game, label, rating, rd: ANCHOR_RD }));
}

/**
 * Anchors. Dame's are measured (bench/ladder-anchors.ts, 30 games a pair, a Bradley–Terry fit with
 * depth4 held at 1500, rounded; docs/benchmarks.md) but for the full engine, which is too slow to
 * calibrate there and sits above the 100 ms engine. Ostseeschach's the same way
 * (`--game ostseeschach`, 40 games a pair, engine-fast held at 1500: random 160, greedy 730, rounded
 * to 200 and 750; the full engine's 1900 is not measured), and Connect Four's (`--game connect4`,
 * 40 games a pair after two random plies, strong held at 1500: easy 700, perfect 1761 — the
 * solver cannot win every opening two random plies leave it; rounded 1750). Mia's and Catan's are
 * still educated guesses: the right order and plausible gaps, until their levels are measured. Ids are unique within a game (an entry id starts with
 * `e_`, so they never collide with one) and are what a record's `{ kind: 'house', level }` holds.
 * Each game's levels are sorted by rating.
 */
export const HOUSE_LEVELS: Readonly<Record<LadderGame, readonly HouseLevel[]>> = {
  dame: levels('dame', [
    ['random', 'Random', 100],
    ['greedy', 'Greedy', 600],
    ['depth2', 'Search depth 2', 1100],
    ['depth4', 'Search depth 4', 1500],
    ['engine-fast', 'Engine (100 ms per move)', 2000],
    ['engine', 'Engine (full move time)', 2300],
  ]),
  ostseeschach: levels('ostseeschach', [
    ['random', 'Random', 200],
    ['greedy', 'Greedy', 750],
    ['engine-fast', 'Engine (100 ms per move)', 1500],
    ['engine', 'Engine (full move time)', 1900],
  ]),
  connect4: levels('connect4', [
    ['easy', 'Easy', 700],
    ['strong', 'Strong', 1500],
    ['perfect', 'Perfect (solver)', 1750],
  ]),
  // Mia's bot adapts to its opponent, so one level stands for it.
  mia: levels('mia', [['house', 'House bot', 1500]]),
  catan: levels('catan', [
    ['random', 'Random', 900],
    ['weighted', 'Weighted', 1300],
    ['search', 'Search', 1700],
  ]),
};

export function houseLevel(game: LadderGame, id: string): HouseLevel | undefined {
  return HOUSE_LEVELS[game].find((l) => l.id === id);
}

/** The level closest in rating; on an exact tie the weaker one (a gentler game for the student). */
export function nearestHouseLevel(game: LadderGame, rating: number): HouseLevel {
  let best: HouseLevel | undefined;
  for (const level of HOUSE_LEVELS[game]) {
    if (best === undefined || Math.abs(level.rating - rating) < Math.abs(best.rating - rating)) best = level;
    else if (Math.abs(level.rating - rating) === Math.abs(best.rating - rating) && level.rating < best.rating)
      best = level;
  }
  if (best === undefined) throw new Error(`no house level for ${game}`);
  return best;
}
