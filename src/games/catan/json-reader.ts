/**
 * Splits a byte stream into JSON objects (catan.md §2.1): one object per line is what a correct
 * peer sends, but fragmented reads, `\r\n` and pretty-printed objects spread over many lines must
 * be read as well. So the reader does not cut at newlines; it follows the JSON grammar byte by byte
 * and emits an object when its outermost `}` arrives.
 *
 * Broken input is reported once and skipped: a grammar error drops the object read so far and the
 * reader starts again at the next line, or right at the offending `{` when that is the first thing
 * on its line (an unclosed object followed by a good one loses only the first). Anything that is
 * not an object at the top level is skipped to the end of its line. An object (or a run of junk
 * without a newline) over `maxBytes` is reported as overlong; the caller closes the connection.
 */

export type ReadItem =
  /** `value` is the decoded object (`JSON.parse(text)`). */
  | { readonly kind: 'object'; readonly text: string; readonly value: Readonly<Record<string, unknown>> }
  | { readonly kind: 'invalid'; readonly reason: 'json' | 'utf8' | 'depth' | 'junk'; readonly sample: string }
  | { readonly kind: 'overlong'; readonly bytes: number };

const enum Mode {
  /** Between objects: whitespace is skipped, `{` starts an object. */
  Top,
  /** Skipping the rest of a line; `report` says whether an `invalid` is still owed for it. */
  Skip,
  /** Inside an object. */
  Object,
}

const enum Expect {
  KeyOrEnd,
  Key,
  Colon,
  Value,
  ValueOrEnd,
  AfterValue,
  String,
  Escape,
  Unicode,
  Number,
  Literal,
}

const SAMPLE = 200;
const decoder = new TextDecoder('utf-8', { fatal: true });
const lossy = new TextDecoder('utf-8');

const isSpace = (b: number): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
const isDigit = (b: number): boolean => b >= 0x30 && b <= 0x39;
const isHex = (b: number): boolean => isDigit(b) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** Whether a decoded value nests deeper than `max` objects and arrays. */
function tooDeep(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (max <= 0) return true;
  for (const v of Array.isArray(value) ? value : Object.values(value)) if (tooDeep(v, max - 1)) return true;
  return false;
}

export class JsonObjectReader {
  private mode = Mode.Top;
  private expect = Expect.KeyOrEnd;
  /** Open containers: 0x7b `{` or 0x5b `[`. */
  private stack: number[] = [];
  private stringIsKey = false;
  private unicodeLeft = 0;
  private token = '';
  /** Bytes of the object being read (earlier chunks) and where it starts in the current chunk. */
  private parts: Uint8Array[] = [];
  private size = 0;
  /** Bytes since the last newline outside objects (junk or whitespace), for the overlong rule. */
  private lineBytes = 0;
  /** Only whitespace seen on the current line so far (a `{` there may start a fresh object). */
  private lineBlank = true;
  private junk: number[] = [];
  private reportSkip = false;

  constructor(
    private readonly maxBytes = 64 * 1024,
    private readonly maxDepth = 32,
  ) {}

  /** Bytes held for an unfinished object. */
  get buffered(): number {
    return this.mode === Mode.Object ? this.size : 0;
  }

