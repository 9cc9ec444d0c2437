import { nextInt, type RngState } from '../../../core/rng.js';

/** A Fisher–Yates shuffle threaded through the state's RNG, so boards and decks replay from the seed. */
export function shuffled<T>(items: readonly T[], rng: RngState): [T[], RngState] {
  const out = items.slice();
  let r = rng;
  for (let i = out.length - 1; i > 0; i--) {
    let j: number;
    [j, r] = nextInt(r, 0, i);
    const tmp = out[i] as T;
    out[i] = out[j] as T;
    out[j] = tmp;
  }
  return [out, r];
}
