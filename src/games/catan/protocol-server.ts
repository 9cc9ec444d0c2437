import { ok, err, type Result } from '../../core/result.js';
import { BOUGHT_CARDS, FIELD_TYPES, Fields, PIECES, STATUSES, ascii, decode, isObject, protocolError, run, Fail, type ProtocolError, type Reader } from './protocol-fields.js';
import type { ServerMessage, WireBuilding, WireField, WireMap, WirePlayer } from './protocol-types.js';
import type { Harbour } from './rules/board.js';
import { COLOURS, HARBOUR_TYPES, RESOURCES, type DevCard, type DevCards, type Hidden, type ResourceCounts, type Resources } from './rules/types.js';

/**
 * Reading server messages, for clients (protocol.ts re-exports `parseServer`). Tolerant like the
 * server's side: umlaut spellings, missing zero counts, unknown keys; an unknown type or a wrong
 * shape is an error value, which a client skips.
 */

function wirePlayer(f: Fields): WirePlayer {
  const res = f.resourcesOrHidden('Rohstoffe');
  const dev = f.object('Entwicklungskarten');
  const card = (c: DevCard): number => (dev.has(c) ? dev.int(c) : 0);
  const devCards: DevCards | Hidden = dev.has('Unbekannt')
    ? { Unbekannt: dev.int('Unbekannt') }
    : { Ritter: card('Ritter'), Strassenbau: card('Strassenbau'), Monopol: card('Monopol'), Erfindung: card('Erfindung'), Siegpunkt: card('Siegpunkt') };
  const base = {
    id: f.int('id'),
    status: f.oneOf('Status', STATUSES),
    points: f.int('Siegpunkte'),
    resources: 'Unbekannt' in res ? res : fullResources(res),
    knights: f.has('Rittermacht') ? f.int('Rittermacht') : 0,
    devCards,
  };
  const colour = f.has('Farbe') ? f.oneOf('Farbe', COLOURS) : undefined;
  const name = f.optionalString('Name');
  return { ...base, ...(colour === undefined ? {} : { colour }), ...(name === undefined ? {} : { name }) };
}

const fullResources = (r: ResourceCounts): Resources => ({
  Holz: r.Holz ?? 0,
  Lehm: r.Lehm ?? 0,
  Wolle: r.Wolle ?? 0,
  Getreide: r.Getreide ?? 0,
  Erz: r.Erz ?? 0,
});

function wireMap(f: Fields): WireMap {
  const fields = f.array('Felder').map((v): WireField => {
    const x = new Fields(v, 'Feld');
    return { at: x.string('Ort'), type: x.oneOf('Typ', FIELD_TYPES), number: x.has('Zahl') ? x.int('Zahl') : null };
  });
  const buildings = (f.has('Gebaeude') ? f.array('Gebaeude') : []).map((v): WireBuilding => {
    const x = new Fields(v, 'Gebaeude');
    return { owner: x.int('Eigentuemer'), piece: x.oneOf('Typ', PIECES), at: x.string('Ort') };
  });
  const harbours = (f.has('Haefen') ? f.array('Haefen') : []).map((v): Harbour => {
    const x = new Fields(v, 'Hafen');
    return { at: x.string('Ort'), type: x.oneOf('Typ', HARBOUR_TYPES) };
  });
  return { fields, buildings, harbours, robber: f.string('Raeuber') };
}

function dice(f: Fields): readonly [number, number] {
  const wurf = f.array('Wurf');
  const [a, b] = wurf;
  if (wurf.length !== 2 || typeof a !== 'number' || typeof b !== 'number') throw new Fail('bad-value', 'Wurf must be two dice');
  return [a, b];
}

