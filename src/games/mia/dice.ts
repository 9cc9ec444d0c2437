/**
 * Two dice as Mia reads them: always high die first. The ranking, highest first:
 * Mia (2,1); doubles 6,6 … 1,1; then 6,5, 6,4, … 3,2, 3,1.
 */
export interface Dice {
  readonly high: number;
  readonly low: number;
}

export function makeDice(a: number, b: number): Dice {
  return a >= b ? { high: a, low: b } : { high: b, low: a };
}

export const isMia = (d: Dice): boolean => d.high === 2 && d.low === 1;
export const isDouble = (d: Dice): boolean => d.high === d.low;

/** The ordering key: 10·high + low, +100 for a double, +200 for Mia. */
export function rank(d: Dice): number {
  return 10 * d.high + d.low + (isDouble(d) ? 100 : 0) + (isMia(d) ? 200 : 0);
}

export const isHigher = (a: Dice, than: Dice): boolean => rank(a) > rank(than);

export const formatDice = (d: Dice): string => `${d.high},${d.low}`;

/** Strict: two digits 1–6 separated by a comma, in either order. Anything else is null. */
export function parseDice(text: string | undefined): Dice | null {
  if (text === undefined) return null;
  const m = /^([1-6]),([1-6])$/.exec(text);
  if (!m) return null;
  return makeDice(Number(m[1]), Number(m[2]));
}

/** All 21 distinct results, lowest first, with how many of the 36 rolls give each. */
export const ALL_DICE: readonly { dice: Dice; ways: number }[] = (() => {
  const out: { dice: Dice; ways: number }[] = [];
  for (let high = 1; high <= 6; high++)
    for (let low = 1; low <= high; low++) {
      const dice = { high, low };
      out.push({ dice, ways: high === low ? 1 : 2 });
    }
  return out.sort((a, b) => rank(a.dice) - rank(b.dice));
})();

/** Probability that one fair roll beats `d` strictly. */
export function chanceToBeat(d: Dice | null): number {
  if (d === null) return 1;
  let ways = 0;
  for (const e of ALL_DICE) if (isHigher(e.dice, d)) ways += e.ways;
  return ways / 36;
}

/** The lowest result strictly higher than `d` (null if `d` is Mia). */
export function nextHigher(d: Dice | null): Dice | null {
  for (const e of ALL_DICE) if (d === null || isHigher(e.dice, d)) return e.dice;
  return null;
}
