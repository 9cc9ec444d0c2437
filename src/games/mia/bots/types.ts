import type { Dice } from '../dice.js';

/**
 * What a Mia bot knows when it has to act: exactly what a network client can reconstruct from the
 * public messages of the current round (ROUND STARTED, ANNOUNCED), nothing more.
 */
export interface RoundContext {
  /** The bot's own name. */
  readonly me: string;
  readonly round: number;
  /** Participants in turn order, as ROUND STARTED lists them. */
  readonly players: readonly string[];
  /** This round's announcements so far, in order. */
  readonly announcements: readonly { readonly name: string; readonly dice: Dice }[];
}

/** Public facts, in wire order, for bots that learn about their opponents. */
export type ObservedEvent =
  | { readonly type: 'roundStarted'; readonly round: number; readonly players: readonly string[] }
  | { readonly type: 'announced'; readonly name: string; readonly dice: Dice }
  | { readonly type: 'wantsToSee'; readonly name: string }
  /** The revealed truth of the latest roll (after a SEE, or after Mia was announced). */
  | { readonly type: 'actualDice'; readonly dice: Dice }
  | { readonly type: 'lost'; readonly names: readonly string[]; readonly reason: string };

export interface MiaBot {
  readonly strategy: string;
  /** Answer to YOUR TURN. */
  onTurn(ctx: RoundContext): 'roll' | 'see';
  /** Answer to ROLLED: the claim to announce. `rolled` is known to this bot alone. */
  onRolled(ctx: RoundContext, rolled: Dice): Dice;
  /** Every public event of every round, including the bot's own announcements. */
  observe?(event: ObservedEvent): void;
}

export type MiaStrategy = 'random' | 'honest' | 'probabilistic' | 'adaptive';

export const MIA_STRATEGIES: readonly MiaStrategy[] = ['random', 'honest', 'probabilistic', 'adaptive'];
