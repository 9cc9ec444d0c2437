import { WIDTH } from '../bitboard.js';
import { Position } from './position.js';

/**
 * An opening book, found by our own solver (bench/connect4-book.ts): exact scores of selected
 * positions, and for the positions the generator analysed, their best columns. A position and its
 * mirror image share one entry.
 *
 * Text format, one entry a line: `<moves> <score>` as in Pons' test sets (the moves reach the
 * position; the score is the exact score of the side to move, spec §6.2), optionally followed by
 * ` <best>`: the 1-based columns that reach that score, as digits (`44 -1 4` or `4 1 345`). The
 * first line `# connect4-book depth=<D> …` gives the most stones of any entry; other lines
 * starting with `#` are comments. Text keeps the data readable and diffable.
 */
export class Book {
  readonly depth: number;
  private readonly scoreMap = new Map<number, number>();
  /** Best columns (0-based) in the orientation of the canonical key. */
  private readonly bestMap = new Map<number, number[]>();
  private changes = 0;
  /**
   * The entries of a decoded book (encode's layout) until something looks one up in JavaScript:
   * filling the maps costs ~10 ms of interpreted code, and `solve` needs only the wasm copy of the
   * scores, which the core loads from these bytes directly (search-wasm.ts).
   */
  private packed: Uint8Array | null = null;

  constructor(depth: number) {
    this.depth = depth;
  }

  private get scores(): Map<number, number> {
    if (this.packed !== null) this.unpack();
    return this.scoreMap;
  }

  private get best(): Map<number, number[]> {
    if (this.packed !== null) this.unpack();
    return this.bestMap;
  }

  get size(): number {
    return this.packed !== null ? this.packed.length / 8 : this.scoreMap.size;
  }

  /** The entries in encode's layout (8 bytes each) while the book is as decoded, else null. */
  packedEntries(): Uint8Array | null {
    return this.packed;
  }

  /** Counts the calls of `set`, so that a copy of the scores (the wasm search's) knows it is stale. */
  get revision(): number {
    return this.changes;
  }

  /** Every entry: canonical key (see canonicalKey) and score. */
  scoreEntries(): IterableIterator<[number, number]> {
    return this.scores.entries();
  }

  /** Exact score of the position given as words (see bitboard.ts), or null if not in the book. */
  lookup(cl: number, ch: number, ml: number, mh: number): number | null {
    return this.scores.get(canonicalKey(cl + ml, ch + mh)) ?? null;
  }

  get(position: Position): number | null {
    if (position.moves > this.depth) return null;
    return this.lookup(position.curLo, position.curHi, position.maskLo, position.maskHi);
  }

  /** The columns (0-based) that reach the position's score, if the book has them. */
  bestColumns(position: Position): number[] | null {
    if (position.moves > this.depth) return null;
    const { key, mirrored } = orientation(position);
    const columns = this.best.get(key);
    if (!columns) return null;
    return (mirrored ? columns.map((c) => WIDTH - 1 - c) : columns.slice()).sort((a, b) => a - b);
  }

  set(position: Position, score: number, bestColumns?: readonly number[]): void {
    const { key, mirrored } = orientation(position);
    this.changes++;
    this.scores.set(key, score);
    if (bestColumns) this.best.set(key, bestColumns.map((c) => (mirrored ? WIDTH - 1 - c : c)));
  }

  /**
   * The binary form shipped at run time (book.bin, made from the text by bench/connect4-book.ts):
   * a 16-byte header (`C4BK`, format 1, depth, entry count) and 8 bytes an entry, little-endian:
   * the canonical key (bits 0–48), its best columns as a bit set in the key's orientation (bits
   * 49–55, 0 = not analysed) and the score + 64 (bits 56–63). Entries in ascending key order, so
   * the same book always gives the same bytes. Decoding 5k entries takes well under a millisecond,
   * parsing the text several.
   */
  encode(): Uint8Array {
    const keys = [...this.scores.keys()].sort((a, b) => a - b);
    const bytes = new Uint8Array(16 + 8 * keys.length);
    const view = new DataView(bytes.buffer);
    bytes.set([0x43, 0x34, 0x42, 0x4b]);
    view.setUint32(4, 1, true);
    view.setInt32(8, this.depth, true);
    view.setUint32(12, keys.length, true);
    keys.forEach((key, i) => {
      let bits = 0;
      for (const c of this.best.get(key) ?? []) bits |= 1 << c;
      const hi = Math.floor(key / 2 ** 32);
      view.setUint32(16 + 8 * i, key >>> 0, true);
      view.setUint32(20 + 8 * i, hi | (bits << 17) | ((this.scores.get(key)! + 64) << 24), true);
    });
    return bytes;
  }

