import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/core/rng.js';
import { EDGE_NAMES, longestRoadHolder, parseCorner, parseEdge, roadLength, type State } from '../../../src/games/catan/rules/index.js';
import { CORNER_EDGES, EDGE_CORNERS } from '../../../src/games/catan/rules/geometry.js';
import { mainPhase, must, player, types, withHand, withRoads } from './helpers.js';

/** The rule written the plainest way: every trail from every corner, no shortcuts. */
function reference(roads: readonly number[], buildings: readonly number[], seat: number): number {
  const used = new Set<number>();
  let best = 0;
  const walk = (c: number, len: number, start: boolean): void => {
    best = Math.max(best, len);
    if (!start && buildings[c] !== -1 && buildings[c]! >> 1 !== seat) return;
    for (const e of CORNER_EDGES[c]!) {
      if (used.has(e) || roads[e] !== seat) continue;
      used.add(e);
      const [a, b] = EDGE_CORNERS[e]!;
      walk(a === c ? b : a, len + 1, false);
      used.delete(e);
    }
  };
  for (let c = 0; c < 54; c++) walk(c, 0, true);
  return best;
}

function layout(edges: readonly string[], blockers: readonly string[] = []): { roads: number[]; buildings: number[] } {
  const roads = Array<number>(72).fill(-1);
  const buildings = Array<number>(54).fill(-1);
  for (const e of edges) roads[parseEdge(e)] = 0;
  for (const c of blockers) buildings[parseCorner(c)] = 2; // seat 1's Dorf
  return { roads, buildings };
}

const RING_S = ['MS', 'NS', 'OS', 'PS', 'QS', 'RS'];

describe('L(p), the longest trade route', () => {
  it('counts a chain, a ring and a ring with a tail', () => {
    const len = (edges: string[], blockers: string[] = []) => {
      const { roads, buildings } = layout(edges, blockers);
      return roadLength(roads, buildings, 0);
    };
    expect(len([])).toBe(0);
    expect(len(['OP'])).toBe(1);
    expect(len(['EO', 'FO', 'OP', 'OS', 'NS'])).toBe(5);
    expect(len(RING_S)).toBe(6);
    expect(len([...RING_S, 'OP', 'FP'])).toBe(8);
    // A fork counts its longer branches only.
    expect(len(['OS', 'NS', 'MS', 'OP', 'NO'])).toBe(4);
  });

  it('never passes a corner with another player’s building, but may end there', () => {
    const len = (edges: string[], blockers: string[]) => {
      const { roads, buildings } = layout(edges, blockers);
      return roadLength(roads, buildings, 0);
    };
    expect(len(['EO', 'FO', 'OP', 'OS', 'NS'], ['FOP'])).toBe(3);
    expect(len(RING_S, ['NOS'])).toBe(6); // around the ring from NOS back to NOS
    expect(len(RING_S, ['NOS', 'QRS'])).toBe(3);
    // Own buildings do not cut.
    const { roads, buildings } = layout(['EO', 'FO', 'OP', 'OS', 'NS']);
    buildings[parseCorner('FOP')] = 0;
    expect(roadLength(roads, buildings, 0)).toBe(5);
  });

  it('agrees with the plain search on thousands of random networks', () => {
    const rng = Rng.seeded('longest');
    for (let i = 0; i < 3000; i++) {
      const roads = Array<number>(72).fill(-1);
      const buildings = Array<number>(54).fill(-1);
      const n = rng.int(1, 15);
      // Grow a connected-ish network from a random edge, as real roads grow.
      roads[rng.int(0, 71)] = 0;
      for (let k = 1; k < n; k++) {
        const candidates = EDGE_NAMES.map((_, e) => e).filter(
          (e) => roads[e] === -1 && EDGE_CORNERS[e]!.some((c) => CORNER_EDGES[c]!.some((f) => roads[f] === 0)),
        );
        if (candidates.length === 0) break;
        roads[rng.pick(candidates)] = 0;
      }
      for (let k = rng.int(0, 3); k > 0; k--) buildings[rng.int(0, 53)] = rng.int(0, 3) * 2;
      expect(roadLength(roads, buildings, 0), `case ${i}`).toBe(reference(roads, buildings, 0));
    }
  });
});

