import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  parsePackets,
  XmlStreamParser,
  type XmlElement,
  type XmlEvent,
} from '../../../src/games/ostseeschach/xml/parser.js';
import {
  el,
  escapeXml,
  textEl,
  writeCompact,
  writeElement,
  writePacket,
  type XmlNode,
} from '../../../src/games/ostseeschach/xml/writer.js';
import { wire } from './wire-harness.js';

/** Collects what a parser makes of `chunks`. */
function feed(chunks: readonly (string | Uint8Array)[], limits = {}): XmlEvent[] {
  const p = new XmlStreamParser(limits);
  return chunks.flatMap((c) => p.write(c));
}

const packetsOf = (events: XmlEvent[]): XmlElement[] =>
  events.flatMap((e) => (e.type === 'packet' ? [e.element] : []));
const errorsOf = (events: XmlEvent[]): string[] =>
  events.flatMap((e) => (e.type === 'error' ? [e.code] : []));

/** A compact structural copy (names, attributes, text, children), for comparisons. */
const shape = (e: XmlElement): unknown => ({
  n: e.name,
  a: { ...e.attrs },
  t: e.text.trim(),
  c: e.children.map(shape),
});

describe('stream parser', () => {
  it('reads the same packets wherever a client stream is split into two byte chunks', () => {
    // `<protocol><join/>` and the first eleven moves of the recorded client (the rest is more of the same).
    const lines = wire('fullgame-p1.client-to-server.txt').split('\n');
    const bytes = Buffer.from(lines.slice(0, 12).join('\n') + '\n', 'utf8');
    const whole = packetsOf(feed([bytes])).map(shape);
    expect(whole).toHaveLength(12);
    const expected = JSON.stringify(whole);
    const wrong: number[] = [];
    for (let cut = 0; cut <= bytes.length; cut++) {
      if (
        JSON.stringify(packetsOf(feed([bytes.subarray(0, cut), bytes.subarray(cut)])).map(shape)) !== expected
      )
        wrong.push(cut);
    }
    expect(wrong).toEqual([]);
  });

  it('reads the same packets and raw texts wherever a server stream with multi-byte characters is split', () => {
    // `joined` and a welcome, then a violation with a raw "ö" (two UTF-8 bytes), its result and `left`.
    const game = wire('fullgame-p1.server-to-client.xml');
    const start = game.slice(0, game.indexOf('\n  <room', game.indexOf('welcomeMessage')));
    const scenario = wire('scenarios/prepared-empty.txt');
    const violation = scenario.slice('P1 -> '.length, scenario.indexOf('\nP2 -> '));
    const bytes = Buffer.from(start + violation, 'utf8');
    const reference = feed([bytes]);
    const whole = packetsOf(reference).map(shape);
    expect(whole).toHaveLength(5);
    expect(JSON.stringify(whole)).toContain('Nur eigene Spielfiguren können gezogen werden');
    const raws = reference.flatMap((e) => (e.type === 'packet' ? [e.raw] : []));
    expect(raws.join('\n  ')).toBe((start + violation).slice('<protocol>\n  '.length));
    const expected = JSON.stringify([whole, raws]);
    const wrong: number[] = [];
    for (let cut = 0; cut <= bytes.length; cut++) {
      const events = feed([bytes.subarray(0, cut), bytes.subarray(cut)]);
      const got = JSON.stringify([
        packetsOf(events).map(shape),
        events.flatMap((e) => (e.type === 'packet' ? [e.raw] : [])),
      ]);
      if (got !== expected) wrong.push(cut);
    }
    expect(wrong).toEqual([]);
  });

  it('hands out the raw text of each packet and reports the end of the stream', () => {
    const events = feed(['<protocol>  <join/>\n', '<joinRoom roomId="r"/>', '</protocol>', '<join/>']);
    expect(events).toEqual([
      { type: 'open', name: 'protocol' },
      expect.objectContaining({ type: 'packet', raw: '<join/>' }),
      expect.objectContaining({ type: 'packet', raw: '<joinRoom roomId="r"/>' }),
      { type: 'close' },
    ]);
  });

  it('ignores whitespace, attribute order and quote style', () => {
    const canonical = packetsOf(
      feed([
        '<protocol><room roomId="R"><data class="move"><from x="0" y="1"/><to x="1" y="2"/></data></room>',
      ]),
    );
    const loose = packetsOf(
      feed([
        '<protocol>\n\t<room   roomId = \'R\' >\r\n  <data\tclass="move" >\n<from y=\'1\' x="0" /><to\ny="2" x=\'1\'/>\n</data></room >',
      ]),
    );
    expect(loose.map(shape)).toEqual(canonical.map(shape));
  });

  it('accepts an XML declaration and a byte order mark before <protocol>', () => {
    expect(packetsOf(feed(['<?xml version="1.0" encoding="UTF-8"?>\n<protocol><join/>']))).toHaveLength(1);
    expect(packetsOf(feed([Buffer.from([0xef, 0xbb, 0xbf]), '<protocol><join/>']))).toHaveLength(1);
    expect(packetsOf(feed(['<?xml version="1.0"?>', '<protocol>', '<join/>']))).toHaveLength(1);
  });

  it('takes the first element as the root whatever its name', () => {
    expect(feed(['<join/>'])).toEqual([{ type: 'open', name: 'join' }, { type: 'close' }]);
  });

  it('keeps entities, character references and CDATA as text and attribute values', () => {
    const [e] = packetsOf(
      feed(['<protocol><x a="&lt;&amp;&#x41;&#10;" b="&quot;\'"><![CDATA[<raw>]]>&gt;</x>']),
    );
    expect(e!.attrs).toEqual({ a: '<&A\n', b: '"\'' });
    expect(e!.text).toBe('<raw>>');
  });

  it('treats an attribute named __proto__ as a plain name', () => {
    const [e] = packetsOf(feed(['<protocol><join __proto__="x" gameType="y"/>']));
    expect(e!.attrs.__proto__).toBe('x');
    expect(Object.getPrototypeOf(e!.attrs)).toBe(null);
  });

  it('stops at the first error and ignores all later input', () => {
    const p = new XmlStreamParser();
    const first = p.write('<protocol><join/><a b="1"><c/></b>');
    // <a> closed by the wrong tag is no packet.
    expect(packetsOf(first).map((e) => e.name)).toEqual(['join']);
    expect(errorsOf(first)).toEqual(['malformed']);
    expect(p.finished).toBe(true);
    expect(p.write('<join/>')).toEqual([]);
  });

  it('refuses a DOCTYPE and unknown entities', () => {
    expect(errorsOf(feed(['<!DOCTYPE protocol [<!ENTITY a "aaaa">]><protocol>']))).toEqual(['doctype']);
    expect(errorsOf(feed(['<protocol><x>&a;</x>']))).toEqual(['malformed']);
  });
});

