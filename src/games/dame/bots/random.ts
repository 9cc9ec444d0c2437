import { legalMoves } from '../rules.js';
import type { DameBot } from './types.js';

/** Any legal single move, uniformly. */
export const randomBot: DameBot = (state, _budgetMs, rng) => rng.pick(legalMoves(state));
