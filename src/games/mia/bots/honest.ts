import type { Dice } from '../dice.js';
import type { MiaBot } from './types.js';

/** The reference "simple" bot: always rolls and always announces what it rolled. */
export class HonestBot implements MiaBot {
  readonly strategy = 'honest';

  onTurn(): 'roll' | 'see' {
    return 'roll';
  }

  onRolled(_ctx: unknown, rolled: Dice): Dice {
    return rolled;
  }
}
