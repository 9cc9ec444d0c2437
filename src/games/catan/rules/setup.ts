import { boardTables } from './board.js';
import { gain, setPlayer, setAt, type Draft } from './draft.js';
import type { RuleErrorCode } from './errors.js';
import { CORNER_EDGES, CORNER_LAND, CORNER_NAMES, EDGE_NAMES } from './geometry.js';
import { roadOwnersAt, updateLongestRoad } from './longest-road.js';
import { settlementProblem } from './placement.js';
import { RESOURCES, type Resource } from './types.js';

/** Seat placing at a setup step: p1…pn, then pn…p1. */
export function setupSeat(players: number, step: number): number {
  return step < players ? step : 2 * players - 1 - step;
}

/** Setup Dorf: free, distance rule only; the round-2 Dorf yields one card per producing hex. */
export function placeSetupSettlement(d: Draft, seat: number, corner: number): RuleErrorCode | null {
  const problem = settlementProblem(d, seat, corner, true);
  if (problem) return problem;
  d.buildings = setAt(d.buildings, corner, seat * 2);
  const p = d.players[seat]!;
  setPlayer(d, seat, { settlementsLeft: p.settlementsLeft - 1, points: p.points + 1 });
  d.events.push({ type: 'built', player: p.id, piece: 'Dorf', at: CORNER_NAMES[corner]! });
  if (d.setupStep >= d.players.length) {
    const { yieldOf } = boardTables(d.board);
    const cards: Partial<Record<Resource, number>> = {};
    for (const hex of CORNER_LAND[corner]!) {
      const r = yieldOf[hex]!;
      if (r < 0) continue;
      const res = RESOURCES[r]!;
      // As far as the bank can pay: a single claimant gets what remains.
      if ((cards[res] ?? 0) < d.bank[res]) cards[res] = (cards[res] ?? 0) + 1;
    }
    gain(d, seat, cards, 'setup');
  }
  updateLongestRoad(d, roadOwnersAt(d.roads, corner, seat));
  d.setupCorner = corner;
  d.phase = 'setupRoad';
  setPlayer(d, seat, { status: 'Strasse bauen' });
  return null;
}

/** Setup Strasse: free, on an edge touching the Dorf just placed; then the next placement or the first turn. */
export function placeSetupRoad(d: Draft, seat: number, edge: number): RuleErrorCode | null {
  if (d.roads[edge] !== -1) return 'occupied';
  if (!CORNER_EDGES[d.setupCorner]!.includes(edge)) return 'not-connected';
  d.roads = setAt(d.roads, edge, seat);
  const p = d.players[seat]!;
  setPlayer(d, seat, { roadsLeft: p.roadsLeft - 1 });
  d.events.push({ type: 'built', player: p.id, piece: 'Strasse', at: EDGE_NAMES[edge]! });
  updateLongestRoad(d, [seat]);
  d.setupCorner = -1;
  const n = d.players.length;
  const step = d.setupStep + 1;
  d.setupStep = step;
  if (step === 2 * n) {
    d.phase = 'roll';
    d.turn = 0;
    setPlayer(d, seat, { status: 'Warten' });
    setPlayer(d, 0, { status: 'Wuerfeln' });
  } else {
    const next = setupSeat(n, step);
    d.phase = 'setupSettlement';
    d.turn = next;
    setPlayer(d, seat, { status: 'Warten' });
    setPlayer(d, next, { status: 'Dorf bauen' });
  }
  return null;
}