describe('Längste Handelsstraße', () => {
  it('follows the holder rules of §3', () => {
    expect(longestRoadHolder([4, 4, 3], null)).toBe(null);
    expect(longestRoadHolder([5, 4, 3], null)).toBe(0);
    expect(longestRoadHolder([5, 5, 3], null)).toBe(null);
    expect(longestRoadHolder([5, 6, 3], 0)).toBe(1);
    expect(longestRoadHolder([6, 6, 3], 0)).toBe(0); // a tie keeps the holder
    expect(longestRoadHolder([4, 6, 6], 0)).toBe(null); // the holder lost it, others tie: nobody
    expect(longestRoadHolder([4, 3, 3], 0)).toBe(null); // the holder still leads but below 5
  });

  // 42 has EO, FO, OP, OS (4); building NS makes 5.
  const four = (): State => withHand(withRoads(mainPhase(), 42, ['FO', 'OS']), 42, { Holz: 3, Lehm: 3, Wolle: 1, Getreide: 1 });

  it('goes to the first road of 5, with ±2 points, announced before the Statusupdates', () => {
    const step = must(four(), 42, { type: 'build', piece: 'Strasse', at: 'NS' });
    expect(types(step.events)).toEqual(['built', 'paid', 'longestRoad', 'playerUpdated']);
    expect(step.events[2]).toEqual({ type: 'longestRoad', player: 42 });
    expect(player(step.state, 42).points).toBe(4);
    expect(player(step.state, 42).roadLength).toBe(5);
  });

  it('stays with the holder on a tie and moves on strictly more', () => {
    let s = must(four(), 42, { type: 'build', piece: 'Strasse', at: 'NS' }).state;
    s = must(s, 42, { type: 'endTurn' }).state;
    // 63 at ALM with road AM: three more around A make 4, then 5 (a tie), then the closed ring of 6.
    s = withHand(withRoads(s, 63, ['AL', 'eA', 'aA']), 63, { Holz: 2, Lehm: 2 });
    s = must(s, 63, { type: 'roll', dice: [1, 1] }).state;
    const tie = must(s, 63, { type: 'build', piece: 'Strasse', at: 'Ab' });
    expect(player(tie.state, 63).roadLength).toBe(5);
    expect(types(tie.events)).not.toContain('longestRoad');
    const more = must(tie.state, 63, { type: 'build', piece: 'Strasse', at: 'AB' });
    expect(more.events).toContainEqual({ type: 'longestRoad', player: 63 });
    expect([player(more.state, 42).points, player(more.state, 63).points]).toEqual([2, 4]);
  });

  function brokenBy17(s: State) {
    // 17 (road DN) builds NO and a Dorf at NOS, cutting 42's route EO-FO-OP-OS | NS.
    let t = must(s, 42, { type: 'endTurn' }).state;
    t = must(t, 63, { type: 'roll', dice: [1, 1] }).state;
    t = must(t, 63, { type: 'endTurn' }).state;
    t = withHand(t, 17, { Holz: 2, Lehm: 2, Wolle: 1, Getreide: 1 });
    t = must(t, 17, { type: 'roll', dice: [1, 1] }).state;
    t = must(t, 17, { type: 'build', piece: 'Strasse', at: 'NO' }).state;
    return must(t, 17, { type: 'build', piece: 'Dorf', at: 'NOS' });
  }

  it('is recomputed for everyone when a Dorf cuts a route: nobody holds it if nobody is left at 5', () => {
    const s = must(four(), 42, { type: 'build', piece: 'Strasse', at: 'NS' }).state;
    const step = brokenBy17(s);
    expect(step.events).toContainEqual({ type: 'longestRoad', player: null });
    expect(player(step.state, 42).roadLength).toBe(4);
    expect(player(step.state, 42).points).toBe(2);
    expect(step.state.longestRoad).toBe(null);
    // 42 lost points on 17's turn, so 42 gets a Statusupdate too.
    expect(step.events.flatMap((e) => (e.type === 'playerUpdated' ? [e.player.id] : []))).toEqual([17, 42]);
  });

  it('passes to the sole longest other route when the holder’s is cut, and to nobody on a tie', () => {
    const base = must(four(), 42, { type: 'build', piece: 'Strasse', at: 'NS' }).state;
    const with63 = withRoads(base, 63, ['AL', 'eA', 'aA', 'bA']);
    const sole = brokenBy17(with63);
    expect(sole.events).toContainEqual({ type: 'longestRoad', player: 63 });
    expect(player(sole.state, 63).points).toBe(4);
    const tied = brokenBy17(withRoads(with63, 17, ['KL', 'gK', 'iK', 'kK']));
    expect(tied.events).toContainEqual({ type: 'longestRoad', player: null });
  });
});
