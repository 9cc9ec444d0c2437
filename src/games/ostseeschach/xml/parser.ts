import { SaxesParser, type SaxesTagPlain } from 'saxes';

/**
 * A streaming reader for one side of a Software-Challenge connection: a root element that stays
 * open for the whole connection (`<protocol>`), and packets as its children. Bytes go in as they
 * come off the socket, in any fragmentation; each packet comes out as a small element tree once its
 * end tag has arrived. It never throws; problems are events, and after one it ignores all input.
 *
 * Limits keep one connection from tying up memory: the characters of one packet (counted from the
 * end of the previous one, so whitespace between packets counts too), its nesting depth and the
 * attributes of one element.
 */

export interface XmlElement {
  readonly name: string;
  /** No prototype: an attribute named `__proto__` is just a name. */
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: readonly XmlElement[];
  /** All text directly inside the element, concatenated (whitespace kept). */
  readonly text: string;
}

export type XmlErrorCode = 'malformed' | 'too-large' | 'too-deep' | 'too-many-attributes' | 'doctype';

export type XmlEvent =
  /** The root element opened (normally `<protocol>`; the first element is the root whatever its name). */
  | { readonly type: 'open'; readonly name: string }
  /** One complete child of the root; `raw` is the input text it came from (leading text trimmed). */
  | { readonly type: 'packet'; readonly element: XmlElement; readonly raw: string }
  /** The root element closed: the peer ended its stream. */
  | { readonly type: 'close' }
  | { readonly type: 'error'; readonly code: XmlErrorCode; readonly message: string };

export interface XmlLimits {
  /** Characters from the end of one packet to the end of the next. */
  readonly maxPacketChars: number;
  /** Nesting inside a packet; the packet element itself is depth 1. */
  readonly maxDepth: number;
  readonly maxAttributes: number;
}

export const DEFAULT_XML_LIMITS: XmlLimits = { maxPacketChars: 64 * 1024, maxDepth: 16, maxAttributes: 32 };

/** Input is handed to saxes in slices this small, so a limit is checked before a slice can pile up. */
const SLICE = 8192;
/**
 * Characters XML allows nowhere. Random bytes have one within a few characters; finding it with
 * one native scan drops such input before saxes walks it character by character (issue #15).
 */
// eslint-disable-next-line no-control-regex -- these control characters are what it looks for
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

interface Building {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: XmlElement[];
  text: string;
}

export class XmlStreamParser {
  private readonly limits: XmlLimits;
  private readonly sax = new SaxesParser<{ xmlns: false; position: false }>({
    xmlns: false,
    position: false,
  });
  private readonly decoder = new TextDecoder('utf-8');
  private events: XmlEvent[] = [];
  private stack: Building[] = [];
  private rootOpen = false;
  private stopped = false;
  /** Input text not yet attributed to a packet, and the stream position where it starts. */
  private pending = '';
  private pendingStart = 0;
  /**
   * Text before the first `<` of the stream, which the official reader ignores (issue #16): it is
   * skipped, never parsed, and counts against the first packet's limit.
   */
  private skipped = 0;
  private reachedMarkup = false;

  constructor(limits: Partial<XmlLimits> = {}) {
    this.limits = { ...DEFAULT_XML_LIMITS, ...limits };
    this.sax.on('opentag', (tag) => this.onOpen(tag));
    this.sax.on('closetag', (tag) => this.onClose(tag));
    this.sax.on('text', (text) => this.onText(text));
    this.sax.on('cdata', (text) => this.onText(text));
    this.sax.on('doctype', () => this.fail('doctype', 'a DOCTYPE is not accepted'));
    this.sax.on('error', (error) => this.fail('malformed', error.message));
  }

  /** True once the root closed or an error was reported: later input is ignored. */
  get finished(): boolean {
    return this.stopped;
  }

