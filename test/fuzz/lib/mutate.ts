/**
 * The mutation engine of the fuzz campaign: a fast seeded generator and mutators over bytes that
 * turn valid recorded messages into the inputs a careless or hostile client sends: bit and byte
 * flips, truncation, insertion and deletion, splicing two messages, invalid UTF-8, huge and odd
 * numbers, dictionary tokens of the protocol, and deep nesting. Everything is a function of the
 * seed, so a failure is reproduced from the seed and the message number alone.
 */

/** xorshift128+ on two 32-bit halves (fast, good enough for fuzzing; not for the games). */
export class FastRng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: string | number) {
    let h = 0x811c9dc5;
    const text = String(seed);
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    const next = (): number => {
      h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
      h = Math.imul(h ^ (h >>> 12), 0x297a2d39);
      h ^= h >>> 15;
      return h >>> 0 || 1;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
  }

  /** A uniform 32-bit unsigned integer. */
  u32(): number {
    let t = this.d;
    const s = this.a;
    this.d = this.c;
    this.c = this.b;
    this.b = s;
    t ^= t << 11;
    t ^= t >>> 8;
    this.a = (t ^ s ^ (s >>> 19)) >>> 0;
    return this.a;
  }

  /** Uniform in [0, n). */
  below(n: number): number {
    return n <= 1 ? 0 : Math.floor((this.u32() / 0x100000000) * n);
  }

  /** Uniform in [from, to]. */
  int(from: number, to: number): number {
    return from + this.below(to - from + 1);
  }

  chance(p: number): boolean {
    return this.u32() / 0x100000000 < p;
  }

  pick<T>(list: readonly T[]): T {
    return list[this.below(list.length)]!;
  }
}

/** Byte sequences that are not valid UTF-8 (overlong, surrogates, lone continuation, cut-off). */
export const INVALID_UTF8: readonly Buffer[] = [
  [0xc0, 0xaf],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0x80],
  [0xbf, 0xbf],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xff],
  [0xfe, 0xff],
].map((b) => Buffer.from(b));

/** Numbers that break careless parsers. */
export const ODD_NUMBERS: readonly string[] = [
  '0',
  '-0',
  '-1',
  '2147483647',
  '2147483648',
  '-2147483649',
  '4294967296',
  '9007199254740993',
  '99999999999999999999999999999999',
  '1e308',
  '1e400',
  '-1e400',
  '1.5',
  '0x10',
  '010',
  'NaN',
  'Infinity',
  '1' + '0'.repeat(300),
  '0.' + '0'.repeat(200) + '1',
];

/** Bytes with a meaning in one of the protocols. */
const SPECIAL = [
  0x00, 0x0a, 0x0d, 0x09, 0x20, 0x22, 0x27, 0x2c, 0x3a, 0x3b, 0x3c, 0x3e, 0x2f, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d,
  0x26, 0x7f, 0x80, 0xff,
];

export interface MutatorOptions {
  /** Protocol keywords and fragments, spliced in whole. */
  dictionary: readonly string[];
  /** [open, close] pairs for deep nesting (`{"a":` / `}`, `<a>` / `</a>`, `[` / `]`). */
  nesting: readonly (readonly [string, string])[];
  /** The valid messages to start from (and splice with). */
  corpus: readonly Buffer[];
  /** Longest input produced (default 8 KiB; nesting may go beyond to pass the codec's limit). */
  maxBytes?: number;
}

export type MutationKind =
  | 'flip'
  | 'byte'
  | 'truncate'
  | 'insert'
  | 'delete'
  | 'duplicate'
  | 'splice'
  | 'utf8'
  | 'number'
  | 'token'
  | 'nest'
  | 'repeat';

const KINDS: readonly MutationKind[] = [
  'flip',
  'byte',
  'truncate',
  'insert',
  'delete',
  'duplicate',
  'splice',
  'utf8',
  'number',
  'token',
  'nest',
  'repeat',
];

export class Mutator {
  private readonly dict: Buffer[];
  private readonly maxBytes: number;

  constructor(
    private readonly rng: FastRng,
    private readonly o: MutatorOptions,
  ) {
    this.dict = o.dictionary.map((d) => Buffer.from(d));
    this.maxBytes = o.maxBytes ?? 8192;
  }

  /** A corpus message with 1–4 stacked mutations. */
  mutate(input?: Buffer): Buffer {
    let out = input ?? this.rng.pick(this.o.corpus);
    const n = 1 + (this.rng.chance(0.5) ? 0 : this.rng.below(4));
    for (let i = 0; i < n; i++) out = this.once(out, this.rng.pick(KINDS));
    return out;
  }

