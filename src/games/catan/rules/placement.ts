import { CORNER_COUNT, CORNER_EDGE3, CORNER_NEIGHBOUR3, EDGE_COUNT, EDGE_END2 } from './geometry.js';
import type { RuleErrorCode } from './errors.js';

/** The two arrays placement rules read; both `State` and a `Draft` have them. */
export interface Pieces {
  readonly buildings: readonly number[];
  readonly roads: readonly number[];
}

function endConnects(p: Pieces, seat: number, corner: number, edge: number): boolean {
  const b = p.buildings[corner]!;
  if (b !== -1) return b >> 1 === seat;
  for (let k = corner * 3, end = k + 3; k < end; k++) {
    const e = CORNER_EDGE3[k]!;
    if (e >= 0 && e !== edge && p.roads[e] === seat) return true;
  }
  return false;
}

/** A Strasse needs a free edge with an end holding an own building, or free and touching an own road. */
export function roadProblem(p: Pieces, seat: number, edge: number): RuleErrorCode | null {
  if (p.roads[edge] !== -1) return 'occupied';
  return endConnects(p, seat, EDGE_END2[2 * edge]!, edge) || endConnects(p, seat, EDGE_END2[2 * edge + 1]!, edge) ? null : 'not-connected';
}

/** Free corner, distance rule, and (outside setup) an own road touching it. */
export function settlementProblem(p: Pieces, seat: number, corner: number, setup: boolean): RuleErrorCode | null {
  if (p.buildings[corner] !== -1) return 'occupied';
  for (let k = corner * 3, end = k + 3; k < end; k++) {
    const n = CORNER_NEIGHBOUR3[k]!;
    if (n >= 0 && p.buildings[n] !== -1) return 'distance-rule';
  }
  if (setup) return null;
  for (let k = corner * 3, end = k + 3; k < end; k++) {
    const e = CORNER_EDGE3[k]!;
    if (e >= 0 && p.roads[e] === seat) return null;
  }
  return 'not-connected';
}

export function legalRoadEdges(p: Pieces, seat: number): number[] {
  const out: number[] = [];
  for (let e = 0; e < EDGE_COUNT; e++) if (roadProblem(p, seat, e) === null) out.push(e);
  return out;
}

export function hasRoadSpot(p: Pieces, seat: number): boolean {
  for (let e = 0; e < EDGE_COUNT; e++) if (roadProblem(p, seat, e) === null) return true;
  return false;
}

export function legalSettlementCorners(p: Pieces, seat: number, setup: boolean): number[] {
  const out: number[] = [];
  for (let c = 0; c < CORNER_COUNT; c++) if (settlementProblem(p, seat, c, setup) === null) out.push(c);
  return out;
}

/** Corners holding the seat's own Dorf (where a Stadt may go). */
export function ownSettlements(p: Pieces, seat: number): number[] {
  const out: number[] = [];
  const code = seat * 2;
  for (let c = 0; c < CORNER_COUNT; c++) if (p.buildings[c] === code) out.push(c);
  return out;
}