describe('parser limits', () => {
  it('drops an overlong packet', () => {
    const long = `<protocol><join gameType="${'x'.repeat(5000)}"/>`;
    expect(errorsOf(feed([long], { maxPacketChars: 4096 }))).toEqual(['too-large']);
    expect(errorsOf(feed([long], { maxPacketChars: 8192 }))).toEqual([]);
  });

  it('drops an element that never closes, long before it could fill memory', () => {
    const p = new XmlStreamParser({ maxPacketChars: 10_000 });
    const events: XmlEvent[] = [...p.write('<protocol><room roomId="r">')];
    let sent = 0;
    while (!p.finished && sent < 1_000_000) {
      events.push(...p.write('<data class="x">'.padEnd(1000, ' ')));
      sent += 1000;
    }
    expect(errorsOf(events)).toEqual(['too-large']);
    expect(sent).toBeLessThanOrEqual(11_000);
  });

  it('drops endless whitespace and text between packets', () => {
    const p = new XmlStreamParser({ maxPacketChars: 10_000 });
    const events = [...p.write('<protocol><join/>')];
    for (let i = 0; i < 20 && !p.finished; i++) events.push(...p.write(' '.repeat(1000)));
    expect(errorsOf(events)).toEqual(['too-large']);
  });

  it('drops a packet nested too deep and one with too many attributes', () => {
    expect(errorsOf(feed(['<protocol>' + '<a>'.repeat(17)], { maxDepth: 16 }))).toEqual(['too-deep']);
    expect(errorsOf(feed(['<protocol>' + '<a>'.repeat(16) + '</a>'.repeat(16)], { maxDepth: 16 }))).toEqual(
      [],
    );
    const attrs = Array.from({ length: 40 }, (_, i) => `a${i}="1"`).join(' ');
    expect(errorsOf(feed([`<protocol><join ${attrs}/>`], { maxAttributes: 32 }))).toEqual([
      'too-many-attributes',
    ]);
  });

  it('reads the largest official packet (a full memento) with the default limits', () => {
    const { packets, error } = parsePackets(wire('fullgame-p1.server-to-client.xml'));
    expect(error).toBe(null);
    expect(packets).toHaveLength(95);
  });
});

