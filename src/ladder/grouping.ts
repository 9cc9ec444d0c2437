import { byWait, waitedMs, windowOf, type PairingOptions, type Waiter } from './pairing.js';

/**
 * Who plays whom on the ladder of a game for 3–4 players (Catan), decided from the waiting list
 * and the time alone, like `pairNow` for two. Greedy, longest waiter first: each waiter not yet
 * placed takes the admissible waiters nearest to it in rating, up to `max` in all; a group of at
 * least `min` plays at once. A waiter who has waited `houseAfterMs` and has no such group plays
 * with whoever else waits (nearest in rating, any window) and house seats up to `min`.
 */

export interface GroupSize {
  min: number;
  max: number;
}

export interface Group {
  /** The longest waiter first, then by rating gap to it. */
  members: Waiter[];
  /** House seats to add (0 when the group is all students). */
  house: number;
}

/** Whether x and y may sit at one table now (other codes, other hosts if asked, within the windows). */
export function canGroup(x: Waiter, y: Waiter, now: number, options: PairingOptions, anyWindow = false): boolean {
  if (x.entryId === y.entryId) return false;
  if (!options.sameHostAllowed && x.host === y.host) return false;
  if (anyWindow) return true;
  return Math.abs(x.rating - y.rating) <= Math.max(windowOf(x, now, options), windowOf(y, now, options));
}

export function groupNow(waiting: readonly Waiter[], now: number, options: PairingOptions, size: GroupSize): Group[] {
  if (size.min < 2 || size.max < size.min) throw new RangeError('a group needs 2 ≤ min ≤ max seats');
  const tickets = new Set(waiting.map((w) => w.ticket));
  if (tickets.size !== waiting.length) throw new RangeError('two waiters share a ticket');
  const queue = [...waiting].sort(byWait);
  const placed = new Set<string>();
  const groups: Group[] = [];
  for (const a of queue) {
    if (placed.has(a.ticket)) continue;
    const due = waitedMs(a, now) >= options.houseAfterMs;
    const pick = (anyWindow: boolean): Waiter[] => {
      const members = [a];
      const others = queue
        .filter((b) => b !== a && !placed.has(b.ticket))
        .sort((x, y) => Math.abs(a.rating - x.rating) - Math.abs(a.rating - y.rating) || byWait(x, y));
      for (const b of others) {
        if (members.length >= size.max) break;
        // Every two at the table must fit (no code twice, hosts as asked, ratings within the windows).
        if (members.every((m) => canGroup(m, b, now, options, anyWindow))) members.push(b);
      }
      return members;
    };
    let members = pick(false);
    if (members.length < size.min && due) members = pick(true).slice(0, size.min);
    if (members.length >= size.min || due) {
      for (const m of members) placed.add(m.ticket);
      groups.push({ members, house: Math.max(0, size.min - members.length) });
    }
  }
  return groups;
}
