import type { State } from '../rules/state.js';
import { RESOURCES, type Resource, type Resources } from '../rules/types.js';

/** Hand helpers of the search bot. */

/** The state with the seat's hand replaced; the others' hands and the bank stay (as in a domestic trade, or for valuing the own hand alone). */
export const withHand = (s: State, seat: number, hand: Resources): State => ({
  ...s,
  players: s.players.map((p, i) => (i === seat ? { ...p, resources: hand } : p)),
});

/** Every way to give up `count` cards of `hand`. */
export function discards(hand: Resources, count: number): Partial<Record<Resource, number>>[] {
  const out: Partial<Record<Resource, number>>[] = [];
  const pick = [0, 0, 0, 0, 0];
  const rec = (i: number, left: number): void => {
    if (i === RESOURCES.length) {
      if (left > 0) return;
      const cards: Partial<Record<Resource, number>> = {};
      pick.forEach((k, j) => {
        if (k > 0) cards[RESOURCES[j]!] = k;
      });
      out.push(cards);
      return;
    }
    for (let k = Math.min(left, hand[RESOURCES[i]!]); k >= 0; k--) {
      pick[i] = k;
      rec(i + 1, left - k);
    }
    pick[i] = 0;
  };
  rec(0, count);
  return out;
}
