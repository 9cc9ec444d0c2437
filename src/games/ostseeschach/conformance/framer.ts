import type { FramedItem } from '../../../core/framing.js';
import { XmlStreamParser } from '../xml/parser.js';

/**
 * Cuts a client's XML stream into the messages check-client judges, read by the same stream
 * parser our server reads clients with (xml/parser.ts): the opening of the root (`<protocol>`, or
 * whatever element the client opened first), each complete packet inside it as the client wrote
 * it, and the root's end (`</protocol>`). XML our server could not read becomes one message that
 * starts with UNREADABLE, so the session fails the scenario with the parser's reason.
 */

/** The prefix of a message that stands for input our server cannot read (then nothing more is read). */
export const UNREADABLE = '[unreadable XML';

/**
 * One framer per connection. `maxChars` is the server's limit on one packet (characters from the
 * end of the previous packet); a longer one is reported as overlong, as the runner expects.
 */
export function xmlFramer(maxChars: number): { push(chunk: Buffer): FramedItem[] } {
  const parser = new XmlStreamParser({ maxPacketChars: maxChars });
  /** Bytes since the last message, for the size of an overlong packet. */
  let pending = 0;
  return {
    push(chunk: Buffer): FramedItem[] {
      if (parser.finished) return [];
      pending += chunk.length;
      const out: FramedItem[] = [];
      for (const event of parser.write(chunk)) {
        switch (event.type) {
          case 'open':
            out.push({ kind: 'line', line: `<${event.name}>` });
            pending = 0;
            break;
          case 'packet':
            out.push({ kind: 'line', line: event.raw });
            pending = 0;
            break;
          case 'close':
            out.push({ kind: 'line', line: '</protocol>' });
            break;
          case 'error':
            out.push(event.code === 'too-large' ? { kind: 'overlong', bytes: pending } : { kind: 'line', line: `${UNREADABLE} (${event.code}): ${event.message}]` });
            break;
        }
      }
      return out;
    },
  };
}
