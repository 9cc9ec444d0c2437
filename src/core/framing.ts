/**
 * Splits a TCP byte stream into lines. A line longer than `maxLineBytes` is reported once as
 * overlong and skipped up to its end, so one bad client cannot make the server buffer without bound.
 */
export type FramedItem = { kind: 'line'; line: string } | { kind: 'overlong'; bytes: number };

export class LineFramer {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;
  private skipped = 0;

  constructor(private readonly maxLineBytes: number) {}

  /** Feeds a chunk; returns the complete lines (without `\n`, and without a trailing `\r`). */
  push(chunk: Buffer): FramedItem[] {
    const out: FramedItem[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      if (this.skipping) {
        this.skipped += piece.length;
      } else if (this.size + piece.length > this.maxLineBytes) {
        this.skipping = true;
        this.skipped = this.size + piece.length;
        this.parts = [];
        this.size = 0;
      } else if (piece.length > 0) {
        this.parts.push(piece);
        this.size += piece.length;
      }
      if (nl === -1) break;
      if (this.skipping) {
        out.push({ kind: 'overlong', bytes: this.skipped });
        this.skipping = false;
        this.skipped = 0;
      } else {
        let line = Buffer.concat(this.parts, this.size).toString('utf8');
        if (line.endsWith('\r')) line = line.slice(0, -1);
        out.push({ kind: 'line', line });
      }
      this.parts = [];
      this.size = 0;
      start = nl + 1;
    }
    return out;
  }

  /** True while an overlong line is being skipped (the caller may want to answer at once). */
  get overflowing(): boolean {
    return this.skipping;
  }

  /** Bytes of an unfinished line held in the buffer. */
  get buffered(): number {
    return this.size;
  }
}