  /** Feeds bytes (UTF-8, split anywhere) or text; returns what completed. */
  write(chunk: Uint8Array | string): XmlEvent[] {
    if (this.stopped) return [];
    this.events = [];
    try {
      let text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
      if (!this.reachedMarkup) {
        const start = text.indexOf('<');
        this.skipped += start < 0 ? text.length : start;
        if (this.skipped > this.limits.maxPacketChars) {
          this.fail('too-large', `a packet is longer than ${this.limits.maxPacketChars} characters`);
          return this.events;
        }
        if (start < 0) return this.events;
        this.reachedMarkup = true;
        text = text.slice(start);
      }
      // Whatever comes before the first disallowed character is still read, as saxes would.
      const bad = NOT_XML.exec(text);
      if (bad) text = text.slice(0, bad.index);
      for (let i = 0; i < text.length && !this.halted(); i += SLICE) {
        const slice = text.slice(i, i + SLICE);
        this.pending += slice;
        this.sax.write(slice);
        const prelude = this.rootOpen ? 0 : this.skipped;
        if (!this.halted() && this.sax.position - this.pendingStart + prelude > this.limits.maxPacketChars) {
          this.fail('too-large', `a packet is longer than ${this.limits.maxPacketChars} characters`);
        }
      }
      if (bad) this.fail('malformed', `character U+${(bad[0].codePointAt(0) ?? 0).toString(16).padStart(4, '0')} is not allowed in XML`);
    } catch (error) {
      // saxes reports through the handler; anything else is still only an event.
      this.fail('malformed', error instanceof Error ? error.message : String(error));
    }
    return this.events;
  }

  /** A method, not the field: handlers called from saxes change it behind the compiler's back. */
  private halted(): boolean {
    return this.stopped;
  }

  private fail(code: XmlErrorCode, message: string): void {
    if (this.stopped) return;
    this.stopped = true;
    this.stack = [];
    this.pending = '';
    this.events.push({ type: 'error', code, message });
  }

  private onOpen(tag: SaxesTagPlain): void {
    if (this.stopped) return;
    if (!this.rootOpen) {
      this.rootOpen = true;
      this.cut();
      this.events.push({ type: 'open', name: tag.name });
      return;
    }
    if (this.stack.length >= this.limits.maxDepth) {
      this.fail('too-deep', `packets may nest at most ${this.limits.maxDepth} levels`);
      return;
    }
    // saxes builds the attributes without a prototype; they are taken over as they are.
    const attrs = tag.attributes;
    let count = 0;
    for (const _ in attrs) {
      if (++count > this.limits.maxAttributes) {
        this.fail(
          'too-many-attributes',
          `an element may have at most ${this.limits.maxAttributes} attributes`,
        );
        return;
      }
    }
    this.stack.push({ name: tag.name, attrs, children: [], text: '' });
  }

  private onClose(tag: SaxesTagPlain): void {
    if (this.stopped) return;
    // saxes reports a mismatched end tag as a close first and as an error only after it, so the
    // name is checked here: a packet closed by the wrong tag must never count.
    const closing = this.endTagName();
    if (closing !== null && closing !== tag.name) {
      this.fail('malformed', `</${closing}> does not close <${tag.name}>`);
      return;
    }
    const done = this.stack.pop();
    if (done === undefined) {
      // The root itself closed.
      this.stopped = true;
      this.events.push({ type: 'close' });
      return;
    }
    const element: XmlElement = {
      name: done.name,
      attrs: done.attrs,
      children: done.children,
      text: done.text,
    };
    const parent = this.stack[this.stack.length - 1];
    if (parent) parent.children.push(element);
    else this.events.push({ type: 'packet', element, raw: this.cut().trim() });
  }

  /** The name in the end tag just read, or null for a self-closing tag (`<a/>`). */
  private endTagName(): string | null {
    const head = this.pending.slice(0, this.sax.position - this.pendingStart);
    if (head.endsWith('/>')) return null;
    const start = head.lastIndexOf('</');
    return start < 0 ? null : head.slice(start + 2, -1).trimEnd();
  }

  private onText(text: string): void {
    if (this.stopped) return;
    const top = this.stack[this.stack.length - 1];
    if (top) top.text += text;
  }

  /** Takes the input up to the parser's position off `pending`. */
  private cut(): string {
    const end = this.sax.position;
    const taken = this.pending.slice(0, end - this.pendingStart);
    this.pending = this.pending.slice(end - this.pendingStart);
    this.pendingStart = end;
    return taken;
  }
}

/** Every packet of a complete text, for tests and tools (the root's close is implied). */
export function parsePackets(
  text: string,
  limits: Partial<XmlLimits> = {},
): { packets: XmlElement[]; error: string | null } {
  const parser = new XmlStreamParser(limits);
  const packets: XmlElement[] = [];
  let error: string | null = null;
  for (const e of parser.write(text)) {
    if (e.type === 'packet') packets.push(e.element);
    else if (e.type === 'error') error = `${e.code}: ${e.message}`;
  }
  return { packets, error };
}

/** The first child called `name`. */
export const child = (e: XmlElement, name: string): XmlElement | undefined =>
  e.children.find((c) => c.name === name);
