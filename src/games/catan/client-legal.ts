import { rngState } from '../../core/rng.js';
import type { ClientView } from './client-view.js';
import type { WireMap } from './protocol.js';
import { NO_DEV_CARDS, covers, total } from './rules/resources.js';
import {
  BANK_START,
  PIECES,
  RESOURCES,
  boardFromSpec,
  legalActions,
  parseCorner,
  parseLandHex,
  type Action,
  type Board,
  type DevCard,
  type LegalActions,
  type Phase,
  type Player,
  type Resources,
  type State,
} from './rules/index.js';
import { CORNER_COUNT, EDGE_COUNT } from './rules/geometry.js';

/**
 * A client's legal actions, worked out from its own view: the rules' `legalActions` run on a
 * stand-in state that holds only what the client knows. Unknown parts are filled so that they do
 * not change the client's own options: another player's hand is all Holz (only its size counts, for
 * robber targets), the deck is as long as it is known to be, and the bank's composition, which no
 * client can know, is guessed generously (each type at most what the client does not hold itself,
 * at most the bank's known card count). A sea trade or Erfindung may therefore still be refused with
 * `Bank hat nicht genug Rohstoffe`, and completing a trade with `Nicht genug Rohstoffe`; the client
 * treats that like any refusal and chooses again.
 */

const boards = new WeakMap<WireMap, { board: Board; robber: number } | null>();

function boardOf(map: WireMap): { board: Board; robber: number } | null {
  let b = boards.get(map);
  if (b === undefined) {
    const loaded = boardFromSpec({ fields: map.fields, harbours: map.harbours, robber: map.robber });
    b = loaded.ok ? loaded.value : null;
    boards.set(map, b);
  }
  return b;
}

function phaseOf(view: ClientView): Phase {
  if (view.stage === 'over') return 'over';
  const statuses = view.players.map((p) => p.status);
  if (statuses.includes('Dorf bauen')) return 'setupSettlement';
  if (statuses.includes('Strasse bauen')) return 'setupRoad';
  if (statuses.includes('Karten wegen Raeuber abgeben')) return 'discard';
  if (statuses.includes('Raeuber versetzen')) return 'robber';
  if (statuses.includes('Wuerfeln')) return 'roll';
  return 'main';
}

/** The stand-in state, or null before the game has started. */
export function stateFromView(view: ClientView): State | null {
  if (!view.map || view.me === null || view.robber === null) return null;
  const loaded = boardOf(view.map);
  if (!loaded) return null;
  const seatOf = new Map(view.players.map((p, i) => [p.id, i]));
  const seat = (id: number | null): number | null => (id === null ? null : (seatOf.get(id) ?? null));
  const buildings = Array<number>(CORNER_COUNT).fill(-1);
  const roads = Array<number>(EDGE_COUNT).fill(-1);
  const pieces = view.players.map(() => ({ roads: 0, settlements: 0, cities: 0 }));
  const { corners, cities, roads: roadOwners } = view.pieces;
  for (let c = 0; c < CORNER_COUNT; c++) {
    const s = seatOf.get(corners[c]!);
    if (s === undefined) continue;
    buildings[c] = s * 2 + (cities[c] ? 1 : 0);
    if (cities[c]) pieces[s]!.cities++;
    else pieces[s]!.settlements++;
  }
  for (let e = 0; e < EDGE_COUNT; e++) {
    const s = seatOf.get(roadOwners[e]!);
    if (s === undefined) continue;
    roads[e] = s;
    pieces[s]!.roads++;
  }
  const mine = view.players.find((p) => p.id === view.me)?.resources ?? null;
  const bank = {} as Record<(typeof RESOURCES)[number], number>;
  for (const r of RESOURCES) bank[r] = Math.max(0, Math.min(BANK_START[r] - (mine?.[r] ?? 0), view.bankCards));
  const players = view.players.map((p, i): Player => {
    const own = p.id === view.me;
    const hidden: Resources = { Holz: p.cards, Lehm: 0, Wolle: 0, Getreide: 0, Erz: 0 };
    const unknownDev = { ...NO_DEV_CARDS, Ritter: p.devCards } satisfies Record<DevCard, number>;
    return {
      id: p.id,
      name: p.name ?? '',
      colour: p.colour ?? 'Rot',
      status: p.status,
      resources: own && p.resources ? p.resources : hidden,
      devCards: own && p.devHand ? p.devHand : unknownDev,
      boughtThisTurn: own ? view.boughtThisTurn : NO_DEV_CARDS,
      knights: p.knights,
      points: p.points,
      roadsLeft: PIECES.roads - pieces[i]!.roads,
      settlementsLeft: PIECES.settlements - pieces[i]!.settlements,
      // An upgraded Dorf went back to the supply.
      citiesLeft: PIECES.cities - pieces[i]!.cities,
      roadLength: 0,
    };
  });
  const discards = view.players.map((p) => (p.id === view.me ? view.discard : 0));
  return {
    board: loaded.board,
    robber: parseLandHex(view.robber),
    buildings,
    roads,
    players,
    bank,
    deck: Array<DevCard>(Math.max(0, view.deckCards)).fill('Ritter'),
    drawn: 0,
    rng: rngState(0),
    phase: phaseOf(view),
    turn: seat(view.active) ?? 0,
    turnNumber: 0,
    setupStep: 0,
    setupCorner: view.setupCorner === null ? -1 : parseCorner(view.setupCorner),
    discards,
    devCardPlayed: view.devCardPlayed,
    dice: view.dice,
    trades: view.trades.flatMap((t) => {
      const s = seat(t.player);
      if (s === null) return [];
      return [{ id: t.id, seat: s, offer: t.offer, request: t.request, acceptedBy: t.acceptedBy.flatMap((a) => (seatOf.has(a) ? [seatOf.get(a)!] : [])) }];
    }),
    nextTradeId: 0,
    longestRoad: seat(view.longestRoad),
    largestArmy: seat(view.largestArmy),
    winner: null,
  };
}

/**
 * The client's legal actions as far as its view tells (no actions before the game). Completing one
 * of its offers is listed with every acceptor who still holds enough cards: which cards those are,
 * only the server knows (it checks both hands again).
 */
export function legalFromView(view: ClientView): LegalActions {
  const s = stateFromView(view);
  const me = view.players.find((p) => p.id === view.me);
  if (!s || !me || view.me === null) return { player: view.me ?? 0, status: me?.status ?? 'Warten', actions: [], discard: null, offer: null };
  const legal = legalActions(s, view.me);
  if (me.status !== 'Handeln oder Bauen' || !view.trades.some((t) => t.player === view.me && t.acceptedBy.length > 0)) return legal;
  const actions: Action[] = legal.actions.filter((a) => a.type !== 'completeTrade');
  const hand = me.resources;
  const cards = new Map(view.players.map((p) => [p.id, p.cards]));
  for (const t of view.trades) {
    if (t.player !== view.me || !hand || !covers(hand, t.offer)) continue;
    for (const partner of t.acceptedBy) if ((cards.get(partner) ?? 0) >= total(t.request)) actions.push({ type: 'completeTrade', tradeId: t.id, partner });
  }
  return { ...legal, actions };
}
