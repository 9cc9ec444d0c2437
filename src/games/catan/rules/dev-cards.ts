import { placeRoad } from './build.js';
import { gain, idOf, setPlayer, type Draft } from './draft.js';
import type { RuleErrorCode } from './errors.js';
import { EDGE_NAMES, hexLetter, parseEdge, parseLandHex } from './geometry.js';
import { updateLongestRoad } from './longest-road.js';
import { hasRoadSpot } from './placement.js';
import { compact, count, total, wellFormed, withDev } from './resources.js';
import { checkRobberMove, moveRobber } from './robber.js';
import type { Player } from './state.js';
import { RESOURCES, type DevCard, type Resource, type ResourceCounts } from './types.js';

export const LARGEST_ARMY_MIN = 3;

/** Held, not bought this turn, and no card played yet this turn. */
export function playable(d: { readonly devCardPlayed: boolean; readonly players: readonly Player[] }, seat: number, card: DevCard): boolean {
  const p = d.players[seat]!;
  return !d.devCardPlayed && p.devCards[card] - p.boughtThisTurn[card] > 0;
}

function spend(d: Draft, seat: number, card: DevCard): void {
  setPlayer(d, seat, { devCards: withDev(d.players[seat]!.devCards, card, -1) });
  d.devCardPlayed = true;
}

/** Ritter: echo, robber move and steal as on a 7 (no discards), Rittermacht +1, maybe the award. */
export function playKnight(d: Draft, seat: number, hexText: string, victim: number | undefined): RuleErrorCode | null {
  if (!playable(d, seat, 'Ritter')) return 'card-not-playable';
  const hex = parseLandHex(hexText);
  const checked = checkRobberMove(d, seat, hex, victim);
  if (typeof checked === 'string') return checked;
  spend(d, seat, 'Ritter');
  const id = idOf(d, seat);
  d.events.push(victim === undefined ? { type: 'knightPlayed', player: id, hex: hexLetter(hex) } : { type: 'knightPlayed', player: id, hex: hexLetter(hex), victim });
  moveRobber(d, seat, hex, checked);
  const knights = d.players[seat]!.knights + 1;
  setPlayer(d, seat, { knights });
  const holder = d.largestArmy;
  // First to 3 takes it; afterwards only strictly more.
  if (holder !== seat && knights >= LARGEST_ARMY_MIN && (holder === null || knights > d.players[holder]!.knights)) {
    if (holder !== null) setPlayer(d, holder, { points: d.players[holder]!.points - 2 });
    setPlayer(d, seat, { points: d.players[seat]!.points + 2 });
    d.largestArmy = seat;
    d.events.push({ type: 'largestArmy', player: id });
  }
  return null;
}

/**
 * Strassenbau: two free roads under the normal rules, the second may build on the first. The
 * second may be left out only with one road left or no legal edge remaining after the first.
 */
export function playRoadBuilding(d: Draft, seat: number, road1: string, road2: string | undefined): RuleErrorCode | null {
  if (!playable(d, seat, 'Strassenbau')) return 'card-not-playable';
  if (d.players[seat]!.roadsLeft === 0) return 'no-pieces';
  if (!hasRoadSpot(d, seat)) return 'no-road-spot';
  const e1 = parseEdge(road1);
  if (e1 < 0) return 'invalid-place';
  const e2 = road2 === undefined ? -1 : parseEdge(road2);
  if (road2 !== undefined && e2 < 0) return 'invalid-place';
  spend(d, seat, 'Strassenbau');
  const echoAt = d.events.length;
  const first = placeRoad(d, seat, e1);
  if (first) return first;
  if (road2 === undefined) {
    if (d.players[seat]!.roadsLeft > 0 && hasRoadSpot(d, seat)) return 'second-road-required';
  } else {
    const second = placeRoad(d, seat, e2);
    if (second) return second;
  }
  const id = idOf(d, seat);
  d.events.splice(
    echoAt,
    0,
    road2 === undefined
      ? { type: 'roadBuildingPlayed', player: id, road1: EDGE_NAMES[e1]! }
      : { type: 'roadBuildingPlayed', player: id, road1: EDGE_NAMES[e1]!, road2: EDGE_NAMES[e2]! },
  );
  updateLongestRoad(d, [seat]);
  return null;
}

/** Monopol: echo, each opponent's `Kosten` in turn order, one `Ertrag` with the total. */
export function playMonopoly(d: Draft, seat: number, resource: Resource): RuleErrorCode | null {
  if (!playable(d, seat, 'Monopol')) return 'card-not-playable';
  if (!RESOURCES.includes(resource)) return 'invalid-message';
  spend(d, seat, 'Monopol');
  d.events.push({ type: 'monopolyPlayed', player: idOf(d, seat), resource });
  const n = d.players.length;
  let taken = 0;
  for (let k = 1; k < n; k++) {
    const other = (seat + k) % n;
    const held = d.players[other]!.resources[resource];
    if (held === 0) continue;
    taken += held;
    setPlayer(d, other, { resources: { ...d.players[other]!.resources, [resource]: 0 } });
    d.events.push({ type: 'paid', player: idOf(d, other), resources: { [resource]: held }, cause: 'monopoly' });
  }
  if (taken > 0) {
    const p = d.players[seat]!;
    setPlayer(d, seat, { resources: { ...p.resources, [resource]: p.resources[resource] + taken } });
    d.events.push({ type: 'gained', player: p.id, resources: { [resource]: taken }, cause: 'monopoly' });
  }
  return null;
}

/** Erfindung: exactly 2 cards from the bank (any types), or all it holds if that is fewer. */
export function playYearOfPlenty(d: Draft, seat: number, resources: ResourceCounts): RuleErrorCode | null {
  if (!playable(d, seat, 'Erfindung')) return 'card-not-playable';
  if (!wellFormed(resources)) return 'invalid-message';
  if (total(resources) !== Math.min(2, total(d.bank))) return 'wrong-card-count';
  for (const r of RESOURCES) if (count(resources, r) > d.bank[r]) return 'bank-short';
  spend(d, seat, 'Erfindung');
  d.events.push({ type: 'yearOfPlentyPlayed', player: idOf(d, seat), resources: compact(resources) });
  gain(d, seat, resources, 'yearOfPlenty');
  return null;
}