describe('garbage never throws', () => {
  const check = (chunks: (string | Uint8Array)[]): void => {
    const p = new XmlStreamParser({ maxPacketChars: 2000, maxDepth: 6, maxAttributes: 4 });
    let ended = false;
    for (const c of chunks) {
      for (const e of p.write(c)) {
        // Nothing comes after an error or the end of the stream.
        expect(ended).toBe(false);
        if (e.type === 'error' || e.type === 'close') ended = true;
      }
    }
  };

  it('random bytes in random chunks', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 20 }), (chunks) => check(chunks)),
      { numRuns: 500 },
    );
  });

  it('random strings made of XML-ish pieces', () => {
    const piece = fc.constantFrom(
      '<',
      '>',
      '/',
      '=',
      '"',
      "'",
      '&',
      ';',
      '#x',
      '<!--',
      '-->',
      '<![CDATA[',
      ']]>',
      '<?',
      '?>',
      'protocol',
      'room',
      ' a="1"',
      '\u0000',
      '\uffff',
      '\ud800',
      'ö',
      ' ',
      '\n',
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.array(piece, { maxLength: 40 }).map((a) => a.join('')),
          { maxLength: 10 },
        ),
        (chunks) => check(['<protocol>', ...chunks]),
      ),
      { numRuns: 500 },
    );
  });

  it('valid packets after <protocol> come back whatever the chunking', () => {
    const name = fc.stringMatching(/^[a-z][a-zA-Z0-9]{0,6}$/);
    const value = fc.string({ maxLength: 12 });
    const nodeOf = (depth: number): fc.Arbitrary<XmlNode> =>
      fc
        .tuple(
          name,
          fc.uniqueArray(fc.tuple(name, value), { maxLength: 3, selector: ([k]) => k }),
          depth === 0 ? fc.constant([]) : fc.array(nodeOf(depth - 1), { maxLength: 3 }),
        )
        .map(([n, attrs, children]) => el(n, Object.fromEntries(attrs), children));
    const node = nodeOf(3);
    fc.assert(
      fc.property(
        fc.array(node, { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat(), { maxLength: 5 }),
        (nodes, cuts) => {
          const text = '<protocol>' + nodes.map((n) => writePacket(n)).join('');
          const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
          const chunks: string[] = [];
          let at = 0;
          for (const c of points) {
            chunks.push(text.slice(at, c));
            at = c;
          }
          chunks.push(text.slice(at));
          const got = packetsOf(feed(chunks));
          const toShape = (n: XmlNode): unknown => ({
            n: n.name,
            a: Object.fromEntries(n.attrs),
            t: '',
            c: n.children.map(toShape),
          });
          expect(got.map(shape)).toEqual(nodes.map(toShape));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('writer', () => {
  it('escapes exactly as XStream (spec §3.1)', () => {
    const table: [string, string, string][] = [
      // input, in text, in an attribute
      ['&', '&amp;', '&amp;'],
      ['<', '&lt;', '&lt;'],
      ['>', '&gt;', '&gt;'],
      ['"', '&quot;', '&quot;'],
      ["'", '&apos;', '&apos;'],
      ['\r', '&#xd;', '&#xd;'],
      ['\0', '&#x0;', '&#x0;'],
      ['\n', '\n', '&#xa;'],
      ['\t', '\t', '&#x9;'],
      ['\u0001', '&#x1;', '&#x1;'],
      ['\u001f', '&#x1f;', '&#x1f;'],
      ['\u007f', '&#x7f;', '&#x7f;'],
      ['\u0085', '&#x85;', '&#x85;'],
      ['\u0378', '&#x378;', '&#x378;'],
      ['ö', 'ö', 'ö'],
      ['€', '€', '€'],
      ['😀', '😀', '😀'],
      ['\ud800', '?', '?'],
      ['plain text 123', 'plain text 123', 'plain text 123'],
    ];
    for (const [input, text, attribute] of table) {
      expect(escapeXml(input, false), JSON.stringify(input)).toBe(text);
      expect(escapeXml(input, true), JSON.stringify(input)).toBe(attribute);
    }
    expect(escapeXml("Ungueltiger Zug von 'A'.\nX", true)).toBe('Ungueltiger Zug von &apos;A&apos;.&#xa;X');
  });

  it('indents two spaces per level, writes empty elements short and text on one line', () => {
    const node = el('room', { roomId: 'R' }, [
      el('data', { class: 'x', skip: null }, [textEl('team', 'ONE'), el('pieces')]),
    ]);
    expect(writePacket(node)).toBe(
      '\n  <room roomId="R">\n    <data class="x">\n      <team>ONE</team>\n      <pieces/>\n    </data>\n  </room>',
    );
    expect(writeElement(textEl('x', ''))).toBe('<x></x>');
    expect(writeCompact(node)).toBe(
      '<room roomId="R"><data class="x"><team>ONE</team><pieces/></data></room>',
    );
  });
});
