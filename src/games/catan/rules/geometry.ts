/**
 * The seed's map as fixed tables: 37 hexes (19 land A–S, 18 sea a–r), 72 edges and 54 corners,
 * each with a small integer id, plus the adjacency the hot paths (legal spots, longest road,
 * production) read. Everything here is computed once at module load from the axial coordinates
 * of catan.md §2.3, so no table is typed in by hand.
 */

/** Rows from top (y = 3) to bottom (y = −3), letters left to right, exactly as the seed draws them. */
const ROWS = ['abcd', 'eABCf', 'gLMNDh', 'iKRSOEj', 'kJQPFl', 'mIHGn', 'opqr'] as const;

export const LAND_LETTERS = 'ABCDEFGHIJKLMNOPQRS';
export const SEA_LETTERS = 'abcdefghijklmnopqr';
export const LAND_COUNT = 19;

/** Hex ids: 0–18 are the land hexes A–S, 19–36 the sea hexes a–r. */
/** The letters of an ASCII string. */
const lettersOf = (text: string): string[] => text.split('');

export const HEX_LETTERS: readonly string[] = [...lettersOf(LAND_LETTERS), ...lettersOf(SEA_LETTERS)];
export const HEX_COUNT = HEX_LETTERS.length;

export interface Axial {
  readonly x: number;
  readonly y: number;
}

const coordOf = new Map<string, Axial>();
ROWS.forEach((row, i) => {
  const y = 3 - i;
  const from = Math.max(-3, -3 - y);
  lettersOf(row).forEach((letter, j) => coordOf.set(letter, { x: from + j, y }));
});

/** The axial coordinate of a hex letter (S = (0,0), A = (−2,2), G = (2,−2)). */
export function axial(letter: string): Axial | undefined {
  return coordOf.get(letter);
}

const hexIdOf = new Map<string, number>(HEX_LETTERS.map((l, i) => [l, i]));
const hexAt = new Map<string, number>();
for (const [letter, c] of coordOf) hexAt.set(`${c.x},${c.y}`, hexIdOf.get(letter)!);

export const isLand = (hex: number): boolean => hex < LAND_COUNT;

/** Canonical letter order: lowercase first, then uppercase, each group alphabetical (`fD`, `HI`, `ABM`). */
export function canonical(letters: string): string {
  return lettersOf(letters)
    .sort((a, b) => {
      const la = a >= 'a' ? 0 : 1;
      const lb = b >= 'a' ? 0 : 1;
      return la !== lb ? la - lb : a < b ? -1 : a > b ? 1 : 0;
    })
    .join('');
}

const STEPS: readonly (readonly [number, number])[] = [
  [1, 0],
  [-1, 0],
  [0, 1],
  [0, -1],
  [-1, 1],
  [1, -1],
];

/** Neighbouring hex ids of every hex (only those on the 37-hex map). */
export const HEX_NEIGHBOURS: readonly (readonly number[])[] = HEX_LETTERS.map((letter) => {
  const c = coordOf.get(letter)!;
  const out: number[] = [];
  for (const [dx, dy] of STEPS) {
    const n = hexAt.get(`${c.x + dx},${c.y + dy}`);
    if (n !== undefined) out.push(n);
  }
  return out;
});

const adjacent = (a: number, b: number): boolean => HEX_NEIGHBOURS[a]!.includes(b);
const nameOf = (hexes: readonly number[]): string => canonical(hexes.map((h) => HEX_LETTERS[h]!).join(''));

// Edges: adjacent pairs with at least one land hex; corners: mutually adjacent triples, likewise.
const edgeHexList: number[][] = [];
const cornerHexList: number[][] = [];
for (let a = 0; a < HEX_COUNT; a++) {
  for (const b of HEX_NEIGHBOURS[a]!) {
    if (b <= a || (!isLand(a) && !isLand(b))) continue;
    edgeHexList.push([a, b]);
    for (const c of HEX_NEIGHBOURS[b]!) {
      if (c <= b || !adjacent(a, c)) continue;
      if (isLand(a) || isLand(b) || isLand(c)) cornerHexList.push([a, b, c]);
    }
  }
}
const byName = (x: number[], y: number[]): number => (nameOf(x) < nameOf(y) ? -1 : 1);
edgeHexList.sort(byName);
cornerHexList.sort(byName);

