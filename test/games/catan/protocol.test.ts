import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonObjectReader, type ReadItem } from '../../../src/games/catan/json-reader.js';
import {
  formatAction,
  formatClient,
  formatServer,
  parseClient,
  parseServer,
  type ClientMessage,
  type ServerMessage,
} from '../../../src/games/catan/protocol.js';
import type { Action } from '../../../src/games/catan/rules/index.js';

/** The codec: every message shape in both directions, umlaut aliases, bad shapes, and the object reader. */

const parsed = (text: string): ClientMessage => {
  const r = parseClient(text);
  if (!r.ok) throw new Error(`${text}: ${r.error.detail}`);
  return r.value;
};
const refused = (input: unknown): string => {
  const r = parseClient(input);
  if (r.ok) throw new Error(`accepted ${JSON.stringify(input)}`);
  expect(r.error.message).toBe('Ungueltige Nachricht');
  return r.error.code;
};

/** Every client message of catan.md §2.5 as the spec spells it, and what it means. */
const CLIENT: [string, ClientMessage][] = [
  ['{"Hallo":{"Version":"CatanTS-KI 0.3 (KI)"}}', { type: 'hello', version: 'CatanTS-KI 0.3 (KI)' }],
  ['{"Spieler":{"Name":"Anna","Farbe":"Rot"}}', { type: 'player', name: 'Anna', colour: 'Rot' }],
  ['{"Spiel starten":{}}', { type: 'startGame' }],
  ['{"Chatnachricht senden":{"Nachricht":"Hallo\\nWelt"}}', { type: 'chat', text: 'Hallo\nWelt' }],
  ['{"Wuerfeln":{}}', { type: 'action', action: { type: 'roll' } }],
  ['{"Karten abgeben":{"Abgeben":{"Holz":2,"Erz":2}}}', { type: 'action', action: { type: 'discard', cards: { Holz: 2, Erz: 2 } } }],
  ['{"Raeuber versetzen":{"Ort":"F","Ziel":13}}', { type: 'action', action: { type: 'moveRobber', hex: 'F', victim: 13 } }],
  ['{"Raeuber versetzen":{"Ort":"F"}}', { type: 'action', action: { type: 'moveRobber', hex: 'F' } }],
  ['{"Bauen":{"Typ":"Dorf","Ort":"ABM"}}', { type: 'action', action: { type: 'build', piece: 'Dorf', at: 'ABM' } }],
  ['{"Entwicklungskarte kaufen":{}}', { type: 'action', action: { type: 'buyDevCard' } }],
  [
    '{"Seehandel":{"Angebot":{"Holz":4},"Nachfrage":{"Erz":1}}}',
    { type: 'action', action: { type: 'seaTrade', offer: { Holz: 4 }, request: { Erz: 1 } } },
  ],
  ['{"Zug beenden":{}}', { type: 'action', action: { type: 'endTurn' } }],
  [
    '{"Handel anbieten":{"Angebot":{"Wolle":1},"Nachfrage":{"Lehm":1}}}',
    { type: 'action', action: { type: 'offerTrade', offer: { Wolle: 1 }, request: { Lehm: 1 } } },
  ],
  ['{"Handel annehmen":{"Handel id":0}}', { type: 'action', action: { type: 'acceptTrade', tradeId: 0 } }],
  ['{"Handel abschliessen":{"Handel id":0,"Mitspieler":13}}', { type: 'action', action: { type: 'completeTrade', tradeId: 0, partner: 13 } }],
  ['{"Handel abbrechen":{"Handel id":0}}', { type: 'action', action: { type: 'cancelTrade', tradeId: 0 } }],
  ['{"Ritter ausspielen":{"Ort":"F","Ziel":13}}', { type: 'action', action: { type: 'playKnight', hex: 'F', victim: 13 } }],
  [
    '{"Strassenbaukarte ausspielen":{"Strasse 1":"HI","Strasse 2":"IQ"}}',
    { type: 'action', action: { type: 'playRoadBuilding', road1: 'HI', road2: 'IQ' } },
  ],
  ['{"Strassenbaukarte ausspielen":{"Strasse 1":"HI"}}', { type: 'action', action: { type: 'playRoadBuilding', road1: 'HI' } }],
  ['{"Monopol":{"Rohstoff":"Holz"}}', { type: 'action', action: { type: 'playMonopoly', resource: 'Holz' } }],
  ['{"Erfindung":{"Rohstoffe":{"Lehm":1,"Erz":1}}}', { type: 'action', action: { type: 'playYearOfPlenty', resources: { Lehm: 1, Erz: 1 } } }],
];

