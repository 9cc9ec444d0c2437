import type { ClientView } from '../client-view.js';
import type { Action, LegalActions } from '../rules/index.js';

/**
 * The bot interface every strategy implements and the driver (driver.ts), the arena and the house
 * bots call: one action for the current decision, from what the client knows.
 */

export interface DecisionContext {
  readonly view: ClientView;
  /** Legal actions as far as the view tells (the rules' `legalActions` on what the client knows). */
  readonly legal: LegalActions;
  /** Actions the server refused since the last OK. */
  readonly refused: readonly Action[];
}

/** A bot: one action for the current decision, or null (pass; when asked to act, the driver falls back). */
export interface CatanBot {
  readonly strategy: string;
  decide(ctx: DecisionContext): Action | null;
}
