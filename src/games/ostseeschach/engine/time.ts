/**
 * Time management. The official soft limit is 2000 ms from the `moveRequest` (spec §3.7); the
 * caller passes the budget it grants the engine (e.g. 1700 ms, leaving room for I/O). The search
 * stops starting iterations at `softDeadline` and aborts at `deadline`. The margin below the
 * budget covers the abort check interval, unwinding, and stalls of a loaded machine: on the shared
 * 2-core bench machine (load 8–9) one check came 420 ms late.
 */
export interface TimePlan {
  readonly softDeadline: number;
  readonly deadline: number;
}

export const OFFICIAL_SOFT_LIMIT_MS = 2000;

/** Fraction of the usable time after which no new iteration starts (one costs ~3–5× the last). */
export const SOFT_FRACTION = 0.4;

export function planTime(start: number, budgetMs: number): TimePlan {
  const budget = Math.max(1, budgetMs);
  const margin = Math.min(250, Math.max(2, budget * 0.15));
  const usable = budget - margin;
  return { deadline: start + usable, softDeadline: start + usable * SOFT_FRACTION };
}