describe('client messages', () => {
  it('parses every shape of the catalogue, and formats each back to the same line', () => {
    for (const [text, message] of CLIENT) {
      expect(parsed(text), text).toEqual(message);
      expect(formatClient(message), text).toBe(text);
    }
  });

  it('accepts ä/ö/ü/ß spellings of types, keys and enumerated values, never changing free text', () => {
    expect(parsed('{"Würfeln":{}}')).toEqual({ type: 'action', action: { type: 'roll' } });
    expect(parsed('{"Räuber versetzen":{"Ort":"F"}}')).toEqual({ type: 'action', action: { type: 'moveRobber', hex: 'F' } });
    expect(parsed('{"Handel abschließen":{"Handel id":3,"Mitspieler":7}}')).toEqual({
      type: 'action',
      action: { type: 'completeTrade', tradeId: 3, partner: 7 },
    });
    expect(parsed('{"Straßenbaukarte ausspielen":{"Straße 1":"HI","Straße 2":"IQ"}}')).toEqual({
      type: 'action',
      action: { type: 'playRoadBuilding', road1: 'HI', road2: 'IQ' },
    });
    expect(parsed('{"Bauen":{"Typ":"Straße","Ort":"HI"}}')).toEqual({ type: 'action', action: { type: 'build', piece: 'Strasse', at: 'HI' } });
    expect(parsed('{"Spieler":{"Name":"Jürgen Groß","Farbe":"Weiß"}}')).toEqual({ type: 'player', name: 'Jürgen Groß', colour: 'Weiss' });
  });

  it('reads the seed\'s pretty-printed form and ignores unknown keys (D13)', () => {
    expect(parsed('{ "Bauen" : {\n  "Typ" : "Dorf",\n  "Ort" : "ABM",\n  "Extra": [1, {"x": null}]\n} }')).toEqual({
      type: 'action',
      action: { type: 'build', piece: 'Dorf', at: 'ABM' },
    });
    expect(parsed('{"Karten abgeben":{"Abgeben":{"Holz":1,"Gold":5,"Erz":0}}}')).toEqual({ type: 'action', action: { type: 'discard', cards: { Holz: 1 } } });
  });

  it('refuses wrong shapes with Ungueltige Nachricht and a code saying why', () => {
    expect(refused('{"Wuerfeln":')).toBe('json');
    expect(refused('[]')).toBe('shape');
    expect(refused('"Wuerfeln"')).toBe('shape');
    expect(refused('{}')).toBe('shape');
    expect(refused('{"Wuerfeln":{},"Zug beenden":{}}')).toBe('shape');
    expect(refused('{"Wuerfeln":null}')).toBe('shape');
    expect(refused('{"Wuerfeln":[]}')).toBe('shape');
    expect(refused('{"Würfel":{}}')).toBe('unknown-type');
    expect(refused('{"toString":{}}')).toBe('unknown-type');
    expect(refused('{"__proto__":{}}')).toBe('unknown-type');
    expect(refused('{"Bauen":{"Typ":"Dorf"}}')).toBe('missing-field');
    expect(refused('{"Bauen":{"Typ":"Burg","Ort":"ABM"}}')).toBe('bad-value');
    expect(refused('{"Bauen":{"Typ":"Dorf","Ort":7}}')).toBe('bad-value');
    expect(refused('{"Handel annehmen":{"Handel id":"0"}}')).toBe('bad-value');
    expect(refused('{"Handel annehmen":{"Handel id":1.5}}')).toBe('bad-value');
    expect(refused('{"Karten abgeben":{"Abgeben":{"Holz":-1}}}')).toBe('bad-value');
    expect(refused('{"Karten abgeben":{"Abgeben":{"Holz":1e400}}}')).toBe('bad-value');
    expect(refused('{"Karten abgeben":{"Abgeben":[1]}}')).toBe('bad-value');
    expect(refused('{"Monopol":{"Rohstoff":"Gold"}}')).toBe('bad-value');
    expect(refused('{"Spieler":{"Name":"Anna"}}')).toBe('missing-field');
    expect(refused('{"Spieler":{"Name":5,"Farbe":"Rot"}}')).toBe('bad-value');
    expect(refused({ Wuerfeln: undefined })).toBe('shape');
  });

  it('keeps Spieler values raw: the lobby judges names and colours', () => {
    expect(parsed('{"Spieler":{"Name":"","Farbe":"Lila"}}')).toEqual({ type: 'player', name: '', colour: 'Lila' });
  });

  it('never throws, whatever it is given (fuzz)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.jsonValue(), fc.anything()), (input) => {
        const r = parseClient(input);
        expect(typeof r.ok).toBe('boolean');
        const s = parseServer(input);
        expect(typeof s.ok).toBe('boolean');
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.constantFrom(...CLIENT.map(([t]) => t)), fc.nat(), fc.string({ maxLength: 3 }), (text, at, junk) => {
        const i = at % (text.length + 1);
        expect(() => parseClient(text.slice(0, i) + junk + text.slice(i))).not.toThrow();
      }),
      { numRuns: 3000 },
    );
  });
});

