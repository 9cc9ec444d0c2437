/**
 * Where things are drawn: the seed's map (catan.md §2.3) as pointy-top hexes. A hex is named by
 * its letter, a corner by its 3 hexes, an edge by its 2; positions follow from the hex centres
 * (a corner is the centroid of its 3 hexes, an edge runs across the middle of its 2). Drawing only:
 * which corners and edges exist or are legal is always the server's answer.
 */

export const SIZE = 40;
const ROWS = ['abcd', 'eABCf', 'gLMNDh', 'iKRSOEj', 'kJQPFl', 'mIHGn', 'opqr'];
const SQRT3 = Math.sqrt(3);

export interface Point {
  x: number;
  y: number;
}

/** The centre of every hex, by letter (rows y = 3 … −3, letters left to right). */
export const CENTRES: ReadonlyMap<string, Point> = (() => {
  const out = new Map<string, Point>();
  ROWS.forEach((row, k) => {
    const y = 3 - k;
    const first = Math.max(-3, -3 - y);
    row.split('').forEach((letter, i) => {
      const x = first + i;
      out.set(letter, { x: (x + y / 2) * SQRT3 * SIZE, y: -y * 1.5 * SIZE });
    });
  });
  return out;
})();

/** The view box that holds the whole map, sea included. */
export const VIEW_BOX = (() => {
  const w = 4 * SQRT3 * SIZE;
  const h = 5.5 * SIZE;
  return `${-w} ${-h} ${2 * w} ${2 * h}`;
})();

export function hexPoints(c: Point, size = SIZE): string {
  const out: string[] = [];
  for (let i = 0; i < 6; i++) {
    const a = (Math.PI / 180) * (60 * i - 90);
    out.push(`${(c.x + size * Math.cos(a)).toFixed(1)},${(c.y + size * Math.sin(a)).toFixed(1)}`);
  }
  return out.join(' ');
}

const centre = (letter: string): Point | undefined => CENTRES.get(letter);

/** A corner (`ABM`, any order) as a point, or null for a name that is not 3 known hexes. */
export function cornerPoint(name: string): Point | null {
  const cs = name.split('').map(centre);
  if (cs.length !== 3 || cs.some((c) => c === undefined)) return null;
  const ps = cs as Point[];
  return { x: (ps[0]!.x + ps[1]!.x + ps[2]!.x) / 3, y: (ps[0]!.y + ps[1]!.y + ps[2]!.y) / 3 };
}

/** An edge (`HI`, any order) as its two end points, or null. */
export function edgeEnds(name: string): [Point, Point] | null {
  const [a, b] = name.split('').map(centre);
  if (name.length !== 2 || !a || !b) return null;
  const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const len = Math.hypot(dx, dy);
  const px = (-dy / len) * (SIZE / 2);
  const py = (dx / len) * (SIZE / 2);
  return [
    { x: mid.x + px, y: mid.y + py },
    { x: mid.x - px, y: mid.y - py },
  ];
}

/** Where a harbour's marker goes: in its sea hex, towards the coast. */
export function harbourMarker(at: string): { marker: Point; ends: [Point, Point] } | null {
  const ends = edgeEnds(at);
  const sea = at.split('').find((l) => l === l.toLowerCase());
  const c = sea === undefined ? undefined : centre(sea);
  if (!ends || !c) return null;
  const mid = { x: (ends[0].x + ends[1].x) / 2, y: (ends[0].y + ends[1].y) / 2 };
  return { marker: { x: mid.x + (c.x - mid.x) * 0.55, y: mid.y + (c.y - mid.y) * 0.55 }, ends };
}
