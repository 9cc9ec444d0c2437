import type { Rng } from '../../../core/rng.js';
import type { Move } from '../board.js';
import { terminalScore } from '../engine/evaluate.js';
import type { State } from '../rules.js';
import { pickBest, simpleEvaluate } from './depth2.js';

/**
 * One ply and no reply: the move whose position scores best by depth2's simple evaluation (ambers
 * first, then pieces and how far the light ones came), at random among equals. It takes every
 * amber it sees and walks into every capture, which is what the ladder's "Greedy" house level
 * means (between random and depth2; not one of `BOT_NAMES`).
 */
export function greedyBot(state: State, _budgetMs: number, rng: Rng): Move {
  // The score is the opponent's (its turn now): negated, it is ours.
  return pickBest(state, rng, (p) => -(p.isOver() ? terminalScore(p, 1) : simpleEvaluate(p)));
}
