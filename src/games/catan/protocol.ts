import type { Result } from '../../core/result.js';
import { INVALID_MESSAGE, PIECES, ascii, decode, resourcesOf, run, wireResources, type ProtocolError, type Reader } from './protocol-fields.js';
import type { ClientMessage, ServerMessage, WireMap, WirePlayer } from './protocol-types.js';
import { COLOURS, DEV_CARDS, RESOURCES, type Action, type DevCards } from './rules/types.js';

/**
 * The Catan protocol 0.3 codec (catan.md §2). `parseClient`/`parseServer` turn one JSON object
 * into a typed message and never throw; `formatServer`/`formatClient` are the only places a wire
 * string is spelled. Keys come out in the order the spec shows them; umlaut spellings of keys and
 * enumerated values are read as their ASCII forms.
 */

export const PROTOCOL = '0.3';
export const CLIENT_VERSION = 'CatanTS-KI 0.3 (KI)';
/** D10: an inbound object over this closes the connection. */
export const MAX_MESSAGE_BYTES = 64 * 1024;
export const MAX_NAME_LENGTH = 40;
/** D13. */
export const MAX_CHAT_LENGTH = 500;

/** The server's own `Meldung` texts (the rules core has the others). */
export const MELDUNG_SERVER = {
  invalidMessage: INVALID_MESSAGE,
  wrongStatus: 'Aktion im aktuellen Status nicht erlaubt',
  colourTaken: 'Farbe bereits vergeben',
  invalidColour: 'Ungueltige Farbe',
  invalidName: 'Ungueltiger Name',
  gameRunning: 'Spiel laeuft bereits',
  gameFull: 'Spiel ist voll',
} as const;

// ---- messages (protocol-types.ts) ---------------------------------------------------------------

export type { ClientMessage, ServerMessage, WireBuilding, WireField, WireMap, WirePlayer } from './protocol-types.js';

export const OK: ServerMessage = { type: 'answer', text: 'OK' };



const action =
  (make: Reader<Action>): Reader<ClientMessage> =>
  (f) => ({ type: 'action', action: make(f) });

const CLIENT: ReadonlyMap<string, Reader<ClientMessage>> = new Map<string, Reader<ClientMessage>>([
  // A client that leaves out its version is still let in.
  ['Hallo', (f) => ({ type: 'hello', version: f.optionalString('Version') ?? '' })],
  ['Spieler', (f) => ({ type: 'player', name: f.string('Name'), colour: colourOf(f.string('Farbe')) })],
  ['Spiel starten', () => ({ type: 'startGame' })],
  ['Chatnachricht senden', (f) => ({ type: 'chat', text: f.string('Nachricht') })],
  ['Wuerfeln', action(() => ({ type: 'roll' }))],
  ['Karten abgeben', action((f) => ({ type: 'discard', cards: f.resources('Abgeben') }))],
  ['Raeuber versetzen', action((f) => withVictim({ type: 'moveRobber', hex: f.string('Ort') }, f.optionalInt('Ziel')))],
  ['Bauen', action((f) => ({ type: 'build', piece: f.oneOf('Typ', PIECES), at: f.string('Ort') }))],
  ['Entwicklungskarte kaufen', action(() => ({ type: 'buyDevCard' }))],
  ['Seehandel', action((f) => ({ type: 'seaTrade', offer: f.resources('Angebot'), request: f.resources('Nachfrage') }))],
  ['Zug beenden', action(() => ({ type: 'endTurn' }))],
  ['Handel anbieten', action((f) => ({ type: 'offerTrade', offer: f.resources('Angebot'), request: f.resources('Nachfrage') }))],
  ['Handel annehmen', action((f) => ({ type: 'acceptTrade', tradeId: f.int('Handel id') }))],
  ['Handel abschliessen', action((f) => ({ type: 'completeTrade', tradeId: f.int('Handel id'), partner: f.int('Mitspieler') }))],
  ['Handel abbrechen', action((f) => ({ type: 'cancelTrade', tradeId: f.int('Handel id') }))],
  ['Ritter ausspielen', action((f) => withVictim({ type: 'playKnight', hex: f.string('Ort') }, f.optionalInt('Ziel')))],
  [
    'Strassenbaukarte ausspielen',
    action((f) => {
      const road2 = f.optionalString('Strasse 2');
      const road1 = f.string('Strasse 1');
      return road2 === undefined ? { type: 'playRoadBuilding', road1 } : { type: 'playRoadBuilding', road1, road2 };
    }),
  ],
  ['Monopol', action((f) => ({ type: 'playMonopoly', resource: f.oneOf('Rohstoff', RESOURCES) }))],
  ['Erfindung', action((f) => ({ type: 'playYearOfPlenty', resources: f.resources('Rohstoffe') }))],
]);