  /** Reads the binary form (see encode); throws on anything else. */
  static decode(bytes: Uint8Array): Book {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const count = bytes.length >= 16 ? view.getUint32(12, true) : -1;
    if (view.getUint32(0, false) !== 0x4334424b || view.getUint32(4, true) !== 1 || bytes.length !== 16 + 8 * count) {
      throw new Error('connect4 book: not a binary book of format 1');
    }
    const book = new Book(view.getInt32(8, true));
    book.packed = bytes.subarray(16);
    book.changes = 1;
    return book;
  }

  /** Fills the maps from the packed entries (on the first lookup in JavaScript). */
  private unpack(): void {
    const bytes = this.packed!;
    this.packed = null;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let at = 0; at < bytes.length; at += 8) {
      const lo = view.getUint32(at, true);
      const hi = view.getUint32(at + 4, true);
      const key = (hi & 0x1ffff) * 2 ** 32 + lo;
      this.scoreMap.set(key, (hi >>> 24) - 64);
      const bits = (hi >>> 17) & 0x7f;
      if (bits !== 0) {
        const columns: number[] = [];
        for (let c = 0; c < WIDTH; c++) if ((bits >> c) & 1) columns.push(c);
        this.bestMap.set(key, columns);
      }
    }
  }

  /** Parses the text format; throws on a malformed line (the data is generated, so that is a bug). */
  static parse(text: string): Book {
    const lines = text.split('\n');
    const header = /^# connect4-book depth=(\d+)/.exec(lines[0] ?? '');
    if (!header) throw new Error('connect4 book: missing "# connect4-book depth=" header');
    const book = new Book(Number(header[1]));
    for (let i = 1; i < lines.length; i++) {
      // Only trailing space is trimmed: the empty board is the line " <score> <best>".
      const line = lines[i]!.trimEnd();
      if (line === '' || line.startsWith('#')) continue;
      const m = /^([1-7]*) (-?\d+)(?: ([1-7]+))?$/.exec(line);
      if (!m) throw new Error(`connect4 book: line ${i + 1} is malformed: ${JSON.stringify(line)}`);
      // Played directly rather than through the rules (Position.parse): the book has thousands of
      // lines, and its positions only need columns that are not full.
      const position = new Position();
      for (const digit of m[1]!) {
        const col = Number(digit) - 1;
        if (!position.canPlay(col)) throw new Error(`connect4 book: line ${i + 1}: column ${digit} is full`);
        position.playCol(col);
      }
      const best = m[3] === undefined ? undefined : Array.from(m[3], (c) => Number(c) - 1);
      book.set(position, Number(m[2]), best);
    }
    return book;
  }
}

/** The canonical key of a position and whether the position is the mirror of the stored form. */
function orientation(position: Position): { key: number; mirrored: boolean } {
  const keyLo = position.curLo + position.maskLo;
  const keyHi = position.curHi + position.maskHi;
  const key = canonicalKey(keyLo, keyHi);
  return { key, mirrored: key !== keyHi * 268435456 + keyLo };
}

/**
 * The smaller of a key and its mirror image's key, as an exact double (< 2^49). A key holds one
 * 7-bit code per column (cur + mask), lo word columns 0–3, hi word columns 4–6.
 */
export function canonicalKey(keyLo: number, keyHi: number): number {
  let mirrorLo = 0;
  let mirrorHi = 0;
  for (let col = 0; col < WIDTH; col++) {
    const code = (col < 4 ? keyLo >>> (7 * col) : keyHi >>> (7 * (col - 4))) & 0x7f;
    const to = WIDTH - 1 - col;
    if (to < 4) mirrorLo |= code << (7 * to);
    else mirrorHi |= code << (7 * (to - 4));
  }
  const key = keyHi * 268435456 + keyLo;
  const mirror = mirrorHi * 268435456 + mirrorLo;
  return key < mirror ? key : mirror;
}
