import { nextInt, type RngState } from '../../../core/rng.js';
import { err, ok, type Result } from '../../../core/result.js';
import {
  CORNER_COUNT,
  EDGE_CORNERS,
  EDGE_HEXES,
  EDGE_NAMES,
  HEX_COUNT,
  HEX_LETTERS,
  LAND_COUNT,
  LAND_LETTERS,
  isLand,
  parseEdge,
  parseLandHex,
} from './geometry.js';
import { shuffled } from './random.js';
import { HARBOUR_TYPES, RESOURCES, TERRAINS, YIELD, type FieldType, type HarbourType, type Resource, type Terrain } from './types.js';

export interface LandHex {
  readonly terrain: Terrain;
  /** The number chip; null only on the desert. */
  readonly number: number | null;
}

export interface Harbour {
  /** The sea–land edge, canonical (`fD`). */
  readonly at: string;
  readonly type: HarbourType;
}

/** The fixed part of a game: 19 land hexes in A–S order and 9 harbours. The sea is implied. */
export interface Board {
  readonly land: readonly LandHex[];
  readonly harbours: readonly Harbour[];
}

/** D1: the tiles of the variable setup. */
export const TERRAIN_TILES: readonly Terrain[] = [
  ...Array<Terrain>(4).fill('Wald'),
  ...Array<Terrain>(4).fill('Weideland'),
  ...Array<Terrain>(4).fill('Ackerland'),
  ...Array<Terrain>(3).fill('Hügelland'),
  ...Array<Terrain>(3).fill('Gebirge'),
  'Wüste',
];

/** D1: the Almanach chips, laid along a spiral and skipping the desert. */
export const CHIPS: readonly number[] = [5, 2, 6, 3, 8, 10, 9, 12, 11, 4, 8, 10, 9, 4, 5, 6, 3, 11];

/** D1: the six spirals (the outer ring entered at each of its six corners, then inward). */
export const SPIRALS: readonly string[] = [
  'ABCDEFGHIJKLMNOPQRS',
  'CDEFGHIJKLABNOPQRMS',
  'EFGHIJKLABCDOPQRMNS',
  'GHIJKLABCDEFPQRMNOS',
  'IJKLABCDEFGHQRMNOPS',
  'KLABCDEFGHIJRMNOPQS',
];

/** D2: the two harbour position sets (V1 is V0 turned by 60°). */
export const HARBOUR_SETS: readonly (readonly string[])[] = [
  ['aA', 'cC', 'fD', 'jE', 'nG', 'qH', 'oI', 'kK', 'gL'],
  ['bB', 'dC', 'hE', 'lF', 'rG', 'pI', 'mJ', 'iK', 'eA'],
];

export const HARBOUR_TILES: readonly HarbourType[] = [
  'Hafen',
  'Hafen',
  'Hafen',
  'Hafen',
  'Holz Hafen',
  'Lehm Hafen',
  'Wolle Hafen',
  'Getreide Hafen',
  'Erz Hafen',
];

/** Chips along a spiral, skipping the desert (land hex ids 0–18 in A–S order). */
export function layChips(terrain: readonly Terrain[], spiral: string): LandHex[] {
  const numbers = Array<number | null>(LAND_COUNT).fill(null);
  let next = 0;
  for (const letter of spiral) {
    const hex = LAND_LETTERS.indexOf(letter);
    if (terrain[hex] === 'Wüste') continue;
    numbers[hex] = CHIPS[next++]!;
  }
  return terrain.map((t, i) => ({ terrain: t, number: numbers[i]! }));
}

/** A variable setup board (D1, D2) from the RNG; returns the robber's hex (the desert) too. */
export function randomBoard(rng: RngState): { board: Board; robber: number; rng: RngState } {
  const [terrain, r1] = shuffled(TERRAIN_TILES, rng);
  const [spiral, r2] = nextInt(r1, 0, SPIRALS.length - 1);
  const [set, r3] = nextInt(r2, 0, HARBOUR_SETS.length - 1);
  const [types, r] = shuffled(HARBOUR_TILES, r3);
  const board: Board = {
    land: layChips(terrain, SPIRALS[spiral]!),
    harbours: HARBOUR_SETS[set]!.map((at, i) => ({ at, type: types[i]! })),
  };
  return { board, robber: terrain.indexOf('Wüste'), rng: r };
}

