import { boardTables } from './board.js';
import { gain, idOf, pay, setPlayer, type Draft } from './draft.js';
import type { RuleErrorCode } from './errors.js';
import { add, compact, count, covers, subtract, total, wellFormed } from './resources.js';
import { seatOf, type State } from './state.js';
import { RESOURCES, type Resource, type ResourceCounts } from './types.js';

/** The seat's bank rate per resource: 2 at that resource's harbour, else 3 at a 3:1 harbour, else 4. */
export function seaRates(s: Pick<State, 'board' | 'buildings'>, seat: number): Record<Resource, number> {
  const { harbourMask, harbourCorners } = boardTables(s.board);
  let mask = 0;
  for (const c of harbourCorners) {
    const b = s.buildings[c]!;
    if (b !== -1 && b >> 1 === seat) mask |= harbourMask[c]!;
  }
  const generic = mask & (1 << 5) ? 3 : 4;
  const out = {} as Record<Resource, number>;
  RESOURCES.forEach((r, i) => (out[r] = mask & (1 << i) ? 2 : generic));
  return out;
}

/** Both sides non-empty, no type on both sides. */
function tradeShapeOk(offer: ResourceCounts, request: ResourceCounts): boolean {
  if (total(offer) === 0 || total(request) === 0) return false;
  return RESOURCES.every((r) => count(offer, r) === 0 || count(request, r) === 0);
}

/** Seehandel: each offered type a multiple of its rate, Σ offer/rate cards asked for; `Kosten` before `Ertrag`. */
export function seaTrade(d: Draft, seat: number, offer: ResourceCounts, request: ResourceCounts): RuleErrorCode | null {
  if (!wellFormed(offer) || !wellFormed(request)) return 'invalid-message';
  if (!tradeShapeOk(offer, request)) return 'invalid-trade';
  const rates = seaRates(d, seat);
  let worth = 0;
  for (const r of RESOURCES) {
    const k = count(offer, r);
    if (k % rates[r] !== 0) return 'invalid-trade';
    worth += k / rates[r];
  }
  if (worth !== total(request)) return 'invalid-trade';
  if (!covers(d.players[seat]!.resources, offer)) return 'not-enough-resources';
  if (!covers(d.bank, request)) return 'bank-short';
  pay(d, seat, offer, 'seaTrade');
  gain(d, seat, request, 'seaTrade');
  return null;
}

export function offerTrade(d: Draft, seat: number, offer: ResourceCounts, request: ResourceCounts): RuleErrorCode | null {
  if (!wellFormed(offer) || !wellFormed(request)) return 'invalid-message';
  if (!tradeShapeOk(offer, request)) return 'invalid-trade';
  if (!covers(d.players[seat]!.resources, offer)) return 'not-enough-resources';
  const id = d.nextTradeId;
  d.nextTradeId = id + 1;
  d.trades = [...d.trades, { id, seat, offer: compact(offer), request: compact(request), acceptedBy: [] }];
  d.events.push({ type: 'tradeOffered', player: idOf(d, seat), tradeId: id, offer: compact(offer), request: compact(request) });
  return null;
}

/** Anyone but the offerer, once per offer, holding what the offerer asks for. */
export function acceptTrade(d: Draft, seat: number, tradeId: number): RuleErrorCode | null {
  const i = d.trades.findIndex((t) => t.id === tradeId);
  const t = d.trades[i];
  if (!t) return 'trade-not-found';
  if (t.seat === seat || t.acceptedBy.includes(seat)) return 'invalid-trade';
  if (!covers(d.players[seat]!.resources, t.request)) return 'not-enough-resources';
  d.trades = d.trades.map((x, k) => (k === i ? { ...x, acceptedBy: [...x.acceptedBy, seat] } : x));
  d.events.push({ type: 'tradeAccepted', player: idOf(d, seat), tradeId });
  return null;
}

/**
 * The offerer picks one acceptor; both hands are re-checked. `Handel ausgefuehrt`, then the
 * offerer's `Kosten` and `Ertrag`, then the partner's. The other acceptances lapse with the offer.
 */
export function completeTrade(d: Draft, seat: number, tradeId: number, partnerId: number): RuleErrorCode | null {
  const t = d.trades.find((x) => x.id === tradeId && x.seat === seat);
  if (!t) return 'trade-not-found';
  const partner = seatOf(d, partnerId);
  if (partner < 0 || !t.acceptedBy.includes(partner)) return 'invalid-trade';
  if (!covers(d.players[seat]!.resources, t.offer) || !covers(d.players[partner]!.resources, t.request)) return 'not-enough-resources';
  d.trades = d.trades.filter((x) => x !== t);
  d.events.push({ type: 'tradeCompleted', tradeId, player: idOf(d, seat), partner: partnerId });
  const offerer = d.players[seat]!;
  const other = d.players[partner]!;
  setPlayer(d, seat, { resources: add(subtract(offerer.resources, t.offer), t.request) });
  setPlayer(d, partner, { resources: add(subtract(other.resources, t.request), t.offer) });
  d.events.push(
    { type: 'paid', player: offerer.id, resources: compact(t.offer), cause: 'trade' },
    { type: 'gained', player: offerer.id, resources: compact(t.request), cause: 'trade' },
    { type: 'paid', player: other.id, resources: compact(t.request), cause: 'trade' },
    { type: 'gained', player: other.id, resources: compact(t.offer), cause: 'trade' },
  );
  return null;
}

/** From the offerer: withdraws the offer; from anyone else: withdraws their acceptance or declines. */
export function cancelTrade(d: Draft, seat: number, tradeId: number): RuleErrorCode | null {
  const t = d.trades.find((x) => x.id === tradeId);
  if (!t) return 'trade-not-found';
  d.trades =
    t.seat === seat
      ? d.trades.filter((x) => x !== t)
      : d.trades.map((x) => (x === t ? { ...x, acceptedBy: x.acceptedBy.filter((a) => a !== seat) } : x));
  d.events.push({ type: 'tradeCancelled', player: idOf(d, seat), tradeId });
  return null;
}
