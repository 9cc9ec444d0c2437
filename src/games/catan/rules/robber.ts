import { nextInt } from '../../../core/rng.js';
import { hand, idOf, pay, setPlayer, setAt, type Draft } from './draft.js';
import type { RuleErrorCode } from './errors.js';
import { HEX_CORNERS, hexLetter } from './geometry.js';
import { covers, total, wellFormed } from './resources.js';
import { seatOf } from './state.js';
import { RESOURCES, type ResourceCounts } from './types.js';

/** `Karten abgeben`: exactly the amount owed, from cards held; the last discard hands the robber to the roller. */
export function discard(d: Draft, seat: number, cards: ResourceCounts): RuleErrorCode | null {
  if (!wellFormed(cards)) return 'invalid-message';
  if (total(cards) !== d.discards[seat]) return 'wrong-card-count';
  if (!covers(d.players[seat]!.resources, cards)) return 'not-enough-resources';
  pay(d, seat, cards, 'discard');
  d.discards = setAt(d.discards, seat, 0);
  setPlayer(d, seat, { status: 'Warten' });
  if (d.discards.every((k) => k === 0)) {
    d.phase = 'robber';
    setPlayer(d, d.turn, { status: 'Raeuber versetzen' });
  }
  return null;
}

/** Opponents of `seat` with a building on one of the hex's corners, in seat order. */
export function robberVictims(d: { readonly buildings: readonly number[] }, seat: number, hex: number): number[] {
  const out: number[] = [];
  for (const c of HEX_CORNERS[hex]!) {
    const b = d.buildings[c]!;
    if (b !== -1 && b >> 1 !== seat && !out.includes(b >> 1)) out.push(b >> 1);
  }
  return out.sort((a, b) => a - b);
}

/** Validates a robber move (7 or Ritter) without changing anything; returns the victim's seat or −1. */
export function checkRobberMove(d: Draft, seat: number, hex: number, victim: number | undefined): RuleErrorCode | number {
  if (hex < 0) return 'invalid-place';
  if (hex === d.robber) return 'robber-not-moved';
  const candidates = robberVictims(d, seat, hex);
  const withCards = candidates.filter((v) => total(d.players[v]!.resources) > 0);
  if (victim === undefined) return withCards.length > 0 ? 'invalid-target' : -1;
  const v = seatOf(d, victim);
  if (v < 0 || !candidates.includes(v)) return 'invalid-target';
  if (withCards.length > 0 && !withCards.includes(v)) return 'invalid-target';
  return v;
}

/**
 * Moves the robber (already checked) and steals one uniformly random card from the victim:
 * `Raeuber versetzt`, then the victim's `Kosten` and the thief's `Ertrag`.
 */
export function moveRobber(d: Draft, seat: number, hex: number, victimSeat: number): void {
  d.robber = hex;
  const victimId = victimSeat >= 0 ? idOf(d, victimSeat) : undefined;
  d.events.push(
    victimId === undefined
      ? { type: 'robberMoved', player: idOf(d, seat), hex: hexLetter(hex) }
      : { type: 'robberMoved', player: idOf(d, seat), hex: hexLetter(hex), victim: victimId },
  );
  if (victimSeat < 0) return;
  const held = d.players[victimSeat]!.resources;
  const n = total(held);
  if (n === 0) return;
  let pick: number;
  [pick, d.rng] = nextInt(d.rng, 0, n - 1);
  for (const r of RESOURCES) {
    if (pick < held[r]) {
      hand(d, victimSeat, seat, { [r]: 1 }, 'steal');
      return;
    }
    pick -= held[r];
  }
}
