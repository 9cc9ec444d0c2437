import fc from 'fast-check';
import { LineFramer } from '../../../src/core/framing.js';
import { JsonObjectReader } from '../../../src/games/catan/json-reader.js';
import {
  parseClient as catanParseClient,
  parseServer as catanParseServer,
} from '../../../src/games/catan/protocol.js';
import {
  displayName,
  formatMessage,
  MAX_DATAGRAM_BYTES as C4_MAX,
  parseDatagram,
} from '../../../src/games/connect4/protocol.js';
import { parsePlay } from '../../../src/games/dame/notation.js';
import * as dame from '../../../src/games/dame/protocol.js';
import {
  isValidName,
  parseClient as miaParseClient,
  parseServer as miaParseServer,
} from '../../../src/games/mia/protocol.js';
import { parseClient as osParseClient } from '../../../src/games/ostseeschach/protocol.js';
import { parseServer as osParseServer } from '../../../src/games/ostseeschach/protocol-read.js';
import {
  DEFAULT_XML_LIMITS,
  XmlStreamParser,
  type XmlElement,
} from '../../../src/games/ostseeschach/xml/parser.js';
import { catanCorpus, connect4Corpus, dameCorpus, miaCorpus, ostseeschachCorpus } from './corpus.js';
import { chunks, type FastRng } from './mutate.js';

/**
 * One fuzz target per protocol codec: its corpus, dictionary and nesting for the mutator, a
 * fast-check arbitrary for generated messages, and `feed`, which hands one message to the decoder
 * (stream decoders get it in random fragments) and throws a `Violation` when the decoder breaks
 * its contract: an exception where it promises an error value, a result of the wrong shape, or
 * state that grows past its limit.
 */

export class Violation extends Error {
  override readonly name = 'Violation';
}

export interface CodecTarget {
  readonly name: string;
  readonly corpus: Buffer[];
  readonly dictionary: string[];
  readonly nesting: [string, string][];
  readonly arbitrary: fc.Arbitrary<Buffer>;
  /** A fresh decoder state (stream readers); the campaign starts one per batch of messages. */
  session(): CodecSession;
}

export interface CodecSession {
  feed(input: Buffer, rng: FastRng): void;
}

function must(condition: unknown, what: string): asserts condition {
  if (!condition) throw new Violation(what);
}

