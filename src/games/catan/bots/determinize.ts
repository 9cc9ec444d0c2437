import { rngState, type Rng } from '../../../core/rng.js';
import { stateFromView } from '../client-legal.js';
import type { ClientView } from '../client-view.js';
import { roadLength } from '../rules/longest-road.js';
import { NO_DEV_CARDS, devTotal } from '../rules/resources.js';
import { BANK_START, type Player, type State } from '../rules/state.js';
import { DEV_CARDS, RESOURCES, type DevCard, type Resource, type Resources } from '../rules/types.js';
import { production } from './features.js';

/**
 * What a client knows, as a rules state with the unknown parts still open, and complete states
 * drawn from it ("determinizations") for the search to play on. Only the view is read. Unknown
 * are the others' hands by type, their development cards, the deck's order and the dice; known
 * are every count (cards, cards in the deck, unplayed cards, knights), the own hand and cards, and
 * what a trade offer implies (an offerer holds what it offers, an acceptor what was asked).
 */

export interface Knowledge {
  /** The stand-in state of the view (others' hands and cards are placeholders of the right size). */
  readonly base: State;
  readonly seat: number;
  /** The development cards whose whereabouts are unknown: the others' hands and the deck. */
  readonly pool: readonly DevCard[];
  /** Cards each seat is known to hold (from offers and acceptances). */
  readonly forced: readonly Resources[];
}

const ZERO: Resources = { Holz: 0, Lehm: 0, Wolle: 0, Getreide: 0, Erz: 0 };

export function knowledge(view: ClientView): Knowledge | null {
  const stand = stateFromView(view);
  const seat = view.players.findIndex((p) => p.id === view.me);
  if (!stand || seat < 0) return null;
  const mine = view.players[seat]!;
  const own = mine.devHand ?? NO_DEV_CARDS;
  // The own Statusupdate counts hidden Siegpunkt cards in the points; the rules keep them apart.
  const players: Player[] = stand.players.map((p, i) => ({
    ...p,
    points: i === seat ? p.points - own.Siegpunkt : p.points,
    devCards: i === seat ? own : p.devCards,
    roadLength: roadLength(stand.roads, stand.buildings, i),
  }));
  const placed = stand.buildings.filter((b) => b !== -1).length;
  const setupStep = stand.phase === 'setupSettlement' ? placed : stand.phase === 'setupRoad' ? placed - 1 : stand.setupStep;
  const discards = stand.discards.map((k, i) => (i === seat ? k : players[i]!.status === 'Karten wegen Raeuber abgeben' ? Math.floor(view.players[i]!.cards / 2) : 0));
  const base: State = { ...stand, players, setupStep, discards };

  // The unknown cards: the deck minus the own, the played knights, and as many other played cards
  // as the counts say were played (which ones is not in the view: taken from the progress cards).
  const left: Record<DevCard, number> = { Ritter: 14, Siegpunkt: 5, Strassenbau: 2, Monopol: 2, Erfindung: 2 };
  for (const c of DEV_CARDS) left[c] -= own[c];
  left.Ritter -= view.players.reduce((n, p) => n + p.knights, 0);
  const unknown = view.deckCards + view.players.reduce((n, p, i) => (i === seat ? n : n + p.devCards), 0);
  let extra = DEV_CARDS.reduce((n, c) => n + Math.max(0, left[c]), 0) - unknown;
  for (const c of ['Strassenbau', 'Monopol', 'Erfindung', 'Ritter', 'Siegpunkt'] as const) {
    while (extra > 0 && left[c] > 0) {
      left[c]--;
      extra--;
    }
  }
  const pool = DEV_CARDS.flatMap((c) => Array<DevCard>(Math.max(0, left[c])).fill(c));
  while (pool.length < unknown) pool.push('Ritter');

  const forced = view.players.map((): Record<Resource, number> => ({ ...ZERO }));
  const seatOf = new Map(view.players.map((p, i) => [p.id, i]));
  for (const t of view.trades) {
    const offerer = seatOf.get(t.player);
    if (offerer !== undefined) for (const r of RESOURCES) forced[offerer]![r] = Math.max(forced[offerer]![r], t.offer[r] ?? 0);
    for (const a of t.acceptedBy) {
      const s = seatOf.get(a);
      if (s !== undefined) for (const r of RESOURCES) forced[s]![r] = Math.max(forced[s]![r], t.request[r] ?? 0);
    }
  }
  return { base, seat, pool, forced };
}

/**
 * One complete state consistent with the knowledge: the others' hands drawn card by card, each type
 * in proportion to what the player produces (plus a prior), within what the bank can have given
 * out; their development cards and the deck a shuffle of the unknown cards; fresh dice.
 */
export function determinize(k: Knowledge, rng: Rng): State {
  const s = k.base;
  const n = s.players.length;
  const avail: Record<Resource, number> = { ...BANK_START };
  const mine = s.players[k.seat]!.resources;
  for (const r of RESOURCES) avail[r] -= mine[r];
  const hands: Record<Resource, number>[] = s.players.map(() => ({ ...ZERO }));
  hands[k.seat] = { ...mine };
  const order = Array.from({ length: n }, (_, i) => i).filter((i) => i !== k.seat);
  for (const i of order) {
    let need = totalOf(s.players[i]!.resources);
    for (const r of RESOURCES) {
      const f = Math.min(k.forced[i]![r], avail[r], need);
      hands[i]![r] += f;
      avail[r] -= f;
      need -= f;
    }
    const prod = production(s, i, false);
    const weight = prod.map((p) => p + 1.5);
    for (; need > 0; need--) {
      let sum = 0;
      for (let r = 0; r < 5; r++) if (avail[RESOURCES[r]!] > 0) sum += weight[r]!;
      if (sum === 0) break;
      let x = rng.float() * sum;
      let pick = 0;
      for (let r = 0; r < 5; r++) {
        if (avail[RESOURCES[r]!] <= 0) continue;
        pick = r;
        x -= weight[r]!;
        if (x < 0) break;
      }
      const res = RESOURCES[pick]!;
      hands[i]![res] += 1;
      avail[res] -= 1;
    }
  }
  const cards = rng.shuffle(k.pool);
  let next = 0;
  const players = s.players.map((p, i): Player => {
    if (i === k.seat) return p;
    const dev: Record<DevCard, number> = { ...NO_DEV_CARDS };
    const count = devTotal(p.devCards);
    for (let j = 0; j < count && next < cards.length; j++) dev[cards[next++]!] += 1;
    return { ...p, resources: hands[i]!, devCards: dev, boughtThisTurn: NO_DEV_CARDS };
  });
  return {
    ...s,
    players,
    bank: avail,
    deck: cards.slice(next),
    drawn: 0,
    rng: rngState(rng.int(0, 0x7fffffff)),
  };
}

const totalOf = (r: Resources): number => r.Holz + r.Lehm + r.Wolle + r.Getreide + r.Erz;

