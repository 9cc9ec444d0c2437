import { playable } from './dev-cards.js';
import { CORNER_EDGES, CORNER_NAMES, EDGE_NAMES, HEX_CORNER6, LAND_COUNT, hexLetter } from './geometry.js';
import { legalRoadEdges, legalSettlementCorners, ownSettlements, type Pieces } from './placement.js';
import { COST, covers, total } from './resources.js';
import { seatOf, type State } from './state.js';
import { seaRates } from './trade.js';
import { RESOURCES, type Action, type Resource, type ResourceCounts, type Resources, type Status } from './types.js';

/**
 * What a player may do now. `actions` lists every concrete legal action except two families that
 * are given as structure because their combinations are many: discards (any `count` cards from
 * `hand`) and domestic offers (any non-empty part of `hand` against any non-empty request sharing
 * no type). Sea trades are listed one unit at a time at the player's best rate (larger trades are
 * sums of these).
 */
export interface LegalActions {
  readonly player: number;
  readonly status: Status;
  readonly actions: readonly Action[];
  readonly discard: { readonly count: number; readonly hand: Resources } | null;
  readonly offer: { readonly hand: Resources } | null;
}

const result = (
  player: number,
  status: Status,
  actions: readonly Action[],
  discard: LegalActions['discard'] = null,
  offer: LegalActions['offer'] = null,
): LegalActions => ({ player, status, actions, discard, offer });

// Actions are immutable values, so the ones without a player id are made once and shared.
const ROLL: Action = { type: 'roll' };
const END_TURN: Action = { type: 'endTurn' };
const BUY: Action = { type: 'buyDevCard' };
const BUILD_DORF: readonly Action[] = CORNER_NAMES.map((at) => ({ type: 'build', piece: 'Dorf', at }));
const BUILD_STADT: readonly Action[] = CORNER_NAMES.map((at) => ({ type: 'build', piece: 'Stadt', at }));
const BUILD_STRASSE: readonly Action[] = EDGE_NAMES.map((at) => ({ type: 'build', piece: 'Strasse', at }));
const MONOPOLY: readonly Action[] = RESOURCES.map((resource) => ({ type: 'playMonopoly', resource }));
/** [rate][give][get], one unit at a time. */
const SEA_TRADES: readonly (readonly (readonly Action[])[])[] = [2, 3, 4].map((rate) =>
  RESOURCES.map((give) => RESOURCES.map((get) => ({ type: 'seaTrade', offer: { [give]: rate }, request: { [get]: 1 } }))),
);

/** Robber moves for a 7 or a Ritter: every other land hex, with each allowed `Ziel` (or none). */
function robberMoves(s: State, seat: number, knight: boolean): Action[] {
  const out: Action[] = [];
  const type = knight ? 'playKnight' : 'moveRobber';
  for (let hex = 0; hex < LAND_COUNT; hex++) {
    if (hex === s.robber) continue;
    // Bit per opponent seat with a building here, and those of them holding cards.
    let around = 0;
    let holding = 0;
    for (let k = hex * 6, end = k + 6; k < end; k++) {
      const b = s.buildings[HEX_CORNER6[k]!]!;
      if (b === -1 || b >> 1 === seat) continue;
      around |= 1 << (b >> 1);
      if (total(s.players[b >> 1]!.resources) > 0) holding |= 1 << (b >> 1);
    }
    const hexName = hexLetter(hex);
    if (holding === 0) out.push({ type, hex: hexName });
    const targets = holding === 0 ? around : holding;
    for (let v = 0; v < s.players.length; v++) if (targets & (1 << v)) out.push({ type, hex: hexName, victim: s.players[v]!.id });
  }
  return out;
}

