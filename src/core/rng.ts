import { xoroshiro128plus, xoroshiro128plusFromState } from 'pure-rand/generator/xoroshiro128plus';
import { uniformInt } from 'pure-rand/distribution/uniformInt';

/** The serializable state of a seeded generator: plain numbers, safe to store in a game state. */
export type RngState = readonly number[];

/** Turns any string or number into a 32-bit seed (FNV-1a), so seeds can be written as words. */
export function seedFrom(value: string | number): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value | 0;
  const text = String(value);
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}

export function rngState(seed: string | number): RngState {
  return xoroshiro128plus(seedFrom(seed)).getState();
}

/** Pure step: a uniform integer in [from, to] and the state after drawing it. */
export function nextInt(state: RngState, from: number, to: number): [number, RngState] {
  const gen = xoroshiro128plusFromState(state);
  const value = uniformInt(gen, from, to);
  return [value, gen.getState()];
}

/**
 * A mutable convenience wrapper for code that is not itself state (servers, bots, benchmarks).
 * Its state can be read and restored at any time, so what it drives stays replayable.
 */
export class Rng {
  private gen;

  private constructor(state: RngState) {
    this.gen = xoroshiro128plusFromState(state);
  }

  static seeded(seed: string | number): Rng {
    return new Rng(rngState(seed));
  }

  static fromState(state: RngState): Rng {
    return new Rng(state);
  }

  state(): RngState {
    return this.gen.getState();
  }

  /** Uniform integer in [from, to], both included. */
  int(from: number, to: number): number {
    return uniformInt(this.gen, from, to);
  }

  /** Uniform float in [0, 1). */
  float(): number {
    return uniformInt(this.gen, 0, 0x3fffffff) / 0x40000000;
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[this.int(0, items.length - 1)] as T;
  }

  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      const tmp = out[i] as T;
      out[i] = out[j] as T;
      out[j] = tmp;
    }
    return out;
  }
}
