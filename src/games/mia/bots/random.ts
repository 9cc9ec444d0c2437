import { Rng } from '../../../core/rng.js';
import { ALL_DICE, type Dice } from '../dice.js';
import type { MiaBot } from './types.js';

/** The reference "random" bot: a coin decides ROLL or SEE, and the claim is any of the 21 results. */
export class RandomBot implements MiaBot {
  readonly strategy = 'random';
  private readonly rng: Rng;

  constructor(seed: string | number) {
    this.rng = Rng.seeded(seed);
  }

  onTurn(): 'roll' | 'see' {
    return this.rng.chance(0.5) ? 'roll' : 'see';
  }

  onRolled(): Dice {
    return this.rng.pick(ALL_DICE).dice;
  }
}