/** A board as described field by field (e.g. a `Karte` from a fixture), in wire vocabulary. */
export interface BoardSpec {
  readonly fields: readonly { readonly at: string; readonly type: FieldType; readonly number?: number | null }[];
  readonly harbours: readonly Harbour[];
  readonly robber: string;
}

/** Checks and loads a fixed board; sea fields may be listed or left out. */
export function boardFromSpec(spec: BoardSpec): Result<{ board: Board; robber: number }, string> {
  const land: (LandHex | undefined)[] = Array<LandHex | undefined>(LAND_COUNT).fill(undefined);
  for (const f of spec.fields) {
    if (f.type === 'Meer') {
      if (!HEX_LETTERS.includes(f.at) || isLand(HEX_LETTERS.indexOf(f.at))) return err(`${f.at} is not a sea hex`);
      continue;
    }
    const hex = parseLandHex(f.at);
    if (hex < 0) return err(`${f.at} is not a land hex`);
    if (!TERRAINS.includes(f.type)) return err(`unknown terrain ${f.type}`);
    const number = f.number ?? null;
    if ((f.type === 'Wüste') !== (number === null)) return err(`${f.at}: only the desert has no number`);
    if (number !== null && (!Number.isInteger(number) || number < 2 || number > 12 || number === 7)) return err(`${f.at}: bad number`);
    if (land[hex]) return err(`${f.at} listed twice`);
    land[hex] = { terrain: f.type, number };
  }
  const missing = land.findIndex((h) => !h);
  if (missing >= 0) return err(`land hex ${LAND_LETTERS[missing]!} missing`);
  const harbours: Harbour[] = [];
  for (const h of spec.harbours) {
    const e = parseEdge(h.at);
    if (e < 0) return err(`harbour ${h.at} is not an edge`);
    const [a, b] = EDGE_HEXES[e]!;
    if (isLand(a!) === isLand(b!)) return err(`harbour ${h.at} is not a sea–land edge`);
    if (!HARBOUR_TYPES.includes(h.type)) return err(`unknown harbour type ${h.type}`);
    harbours.push({ at: EDGE_NAMES[e]!, type: h.type });
  }
  const robber = parseLandHex(spec.robber);
  if (robber < 0) return err(`robber on ${spec.robber}`);
  return ok({ board: { land: land as LandHex[], harbours }, robber });
}

/** Tables derived from a board, computed once per board object (boards are shared between states). */
export interface BoardTables {
  /** Land hex ids by number chip (index 2–12). */
  readonly byNumber: readonly (readonly number[])[];
  /** Resource index (0–4 in RESOURCES order) of each land hex, −1 for the desert. */
  readonly yieldOf: readonly number[];
  /** Per corner: bit i (0–4) = 2:1 harbour for RESOURCES[i], bit 5 = 3:1 harbour. */
  readonly harbourMask: readonly number[];
  /** The 18 corners with a harbour. */
  readonly harbourCorners: readonly number[];
}

const tablesCache = new WeakMap<Board, BoardTables>();

export function boardTables(board: Board): BoardTables {
  const cached = tablesCache.get(board);
  if (cached) return cached;
  const byNumber: number[][] = Array.from({ length: 13 }, () => []);
  board.land.forEach((h, i) => {
    if (h.number !== null) byNumber[h.number]!.push(i);
  });
  const yieldOf = board.land.map((h) => {
    const res = YIELD[h.terrain];
    return res === null ? -1 : RESOURCES.indexOf(res);
  });
  const harbourMask = Array<number>(CORNER_COUNT).fill(0);
  for (const h of board.harbours) {
    const e = parseEdge(h.at);
    const bit = h.type === 'Hafen' ? 1 << 5 : 1 << RESOURCES.indexOf(h.type.slice(0, -6) as Resource);
    for (const c of EDGE_CORNERS[e]!) harbourMask[c] = harbourMask[c]! | bit;
  }
  const harbourCorners = harbourMask.flatMap((m, c) => (m ? [c] : []));
  const tables = { byNumber, yieldOf, harbourMask, harbourCorners };
  tablesCache.set(board, tables);
  return tables;
}

export const SEA_HEX_IDS: readonly number[] = Array.from({ length: HEX_COUNT - LAND_COUNT }, (_, i) => LAND_COUNT + i);