/** Every server message of §2.5 as the spec spells it. */
const SERVER: [ServerMessage, string][] = [
  [{ type: 'hello', version: 'CatanTS-Server 1.0', protocol: '0.3' }, '{"Hallo":{"Version":"CatanTS-Server 1.0","Protokoll":"0.3"}}'],
  [{ type: 'welcome', id: 42 }, '{"Willkommen":{"id":42}}'],
  [
    { type: 'gameOver', message: 'Spieler Anna hat das Spiel gewonnen.', winner: 17 },
    '{"Spiel beendet":{"Nachricht":"Spieler Anna hat das Spiel gewonnen.","Sieger":17}}',
  ],
  [{ type: 'gameOver', message: 'Spieler X hat die Verbindung verloren. Spiel abgebrochen.' }, '{"Spiel beendet":{"Nachricht":"Spieler X hat die Verbindung verloren. Spiel abgebrochen."}}'],
  [{ type: 'answer', text: 'OK' }, '{"Serverantwort":"OK"}'],
  [{ type: 'error', message: 'Farbe bereits vergeben' }, '{"Fehler":{"Meldung":"Farbe bereits vergeben"}}'],
  [{ type: 'chat', sender: 42, text: 'Hallo "du"\n' }, '{"Chatnachricht":{"Absender":42,"Nachricht":"Hallo \\"du\\"\\n"}}'],
  [{ type: 'chat', text: 'Reihenfolge: A (1)' }, '{"Chatnachricht":{"Nachricht":"Reihenfolge: A (1)"}}'],
  [
    {
      type: 'status',
      player: {
        id: 17,
        colour: 'Rot',
        name: 'Anna',
        status: 'Strasse bauen',
        points: 2,
        resources: { Unbekannt: 3 },
        knights: 0,
        devCards: { Unbekannt: 0 },
      },
    },
    '{"Statusupdate":{"Spieler":{"id":17,"Farbe":"Rot","Name":"Anna","Status":"Strasse bauen","Siegpunkte":2,"Rohstoffe":{"Unbekannt":3},"Rittermacht":0,"Entwicklungskarten":{"Unbekannt":0}}}}',
  ],
  [
    {
      type: 'status',
      player: {
        id: 17,
        colour: 'Rot',
        name: 'Anna',
        status: 'Strasse bauen',
        points: 2,
        resources: { Holz: 0, Lehm: 0, Wolle: 0, Getreide: 2, Erz: 1 },
        knights: 1,
        devCards: { Ritter: 0, Strassenbau: 0, Monopol: 1, Erfindung: 0, Siegpunkt: 0 },
      },
    },
    '{"Statusupdate":{"Spieler":{"id":17,"Farbe":"Rot","Name":"Anna","Status":"Strasse bauen","Siegpunkte":2,"Rohstoffe":{"Holz":0,"Lehm":0,"Wolle":0,"Getreide":2,"Erz":1},"Rittermacht":1,"Entwicklungskarten":{"Ritter":0,"Strassenbau":0,"Monopol":1,"Erfindung":0,"Siegpunkt":0}}}}',
  ],
  [
    { type: 'status', player: { id: 5, status: 'Spiel starten', points: 0, resources: { Unbekannt: 0 }, knights: 0, devCards: { Unbekannt: 0 } } },
    '{"Statusupdate":{"Spieler":{"id":5,"Status":"Spiel starten","Siegpunkte":0,"Rohstoffe":{"Unbekannt":0},"Rittermacht":0,"Entwicklungskarten":{"Unbekannt":0}}}}',
  ],
  [{ type: 'rolled', player: 42, dice: [3, 4] }, '{"Wuerfelwurf":{"Spieler":42,"Wurf":[3,4]}}'],
  [{ type: 'gained', player: 42, resources: { Getreide: 2, Erz: 1 } }, '{"Ertrag":{"Spieler":42,"Rohstoffe":{"Getreide":2,"Erz":1}}}'],
  [{ type: 'paid', player: 42, resources: { Unbekannt: 2 } }, '{"Kosten":{"Spieler":42,"Rohstoffe":{"Unbekannt":2}}}'],
  [{ type: 'robberMoved', player: 42, hex: 'F', victim: 13 }, '{"Raeuber versetzt":{"Spieler":42,"Ort":"F","Ziel":13}}'],
  [{ type: 'robberMoved', player: 42, hex: 'F' }, '{"Raeuber versetzt":{"Spieler":42,"Ort":"F"}}'],
  [{ type: 'built', player: 42, piece: 'Stadt', at: 'ABM' }, '{"Bauvorgang":{"Gebaeude":{"Eigentuemer":42,"Typ":"Stadt","Ort":"ABM"}}}'],
  [{ type: 'devCardBought', player: 42, card: 'Ritter' }, '{"Entwicklungskarte gekauft":{"Spieler":42,"Entwicklungskarte":"Ritter"}}'],
  [{ type: 'devCardBought', player: 42, card: 'Unbekannt' }, '{"Entwicklungskarte gekauft":{"Spieler":42,"Entwicklungskarte":"Unbekannt"}}'],
  [{ type: 'longestRoad', player: 42 }, '{"Laengste Handelsstrasse":{"Spieler":42}}'],
  [{ type: 'longestRoad', player: null }, '{"Laengste Handelsstrasse":{}}'],
  [{ type: 'largestArmy', player: 42 }, '{"Groesste Rittermacht":{"Spieler":42}}'],
  [
    { type: 'tradeOffered', player: 42, tradeId: 0, offer: { Wolle: 1 }, request: { Lehm: 1 } },
    '{"Handelsangebot":{"Spieler":42,"Handel id":0,"Angebot":{"Wolle":1},"Nachfrage":{"Lehm":1}}}',
  ],
  [{ type: 'tradeAccepted', player: 13, tradeId: 0 }, '{"Handelsangebot angenommen":{"Spieler":13,"Handel id":0}}'],
  [{ type: 'tradeCompleted', tradeId: 0, player: 42, partner: 13 }, '{"Handel ausgefuehrt":{"Handel id":0,"Spieler":42,"Mitspieler":13}}'],
  [{ type: 'tradeCancelled', player: 42, tradeId: 0 }, '{"Handelsangebot abgebrochen":{"Spieler":42,"Handel id":0}}'],
  [{ type: 'knightPlayed', player: 42, hex: 'F', victim: 13 }, '{"Ritter ausspielen":{"Ort":"F","Ziel":13,"Spieler":42}}'],
  [{ type: 'roadBuildingPlayed', player: 42, road1: 'HI', road2: 'IQ' }, '{"Strassenbaukarte ausspielen":{"Strasse 1":"HI","Strasse 2":"IQ","Spieler":42}}'],
  [{ type: 'roadBuildingPlayed', player: 42, road1: 'HI' }, '{"Strassenbaukarte ausspielen":{"Strasse 1":"HI","Spieler":42}}'],
  [{ type: 'monopolyPlayed', player: 42, resource: 'Holz' }, '{"Monopol":{"Rohstoff":"Holz","Spieler":42}}'],
  [{ type: 'yearOfPlentyPlayed', player: 42, resources: { Lehm: 1, Erz: 1 } }, '{"Erfindung":{"Rohstoffe":{"Lehm":1,"Erz":1},"Spieler":42}}'],
];