  push(chunk: Uint8Array): ReadItem[] {
    const out: ReadItem[] = [];
    let start = 0;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.mode === Mode.Object) {
        if (++this.size > this.maxBytes) {
          out.push({ kind: 'overlong', bytes: this.size });
          this.reset();
          this.mode = Mode.Skip;
          this.reportSkip = false;
          this.lineBytes = this.maxBytes + 1;
          if (b === 0x0a) this.endLine(out);
          continue;
        }
        const step = this.step(b);
        if (step === 'done') {
          out.push(this.finish(chunk.subarray(start, i + 1)));
          this.mode = Mode.Top;
          this.lineBlank = false;
          this.lineBytes = 0;
        } else if (step !== 'ok') {
          out.push({ kind: 'invalid', reason: step, sample: this.sampleOf(chunk.subarray(start, i + 1)) });
          const restartHere = b === 0x7b && this.lineBlank;
          this.reset();
          if (restartHere) {
            this.begin();
            start = i;
            this.size = 1;
          } else if (b === 0x0a) {
            this.mode = Mode.Top;
            this.endLine(out);
          } else {
            this.mode = Mode.Skip;
            this.reportSkip = false;
          }
        } else if (b === 0x0a) {
          this.lineBlank = true;
        } else if (!isSpace(b)) {
          this.lineBlank = false;
        }
        continue;
      }
      if (b === 0x0a) {
        this.endLine(out);
        continue;
      }
      if (++this.lineBytes > this.maxBytes) {
        if (this.lineBytes === this.maxBytes + 1) out.push({ kind: 'overlong', bytes: this.lineBytes });
        this.mode = Mode.Skip;
        this.reportSkip = false;
        continue;
      }
      if (this.mode === Mode.Skip) {
        if (this.reportSkip && this.junk.length < SAMPLE) this.junk.push(b);
        continue;
      }
      if (isSpace(b)) continue;
      if (b === 0x7b) {
        // The common case, a whole object on one line, goes to JSON.parse directly.
        const nl = this.lineBlank ? chunk.indexOf(0x0a, i) : -1;
        const whole = nl < 0 ? null : this.whole(chunk.subarray(i, nl));
        if (whole) {
          out.push(whole);
          i = nl - 1;
          continue;
        }
        this.begin();
        start = i;
        this.size = 1;
        this.lineBlank = false;
        continue;
      }
      this.mode = Mode.Skip;
      this.reportSkip = true;
      this.junk = [b];
    }
    if (this.mode === Mode.Object) {
      const rest = chunk.subarray(start);
      // The chunk may be reused by the caller: keep a copy.
      if (rest.length > 0) this.parts.push(Uint8Array.from(rest));
    }
    return out;
  }

  /** One line that is exactly one valid object (up to trailing whitespace), or null to read it the slow way. */
  private whole(line: Uint8Array): ReadItem | null {
    let end = line.length;
    while (end > 0 && isSpace(line[end - 1]!)) end--;
    if (end > this.maxBytes || line[end - 1] !== 0x7d) return null;
    try {
      const text = decoder.decode(line.subarray(0, end));
      const value = JSON.parse(text) as unknown;
      if (typeof value !== 'object' || value === null || Array.isArray(value) || tooDeep(value, this.maxDepth)) return null;
      return { kind: 'object', text, value: value as Record<string, unknown> };
    } catch {
      return null;
    }
  }

  private endLine(out: ReadItem[]): void {
    if (this.mode === Mode.Skip && this.reportSkip) {
      out.push({ kind: 'invalid', reason: 'junk', sample: lossy.decode(Uint8Array.from(this.junk)) });
    }
    this.mode = Mode.Top;
    this.reportSkip = false;
    this.junk = [];
    this.lineBytes = 0;
    this.lineBlank = true;
  }

  private begin(): void {
    this.mode = Mode.Object;
    this.stack = [0x7b];
    this.expect = Expect.KeyOrEnd;
    this.parts = [];
    this.size = 0;
  }

  private reset(): void {
    this.stack = [];
    this.parts = [];
    this.size = 0;
    this.token = '';
  }

  private bytesOf(last: Uint8Array): Uint8Array {
    if (this.parts.length === 0) return last;
    const all = new Uint8Array(this.size);
    let at = 0;
    for (const p of [...this.parts, last]) {
      all.set(p.subarray(0, Math.min(p.length, all.length - at)), at);
      at += p.length;
    }
    return all;
  }

  private sampleOf(last: Uint8Array): string {
    const bytes = this.bytesOf(last);
    return lossy.decode(bytes.subarray(0, SAMPLE));
  }

  private finish(last: Uint8Array): ReadItem {
    const bytes = this.bytesOf(last);
    this.reset();
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      return { kind: 'invalid', reason: 'utf8', sample: lossy.decode(bytes.subarray(0, SAMPLE)) };
    }
    try {
      // The grammar was checked byte by byte, so this parses.
      return { kind: 'object', text, value: JSON.parse(text) as Record<string, unknown> };
    } catch {
      return { kind: 'invalid', reason: 'json', sample: text.slice(0, SAMPLE) };
    }
  }

  private close(b: number): 'ok' | 'done' | 'json' {
    const open = this.stack.pop();
    if ((b === 0x7d && open !== 0x7b) || (b === 0x5d && open !== 0x5b)) return 'json';
    if (this.stack.length === 0) return 'done';
    this.expect = Expect.AfterValue;
    return 'ok';
  }

  private value(b: number): 'ok' | 'done' | 'json' | 'depth' {
    if (b === 0x22) {
      this.expect = Expect.String;
      this.stringIsKey = false;
    } else if (b === 0x7b || b === 0x5b) {
      if (this.stack.length >= this.maxDepth) return 'depth';
      this.stack.push(b);
      this.expect = b === 0x7b ? Expect.KeyOrEnd : Expect.ValueOrEnd;
    } else if (b === 0x2d || isDigit(b)) {
      this.expect = Expect.Number;
      this.token = String.fromCharCode(b);
    } else if (b === 0x74 || b === 0x66 || b === 0x6e) {
      this.expect = Expect.Literal;
      this.token = String.fromCharCode(b);
    } else return 'json';
    return 'ok';
  }

  /** One byte inside an object. */
  private step(b: number): 'ok' | 'done' | 'json' | 'depth' {
    switch (this.expect) {
      case Expect.String:
        if (b === 0x5c) this.expect = Expect.Escape;
        else if (b === 0x22) this.expect = this.stringIsKey ? Expect.Colon : Expect.AfterValue;
        else if (b < 0x20) return 'json';
        return 'ok';
      case Expect.Escape:
        if (b === 0x75) {
          this.expect = Expect.Unicode;
          this.unicodeLeft = 4;
          return 'ok';
        }
        // " \ / b f n r t
        if ([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74].includes(b)) {
          this.expect = Expect.String;
          return 'ok';
        }
        return 'json';
      case Expect.Unicode:
        if (!isHex(b)) return 'json';
        if (--this.unicodeLeft === 0) this.expect = Expect.String;
        return 'ok';
      case Expect.Number:
        if (isDigit(b) || b === 0x2e || b === 0x65 || b === 0x45 || b === 0x2b || b === 0x2d) {
          if (this.token.length > 64) return 'json';
          this.token += String.fromCharCode(b);
          return 'ok';
        }
        if (!NUMBER.test(this.token)) return 'json';
        this.expect = Expect.AfterValue;
        return this.step(b);
      case Expect.Literal:
        if (b >= 0x61 && b <= 0x7a && this.token.length < 5) {
          this.token += String.fromCharCode(b);
          return 'ok';
        }
        if (this.token !== 'true' && this.token !== 'false' && this.token !== 'null') return 'json';
        this.expect = Expect.AfterValue;
        return this.step(b);
      default:
        break;
    }
    if (isSpace(b)) return 'ok';
    switch (this.expect) {
      case Expect.KeyOrEnd:
      case Expect.Key:
        if (b === 0x7d && this.expect === Expect.KeyOrEnd) return this.close(b);
        if (b !== 0x22) return 'json';
        this.expect = Expect.String;
        this.stringIsKey = true;
        return 'ok';
      case Expect.Colon:
        if (b !== 0x3a) return 'json';
        this.expect = Expect.Value;
        return 'ok';
      case Expect.ValueOrEnd:
        if (b === 0x5d) return this.close(b);
        return this.value(b);
      case Expect.Value:
        return this.value(b);
      case Expect.AfterValue:
        if (b === 0x2c) {
          this.expect = this.stack[this.stack.length - 1] === 0x7b ? Expect.Key : Expect.Value;
          return 'ok';
        }
        if (b === 0x7d || b === 0x5d) return this.close(b);
        return 'json';
      default:
        return 'json';
    }
  }
}
