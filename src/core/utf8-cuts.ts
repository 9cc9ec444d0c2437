/**
 * Multi-byte UTF-8 characters placed across the read sizes clients use most (check-client's
 * `*-utf8` scenarios, issue 32): a client that decodes every read on its own (`chunk.toString()`
 * per `data` event, Python's `sock.recv(1024).decode()`, `new String(buf, 0, n, UTF_8)` per read)
 * gets a character cut in two there — U+FFFD, or a decode error that ends it.
 */

/** The read (and receive buffer) sizes students use most: 1000, 1024 and 4096 bytes. */
export const USUAL_READ_SIZES = [1000, 1024, 4096] as const;

/** A 2-, a 3- and a 4-byte character, used in turn for the offsets: ä (U+00E4), € (U+20AC), 🂡 (U+1F0A1). */
export const CUT_CHARACTERS = ['ä', '€', '🂡'] as const;

/** A piece of filler text and how many bytes it takes on the wire (a JSON escape of `\u0001` takes 6). */
export interface Filler {
  text: string;
  bytes: number;
}

const ASCII: Filler = { text: 'x', bytes: 1 };

/**
 * Text that, written starting `startByte` bytes into a write (or datagram), puts a multi-byte
 * character across each offset of `offsets` (its first byte just before the offset), then ends
 * `endByte` bytes into the write (or right after the last character when `endByte` is smaller).
 * Filler goes between: the largest piece of `fillers` that fits, then ASCII (`filler`, 1 byte each).
 * Offsets before `startByte + 1` are left out.
 */
export function textAcross(startByte: number, endByte: number, options: { offsets?: readonly number[]; fillers?: readonly Filler[]; filler?: string } = {}): string {
  const offsets = [...(options.offsets ?? USUAL_READ_SIZES)].sort((a, b) => a - b);
  const fillers = [...(options.fillers ?? []), { ...ASCII, text: options.filler?.[0] ?? ASCII.text }].sort((a, b) => b.bytes - a.bytes);
  let pos = startByte;
  let text = '';
  const fillTo = (to: number): void => {
    let n = 0;
    while (pos < to) {
      const piece = fillers.find((f) => f.bytes <= to - pos)!;
      // ASCII filler cycles through `filler` so that the text reads as words, not one letter.
      text += piece.bytes === 1 && options.filler !== undefined ? options.filler[n++ % options.filler.length]! : piece.text;
      pos += piece.bytes;
    }
  };
  offsets.forEach((offset, i) => {
    // ä across 1000, € across 1024, 🂡 across 4096; other offsets take them in turn.
    const usual = (USUAL_READ_SIZES as readonly number[]).indexOf(offset);
    const char = CUT_CHARACTERS[(usual >= 0 ? usual : i) % CUT_CHARACTERS.length]!;
    const from = offset - 1;
    if (from < pos) return;
    fillTo(from);
    text += char;
    pos += Buffer.byteLength(char);
  });
  fillTo(endByte);
  return text;
}

/** The offsets of `offsets` that fall inside a multi-byte character of `data` (a check for the scenarios' tests). */
export function offsetsInsideCharacters(data: Buffer, offsets: readonly number[] = USUAL_READ_SIZES): number[] {
  return offsets.filter((o) => o > 0 && o < data.length && (data[o]! & 0xc0) === 0x80);
}