describe('server messages', () => {
  it('formats every shape exactly, keys in the order of the spec, and parses it back', () => {
    for (const [message, text] of SERVER) {
      expect(formatServer(message)).toBe(text);
      const back = parseServer(text);
      expect(back.ok && back.value, text).toEqual(message);
    }
  });

  it('formats a Karte and reads it back, umlauts in Hügelland and Wüste', () => {
    const m: ServerMessage = {
      type: 'gameStarted',
      map: {
        fields: [
          { at: 'F', type: 'Hügelland', number: 10 },
          { at: 'S', type: 'Wüste', number: null },
          { at: 'a', type: 'Meer', number: null },
        ],
        buildings: [],
        harbours: [{ at: 'fD', type: 'Hafen' }],
        robber: 'S',
      },
    };
    const text = formatServer(m);
    expect(text).toBe(
      '{"Spiel gestartet":{"Karte":{"Felder":[{"Ort":"F","Typ":"Hügelland","Zahl":10},{"Ort":"S","Typ":"Wüste"},{"Ort":"a","Typ":"Meer"}],"Gebaeude":[],"Haefen":[{"Ort":"fD","Typ":"Hafen"}],"Raeuber":"S"}}}',
    );
    const back = parseServer(text);
    expect(back.ok && back.value).toEqual(m);
  });

  it('reads other servers\' umlaut spellings and treats any other Serverantwort as an answer to check', () => {
    const r = parseServer('{"Räuber versetzt":{"Spieler":1,"Ort":"B"}}');
    expect(r.ok && r.value).toEqual({ type: 'robberMoved', player: 1, hex: 'B' });
    const lr = parseServer('{"Längste Handelsstraße":{}}');
    expect(lr.ok && lr.value).toEqual({ type: 'longestRoad', player: null });
    const a = parseServer('{"Serverantwort":"Nicht OK"}');
    expect(a.ok && a.value).toEqual({ type: 'answer', text: 'Nicht OK' });
    expect(parseServer('{"Serverantwort":{}}').ok).toBe(false);
  });
});