function roadBuildingPlays(s: State, seat: number): Action[] {
  const roadsLeft = s.players[seat]!.roadsLeft;
  if (roadsLeft === 0) return [];
  const first = legalRoadEdges(s, seat);
  const out: Action[] = [];
  const seen = new Set<string>();
  for (const e1 of first) {
    if (roadsLeft === 1) {
      out.push({ type: 'playRoadBuilding', road1: EDGE_NAMES[e1]! });
      continue;
    }
    const roads = s.roads.slice();
    roads[e1] = seat;
    const after: Pieces = { buildings: s.buildings, roads };
    const second = legalRoadEdges(after, seat);
    if (second.length === 0) out.push({ type: 'playRoadBuilding', road1: EDGE_NAMES[e1]! });
    for (const e2 of second) {
      // The same pair in the other order is the same play when both orders are legal.
      const key = e1 < e2 ? `${e1},${e2}` : `${e2},${e1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ type: 'playRoadBuilding', road1: EDGE_NAMES[e1]!, road2: EDGE_NAMES[e2]! });
    }
  }
  return out;
}

function yearOfPlentyPlays(bank: Resources): Action[] {
  const available = total(bank);
  if (available === 0) return [{ type: 'playYearOfPlenty', resources: {} }];
  const out: Action[] = [];
  if (available === 1) {
    for (const r of RESOURCES) if (bank[r] > 0) out.push({ type: 'playYearOfPlenty', resources: { [r]: 1 } });
    return out;
  }
  RESOURCES.forEach((a, i) => {
    RESOURCES.slice(i).forEach((b) => {
      const want: ResourceCounts = a === b ? { [a]: 2 } : { [a]: 1, [b]: 1 };
      if (covers(bank, want)) out.push({ type: 'playYearOfPlenty', resources: want });
    });
  });
  return out;
}

function cardPlays(s: State, seat: number): Action[] {
  const out: Action[] = [];
  if (playable(s, seat, 'Ritter')) out.push(...robberMoves(s, seat, true));
  if (playable(s, seat, 'Strassenbau')) out.push(...roadBuildingPlays(s, seat));
  if (playable(s, seat, 'Monopol')) out.push(...MONOPOLY);
  if (playable(s, seat, 'Erfindung')) out.push(...yearOfPlentyPlays(s.bank));
  return out;
}

function seaTrades(s: State, seat: number): Action[] {
  const hand = s.players[seat]!.resources;
  const out: Action[] = [];
  let rates: Record<Resource, number> | null = null;
  for (let i = 0; i < 5; i++) {
    const give = RESOURCES[i]!;
    // Nobody trades below 2; most hands skip the harbour lookup entirely.
    if (hand[give] < 2) continue;
    rates ??= seaRates(s, seat);
    const rate = rates[give];
    if (hand[give] < rate) continue;
    const row = SEA_TRADES[rate - 2]![i]!;
    for (let j = 0; j < 5; j++) if (j !== i && s.bank[RESOURCES[j]!] > 0) out.push(row[j]!);
  }
  return out;
}

function tradeAnswers(s: State, seat: number): Action[] {
  const out: Action[] = [];
  const hand = s.players[seat]!.resources;
  for (const t of s.trades) {
    if (t.seat === seat) {
      for (const a of t.acceptedBy) {
        if (covers(hand, t.offer) && covers(s.players[a]!.resources, t.request)) {
          out.push({ type: 'completeTrade', tradeId: t.id, partner: s.players[a]!.id });
        }
      }
    } else if (!t.acceptedBy.includes(seat) && covers(hand, t.request)) {
      out.push({ type: 'acceptTrade', tradeId: t.id });
    }
    out.push({ type: 'cancelTrade', tradeId: t.id });
  }
  return out;
}

function mainPhase(s: State, seat: number): Action[] {
  const p = s.players[seat]!;
  const out: Action[] = [];
  const hand = p.resources;
  if (p.citiesLeft > 0 && covers(hand, COST.Stadt)) {
    for (const c of ownSettlements(s, seat)) out.push(BUILD_STADT[c]!);
  }
  if (p.settlementsLeft > 0 && covers(hand, COST.Dorf)) {
    for (const c of legalSettlementCorners(s, seat, false)) out.push(BUILD_DORF[c]!);
  }
  if (p.roadsLeft > 0 && covers(hand, COST.Strasse)) {
    for (const e of legalRoadEdges(s, seat)) out.push(BUILD_STRASSE[e]!);
  }
  if (s.drawn < s.deck.length && covers(hand, COST.Entwicklungskarte)) out.push(BUY);
  out.push(...cardPlays(s, seat), ...seaTrades(s, seat), ...tradeAnswers(s, seat));
  out.push(END_TURN);
  return out;
}

export function legalActions(s: State, playerId: number): LegalActions {
  const seat = seatOf(s, playerId);
  if (seat < 0) return result(playerId, 'Warten', []);
  const p = s.players[seat]!;
  const status = p.status;
  if (s.phase === 'over') return result(playerId, status, []);
  switch (status) {
    case 'Dorf bauen':
      return result(playerId, status, legalSettlementCorners(s, seat, true).map((c) => BUILD_DORF[c]!));
    case 'Strasse bauen':
      return result(playerId, status, CORNER_EDGES[s.setupCorner]!.filter((e) => s.roads[e] === -1).map((e) => BUILD_STRASSE[e]!));
    case 'Wuerfeln':
      return result(playerId, status, [ROLL, ...cardPlays(s, seat)]);
    case 'Karten wegen Raeuber abgeben':
      return result(playerId, status, [], { count: s.discards[seat]!, hand: p.resources });
    case 'Raeuber versetzen':
      return result(playerId, status, robberMoves(s, seat, false));
    case 'Handeln oder Bauen':
      return result(playerId, status, mainPhase(s, seat), null, total(p.resources) > 0 ? { hand: p.resources } : null);
    default:
      return result(playerId, status, tradeAnswers(s, seat));
  }
}

/**
 * Where the player could build if cost were no object (for the browser to highlight spots):
 * Dorf corners (setup rules during setup), own Dorf corners for a Stadt, road edges (during setup,
 * the edges at the Dorf just placed). Canonical names.
 */
export function placementSpots(s: State, playerId: number): { settlements: string[]; cities: string[]; roads: string[] } {
  const seat = seatOf(s, playerId);
  if (seat < 0) return { settlements: [], cities: [], roads: [] };
  const setup = s.phase === 'setupSettlement' || s.phase === 'setupRoad';
  const roads =
    s.phase === 'setupRoad' && s.turn === seat
      ? CORNER_EDGES[s.setupCorner]!.filter((e) => s.roads[e] === -1)
      : setup
        ? []
        : legalRoadEdges(s, seat);
  return {
    settlements: legalSettlementCorners(s, seat, setup).map((c) => CORNER_NAMES[c]!),
    cities: setup ? [] : ownSettlements(s, seat).map((c) => CORNER_NAMES[c]!),
    roads: roads.map((e) => EDGE_NAMES[e]!),
  };
}

/** The player's sea-trade rate per resource (2, 3 or 4). */
export function tradeRates(s: State, playerId: number): Record<Resource, number> {
  return seaRates(s, Math.max(0, seatOf(s, playerId)));
}