/** Canonical names, indexed by edge / corner id (ids follow the sorted canonical names). */
export const EDGE_NAMES: readonly string[] = edgeHexList.map(nameOf);
export const CORNER_NAMES: readonly string[] = cornerHexList.map(nameOf);
export const EDGE_COUNT = EDGE_NAMES.length;
export const CORNER_COUNT = CORNER_NAMES.length;

export const EDGE_HEXES: readonly (readonly number[])[] = edgeHexList;
export const CORNER_HEXES: readonly (readonly number[])[] = cornerHexList;


/** The two corners at the ends of each edge: the corners whose hexes include both of the edge's. */
export const EDGE_CORNERS: readonly (readonly [number, number])[] = edgeHexList.map(([a, b]) => {
  const ends = cornerHexList.flatMap((hexes, id) => (hexes.includes(a!) && hexes.includes(b!) ? [id] : []));
  // A coastal edge between two sea-adjacent corners always has both ends on the map.
  if (ends.length !== 2) throw new Error(`edge ${nameOf([a!, b!])} has ${ends.length} corners`);
  return [ends[0]!, ends[1]!] as const;
});

export const CORNER_EDGES: readonly (readonly number[])[] = cornerHexList.map((_, c) =>
  EDGE_CORNERS.flatMap(([x, y], e) => (x === c || y === c ? [e] : [])),
);

/** Corners sharing an edge with each corner (the distance rule's neighbours). */
export const CORNER_NEIGHBOURS: readonly (readonly number[])[] = CORNER_EDGES.map((edges, c) =>
  edges.map((e) => {
    const [x, y] = EDGE_CORNERS[e]!;
    return x === c ? y : x;
  }),
);

/** The six corners of every land hex. */
export const HEX_CORNERS: readonly (readonly number[])[] = Array.from({ length: LAND_COUNT }, (_, h) =>
  cornerHexList.flatMap((hexes, id) => (hexes.includes(h) ? [id] : [])),
);

/** The land hexes around each corner (1–3 of them). */
export const CORNER_LAND: readonly (readonly number[])[] = cornerHexList.map((hexes) => hexes.filter(isLand));

function permutations(text: string): string[] {
  if (text.length <= 1) return [text];
  return lettersOf(text).flatMap((ch, i) => permutations(text.slice(0, i) + text.slice(i + 1)).map((rest) => ch + rest));
}

// Every spelling of every name (2 per edge, 6 per corner), so parsing is one lookup.
const edgeIdOf = new Map(EDGE_NAMES.flatMap((n, i) => permutations(n).map((p) => [p, i] as const)));
const cornerIdOf = new Map(CORNER_NAMES.flatMap((n, i) => permutations(n).map((p) => [p, i] as const)));

/** Edge id for an `Ort` with its two letters in any order, or −1 (unknown, not adjacent, sea–sea). */
export function parseEdge(text: string): number {
  return edgeIdOf.get(text) ?? -1;
}

/** Corner id for an `Ort` with its three letters in any order, or −1. */
export function parseCorner(text: string): number {
  return cornerIdOf.get(text) ?? -1;
}

/** Land hex id (0–18) for a single land letter, or −1 (unknown letter or sea). */
export function parseLandHex(text: string): number {
  if (text.length !== 1) return -1;
  const id = hexIdOf.get(text);
  return id !== undefined && isLand(id) ? id : -1;
}

export const hexLetter = (hex: number): string => HEX_LETTERS[hex]!;

/**
 * The same adjacency as flat typed arrays for the hot loops (legal spots, longest road,
 * production): three slots per corner padded with −1, two ends per edge, six corners per land hex.
 */
export const CORNER_EDGE3 = Int8Array.from(CORNER_EDGES.flatMap((es) => [es[0]!, es[1]!, es[2] ?? -1]));
export const CORNER_NEIGHBOUR3 = Int8Array.from(CORNER_NEIGHBOURS.flatMap((ns) => [ns[0]!, ns[1]!, ns[2] ?? -1]));
export const EDGE_END2 = Int8Array.from(EDGE_CORNERS.flatMap(([a, b]) => [a, b]));
export const HEX_CORNER6 = Int8Array.from(HEX_CORNERS.flat());