/** A protocol colour in its ASCII spelling (`Weiß` → `Weiss`); anything else stays as sent. */
function colourOf(text: string): string {
  const a = ascii(text);
  return COLOURS.find((c) => c === a) ?? text;
}

function withVictim(a: { type: 'moveRobber' | 'playKnight'; hex: string }, victim: number | undefined): Action {
  return victim === undefined ? a : { ...a, victim };
}

/** One client message from a decoded JSON value or its text. Never throws. */
export function parseClient(input: unknown): Result<ClientMessage, ProtocolError> {
  if (typeof input === 'string') {
    const value = decode(input);
    return value.ok ? run(CLIENT, value.value) : value;
  }
  return run(CLIENT, input);
}

// ---- writing -------------------------------------------------------------------------------------

// Spelled out rather than `{ [type]: body }`: objects with computed keys stringify much slower.
const line = (type: string, body: unknown): string => `{"${type}":${JSON.stringify(body)}}`;

/** A server message and its wire text, formatted once (and only if needed) however many receive it. */
export class Outgoing {
  private text: string | null = null;

  constructor(readonly message: ServerMessage) {}

  get line(): string {
    return (this.text ??= formatServer(this.message));
  }
}

function spielerObject(p: WirePlayer): Record<string, unknown> {
  const o: Record<string, unknown> = { id: p.id };
  if (p.colour !== undefined) o.Farbe = p.colour;
  if (p.name !== undefined) o.Name = p.name;
  o.Status = p.status;
  o.Siegpunkte = p.points;
  o.Rohstoffe = wireResources(p.resources, true);
  o.Rittermacht = p.knights;
  o.Entwicklungskarten = 'Unbekannt' in p.devCards ? { Unbekannt: p.devCards.Unbekannt } : devObject(p.devCards);
  return o;
}

function devObject(d: DevCards): Record<string, number> {
  const o: Record<string, number> = {};
  for (const c of DEV_CARDS) o[c] = d[c];
  return o;
}

export function karte(map: WireMap): Record<string, unknown> {
  return {
    Felder: map.fields.map((f) => (f.number === null ? { Ort: f.at, Typ: f.type } : { Ort: f.at, Typ: f.type, Zahl: f.number })),
    Gebaeude: map.buildings.map((b) => ({ Eigentuemer: b.owner, Typ: b.piece, Ort: b.at })),
    Haefen: map.harbours.map((h) => ({ Ort: h.at, Typ: h.type })),
    Raeuber: map.robber,
  };
}

const withZiel = (o: Record<string, unknown>, victim: number | undefined): Record<string, unknown> => (victim === undefined ? o : { ...o, Ziel: victim });