describe('actions round trip', () => {
  it('formats every action so that the parser gives it back', () => {
    const actions: Action[] = CLIENT.flatMap(([, m]) => (m.type === 'action' ? [m.action] : []));
    for (const a of actions) {
      const back = parsed(formatAction(a));
      expect(back).toEqual({ type: 'action', action: a });
    }
  });
});

// ---- the object reader -----------------------------------------------------------------------------

const objects = (items: readonly ReadItem[]): string[] => items.flatMap((i) => (i.kind === 'object' ? [i.text] : []));
const kinds = (items: readonly ReadItem[]): string[] => items.map((i) => (i.kind === 'invalid' ? `invalid:${i.reason}` : i.kind));

function feed(reader: JsonObjectReader, text: string | Buffer, chunk = Infinity): ReadItem[] {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const out: ReadItem[] = [];
  for (let i = 0; i < bytes.length; i += chunk) out.push(...reader.push(bytes.subarray(i, Math.min(bytes.length, i + chunk))));
  return out;
}

describe('the JSON object reader', () => {
  const two = '{"Wuerfeln":{}}\n{"Chatnachricht senden":{"Nachricht":"Grüße {aus} \\"Köln\\"\\n"}}\n';

  it('reads objects split anywhere, byte by byte, including inside a multi-byte character', () => {
    expect(objects(feed(new JsonObjectReader(), two, 1))).toEqual(['{"Wuerfeln":{}}', '{"Chatnachricht senden":{"Nachricht":"Grüße {aus} \\"Köln\\"\\n"}}']);
  });

  it('tolerates \\r\\n, several objects on a line, and pretty-printed objects over many lines', () => {
    const r = new JsonObjectReader();
    expect(objects(feed(r, '{"a":{}}\r\n{"b":{}}{"c":{}}\r\n'))).toEqual(['{"a":{}}', '{"b":{}}', '{"c":{}}']);
    const pretty = '{ "Nachrichtentyp" : {\n\n"Attribut" : "Wert",\r\n"2. Attribut" : [ 1, -2.5e3, true, null ]\n\n} }\n';
    const got = objects(feed(new JsonObjectReader(), pretty, 3));
    expect(got).toHaveLength(1);
    expect(JSON.parse(got[0]!)).toEqual({ Nachrichtentyp: { Attribut: 'Wert', '2. Attribut': [1, -2500, true, null] } });
  });

  it('reports junk once per line and goes on with the next object', () => {
    const r = new JsonObjectReader();
    const items = feed(r, 'hello world\n[1,2]\n{"a":{}}\n');
    expect(kinds(items)).toEqual(['invalid:junk', 'invalid:junk', 'object']);
  });

  it('loses only a broken object, also when the next one starts on the following line', () => {
    const items = feed(new JsonObjectReader(), '{"Wuerfeln":{}\n{"Zug beenden":{}}\n{"a":"x\n{"b":{}}\n{"c" 1}\n{"d":{}}\n', 2);
    expect(kinds(items)).toEqual(['invalid:json', 'object', 'invalid:json', 'object', 'invalid:json', 'object']);
    expect(objects(items)).toEqual(['{"Zug beenden":{}}', '{"b":{}}', '{"d":{}}']);
  });

  it('reports invalid UTF-8 and too deep nesting, and an object over the limit as overlong', () => {
    const bad = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n{"b":{}}\n')]);
    expect(kinds(feed(new JsonObjectReader(), bad))).toEqual(['invalid:utf8', 'object']);
    expect(kinds(feed(new JsonObjectReader(64 * 1024, 8), '{"a":' + '['.repeat(20) + ']'.repeat(20) + '}\n{"b":{}}\n'))).toEqual(['invalid:depth', 'object']);
    const big = '{"a":"' + 'x'.repeat(70_000) + '"}\n{"b":{}}\n';
    expect(kinds(feed(new JsonObjectReader(64 * 1024), big, 4096))).toEqual(['overlong', 'object']);
    expect(kinds(feed(new JsonObjectReader(1000), 'y'.repeat(5000) + '\n{"b":{}}\n', 100))).toEqual(['overlong', 'object']);
  });

  it('never throws and finds the same objects however a valid stream is cut (fuzz)', () => {
    const message = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 });
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 17 }), fc.boolean(), (list, chunk, pretty) => {
        const text = list.map((o) => JSON.stringify(o, null, pretty ? 2 : undefined)).join(pretty ? '\r\n' : '\n') + '\n';
        const got = objects(feed(new JsonObjectReader(), text, chunk)).map((t) => JSON.parse(t) as unknown);
        expect(got).toEqual(list.map((o) => JSON.parse(JSON.stringify(o)) as unknown));
      }),
      { numRuns: 400 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), fc.integer({ min: 1, max: 50 }), (bytes, chunk) => {
        const r = new JsonObjectReader(256);
        const items = feed(r, Buffer.from(bytes), chunk);
        for (const i of items) if (i.kind === 'object') expect(() => JSON.parse(i.text) as unknown).not.toThrow();
      }),
      { numRuns: 2000 },
    );
  });
});
