import { Rng } from '../../../core/rng.js';
import type { Dice } from '../dice.js';
import { ClaimBelief } from './claims.js';
import { chooseClaim, decideTurn, type Outlook } from './decide.js';
import { DEFAULT_SEE, defaultContinuation } from './responses.js';
import type { MiaBot, RoundContext } from './types.js';

/**
 * Knows the exact odds of the dice and assumes every opponent is a typical stranger (the prior of
 * ClaimBelief, DEFAULT_SEE): it SEEs when the claim is less likely true than rolling is to end
 * well, tells the truth when its roll beats the claim, bluffs as low as the odds advise otherwise,
 * and claims Mia only when it rolled Mia.
 */
export class ProbabilisticBot implements MiaBot {
  readonly strategy = 'probabilistic';
  private readonly rng: Rng;
  private readonly stranger = new ClaimBelief();
  private readonly outlook: Outlook = {
    truth: (_announcer, claim, previous) => this.stranger.truthProbability(claim, previous),
    see: (_responder, claim) => DEFAULT_SEE[claim] ?? 0.5,
    continuation: defaultContinuation,
  };

  constructor(seed: string | number) {
    this.rng = Rng.seeded(seed);
  }

  onTurn(ctx: RoundContext): 'roll' | 'see' {
    return decideTurn(ctx, this.outlook).action;
  }

  onRolled(ctx: RoundContext, rolled: Dice): Dice {
    return chooseClaim(ctx, rolled, this.outlook, this.rng);
  }
}
