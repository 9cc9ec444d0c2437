/**
 * The datagram channel between a box's relay (relay-inside.ts) and the runner (relay.ts): a frame
 * is its length (2 bytes: what follows), port a (2), port b (2) and the payload. Built-ins only:
 * relay-inside.ts bundles it into the one file a box can read.
 */

export function frame(a: number, b: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(6);
  head.writeUInt16BE(payload.length + 4, 0);
  head.writeUInt16BE(a, 2);
  head.writeUInt16BE(b, 4);
  return Buffer.concat([head, payload]);
}

/** Cuts a byte stream into frames (what waits for the rest of one is under 64 KiB: its length is 16 bits). */
export class FrameReader {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): { a: number; b: number; payload: Buffer }[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const out: { a: number; b: number; payload: Buffer }[] = [];
    while (this.pending.length >= 2 && this.pending.length >= 2 + this.pending.readUInt16BE(0)) {
      const length = this.pending.readUInt16BE(0);
      out.push({ a: this.pending.readUInt16BE(2), b: this.pending.readUInt16BE(4), payload: Buffer.from(this.pending.subarray(6, 2 + length)) });
      this.pending = this.pending.subarray(2 + length);
    }
    return out;
  }
}
