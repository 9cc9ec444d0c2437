import { ALL_DICE, chanceToBeat, type Dice } from '../dice.js';

/**
 * The arithmetic the thinking bots share. Dice are handled as their index in ALL_DICE (0 = 3,1 …
 * 19 = 6,6, 20 = Mia), so "higher" is simply a larger index and every table is a small array.
 */

export const DICE_COUNT = ALL_DICE.length;
export const MIA_INDEX = DICE_COUNT - 1;
/** 6,6: the highest claim that is not Mia. */
export const TOP_INDEX = DICE_COUNT - 2;
/** "No announcement yet" where a previous claim is expected. */
export const NONE = -1;

const INDEX_BY_KEY = new Int8Array(70).fill(-1);
ALL_DICE.forEach((e, i) => (INDEX_BY_KEY[10 * e.dice.high + e.dice.low] = i));

export function diceIndex(d: Dice): number {
  const i = INDEX_BY_KEY[10 * d.high + d.low];
  if (i === undefined || i < 0 || d.low > d.high) throw new RangeError(`not a Mia result: ${d.high},${d.low}`);
  return i;
}

export function diceAt(i: number): Dice {
  const e = ALL_DICE[i];
  if (e === undefined) throw new RangeError(`no dice at index ${i}`);
  return e.dice;
}

/** Probability of each result on one fair roll. */
export const ROLL_PROBABILITY: readonly number[] = ALL_DICE.map((e) => e.ways / 36);

/** Probability that one fair roll beats each result strictly. */
export const BEAT_PROBABILITY: readonly number[] = ALL_DICE.map((e) => chanceToBeat(e.dice));

export const MIA_PROBABILITY = ROLL_PROBABILITY[MIA_INDEX] ?? 0;

export const logit = (p: number): number => Math.log(p / (1 - p));
export const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));
export const clampProbability = (p: number): number => Math.min(0.995, Math.max(0.005, p));

/** The index of the last announcement of a round, and of the one before it. */
export function lastClaims(announcements: readonly { dice: Dice }[]): { claim: number; previous: number } {
  const last = announcements[announcements.length - 1];
  const before = announcements[announcements.length - 2];
  return { claim: last ? diceIndex(last.dice) : NONE, previous: before ? diceIndex(before.dice) : NONE };
}

/** The player after `name` in turn order (null when `name` is not in the list). */
export function nextPlayer(players: readonly string[], name: string): string | null {
  const i = players.indexOf(name);
  if (i < 0) return null;
  return players[(i + 1) % players.length] ?? null;
}
