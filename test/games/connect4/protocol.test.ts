import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeByteEscapedName,
  displayName,
  formatMessage,
  isValidOwnName,
  MAX_DATAGRAM_BYTES,
  parseDatagram,
  readInteger,
  type OutgoingMessage,
} from '../../../src/games/connect4/protocol.js';

const parsed = (d: string | Buffer) => {
  const r = parseDatagram(d);
  if (!r.ok) throw new Error(`expected a message, got ${JSON.stringify(r.error)}`);
  return r.value;
};
const failure = (d: string | Buffer) => {
  const r = parseDatagram(d);
  if (r.ok) throw new Error(`expected an error, got ${JSON.stringify(r.value)}`);
  return r.error;
};

describe('formatMessage', () => {
  it('writes compact JSON with integers as numbers in one key order', () => {
    expect(formatMessage({ kind: 'announce', name: 'Alice' }, 0)).toBe(
      '{"version":2,"clienttype":0,"stage":1,"clientname":"Alice"}',
    );
    expect(formatMessage({ kind: 'invitation', name: 'Alice' }, 0)).toBe(
      '{"version":2,"clienttype":0,"stage":2,"clientname":"Alice"}',
    );
    expect(formatMessage({ kind: 'acceptance' }, 1)).toBe('{"version":2,"clienttype":1,"stage":2}');
    expect(formatMessage({ kind: 'ready' }, 0)).toBe('{"version":2,"clienttype":0,"stage":3}');
    expect(formatMessage({ kind: 'move', turn: 6, column: 4 }, 0)).toBe(
      '{"version":2,"clienttype":0,"stage":4,"turn":6,"column":4}',
    );
    expect(formatMessage({ kind: 'game-over' }, 0)).toBe('{"version":2,"clienttype":0,"stage":5}');
    expect(formatMessage({ kind: 'abort' }, 0)).toBe('{"version":2,"clienttype":0,"stage":99}');
    expect(formatMessage({ kind: 'announce', name: 'a"b\\c/d' }, 0)).toBe(
      '{"version":2,"clienttype":0,"stage":1,"clientname":"a\\"b\\\\c/d"}',
    );
  });

  it('parses back what it writes', () => {
    const outgoing = fc.oneof(
      fc.record({
        kind: fc.constantFrom('announce' as const, 'invitation' as const),
        name: fc.stringMatching(/^[\x20-\x7e]{1,32}$/),
      }),
      fc.record({
        kind: fc.constant('move' as const),
        turn: fc.integer({ min: -1, max: 41 }),
        column: fc.integer({ min: 1, max: 7 }),
      }),
      fc.constantFrom<OutgoingMessage>(
        { kind: 'acceptance' },
        { kind: 'ready' },
        { kind: 'game-over' },
        { kind: 'abort' },
      ),
    );
    fc.assert(
      fc.property(outgoing, fc.constantFrom(0, 1), (m, clienttype) => {
        expect(parsed(formatMessage(m, clienttype))).toEqual({ ...m, clienttype });
      }),
    );
  });
});

