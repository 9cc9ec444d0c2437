import { pay, setPlayer, setAt, type Draft } from './draft.js';
import type { RuleErrorCode } from './errors.js';
import { CORNER_NAMES, EDGE_NAMES } from './geometry.js';
import { roadOwnersAt, updateLongestRoad } from './longest-road.js';
import { roadProblem, settlementProblem } from './placement.js';
import { COST, covers, withDev } from './resources.js';

/** Places a Strasse (paid, or free from Strassenbau) after checking the spot; no cost check here. */
export function placeRoad(d: Draft, seat: number, edge: number): RuleErrorCode | null {
  const problem = roadProblem(d, seat, edge);
  if (problem) return problem;
  if (d.players[seat]!.roadsLeft === 0) return 'no-pieces';
  d.roads = setAt(d.roads, edge, seat);
  const p = setPlayer(d, seat, { roadsLeft: d.players[seat]!.roadsLeft - 1 });
  d.events.push({ type: 'built', player: p.id, piece: 'Strasse', at: EDGE_NAMES[edge]! });
  return null;
}

/** Checks in order: spot, pieces, resources. The Ort was parsed by the caller. */
export function buildRoad(d: Draft, seat: number, edge: number): RuleErrorCode | null {
  const problem = roadProblem(d, seat, edge);
  if (problem) return problem;
  if (d.players[seat]!.roadsLeft === 0) return 'no-pieces';
  if (!covers(d.players[seat]!.resources, COST.Strasse)) return 'not-enough-resources';
  placeRoad(d, seat, edge);
  pay(d, seat, COST.Strasse, 'build');
  updateLongestRoad(d, [seat]);
  return null;
}

export function buildSettlement(d: Draft, seat: number, corner: number): RuleErrorCode | null {
  const problem = settlementProblem(d, seat, corner, false);
  if (problem) return problem;
  const p = d.players[seat]!;
  if (p.settlementsLeft === 0) return 'no-pieces';
  if (!covers(p.resources, COST.Dorf)) return 'not-enough-resources';
  d.buildings = setAt(d.buildings, corner, seat * 2);
  setPlayer(d, seat, { settlementsLeft: p.settlementsLeft - 1, points: p.points + 1 });
  d.events.push({ type: 'built', player: p.id, piece: 'Dorf', at: CORNER_NAMES[corner]! });
  pay(d, seat, COST.Dorf, 'build');
  // A Dorf can cut another player's road.
  updateLongestRoad(d, roadOwnersAt(d.roads, corner, seat));
  return null;
}

export function buildCity(d: Draft, seat: number, corner: number): RuleErrorCode | null {
  const b = d.buildings[corner]!;
  if (b === -1) return 'no-settlement-to-upgrade';
  if (b !== seat * 2) return 'occupied';
  const p = d.players[seat]!;
  if (p.citiesLeft === 0) return 'no-pieces';
  if (!covers(p.resources, COST.Stadt)) return 'not-enough-resources';
  d.buildings = setAt(d.buildings, corner, seat * 2 + 1);
  // The Dorf goes back to the supply.
  setPlayer(d, seat, { citiesLeft: p.citiesLeft - 1, settlementsLeft: p.settlementsLeft + 1, points: p.points + 1 });
  d.events.push({ type: 'built', player: p.id, piece: 'Stadt', at: CORNER_NAMES[corner]! });
  pay(d, seat, COST.Stadt, 'build');
  return null;
}

/** `gekauft` before `Kosten` (§2.7). */
export function buyDevCard(d: Draft, seat: number): RuleErrorCode | null {
  if (d.drawn >= d.deck.length) return 'deck-empty';
  const p = d.players[seat]!;
  if (!covers(p.resources, COST.Entwicklungskarte)) return 'not-enough-resources';
  const card = d.deck[d.drawn]!;
  d.drawn += 1;
  setPlayer(d, seat, { devCards: withDev(p.devCards, card, 1), boughtThisTurn: withDev(p.boughtThisTurn, card, 1) });
  d.events.push({ type: 'devCardBought', player: p.id, card });
  pay(d, seat, COST.Entwicklungskarte, 'devCard');
  return null;
}