/** Calls a decoder that promises never to throw. */
function noThrow<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw new Violation(
      `${what} threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
    );
  }
}

const isResult = (r: unknown): r is { ok: boolean } =>
  typeof r === 'object' && r !== null && typeof (r as { ok?: unknown }).ok === 'boolean';
const text = (s: string): Buffer => Buffer.from(s);
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;

// ---- Connect Four: one datagram, one JSON object -----------------------------------------------

const C4_KINDS = new Set([
  'announce',
  'invitation',
  'acceptance',
  'ready',
  'move',
  'keepalive',
  'game-over',
  'abort',
]);

function connect4Target(): CodecTarget {
  const value = fc.oneof(
    fc.integer(),
    fc.double(),
    fc.string(),
    fc.constant(null),
    fc.boolean(),
    fc.anything({ maxDepth: 2 }),
  );
  const datagram = fc.record(
    {
      version: fc.oneof(fc.constant(2), fc.constant('2'), fc.constant(' 2 '), value),
      clienttype: fc.oneof(fc.constantFrom(0, 1, '0'), value),
      stage: fc.oneof(fc.constantFrom(1, 2, 3, 4, 5, 99, '4', ' 99'), fc.integer(), value),
      clientname: fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }), value),
      turn: fc.oneof(fc.integer({ min: -2, max: 50 }), fc.bigInt().map(String), value),
      column: fc.oneof(fc.integer({ min: -1, max: 9 }), value),
      ['__proto__']: value,
    },
    { requiredKeys: [] },
  );
  return {
    name: 'connect4',
    corpus: connect4Corpus(),
    dictionary: [
      '"version"',
      '"clienttype"',
      '"stage"',
      '"clientname"',
      '"turn"',
      '"column"',
      ':2',
      ':"2"',
      ':99',
      ',',
      '{',
      '}',
      '"\\u0000"',
      '"\\ud800"',
      '"__proto__"',
      'null',
      'true',
      '[]',
      '{}',
    ],
    nesting: [
      ['{"a":', '}'],
      ['[', ']'],
    ],
    arbitrary: fc.oneof(
      { weight: 6, arbitrary: datagram.map((o) => text(JSON.stringify(o))) },
      { weight: 1, arbitrary: fc.json().map(text) },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)) },
    ),
    session: () => ({
      feed(input) {
        const r = noThrow('parseDatagram', () => parseDatagram(input));
        must(isResult(r), 'parseDatagram returned no Result');
        if (input.length > C4_MAX)
          must(!r.ok && r.error.code === 'too-long', 'an overlong datagram was read');
        if (!r.ok) return;
        const m = r.value;
        must(C4_KINDS.has(m.kind), `unknown kind ${m.kind}`);
        if (m.kind === 'move') {
          must(
            Number.isSafeInteger(m.turn) && Number.isSafeInteger(m.column) && !Object.is(m.turn, -0),
            'a move with a bad number',
          );
          const again = parseDatagram(formatMessage({ kind: 'move', turn: m.turn, column: m.column }, 0));
          must(
            again.ok &&
              again.value.kind === 'move' &&
              again.value.turn === m.turn &&
              again.value.column === m.column,
            'a move does not survive format and parse',
          );
        }
        if (m.kind === 'announce' || m.kind === 'invitation') {
          must(m.name === null || typeof m.name === 'string', 'a name that is no string');
          if (m.name !== null) {
            const shown = noThrow('displayName', () => displayName(m.name!));
            must(
              Array.from(shown).length <= 32 && !CONTROL.test(shown),
              `a display name that is too long or has control characters: ${JSON.stringify(shown)}`,
            );
          }
        }
      },
    }),
  };
}

// ---- Mia: one datagram, one `;`-separated line --------------------------------------------------

function miaTarget(): CodecTarget {
  const { client, server } = miaCorpus();
  const commands = [
    'REGISTER',
    'REGISTER_SPECTATOR',
    'UNREGISTER',
    'ECHO',
    'JOIN',
    'ROLL',
    'SEE',
    'ANNOUNCE',
    'register',
    'ROUND STARTING',
    'YOUR TURN',
    'ROLLED',
    'SCORE',
    'PLAYER LOST',
    'ANNOUNCED',
    'ACTUAL DICE',
    'ROUND STARTED',
    'REJECTED',
    'ROUND CANCELED',
  ];
  const field = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.string({ unit: 'binary', maxLength: 30 }),
    fc.constantFrom('3,1', '2,1', '6,6', '7,1', '1,2', ',', '', 'x:1,y:2'),
    fc.uuid(),
  );
  const line = fc
    .tuple(
      fc.constantFrom(...commands),
      fc.array(field, { maxLength: 4 }),
      fc.constantFrom('', '\n', '\r\n', '\r'),
    )
    .map(([c, a, end]) => text([c, ...a].join(';') + end));
  return {
    name: 'mia',
    corpus: [...client, ...server],
    dictionary: [...commands, ';', ',', ':', '\n', '\r\n', '2,1', '6,6', '0,0'],
    nesting: [[';', '']],
    arbitrary: fc.oneof(
      { weight: 5, arbitrary: line },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 1100 }).map((a) => Buffer.from(a)) },
    ),
    session: () => ({
      feed(input) {
        const r = noThrow('mia parseClient', () => miaParseClient(input));
        must(isResult(r), 'mia parseClient returned no Result');
        if (r.ok) {
          const m = r.message;
          if (m.type === 'REGISTER' || m.type === 'REGISTER_SPECTATOR')
            noThrow('isValidName', () => isValidName(m.name));
          if (m.type === 'ANNOUNCE' && m.dice)
            must(m.dice.high >= m.dice.low && m.dice.low >= 1 && m.dice.high <= 6, 'impossible dice');
        }
        const s = noThrow('mia parseServer', () => miaParseServer(input));
        if (s?.type === 'SCORE')
          for (const [name] of s.scores) must(typeof name === 'string', 'a score without a name');
      },
    }),
  };
}

// ---- Dame: a TCP line stream, MNM lines ---------------------------------------------------------

function dameTarget(): CodecTarget {
  const { client, server } = dameCorpus();
  const keywords = ['VERSION', 'ID', 'PLAYER', 'THINKING', 'PLAY', 'OKWAIT', 'QUIT', 'version', '+', '-'];
  const square = fc
    .tuple(fc.constantFrom(...'ABCDEFGHIabcdefghZ'.split('')), fc.integer({ min: -1, max: 10 }))
    .map(([c, n]) => `${c}${n}`);
  const play = fc
    .array(
      fc.array(square, { minLength: 1, maxLength: 5 }).map((s) => s.join(':')),
      { minLength: 1, maxLength: 4 },
    )
    .map((p) => `PLAY ${p.join(';')}`);
  const line = fc.oneof(
    fc
      .tuple(
        fc.constantFrom(...keywords),
        fc.array(fc.oneof(fc.string({ maxLength: 20 }), fc.integer().map(String), fc.double().map(String)), {
          maxLength: 3,
        }),
      )
      .map(([k, a]) => [k, ...a].join(' ')),
    play,
    fc.string({ unit: 'binary', maxLength: 80 }),
  );
  return {
    name: 'dame',
    corpus: [...client, ...server],
    dictionary: [
      ...keywords,
      ' ',
      '\t',
      '\r',
      '\u0000',
      ':',
      ';',
      '.',
      'C3:D4',
      '2.1',
      '3.1',
      '+ MOVE 3000',
      '+ BOARD 8,8',
    ],
    nesting: [[':A1', '']],
    arbitrary: fc.tuple(line, fc.constantFrom('\n', '\r\n', '', '\n\n')).map(([l, end]) => text(l + end)),
    session() {
      const framer = new LineFramer(dame.MAX_LINE_BYTES);
      return {
        feed(input, rng) {
          const data =
            rng.chance(0.9) && !input.includes(0x0a) ? Buffer.concat([input, Buffer.from('\n')]) : input;
          for (const chunk of chunks(rng, data)) {
            const items = noThrow('LineFramer.push', () => framer.push(chunk));
            must(framer.buffered <= dame.MAX_LINE_BYTES, `the framer holds ${framer.buffered} bytes`);
            for (const item of items) {
              if (item.kind !== 'line') continue;
              must(Buffer.byteLength(item.line) <= dame.MAX_LINE_BYTES * 3, 'a line over the limit');
              const parsed = noThrow('parseClientLine', () => dame.parseClientLine(item.line));
              if (parsed?.type === 'VERSION')
                must(
                  parsed.major === null || (Number.isInteger(parsed.major) && parsed.major <= 999_999),
                  'a bad VERSION major',
                );
              if (parsed?.type === 'PLAYER')
                must(
                  parsed.seat === null || (Number.isInteger(parsed.seat) && parsed.seat <= 999),
                  'a bad PLAYER seat',
                );
              if (parsed?.type === 'PLAY')
                must(
                  isResult(noThrow('parsePlay', () => parsePlay(parsed.command))),
                  'parsePlay returned no Result',
                );
              for (const [name, read] of [
                ['parseGreeting', dame.parseGreeting],
                ['parseYou', dame.parseYou],
                ['parsePlayerEntry', dame.parsePlayerEntry],
                ['parseTotal', dame.parseTotal],
                ['parseMoveRequest', dame.parseMoveRequest],
                ['parseBoardHeader', dame.parseBoardHeader],
                ['parseWon', dame.parseWon],
              ] as const)
                noThrow(name, () => (read as (l: string) => unknown)(item.line));
            }
          }
        },
      };
    },
  };
}

// ---- Ostseeschach: an XML stream whose root stays open -------------------------------------------

const depthOf = (e: XmlElement): number => 1 + Math.max(0, ...e.children.map(depthOf));

function ostseeschachTarget(): CodecTarget {
  const { client, server } = ostseeschachCorpus();
  const names = [
    'room',
    'data',
    'join',
    'joinPrepared',
    'joinRoom',
    'prepare',
    'slot',
    'authenticate',
    'from',
    'to',
    'state',
    'board',
    'pieces',
    'entry',
    'coordinates',
    'piece',
    'sc.protocol.CloseConnection',
    'errorpacket',
    'originalRequest',
    'joined',
    'left',
    'x',
    'a:b',
    '__proto__',
  ];
  const attrName = fc.constantFrom(
    'roomId',
    'class',
    'x',
    'y',
    'color',
    'password',
    'reservationCode',
    'gameType',
    'pause',
    'forced',
    'displayName',
    'canTimeout',
    'reserved',
    'turn',
    'team',
    'type',
    'count',
    'constructor',
    '__proto__',
    'xmlns',
  );
  const attrValue = fc.oneof(
    fc.constantFrom(
      'move',
      'moveRequest',
      'welcomeMessage',
      'paused',
      'memento',
      'result',
      'error',
      'ONE',
      'TWO',
      'true',
      '0x7fffffff',
      '-0',
      '#ff',
      '08',
      '0',
      '7',
      '99999999999',
      '&amp;',
      '&#0;',
      '&#x110000;',
      '&foo;',
      '<',
      '"',
    ),
    fc.string({ maxLength: 12 }),
  );
  const esc = (s: string) =>
    s
      .replace(/&(?![a-z#])/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/"/g, '&quot;');
  const body = fc.oneof(
    fc.constant(''),
    fc.string({ maxLength: 10 }),
    fc.constantFrom('<![CDATA[x]]>', '<!-- c -->', '<?pi x?>'),
  );
  const element = (kids: fc.Arbitrary<string[]>) =>
    fc
      .tuple(fc.constantFrom(...names), fc.array(fc.tuple(attrName, attrValue), { maxLength: 4 }), kids, body)
      .map(([name, attrs, children, inner]) => {
        const a = attrs.map(([k, v]) => ` ${k}="${esc(v)}"`).join('');
        const content = children.join('') + inner;
        return content === '' ? `<${name}${a}/>` : `<${name}${a}>${content}</${name}>`;
      });
  const { tree } = fc.letrec<{ tree: string }>((tie) => ({
    tree: fc.oneof(
      { maxDepth: 5, depthIdentifier: 'xml' },
      element(fc.constant([])),
      element(fc.array(tie('tree'), { maxLength: 3 })),
    ),
  }));
  const limits = { ...DEFAULT_XML_LIMITS, maxPacketChars: 16 * 1024 };
  return {
    name: 'ostseeschach',
    corpus: [...client, ...server],
    dictionary: [
      '<',
      '>',
      '/>',
      '</',
      '="',
      '"',
      '<room roomId="r">',
      '</room>',
      '<data class="move">',
      '</data>',
      '<![CDATA[',
      ']]>',
      '<!--',
      '-->',
      '<?xml version="1.0"?>',
      '<!DOCTYPE x [<!ENTITY a "b">]>',
      '&lt;',
      '&#x0;',
      '&#1114112;',
      '&a;',
      '</protocol>',
      '<protocol>',
      'xmlns:a="b"',
    ],
    nesting: [
      ['<a>', '</a>'],
      ['<room roomId="r"><data class="move">', '</data></room>'],
      ['<x:y>', '</x:y>'],
    ],
    arbitrary: fc.oneof(
      { weight: 5, arbitrary: tree.map(text) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }).map(text) },
    ),
    session() {
      let parser = new XmlStreamParser(limits);
      let fresh = true;
      const restart = (): void => {
        parser = new XmlStreamParser(limits);
        fresh = true;
      };
      return {
        feed(input, rng) {
          if (parser.finished) restart();
          const data = fresh && rng.chance(0.95) ? Buffer.concat([Buffer.from('<protocol>'), input]) : input;
          fresh = false;
          for (const chunk of chunks(rng, data)) {
            const events = noThrow('XmlStreamParser.write', () =>
              parser.write(rng.chance(0.5) ? chunk : chunk.toString('utf8')),
            );
            for (const e of events) {
              if (e.type === 'error') must(parser.finished, 'an error event but the parser goes on');
              if (e.type !== 'packet') continue;
              must(depthOf(e.element) <= limits.maxDepth, `a packet deeper than ${limits.maxDepth}`);
              must(e.raw.length <= limits.maxPacketChars + 8192, 'a packet over the size limit');
              const c = noThrow('ostseeschach parseClient', () => osParseClient(e.element));
              must(isResult(c), 'parseClient returned no Result');
              const s = noThrow('ostseeschach parseServer', () => osParseServer(e.element));
              must(isResult(s), 'parseServer returned no Result');
            }
            if (parser.finished) break;
          }
        },
      };
    },
  };
}

// ---- Catan: newline-delimited JSON objects over TCP ---------------------------------------------

const jsonDepth = (v: unknown): number =>
  typeof v === 'object' && v !== null ? 1 + Math.max(0, ...Object.values(v).map(jsonDepth)) : 0;

function catanTarget(): CodecTarget {
  const { client, server } = catanCorpus();
  const types = [
    'Hallo',
    'Spieler',
    'Spiel starten',
    'Chatnachricht senden',
    'Wuerfeln',
    'Karten abgeben',
    'Raeuber versetzen',
    'Bauen',
    'Entwicklungskarte kaufen',
    'Seehandel',
    'Zug beenden',
    'Handel anbieten',
    'Handel annehmen',
    'Handel abschliessen',
    'Handel abbrechen',
    'Ritter ausspielen',
    'Strassenbaukarte ausspielen',
    'Monopol',
    'Erfindung',
    'Würfeln',
    'Statusupdate',
    'Fehler',
  ];
  const fields = [
    'Version',
    'Name',
    'Farbe',
    'Nachricht',
    'Abgeben',
    'Ort',
    'Ziel',
    'Typ',
    'Angebot',
    'Nachfrage',
    'Handel id',
    'Mitspieler',
    'Strasse 1',
    'Strasse 2',
    'Rohstoff',
    'Rohstoffe',
    'Holz',
    'Lehm',
    'Wolle',
    'Getreide',
    'Erz',
    '__proto__',
    'constructor',
  ];
  const leaf = fc.oneof(
    fc.integer(),
    fc.double(),
    fc.string({ maxLength: 20 }),
    fc.constantFrom('Holz', 'Dorf', 'Stadt', 'Strasse', 'Rot', 'Weiß', 'FOP', 'OP', 'J', 1e308, -1, 2 ** 53),
    fc.constant(null),
    fc.boolean(),
  );
  const body = fc.dictionary(
    fc.constantFrom(...fields),
    fc.oneof(
      leaf,
      fc.dictionary(fc.constantFrom(...fields), leaf, { maxKeys: 5 }),
      fc.array(leaf, { maxLength: 4 }),
    ),
    { maxKeys: 4 },
  );
  const message = fc
    .tuple(
      fc.constantFrom(...types),
      fc.oneof({ weight: 5, arbitrary: body }, { weight: 1, arbitrary: fc.anything({ maxDepth: 3 }) }),
    )
    .map(([t, b]) => text(JSON.stringify({ [t]: b })));
  const reader = { maxBytes: 16 * 1024, maxDepth: 32 };
  return {
    name: 'catan',
    corpus: [...client, ...server],
    dictionary: [
      ...types.map((t) => `"${t}"`),
      ...fields.map((f) => `"${f}"`),
      '{',
      '}',
      '[',
      ']',
      ':',
      ',',
      '"',
      '\\u0000',
      '\\ud800',
      '\\',
      '\n',
      '\r\n',
      'true',
      'null',
      '1e999',
      '-',
    ],
    nesting: [
      ['{"a":', '}'],
      ['[', ']'],
      ['{"Bauen":', '}'],
    ],
    arbitrary: fc.oneof(
      { weight: 6, arbitrary: message },
      { weight: 1, arbitrary: fc.json().map(text) },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)) },
    ),
    session() {
      const objects = new JsonObjectReader(reader.maxBytes, reader.maxDepth);
      return {
        feed(input, rng) {
          const data = rng.chance(0.9)
            ? Buffer.concat([input, Buffer.from(rng.chance(0.8) ? '\n' : '\r\n')])
            : input;
          for (const chunk of chunks(rng, data)) {
            const items = noThrow('JsonObjectReader.push', () => objects.push(chunk));
            must(objects.buffered <= reader.maxBytes, `the reader holds ${objects.buffered} bytes`);
            for (const item of items) {
              if (item.kind !== 'object') continue;
              must(
                typeof item.value === 'object' && !Array.isArray(item.value),
                'an object item that is no object',
              );
              must(jsonDepth(item.value) <= reader.maxDepth + 1, `an object deeper than ${reader.maxDepth}`);
              const c = noThrow('catan parseClient', () => catanParseClient(item.value));
              must(isResult(c), 'parseClient returned no Result');
              must(
                isResult(noThrow('catan parseClient(text)', () => catanParseClient(item.text))),
                'parseClient(text) returned no Result',
              );
              must(
                isResult(noThrow('catan parseServer', () => catanParseServer(item.value))),
                'parseServer returned no Result',
              );
            }
          }
        },
      };
    },
  };
}

export const CODECS: Record<string, () => CodecTarget> = {
  connect4: connect4Target,
  mia: miaTarget,
  dame: dameTarget,
  ostseeschach: ostseeschachTarget,
  catan: catanTarget,
};
