/**
 * Who plays whom on the ladder (2-player games), decided from the list of waiting clients and the
 * time alone: pure, deterministic, no clock of its own. The ladder calls `pairNow` whenever the
 * waiting list changes and on a tick; whatever is neither paired nor due for a house bot simply
 * keeps waiting until the next call.
 */

export interface Waiter {
  ticket: string;
  entryId: string;
  rating: number;
  rd: number;
  since: number;
  /** the seat the client asked for: 0, 1, or null (any) */
  seat: 0 | 1 | null;
  /** the last opponent's entryId or house level id */
  lastOpponent: string | null;
  /** how often this entry had seat 0 vs 1 in the ladder (colour balance) */
  seats: [number, number];
  host: string;
}

export interface PairingOptions {
  /** rating window at 0 wait; widens with waiting */
  window: number;
  widenPerSecond: number;
  houseAfterMs: number;
  sameHostAllowed: boolean;
}

export interface Pair {
  /** The longer waiter of the two. */
  a: Waiter;
  b: Waiter;
  seatOfA: 0 | 1;
}

export interface HouseGame {
  waiter: Waiter;
  seat: 0 | 1;
}

export interface Pairing {
  pairs: Pair[];
  house: HouseGame[];
}

export function waitedMs(w: Waiter, now: number): number {
  return Math.max(0, now - w.since);
}

/** How far from its own rating a waiter accepts an opponent now. */
export function windowOf(w: Waiter, now: number, options: PairingOptions): number {
  return options.window + (options.widenPerSecond * waitedMs(w, now)) / 1000;
}

/** Longest waiter first; the ticket only breaks ties, by code unit so that no locale can reorder it. */
export function byWait(x: Waiter, y: Waiter): number {
  if (x.since !== y.since) return x.since - y.since;
  return x.ticket < y.ticket ? -1 : x.ticket > y.ticket ? 1 : 0;
}

export function isRematch(x: Waiter, y: Waiter): boolean {
  return x.lastOpponent === y.entryId || y.lastOpponent === x.entryId;
}

/** Positive: more games on seat 0 than on seat 1. */
function seatBalance(w: Waiter): number {
  return w.seats[0] - w.seats[1];
}

/** Both asked for the same fixed seat: they cannot play each other. */
export function seatsClash(x: Waiter, y: Waiter): boolean {
  return x.seat !== null && x.seat === y.seat;
}

/**
 * The seat of `a` (the longer waiter) against `b`, whose requests do not clash. A request is
 * binding; otherwise the side that has had seat 0 more often than seat 1 (by difference, so that a
 * long-standing entry is not always sent to seat 1) takes seat 1, and on equal balance the longer
 * waiter takes seat 0.
 */
export function seatOfFirst(a: Waiter, b: Waiter): 0 | 1 {
  if (a.seat !== null) return a.seat;
  if (b.seat !== null) return b.seat === 0 ? 1 : 0;
  return seatBalance(a) > seatBalance(b) ? 1 : 0;
}

/** The seat a waiter gets against a house bot: the one asked for, else the balancing one (0 on a tie). */
export function houseSeat(w: Waiter): 0 | 1 {
  if (w.seat !== null) return w.seat;
  return seatBalance(w) > 0 ? 1 : 0;
}

/**
 * Whether two waiters may meet now. `rematchAllowed` lifts only the no-rematch rule; see pairNow
 * for when it is lifted.
 */
export function canPair(
  x: Waiter,
  y: Waiter,
  now: number,
  options: PairingOptions,
  rematchAllowed = false,
): boolean {
  if (x.entryId === y.entryId) return false;
  if (!options.sameHostAllowed && x.host === y.host) return false;
  if (seatsClash(x, y)) return false;
  if (!rematchAllowed && isRematch(x, y)) return false;
  return Math.abs(x.rating - y.rating) <= Math.max(windowOf(x, now, options), windowOf(y, now, options));
}

/**
 * The longer of the two has waited more than half the house wait: nobody else came in that time,
 * and a rematch is then better than a bot. (Asking both to have waited that long sent the first to
 * arrive to the house bot whenever the other came back from their game later: in a small course
 * two students on the ladder would then never play each other twice.)
 */
export function rematchDue(x: Waiter, y: Waiter, now: number, options: PairingOptions): boolean {
  return Math.max(waitedMs(x, now), waitedMs(y, now)) > options.houseAfterMs / 2;
}

/**
 * Pairs whom it can now, sends whoever has waited `houseAfterMs` without a partner to a house bot,
 * and leaves the rest waiting.
 *
 * Greedy, longest waiter first: each unpaired waiter in turn takes the admissible unpaired partner
 * nearest in rating (ties: the longer waiter, then the ticket). Serving the longest waiter first
 * is what keeps waits short and house games rare; the overall rating gaps may come out a little
 * larger than a global minimum-gap matching would give, which the window bounds anyway.
 *
 * Rematches: two entries that have just met are not paired again while anyone else could be found.
 * A rematch is the last resort before the house bot: a second pass, after every other pair has
 * been made, pairs two such waiters once the longer of them has waited more than houseAfterMs / 2
 * (a human opponent is the point of the ladder, and the half wait gives a third entry the chance
 * to arrive).
 *
 * Same input, same output: the waiting list is sorted first, so its order does not matter.
 */
export function pairNow(waiting: readonly Waiter[], now: number, options: PairingOptions): Pairing {
  const tickets = new Set(waiting.map((w) => w.ticket));
  if (tickets.size !== waiting.length) throw new RangeError('two waiters share a ticket');
  const queue = [...waiting].sort(byWait);
  const paired = new Set<string>();
  const pairs: Pair[] = [];

  const pass = (admissible: (x: Waiter, y: Waiter) => boolean): void => {
    for (const a of queue) {
      if (paired.has(a.ticket)) continue;
      let best: Waiter | undefined;
      for (const b of queue) {
        if (b === a || paired.has(b.ticket) || !admissible(a, b)) continue;
        // queue order makes the first of equal gaps the longer waiter
        if (best === undefined || Math.abs(a.rating - b.rating) < Math.abs(a.rating - best.rating)) best = b;
      }
      if (best === undefined) continue;
      paired.add(a.ticket).add(best.ticket);
      // `best` comes after `a` in the queue: an unpaired waiter before `a` found no partner in this
      // pass, and admissibility is symmetric, so it could not have been `a`'s either.
      pairs.push({ a, b: best, seatOfA: seatOfFirst(a, best) });
    }
  };

  pass((x, y) => canPair(x, y, now, options));
  pass((x, y) => isRematch(x, y) && rematchDue(x, y, now, options) && canPair(x, y, now, options, true));

  const house = queue
    .filter((w) => !paired.has(w.ticket) && waitedMs(w, now) >= options.houseAfterMs)
    .map((waiter) => ({ waiter, seat: houseSeat(waiter) }));
  return { pairs, house };
}