describe('parseDatagram: the dialects of specs §3.9', () => {
  it('reads dialect C (numbers) and our own output', () => {
    expect(parsed('{"version":2,"clienttype":1,"stage":1,"clientname":"Carla"}')).toEqual({
      kind: 'announce',
      clienttype: 1,
      name: 'Carla',
    });
    expect(parsed('{"stage":4,"column":3,"turn":1,"version":2,"clienttype":1}')).toEqual({
      kind: 'move',
      clienttype: 1,
      turn: 1,
      column: 3,
    });
    expect(parsed('{"version":2,"clienttype":1,"stage":2,"clientname":"Carla"}')).toEqual({
      kind: 'invitation',
      clienttype: 1,
      name: 'Carla',
    });
    expect(parsed('{"version":2,"clienttype":1,"stage":2}')).toEqual({ kind: 'acceptance', clienttype: 1 });
  });

  it('reads dialect B (only version quoted)', () => {
    expect(parsed('{"version":"2","clienttype":1,"stage":4,"turn":3,"column":5}')).toEqual({
      kind: 'move',
      clienttype: 1,
      turn: 3,
      column: 5,
    });
    expect(parsed('{"version":"2","clienttype":1,"stage":3}')).toEqual({ kind: 'ready', clienttype: 1 });
    expect(parsed('{"version":"2","clienttype":1,"stage":5}')).toEqual({ kind: 'game-over', clienttype: 1 });
  });

  it("reads dialect A (every value quoted, pretty-printed, '/' escaped, byte-wise \\u escapes)", () => {
    const announce =
      '{\n    "version": "2",\n    "clienttype": "0",\n    "stage": "1",\n    "clientname": "J\\u00C3\\u00B6rg\\/Berlin"\n}\n';
    const m = parsed(announce);
    expect(m).toEqual({ kind: 'announce', clienttype: '0', name: 'J\u00c3\u00b6rg/Berlin' });
    expect(m.kind === 'announce' && m.name !== null ? displayName(m.name) : null).toBe('Jörg/Berlin');
    expect(
      parsed(
        '{\n    "version": "2",\n    "clienttype": "0",\n    "stage": "4",\n    "turn": "-1",\n    "column": "1"\n}\n',
      ),
    ).toEqual({
      kind: 'move',
      clienttype: '0',
      turn: -1,
      column: 1,
    });
    expect(parsed('{\n    "version": "2",\n    "clienttype": "0",\n    "stage": "2"\n}\n')).toEqual({
      kind: 'acceptance',
      clienttype: '0',
    });
    expect(parsed('{\n    "version": "2",\n    "clienttype": "0",\n    "stage": "99"\n}\n')).toEqual({
      kind: 'abort',
      clienttype: '0',
    });
    expect(
      parsed('{\n    "version": "2",\n    "stage": " 4 ",\n    "turn": "3",\n    "column": "7"\n}'),
    ).toEqual({ kind: 'move', clienttype: undefined, turn: 3, column: 7 });
  });

  it('trims whitespace and NUL bytes around the object', () => {
    const body = '{"version":2,"clienttype":0,"stage":3}';
    expect(parsed(`\u0000\u0000 \r\n${body}\n\u0000`)).toEqual({ kind: 'ready', clienttype: 0 });
    expect(
      parsed(Buffer.concat([Buffer.from([0, 0x20]), Buffer.from(body), Buffer.from([0x0a, 0, 0])])),
    ).toEqual({ kind: 'ready', clienttype: 0 });
    expect(parsed(`\ufeff${body}`)).toEqual({ kind: 'ready', clienttype: 0 });
  });

  it('ignores unknown keys and takes clienttype as information only', () => {
    expect(parsed('{"version":2,"stage":3,"hello":[1,2,{"x":null}],"clienttype":"web"}')).toEqual({
      kind: 'ready',
      clienttype: 'web',
    });
    expect(parsed('{"version":2,"stage":5,"__proto__":{"stage":99}}')).toEqual({
      kind: 'game-over',
      clienttype: undefined,
    });
  });
});

