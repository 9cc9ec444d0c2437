import { boardTables, type Board } from '../rules/board.js';
import {
  CORNER_COUNT,
  CORNER_EDGE3,
  CORNER_LAND,
  CORNER_NEIGHBOUR3,
  EDGE_COUNT,
  EDGE_END2,
} from '../rules/geometry.js';
import type { State } from '../rules/state.js';
import { RESOURCES, type Resource, type ResourceCounts, type Resources } from '../rules/types.js';

/**
 * Board and position analysis shared by the weighted and the search bot. Everything reads a rules
 * `State`, which for a bot is either the stand-in built from its own view (client-legal.ts) or a
 * determinization of it: only public parts (board, pieces, robber, card counts) and the bot's own
 * hand are read here, never another player's cards by type.
 */

/** Dots on a number chip: the number of ways (out of 36) two dice roll it. */
export const PIPS: readonly number[] = [0, 0, 1, 2, 3, 4, 5, 0, 5, 4, 3, 2, 1];

export interface BoardInfo {
  /** Pips of each land hex (0 for the desert). */
  readonly hexPips: readonly number[];
  /** Resource index of each land hex, −1 for the desert. */
  readonly hexRes: readonly number[];
  /** Pips per corner, all resources together. */
  readonly cornerPips: readonly number[];
  /**
   * How much a pip of each resource is worth on this board: resources with few pips in all are
   * scarce and worth more (bounded, so no resource is ignored).
   */
  readonly scarcity: readonly number[];
  /** Per corner: bit i = 2:1 harbour for RESOURCES[i], bit 5 = 3:1 harbour. */
  readonly harbourMask: readonly number[];
}

const infoCache = new WeakMap<Board, BoardInfo>();

export function boardInfo(board: Board): BoardInfo {
  const cached = infoCache.get(board);
  if (cached) return cached;
  const { yieldOf, harbourMask } = boardTables(board);
  const hexPips = board.land.map((h) => (h.number === null ? 0 : PIPS[h.number]!));
  const perRes = [0, 0, 0, 0, 0];
  hexPips.forEach((p, h) => {
    const r = yieldOf[h]!;
    if (r >= 0) perRes[r] = perRes[r]! + p;
  });
  const mean = perRes.reduce((a, b) => a + b, 0) / 5;
  const scarcity = perRes.map((p) => Math.min(1.5, Math.max(0.75, Math.sqrt(mean / Math.max(1, p)))));
  const cornerPips = Array.from({ length: CORNER_COUNT }, (_, c) => CORNER_LAND[c]!.reduce((n, h) => n + hexPips[h]!, 0));
  const info: BoardInfo = { hexPips, hexRes: yieldOf, cornerPips, scarcity, harbourMask };
  infoCache.set(board, info);
  return info;
}

/** The seat's expected production in pips per resource (RESOURCES order); the robber's hex yields nothing. */
export function production(s: State, seat: number, withRobber = true): number[] {
  const info = boardInfo(s.board);
  const out = [0, 0, 0, 0, 0];
  for (let c = 0; c < CORNER_COUNT; c++) {
    const b = s.buildings[c]!;
    if (b === -1 || b >> 1 !== seat) continue;
    const k = b & 1 ? 2 : 1;
    for (const h of CORNER_LAND[c]!) {
      const r = info.hexRes[h]!;
      if (r < 0 || (withRobber && h === s.robber)) continue;
      out[r] = out[r]! + k * info.hexPips[h]!;
    }
  }
  return out;
}

/** Whether a settlement may stand on the corner as far as the distance rule and occupancy go. */
export function spotFree(buildings: readonly number[], c: number): boolean {
  if (buildings[c] !== -1) return false;
  for (let k = c * 3, end = k + 3; k < end; k++) {
    const n = CORNER_NEIGHBOUR3[k]!;
    if (n >= 0 && buildings[n] !== -1) return false;
  }
  return true;
}

/**
 * Road distance from the seat's network to every corner (0: on the network, 1–2: that many new
 * roads away over free edges; −1: further or cut off by an opponent's building).
 */