const SERVER: ReadonlyMap<string, Reader<ServerMessage>> = new Map<string, Reader<ServerMessage>>([
  ['Hallo', (f) => ({ type: 'hello', version: f.optionalString('Version') ?? '', protocol: f.string('Protokoll') })],
  ['Willkommen', (f) => ({ type: 'welcome', id: f.int('id') })],
  ['Spiel gestartet', (f) => ({ type: 'gameStarted', map: wireMap(f.object('Karte')) })],
  [
    'Spiel beendet',
    (f) => {
      const winner = f.optionalInt('Sieger');
      const message = f.optionalString('Nachricht') ?? '';
      return winner === undefined ? { type: 'gameOver', message } : { type: 'gameOver', message, winner };
    },
  ],
  ['Fehler', (f) => ({ type: 'error', message: f.optionalString('Meldung') ?? '' })],
  [
    'Chatnachricht',
    (f) => {
      const sender = f.optionalInt('Absender');
      const text = f.string('Nachricht');
      return sender === undefined ? { type: 'chat', text } : { type: 'chat', sender, text };
    },
  ],
  ['Statusupdate', (f) => ({ type: 'status', player: wirePlayer(f.object('Spieler')) })],
  ['Wuerfelwurf', (f) => ({ type: 'rolled', player: f.int('Spieler'), dice: dice(f) })],
  ['Ertrag', (f) => ({ type: 'gained', player: f.int('Spieler'), resources: f.resourcesOrHidden('Rohstoffe') })],
  ['Kosten', (f) => ({ type: 'paid', player: f.int('Spieler'), resources: f.resourcesOrHidden('Rohstoffe') })],
  ['Raeuber versetzt', (f) => optionalVictim({ type: 'robberMoved', player: f.int('Spieler'), hex: f.string('Ort') }, f.optionalInt('Ziel'))],
  [
    'Bauvorgang',
    (f) => {
      const g = f.object('Gebaeude');
      return { type: 'built', player: g.int('Eigentuemer'), piece: g.oneOf('Typ', PIECES), at: g.string('Ort') };
    },
  ],
  [
    'Entwicklungskarte gekauft',
    (f) => ({ type: 'devCardBought', player: f.int('Spieler'), card: f.oneOf('Entwicklungskarte', BOUGHT_CARDS) }),
  ],
  ['Laengste Handelsstrasse', (f) => ({ type: 'longestRoad', player: f.optionalInt('Spieler') ?? null })],
  ['Groesste Rittermacht', (f) => ({ type: 'largestArmy', player: f.int('Spieler') })],
  [
    'Handelsangebot',
    (f) => ({ type: 'tradeOffered', player: f.int('Spieler'), tradeId: f.int('Handel id'), offer: f.resources('Angebot'), request: f.resources('Nachfrage') }),
  ],
  ['Handelsangebot angenommen', (f) => ({ type: 'tradeAccepted', player: f.int('Spieler'), tradeId: f.int('Handel id') })],
  ['Handel ausgefuehrt', (f) => ({ type: 'tradeCompleted', tradeId: f.int('Handel id'), player: f.int('Spieler'), partner: f.int('Mitspieler') })],
  ['Handelsangebot abgebrochen', (f) => ({ type: 'tradeCancelled', player: f.int('Spieler'), tradeId: f.int('Handel id') })],
  ['Ritter ausspielen', (f) => optionalVictim({ type: 'knightPlayed', player: f.int('Spieler'), hex: f.string('Ort') }, f.optionalInt('Ziel'))],
  [
    'Strassenbaukarte ausspielen',
    (f) => {
      const road2 = f.optionalString('Strasse 2');
      const base = { type: 'roadBuildingPlayed', player: f.int('Spieler'), road1: f.string('Strasse 1') } as const;
      return road2 === undefined ? base : { ...base, road2 };
    },
  ],
  ['Monopol', (f) => ({ type: 'monopolyPlayed', player: f.int('Spieler'), resource: f.oneOf('Rohstoff', RESOURCES) })],
  ['Erfindung', (f) => ({ type: 'yearOfPlentyPlayed', player: f.int('Spieler'), resources: f.resources('Rohstoffe') })],
]);

function optionalVictim(m: { type: 'robberMoved' | 'knightPlayed'; player: number; hex: string }, victim: number | undefined): ServerMessage {
  return victim === undefined ? m : { ...m, victim };
}

/** One server message (for clients). `Serverantwort` is the one type whose value is a string. Never throws. */
export function parseServer(input: unknown): Result<ServerMessage, ProtocolError> {
  let value: unknown = input;
  if (typeof input === 'string') {
    const decoded = decode(input);
    if (!decoded.ok) return decoded;
    value = decoded.value;
  }
  if (isObject(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1 && ascii(keys[0]!) === 'Serverantwort') {
      const text = value[keys[0]!];
      return typeof text === 'string' ? ok({ type: 'answer', text }) : err(protocolError('bad-value', 'Serverantwort must be a string'));
    }
  }
  return run(SERVER, value);
}