describe('parseDatagram: what is dropped', () => {
  it('drops anything but version 2', () => {
    expect(failure('{"version":1,"clienttype":0,"stage":4,"column":3}')).toEqual({
      code: 'bad-version',
      version: 1,
    });
    expect(failure('{"clienttype":0,"stage":3}').code).toBe('bad-version');
    expect(failure('{"version":"2.0","stage":3}').code).toBe('bad-version');
    expect(failure('{"version":true,"stage":3}').code).toBe('bad-version');
    expect(parsed('{"version":2.0,"stage":3}').kind).toBe('ready'); // 2.0 is the JSON number 2
    expect(parsed('{"version":"02","stage":3}').kind).toBe('ready');
  });

  it('drops a bad stage, reports an unknown one as such', () => {
    for (const stage of ['"x"', '4.5', 'null', '[]', '"4a"', '""'])
      expect(failure(`{"version":2,"stage":${stage}}`).code).toBe('bad-stage');
    expect(failure('{"version":2}').code).toBe('bad-stage');
    expect(failure('{"version":2,"stage":6}')).toEqual({ code: 'unknown-stage', stage: 6 });
    expect(failure('{"version":2,"stage":"0"}')).toEqual({ code: 'unknown-stage', stage: 0 });
  });

  it('turns a stage 4 with a missing or bad turn/column into a keepalive', () => {
    for (const body of [
      '',
      '"turn":1',
      '"column":1',
      '"turn":"x","column":1',
      '"turn":1,"column":1.5',
      '"turn":null,"column":2',
      '"turn":[1],"column":2',
      '"turn":1e400,"column":2',
    ])
      expect(parsed(`{"version":2,"stage":4${body === '' ? '' : ','}${body}}`), body).toEqual({
        kind: 'keepalive',
        clienttype: undefined,
      });
    // Ranges are the peer's business: the codec passes integers through.
    expect(parsed('{"version":2,"stage":4,"turn":-5,"column":9}')).toEqual({
      kind: 'move',
      clienttype: undefined,
      turn: -5,
      column: 9,
    });
  });

  it('reads clientname: string = name/invitation, missing or null = acceptance, anything else drops', () => {
    expect(parsed('{"version":2,"stage":2,"clientname":null}')).toEqual({
      kind: 'acceptance',
      clienttype: undefined,
    });
    expect(parsed('{"version":2,"stage":2,"clientname":""}')).toEqual({
      kind: 'invitation',
      clienttype: undefined,
      name: '',
    });
    expect(parsed('{"version":2,"stage":1}')).toEqual({
      kind: 'announce',
      clienttype: undefined,
      name: null,
    });
    for (const v of ['5', 'true', '{}', '["a"]'])
      expect(failure(`{"version":2,"stage":2,"clientname":${v}}`).code).toBe('bad-clientname');
    expect(failure('{"version":2,"stage":3,"clientname":7}').code).toBe('bad-clientname');
  });

  it('drops what is not one JSON object', () => {
    expect(failure('').code).toBe('empty');
    expect(failure(' \u0000\n').code).toBe('empty');
    for (const d of [
      '{',
      'stage 1',
      '{"version":2,"stage":1}{"version":2,"stage":1}',
      "{'version':2}",
      '{"version":2,"stage":1,}',
    ])
      expect(failure(d).code, d).toBe('not-json');
    for (const d of ['[]', '[{"version":2,"stage":1}]', '2', 'null', '"x"'])
      expect(failure(d).code, d).toBe('not-an-object');
  });

  it('drops datagrams over 4 KiB unread', () => {
    const pad = ' '.repeat(MAX_DATAGRAM_BYTES);
    expect(failure(`{"version":2,"stage":3}${pad}`)).toEqual({
      code: 'too-long',
      bytes: MAX_DATAGRAM_BYTES + 23,
    });
    expect(parsed(`{"version":2,"stage":3}${' '.repeat(MAX_DATAGRAM_BYTES - 23)}`).kind).toBe('ready');
  });

  it('never throws on arbitrary bytes (fuzz)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        expect(typeof parseDatagram(Buffer.from(bytes)).ok).toBe('boolean');
      }),
      { numRuns: 1500 },
    );
    fc.assert(
      fc.property(
        fc
          .array(fc.integer({ min: 0, max: 0x10ffff }), { maxLength: 200 })
          .map((cps) => String.fromCodePoint(...cps)),
        (text) => {
          expect(typeof parseDatagram(text).ok).toBe('boolean');
        },
      ),
      { numRuns: 1500 },
    );
    // Real datagrams with a few bytes changed reach the deeper paths more often than noise does.
    const samples = [
      '{"version":2,"clienttype":0,"stage":4,"turn":6,"column":4}',
      '{\n    "version": "2",\n    "stage": "2",\n    "clientname": "J\\u00C3\\u00B6rg\\/A"\n}\n',
    ].map((t) => Buffer.from(t));
    fc.assert(
      fc.property(
        fc.constantFrom(...samples),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
        (sample, edits) => {
          const bytes = Buffer.from(sample);
          for (const [at, value] of edits) bytes[at % bytes.length] = value;
          expect(typeof parseDatagram(bytes).ok).toBe('boolean');
        },
      ),
      { numRuns: 2000 },
    );
    expect(parseDatagram('['.repeat(4000)).ok).toBe(false);
  });

  it('never throws on arbitrary JSON, and anything accepted is consistent (fuzz)', () => {
    const value = fc.oneof(
      fc.integer({ min: -3, max: 100 }),
      fc.integer().map(String),
      fc.constantFrom('2', ' 4 ', '-1', '99', null, true, 2.5, 'x', ''),
      fc.jsonValue({ maxDepth: 2 }),
    );
    const message = fc.record(
      {
        version: fc.oneof(fc.constant(2), fc.constant('2'), value),
        stage: value,
        clientname: fc.oneof(fc.string(), value),
        turn: value,
        column: value,
        clienttype: value,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(message, fc.constantFrom('', '\n', '\u0000'), (m, junk) => {
        const r = parseDatagram(junk + JSON.stringify(m, null, junk === '' ? undefined : 4) + junk);
        if (!r.ok) return;
        expect(readInteger(m.version)).toBe(2);
        const stage = readInteger(m.stage);
        const kinds: Record<number, string[]> = {
          1: ['announce'],
          2: ['invitation', 'acceptance'],
          3: ['ready'],
          4: ['move', 'keepalive'],
          5: ['game-over'],
          99: ['abort'],
        };
        expect(kinds[stage ?? -1]).toContain(r.value.kind);
        if (r.value.kind === 'move')
          expect([r.value.turn, r.value.column]).toEqual([readInteger(m.turn), readInteger(m.column)]);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('integers, names', () => {
  it('reads integers as JSON integers or digit strings', () => {
    expect(readInteger(4)).toBe(4);
    expect(readInteger(' -12 ')).toBe(-12);
    expect(readInteger('0007')).toBe(7);
    expect(readInteger('-0')).toBe(0);
    expect(Object.is(readInteger('-0'), 0)).toBe(true);
    for (const bad of [
      '+7',
      '1e3',
      '0x10',
      '',
      ' ',
      '1 2',
      '4.0',
      4.5,
      2 ** 60,
      Number.NaN,
      Infinity,
      null,
      true,
      [],
      {},
      '1234567890123456',
    ])
      expect(readInteger(bad), JSON.stringify(bad)).toBeNull();
  });

  it('decodes A-dialect byte escapes when they are valid UTF-8, and only then', () => {
    expect(decodeByteEscapedName('J\u00c3\u00b6rg')).toBe('Jörg');
    expect(decodeByteEscapedName('\u00e2\u0082\u00ac5')).toBe('€5');
    expect(decodeByteEscapedName('\u00f0\u009f\u0098\u0080')).toBe('😀');
    expect(decodeByteEscapedName('Jörg')).toBe('Jörg'); // Latin-1 ö alone is not UTF-8
    expect(decodeByteEscapedName('Ünal €')).toBe('Ünal €'); // has a character beyond U+00FF
    expect(decodeByteEscapedName('plain')).toBe('plain');
    expect(decodeByteEscapedName('\u00c3')).toBe('\u00c3'); // truncated sequence
  });

  it('shows names without control characters, at most 32 characters', () => {
    expect(displayName('Bob\u0007\u001b[31m\u0000')).toBe('Bob[31m');
    expect(displayName('a\u202eb\u2066c\u0085d')).toBe('abcd');
    expect(displayName('  Eve \n')).toBe('Eve');
    expect(displayName('x'.repeat(40))).toBe('x'.repeat(32));
    expect(displayName('😀'.repeat(40))).toBe('😀'.repeat(32));
    expect(displayName('J\u00c3\u00b6rg\u0001')).toBe('Jörg');
    fc.assert(
      fc.property(
        // Mostly Latin-1 (the byte-escape path), some anything.
        fc
          .array(fc.oneof(fc.integer({ min: 0, max: 0xff }), fc.integer({ min: 0, max: 0x10ffff })), {
            maxLength: 80,
          })
          .map((cps) => String.fromCodePoint(...cps)),
        (s) => {
          const shown = displayName(s);
          expect(Array.from(shown).length).toBeLessThanOrEqual(32);
          expect(/\p{Cc}/u.test(shown)).toBe(false);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('sends only 1–32 printable ASCII characters as our name', () => {
    expect(isValidOwnName('Alice')).toBe(true);
    expect(isValidOwnName('x'.repeat(32))).toBe(true);
    expect(isValidOwnName('a b~!')).toBe(true);
    for (const bad of ['', 'x'.repeat(33), 'Jörg', 'tab\t', 'nl\n', '\u007f'])
      expect(isValidOwnName(bad), bad).toBe(false);
  });
});
