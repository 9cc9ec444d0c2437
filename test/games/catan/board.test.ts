import { describe, expect, it } from 'vitest';
import { rngState } from '../../../src/core/rng.js';
import {
  CHIPS,
  CORNER_NAMES,
  EDGE_NAMES,
  HARBOUR_SETS,
  HEX_LETTERS,
  SPIRALS,
  axial,
  boardFromSpec,
  canonical,
  layChips,
  parseCorner,
  parseEdge,
  parseLandHex,
  randomBoard,
  type Terrain,
} from '../../../src/games/catan/rules/index.js';
import { CORNER_NEIGHBOURS, EDGE_CORNERS, HEX_NEIGHBOURS } from '../../../src/games/catan/rules/geometry.js';
import { KARTE_T1, specOf } from './helpers.js';

describe('board addressing (§2.3)', () => {
  it('has 37 hexes, 72 edges (30 coastal) and 54 corners', () => {
    expect(HEX_LETTERS).toHaveLength(37);
    expect(EDGE_NAMES).toHaveLength(72);
    expect(CORNER_NAMES).toHaveLength(54);
    expect(EDGE_NAMES.filter((n) => /[a-r]/.test(n))).toHaveLength(30);
  });

  it('uses the axial coordinates of the spec', () => {
    expect(axial('S')).toEqual({ x: 0, y: 0 });
    expect(axial('A')).toEqual({ x: -2, y: 2 });
    expect(axial('G')).toEqual({ x: 2, y: -2 });
    expect(axial('a')).toEqual({ x: -3, y: 3 });
    expect(axial('r')).toEqual({ x: 3, y: -3 });
    // Every hex has six neighbours on an infinite grid; the ring of sea has fewer on the map.
    expect(HEX_NEIGHBOURS.slice(0, 19).every((n) => n.length === 6)).toBe(true);
  });

  it('writes letters canonically: lowercase first, then uppercase, each alphabetical', () => {
    expect(canonical('Df')).toBe('fD');
    expect(canonical('IH')).toBe('HI');
    expect(canonical('MBA')).toBe('ABM');
    expect(canonical('PFO')).toBe('FOP');
    for (const name of [...EDGE_NAMES, ...CORNER_NAMES]) expect(canonical(name)).toBe(name);
  });

  it('parses letters in any order and refuses unknown, non-adjacent and sea-only places', () => {
    expect(EDGE_NAMES[parseEdge('Df')]).toBe('fD');
    expect(EDGE_NAMES[parseEdge('IH')]).toBe('HI');
    expect(CORNER_NAMES[parseCorner('MAB')]).toBe('ABM');
    expect(parseEdge('DI')).toBe(-1); // the seed's error: D and I are not adjacent
    expect(parseEdge('ab')).toBe(-1); // sea–sea
    expect(parseEdge('AA')).toBe(-1);
    expect(parseEdge('AZ')).toBe(-1);
    expect(parseEdge('A')).toBe(-1);
    expect(parseCorner('ABC')).toBe(-1);
    expect(parseCorner('abA')).not.toBe(-1); // a, b and A meet: one land hex is enough
    expect(parseLandHex('S')).toBe(18);
    expect(parseLandHex('a')).toBe(-1);
    expect(parseLandHex('AB')).toBe(-1);
  });

  it('gives every edge two end corners and every corner 2–3 neighbours', () => {
    for (const [a, b] of EDGE_CORNERS) expect(a).not.toBe(b);
    for (const n of CORNER_NEIGHBOURS) expect([2, 3]).toContain(n.length);
  });
});

describe('variable setup (D1, D2)', () => {
  it('never puts a 6 next to an 8 or another 6/8, on any spiral with the desert anywhere (all 6 × 19 cases)', () => {
    for (const spiral of SPIRALS) {
      for (let desert = 0; desert < 19; desert++) {
        const terrain = Array<Terrain>(19).fill('Wald');
        terrain[desert] = 'Wüste';
        const land = layChips(terrain, spiral);
        expect(land.filter((h) => h.number !== null).map((h) => h.number).sort()).toEqual(CHIPS.slice().sort());
        land.forEach((h, i) => {
          if (h.number !== 6 && h.number !== 8) return;
          for (const n of HEX_NEIGHBOURS[i]!) {
            const other = n < 19 ? land[n]!.number : null;
            expect(other === 6 || other === 8, `${spiral} desert ${HEX_LETTERS[desert]!}`).toBe(false);
          }
        });
      }
    }
  });

  it('reproduces T1 from spiral 1 with the desert in the centre', () => {
    const t1 = boardFromSpec(specOf(KARTE_T1));
    if (!t1.ok) throw new Error(t1.error);
    expect(layChips(t1.value.board.land.map((h) => h.terrain), SPIRALS[0]!)).toEqual(t1.value.board.land);
  });

  it('draws boards with the right tiles, the robber on the desert and one of the two harbour sets', () => {
    const seen = new Set<number>();
    for (let seed = 0; seed < 200; seed++) {
      const { board, robber } = randomBoard(rngState(seed));
      const tally = new Map<string, number>();
      for (const h of board.land) tally.set(h.terrain, (tally.get(h.terrain) ?? 0) + 1);
      expect(Object.fromEntries(tally)).toEqual({ Wald: 4, Weideland: 4, Ackerland: 4, Hügelland: 3, Gebirge: 3, Wüste: 1 });
      expect(board.land[robber]!.terrain).toBe('Wüste');
      const set = HARBOUR_SETS.findIndex((positions) => positions.every((p, i) => board.harbours[i]!.at === EDGE_NAMES[parseEdge(p)]));
      expect(set).toBeGreaterThanOrEqual(0);
      seen.add(set);
      expect(board.harbours.map((h) => h.type).sort()).toEqual(
        ['Hafen', 'Hafen', 'Hafen', 'Hafen', 'Holz Hafen', 'Lehm Hafen', 'Wolle Hafen', 'Getreide Hafen', 'Erz Hafen'].sort(),
      );
    }
    expect(seen).toEqual(new Set([0, 1]));
  });

  it('places harbours on sea–land edges with no two sharing or neighbouring a corner', () => {
    for (const positions of HARBOUR_SETS) {
      const corners = positions.flatMap((p) => {
        const e = parseEdge(p);
        expect(e, p).toBeGreaterThanOrEqual(0);
        expect(p).toMatch(/^[a-r][A-S]$/);
        return [...EDGE_CORNERS[e]!];
      });
      expect(new Set(corners).size).toBe(18);
      for (const c of corners) {
        const mine = corners.filter((x) => x !== c);
        const neighbours = CORNER_NEIGHBOURS[c]!.filter((n) => mine.includes(n));
        // Only the harbour's own other corner may neighbour it.
        expect(neighbours.length).toBeLessThanOrEqual(1);
      }
    }
  });

  it('refuses malformed fixed boards', () => {
    const spec = specOf(KARTE_T1);
    expect(boardFromSpec({ ...spec, fields: spec.fields.slice(1) }).ok).toBe(false);
    expect(boardFromSpec({ ...spec, robber: 'a' }).ok).toBe(false);
    expect(boardFromSpec({ ...spec, harbours: [{ at: 'AB', type: 'Hafen' }] }).ok).toBe(false);
    expect(boardFromSpec({ ...spec, fields: spec.fields.map((f) => (f.at === 'S' ? { ...f, number: 7 } : f)) }).ok).toBe(false);
  });
});