/** One server message as a wire line (without the `\n`). */
export function formatServer(m: ServerMessage): string {
  switch (m.type) {
    case 'hello':
      return line('Hallo', { Version: m.version, Protokoll: m.protocol });
    case 'welcome':
      return line('Willkommen', { id: m.id });
    case 'gameStarted':
      return line('Spiel gestartet', { Karte: karte(m.map) });
    case 'gameOver':
      return line('Spiel beendet', m.winner === undefined ? { Nachricht: m.message } : { Nachricht: m.message, Sieger: m.winner });
    case 'answer':
      return line('Serverantwort', m.text);
    case 'error':
      return line('Fehler', { Meldung: m.message });
    case 'chat':
      return line('Chatnachricht', m.sender === undefined ? { Nachricht: m.text } : { Absender: m.sender, Nachricht: m.text });
    case 'status':
      return line('Statusupdate', { Spieler: spielerObject(m.player) });
    case 'rolled':
      return line('Wuerfelwurf', { Spieler: m.player, Wurf: [m.dice[0], m.dice[1]] });
    case 'gained':
      return line('Ertrag', { Spieler: m.player, Rohstoffe: wireResources(m.resources) });
    case 'paid':
      return line('Kosten', { Spieler: m.player, Rohstoffe: wireResources(m.resources) });
    case 'robberMoved':
      return line('Raeuber versetzt', withZiel({ Spieler: m.player, Ort: m.hex }, m.victim));
    case 'built':
      return line('Bauvorgang', { Gebaeude: { Eigentuemer: m.player, Typ: m.piece, Ort: m.at } });
    case 'devCardBought':
      return line('Entwicklungskarte gekauft', { Spieler: m.player, Entwicklungskarte: m.card });
    case 'longestRoad':
      return line('Laengste Handelsstrasse', m.player === null ? {} : { Spieler: m.player });
    case 'largestArmy':
      return line('Groesste Rittermacht', { Spieler: m.player });
    case 'tradeOffered':
      return line('Handelsangebot', {
        Spieler: m.player,
        'Handel id': m.tradeId,
        Angebot: wireResources(m.offer),
        Nachfrage: wireResources(m.request),
      });
    case 'tradeAccepted':
      return line('Handelsangebot angenommen', { Spieler: m.player, 'Handel id': m.tradeId });
    case 'tradeCompleted':
      return line('Handel ausgefuehrt', { 'Handel id': m.tradeId, Spieler: m.player, Mitspieler: m.partner });
    case 'tradeCancelled':
      return line('Handelsangebot abgebrochen', { Spieler: m.player, 'Handel id': m.tradeId });
    // Card echoes: the client's message with "Spieler" added at the end.
    case 'knightPlayed':
      return line('Ritter ausspielen', { ...withZiel({ Ort: m.hex }, m.victim), Spieler: m.player });
    case 'roadBuildingPlayed':
      return line(
        'Strassenbaukarte ausspielen',
        m.road2 === undefined ? { 'Strasse 1': m.road1, Spieler: m.player } : { 'Strasse 1': m.road1, 'Strasse 2': m.road2, Spieler: m.player },
      );
    case 'monopolyPlayed':
      return line('Monopol', { Rohstoff: m.resource, Spieler: m.player });
    case 'yearOfPlentyPlayed':
      return line('Erfindung', { Rohstoffe: wireResources(m.resources), Spieler: m.player });
  }
}

/** One client message as a wire line (without the `\n`). */
export function formatClient(m: ClientMessage): string {
  switch (m.type) {
    case 'hello':
      return line('Hallo', { Version: m.version });
    case 'player':
      return line('Spieler', { Name: m.name, Farbe: m.colour });
    case 'startGame':
      return line('Spiel starten', {});
    case 'chat':
      return line('Chatnachricht senden', { Nachricht: m.text });
    case 'action':
      return formatAction(m.action);
  }
}

export function formatAction(a: Action): string {
  switch (a.type) {
    case 'roll':
      return line('Wuerfeln', {});
    case 'discard':
      return line('Karten abgeben', { Abgeben: wireResources(a.cards) });
    case 'moveRobber':
      return line('Raeuber versetzen', withZiel({ Ort: a.hex }, a.victim));
    case 'build':
      return line('Bauen', { Typ: a.piece, Ort: a.at });
    case 'buyDevCard':
      return line('Entwicklungskarte kaufen', {});
    case 'playKnight':
      return line('Ritter ausspielen', withZiel({ Ort: a.hex }, a.victim));
    case 'playRoadBuilding':
      return line('Strassenbaukarte ausspielen', a.road2 === undefined ? { 'Strasse 1': a.road1 } : { 'Strasse 1': a.road1, 'Strasse 2': a.road2 });
    case 'playMonopoly':
      return line('Monopol', { Rohstoff: a.resource });
    case 'playYearOfPlenty':
      return line('Erfindung', { Rohstoffe: wireResources(a.resources) });
    case 'seaTrade':
      return line('Seehandel', { Angebot: wireResources(a.offer), Nachfrage: wireResources(a.request) });
    case 'offerTrade':
      return line('Handel anbieten', { Angebot: wireResources(a.offer), Nachfrage: wireResources(a.request) });
    case 'acceptTrade':
      return line('Handel annehmen', { 'Handel id': a.tradeId });
    case 'completeTrade':
      return line('Handel abschliessen', { 'Handel id': a.tradeId, Mitspieler: a.partner });
    case 'cancelTrade':
      return line('Handel abbrechen', { 'Handel id': a.tradeId });
    case 'endTurn':
      return line('Zug beenden', {});
  }
}

export { resourcesOf, type ProtocolError };
export { parseServer } from './protocol-server.js';
