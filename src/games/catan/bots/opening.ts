import { CORNER_COUNT, CORNER_LAND, CORNER_NEIGHBOUR3 } from '../rules/geometry.js';
import type { State } from '../rules/state.js';
import { boardInfo, cornerValue, roadTargets, spotFree } from './features.js';

/**
 * The search bot's setup placements. A first Dorf is chosen by looking ahead: for each of the best
 * corners, the others' placements until the own second one are played out greedily (each takes
 * the corner worth most to it), then the own second corner is added, and the pair is scored as a
 * whole (production by scarcity, resource variety, harbours, room to expand). The second Dorf is
 * the best partner for the first; a setup road points at the best spot it opens.
 */

const setupSeat = (n: number, step: number): number => (step < n ? step : 2 * n - 1 - step);

function prodOf(s: State, corners: readonly number[]): number[] {
  const info = boardInfo(s.board);
  const out = [0, 0, 0, 0, 0];
  for (const c of corners) {
    for (const h of CORNER_LAND[c]!) {
      const r = info.hexRes[h]!;
      if (r >= 0) out[r] = out[r]! + info.hexPips[h]!;
    }
  }
  return out;
}

/** Worth of a set of own corners at the start: scarcity-weighted pips, variety, harbours, room. */
export function openingScore(s: State, corners: readonly number[], buildings: readonly number[]): number {
  const info = boardInfo(s.board);
  const prod = prodOf(s, corners);
  let v = 0;
  let kinds = 0;
  for (let r = 0; r < 5; r++) {
    if (prod[r]! > 0) kinds++;
    const p = prod[r]!;
    v += info.scarcity[r]! * (p <= 9 ? p : 9 + 0.6 * (p - 9));
  }
  v += 2.2 * kinds;
  // Wood and brick early, ore and grain for cities: a balanced pair matters more than one kind.
  if (prod[0]! > 0 && prod[1]! > 0) v += 1.5;
  if (prod[3]! > 0 && prod[4]! > 0) v += 1.5;
  for (const c of corners) {
    const mask = info.harbourMask[c]!;
    if (mask & (1 << 5)) v += 0.8;
    for (let r = 0; r < 5; r++) if (mask & (1 << r) && prod[r]! >= 5) v += 2;
  }
  // Room: the best free spot two steps from each corner.
  let room = 0;
  for (const c of corners) {
    let best = 0;
    for (const n1 of neighbours(c)) {
      for (const n2 of neighbours(n1)) {
        if (n2 !== c && spotFree(buildings, n2)) best = Math.max(best, info.cornerPips[n2]!);
      }
    }
    room += best;
  }
  return v + 0.15 * room;
}

function neighbours(c: number): number[] {
  const out: number[] = [];
  for (let k = c * 3; k < c * 3 + 3; k++) {
    const n = CORNER_NEIGHBOUR3[k]!;
    if (n >= 0) out.push(n);
  }
  return out;
}

function ownCorners(buildings: readonly number[], seat: number): number[] {
  const out: number[] = [];
  for (let c = 0; c < CORNER_COUNT; c++) if (buildings[c] !== -1 && buildings[c]! >> 1 === seat) out.push(c);
  return out;
}

/** The corner a player would greedily take next: the most worth for it given what it has. */
function greedyPick(s: State, buildings: readonly number[], seat: number): number {
  const prod = prodOf(s, ownCorners(buildings, seat));
  const view: State = { ...s, buildings };
  let best = -1;
  let bestValue = -Infinity;
  for (let c = 0; c < CORNER_COUNT; c++) {
    if (!spotFree(buildings, c)) continue;
    const v = cornerValue(view, c, prod);
    if (v > bestValue) {
      bestValue = v;
      best = c;
    }
  }
  return best;
}

/** The setup Dorf for `seat` among `corners` (legal corners), `width` of them looked at in depth. */
export function chooseSetupCorner(
  s: State,
  seat: number,
  corners: readonly number[],
  width = 8,
  partnerWidth = 1,
): number {
  const n = s.players.length;
  const step = s.setupStep;
  const mine = ownCorners(s.buildings, seat);
  const prod = prodOf(s, mine);
  const ranked = corners
    .map((c) => ({ c, v: cornerValue(s, c, prod) }))
    .sort((a, b) => b.v - a.v)
    .slice(0, width);
  if (step >= n) {
    // The second Dorf: the best partner for the first, as a pair.
    let best = ranked[0]!.c;
    let bestScore = -Infinity;
    for (const { c } of ranked) {
      const b = s.buildings.slice();
      b[c] = seat * 2;
      const score = openingScore(s, [...mine, c], b);
      if (score > bestScore) {
        bestScore = score;
        best = c;
      }
    }
    return best;
  }
  const second = 2 * n - 1 - step;
  let best = ranked[0]!.c;
  let bestScore = -Infinity;
  for (const { c } of ranked) {
    const b = s.buildings.slice();
    b[c] = seat * 2;
    for (let k = step + 1; k < second; k++) {
      const who = setupSeat(n, k);
      const pick = greedyPick(s, b, who);
      if (pick >= 0) b[pick] = who * 2;
    }
    const score = partnerWidth > 1 ? bestPair(s, seat, c, b, partnerWidth) : greedyPair(s, seat, c, b);
    if (score > bestScore) {
      bestScore = score;
      best = c;
    }
  }
  return best;
}

/** The pair of `c` and the partner worth most to it alone (`b`: the board before the partner). */
function greedyPair(s: State, seat: number, c: number, b: number[]): number {
  const prodMine = prodOf(s, [c]);
  let partner = -1;
  let partnerScore = -Infinity;
  for (let x = 0; x < CORNER_COUNT; x++) {
    if (!spotFree(b, x)) continue;
    const v = cornerValue({ ...s, buildings: b }, x, prodMine);
    if (v > partnerScore) {
      partnerScore = v;
      partner = x;
    }
  }
  if (partner >= 0) b[partner] = seat * 2;
  return openingScore(s, partner >= 0 ? [c, partner] : [c], b);
}

/** The best pair score of `c` with one of the `width` partners worth most to it, as the second placement will choose. */
function bestPair(s: State, seat: number, c: number, b: readonly number[], width: number): number {
  const prodMine = prodOf(s, [c]);
  const view: State = { ...s, buildings: b };
  const ranked: { x: number; v: number }[] = [];
  for (let x = 0; x < CORNER_COUNT; x++)
    if (spotFree(b, x)) ranked.push({ x, v: cornerValue(view, x, prodMine) });
  ranked.sort((p, q) => q.v - p.v);
  let best = ranked.length === 0 ? openingScore(s, [c], b) : -Infinity;
  for (const { x } of ranked.slice(0, width)) {
    const pair = b.slice();
    pair[x] = seat * 2;
    best = Math.max(best, openingScore(s, [c, x], pair));
  }
  return best;
}

/** The setup road at the Dorf just placed: towards the best spot it opens. */
export function chooseSetupRoad(s: State, seat: number, edges: readonly number[]): number {
  const prod = prodOf(s, ownCorners(s.buildings, seat));
  const values = roadTargets(s, seat, edges, prod);
  let best = edges[0]!;
  let bestValue = -Infinity;
  edges.forEach((e, i) => {
    const v = values[i]!;
    if (v > bestValue) {
      bestValue = v;
      best = e;
    }
  });
  return best;
}
