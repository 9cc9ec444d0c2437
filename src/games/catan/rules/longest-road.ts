import { CORNER_COUNT, CORNER_EDGE3, EDGE_COUNT, EDGE_END2 } from './geometry.js';
import { idOf, setPlayer, type Draft } from './draft.js';

const used = new Uint8Array(EDGE_COUNT);
const seen = new Uint8Array(EDGE_COUNT);
let roadsOf: readonly number[] = [];
let buildingsOf: readonly number[] = [];
let owner = 0;
let best = 0;

/** Depth-first trail extension; a corner with another player's building ends the trail unless it is the start. */
function walk(corner: number, length: number, start: boolean): void {
  if (length > best) best = length;
  if (!start) {
    const b = buildingsOf[corner]!;
    if (b !== -1 && b >> 1 !== owner) return;
  }
  for (let k = corner * 3, end = k + 3; k < end; k++) {
    const e = CORNER_EDGE3[k]!;
    if (e < 0 || used[e] || roadsOf[e] !== owner) continue;
    used[e] = 1;
    seen[e] = 1;
    const x = EDGE_END2[2 * e]!;
    walk(x === corner ? EDGE_END2[2 * e + 1]! : x, length + 1, false);
    used[e] = 0;
  }
}

function ownDegree(corner: number): number {
  const b = buildingsOf[corner]!;
  // A corner blocked by someone else splits into one end per road: always a trail end.
  if (b !== -1 && b >> 1 !== owner) return 1;
  let n = 0;
  for (let k = corner * 3, end = k + 3; k < end; k++) {
    const e = CORNER_EDGE3[k]!;
    if (e >= 0 && roadsOf[e] === owner) n++;
  }
  return n;
}

/**
 * L(p): the longest trail over `seat`'s roads, each road used once, never passing through a corner
 * that holds another player's building (a trail may end there). Some longest trail starts at a
 * corner of odd degree (blocked corners count as ends), unless its component is a plain cycle, so
 * the search starts there and then once in every component no search has touched.
 */
export function roadLength(roads: readonly number[], buildings: readonly number[], seat: number): number {
  roadsOf = roads;
  buildingsOf = buildings;
  owner = seat;
  best = 0;
  seen.fill(0);
  for (let c = 0; c < CORNER_COUNT; c++) if ((ownDegree(c) & 1) === 1) walk(c, 0, true);
  for (let e = 0; e < EDGE_COUNT; e++) if (roads[e] === seat && !seen[e]) walk(EDGE_END2[2 * e]!, 0, true);
  roadsOf = [];
  buildingsOf = [];
  return best;
}

export const LONGEST_ROAD_MIN = 5;

/**
 * Who holds Längste Handelsstraße given everyone's L (catan.md §3): the holder keeps it while at
 * the maximum M ≥ 5; otherwise a sole player at M ≥ 5 takes it; otherwise nobody holds it.
 */
export function longestRoadHolder(lengths: readonly number[], holder: number | null): number | null {
  const m = Math.max(...lengths);
  if (holder !== null && lengths[holder]! >= LONGEST_ROAD_MIN && lengths[holder] === m) return holder;
  if (m < LONGEST_ROAD_MIN) return null;
  const at = lengths.flatMap((l, seat) => (l === m ? [seat] : []));
  return at.length === 1 ? at[0]! : null;
}

/**
 * After a Strasse or Dorf placement: recompute L and move the award (±2 points). `seats` are the
 * players whose L may have changed (the road's owner, or whoever has roads at a new Dorf's corner);
 * everyone else's tracked length is still current.
 */
export function updateLongestRoad(d: Draft, seats: readonly number[]): void {
  for (const seat of seats) {
    const l = roadLength(d.roads, d.buildings, seat);
    if (d.players[seat]!.roadLength !== l) setPlayer(d, seat, { roadLength: l });
  }
  const lengths = d.players.map((p) => p.roadLength);
  const before = d.longestRoad;
  const after = longestRoadHolder(lengths, before);
  if (after === before) return;
  if (before !== null) setPlayer(d, before, { points: d.players[before]!.points - 2 });
  if (after !== null) setPlayer(d, after, { points: d.players[after]!.points + 2 });
  d.longestRoad = after;
  d.events.push({ type: 'longestRoad', player: after === null ? null : idOf(d, after) });
}

/** Players (other than the builder) with a road at the corner: a Dorf there may cut their trail. */
export function roadOwnersAt(roads: readonly number[], corner: number, builder: number): number[] {
  const out: number[] = [];
  for (let k = corner * 3, end = k + 3; k < end; k++) {
    const e = CORNER_EDGE3[k]!;
    if (e < 0) continue;
    const r = roads[e]!;
    if (r !== -1 && r !== builder && !out.includes(r)) out.push(r);
  }
  return out;
}