export function roadDistances(s: State, seat: number, depth = 2): Int8Array {
  const dist = new Int8Array(CORNER_COUNT).fill(-1);
  const queue: number[] = [];
  const blocked = (c: number): boolean => {
    const b = s.buildings[c]!;
    return b !== -1 && b >> 1 !== seat;
  };
  for (let c = 0; c < CORNER_COUNT; c++) {
    const b = s.buildings[c]!;
    let on = b !== -1 && b >> 1 === seat;
    if (!on && !blocked(c)) {
      for (let k = c * 3, end = k + 3; k < end; k++) {
        const e = CORNER_EDGE3[k]!;
        if (e >= 0 && s.roads[e] === seat) on = true;
      }
    }
    if (on) {
      dist[c] = 0;
      queue.push(c);
    }
  }
  for (let i = 0; i < queue.length; i++) {
    const c = queue[i]!;
    const d = dist[c]!;
    if (d >= depth || (d > 0 && blocked(c))) continue;
    for (let k = c * 3, end = k + 3; k < end; k++) {
      const e = CORNER_EDGE3[k]!;
      if (e < 0 || s.roads[e] !== -1) continue;
      const a = EDGE_END2[2 * e]!;
      const next = a === c ? EDGE_END2[2 * e + 1]! : a;
      if (dist[next] !== -1 || blocked(next)) continue;
      dist[next] = d + 1;
      queue.push(next);
    }
  }
  return dist;
}

/**
 * What a settlement on corner `c` adds for the seat: its pips weighted by scarcity, more for a
 * resource the seat does not produce yet, plus a little for a harbour that fits its production.
 */
export function cornerValue(s: State, c: number, prod: readonly number[]): number {
  const info = boardInfo(s.board);
  let v = 0;
  for (const h of CORNER_LAND[c]!) {
    const r = info.hexRes[h]!;
    if (r < 0) continue;
    const pips = info.hexPips[h]! * (h === s.robber ? 0.6 : 1);
    v += pips * info.scarcity[r]! * (prod[r] === 0 ? 1.35 : prod[r]! >= 8 ? 0.85 : 1);
  }
  const mask = info.harbourMask[c]!;
  if (mask) {
    if (mask & (1 << 5)) v += 1;
    for (let r = 0; r < 5; r++) if (mask & (1 << r)) v += Math.min(3, prod[r]! / 3);
  }
  return v;
}

/** The best settlement values at road distance 0, 1 and 2 from the seat's network (0 when none). */
export function bestSpots(s: State, seat: number, prod: readonly number[]): [number, number, number] {
  const dist = roadDistances(s, seat, 2);
  const best: [number, number, number] = [0, 0, 0];
  for (let c = 0; c < CORNER_COUNT; c++) {
    const d = dist[c]!;
    if (d < 0 || !spotFree(s.buildings, c)) continue;
    const v = cornerValue(s, c, prod);
    if (v > best[d]!) best[d] = v;
  }
  return best;
}

/**
 * For each legal road edge, how good a settlement spot it leads to: the far end's value if a
 * settlement could stand there, else 0.7 × the best spot one more road away.
 */
export function roadTargets(s: State, seat: number, edges: readonly number[], prod: readonly number[]): number[] {
  const dist = roadDistances(s, seat, 0);
  return edges.map((e) => {
    const a = EDGE_END2[2 * e]!;
    const b = EDGE_END2[2 * e + 1]!;
    const far = dist[a] === 0 ? b : a;
    const other = s.buildings[far]!;
    if (other !== -1 && other >> 1 !== seat) return 0;
    if (spotFree(s.buildings, far)) return cornerValue(s, far, prod);
    let best = 0;
    for (let k = far * 3, end = k + 3; k < end; k++) {
      const e2 = CORNER_EDGE3[k]!;
      if (e2 < 0 || e2 === e || s.roads[e2] !== -1) continue;
      const x = EDGE_END2[2 * e2]!;
      const next = x === far ? EDGE_END2[2 * e2 + 1]! : x;
      if (spotFree(s.buildings, next)) best = Math.max(best, 0.7 * cornerValue(s, next, prod));
    }
    return best;
  });
}

/** Cards still missing to pay `cost` from `hand`. */
export function missing(hand: Resources, cost: ResourceCounts): number {
  let n = 0;
  for (const r of RESOURCES) n += Math.max(0, (cost[r] ?? 0) - hand[r]);
  return n;
}

/** Cards of the hand not needed for `cost`, per resource. */
export function surplus(hand: Resources, cost: ResourceCounts): Record<Resource, number> {
  const out = {} as Record<Resource, number>;
  for (const r of RESOURCES) out[r] = Math.max(0, hand[r] - (cost[r] ?? 0));
  return out;
}

/** Edge ids are dense 0…EDGE_COUNT−1; re-exported for callers that size tables. */
export { CORNER_COUNT, EDGE_COUNT };