  once(input: Buffer, kind: MutationKind): Buffer {
    const r = this.rng;
    const at = (len: number): number => r.below(len + 1);
    switch (kind) {
      case 'flip': {
        if (input.length === 0) return Buffer.from([r.below(256)]);
        const out = Buffer.from(input);
        for (let i = r.int(1, 4); i > 0; i--) {
          const p = r.below(out.length);
          out[p]! ^= 1 << r.below(8);
        }
        return out;
      }
      case 'byte': {
        if (input.length === 0) return Buffer.from([r.pick(SPECIAL)]);
        const out = Buffer.from(input);
        out[r.below(out.length)] = r.chance(0.6) ? r.pick(SPECIAL) : r.below(256);
        return out;
      }
      case 'truncate':
        return r.chance(0.5) ? input.subarray(0, at(input.length)) : input.subarray(at(input.length));
      case 'insert': {
        const p = at(input.length);
        const len = r.chance(0.8) ? r.int(1, 8) : r.int(9, 200);
        const bytes = Buffer.alloc(len);
        for (let i = 0; i < len; i++) bytes[i] = r.chance(0.3) ? r.pick(SPECIAL) : r.below(256);
        return this.cap(Buffer.concat([input.subarray(0, p), bytes, input.subarray(p)]));
      }
      case 'delete': {
        const from = at(input.length);
        const to = Math.min(input.length, from + r.int(1, 16));
        return Buffer.concat([input.subarray(0, from), input.subarray(to)]);
      }
      case 'duplicate': {
        const from = at(input.length);
        const to = Math.min(input.length, from + r.int(1, 32));
        const p = at(input.length);
        return this.cap(Buffer.concat([input.subarray(0, p), input.subarray(from, to), input.subarray(p)]));
      }
      case 'splice': {
        const other = r.pick(this.o.corpus);
        return this.cap(
          Buffer.concat([input.subarray(0, at(input.length)), other.subarray(at(other.length))]),
        );
      }
      case 'utf8': {
        const p = at(input.length);
        return Buffer.concat([input.subarray(0, p), r.pick(INVALID_UTF8), input.subarray(p)]);
      }
      case 'number': {
        // Replaces a run of digits (or inserts where there is none) with an odd number.
        const text = input.toString('latin1');
        const runs = [...text.matchAll(/-?\d+/g)];
        const odd = Buffer.from(r.pick(ODD_NUMBERS));
        if (runs.length === 0) return this.once(input, 'token');
        const m = r.pick(runs);
        const start = m.index;
        return this.cap(Buffer.concat([input.subarray(0, start), odd, input.subarray(start + m[0].length)]));
      }
      case 'token': {
        const p = at(input.length);
        const word = r.chance(0.2) ? Buffer.from(r.pick(ODD_NUMBERS)) : r.pick(this.dict);
        if (r.chance(0.5)) return this.cap(Buffer.concat([input.subarray(0, p), word, input.subarray(p)]));
        const to = Math.min(input.length, p + r.int(1, 12));
        return this.cap(Buffer.concat([input.subarray(0, p), word, input.subarray(to)]));
      }
      case 'nest': {
        if (this.o.nesting.length === 0) return this.once(input, 'insert');
        const [open, close] = r.pick(this.o.nesting);
        const depth = r.chance(0.7) ? r.int(10, 200) : r.int(1000, 5000);
        const p = at(input.length);
        const inner = r.chance(0.5) ? '' : close.repeat(depth);
        return Buffer.concat([
          input.subarray(0, p),
          Buffer.from(open.repeat(depth) + inner),
          input.subarray(p),
        ]);
      }
      case 'repeat': {
        // A field or the whole message many times over: long values, many attributes, many keys.
        const from = at(input.length);
        const to = Math.min(input.length, from + r.int(1, 24));
        const piece = input.subarray(from, to);
        const times = r.chance(0.8) ? r.int(2, 64) : r.int(100, 2000);
        return this.cap(
          Buffer.concat([
            input.subarray(0, to),
            Buffer.concat(Array.from({ length: times }, () => piece)),
            input.subarray(to),
          ]),
        );
      }
    }
  }

  private cap(b: Buffer): Buffer {
    return b.length > this.maxBytes ? b.subarray(0, this.maxBytes) : b;
  }
}

/** Splits `data` into 1–`max` chunks at random places (TCP delivers any fragmentation). */
export function chunks(rng: FastRng, data: Buffer, max = 4): Buffer[] {
  const n = rng.int(1, max);
  if (n === 1 || data.length < 2) return [data];
  const cuts = Array.from({ length: n - 1 }, () => rng.int(1, data.length - 1)).sort((x, y) => x - y);
  const out: Buffer[] = [];
  let prev = 0;
  for (const c of cuts) {
    out.push(data.subarray(prev, c));
    prev = c;
  }
  out.push(data.subarray(prev));
  return out;
}
