import { err, ok, type Result } from '../../core/result.js';
import type { Coordinates, Move, Team } from './board.js';
import { IDENTITY_HASH, moveText } from './messages.js';
import { formatStateNode } from './protocol-state.js';
import type { State } from './rules.js';
import { child, type XmlElement } from './xml/parser.js';
import { el, textEl, writeCompact, writePacket, type XmlNode } from './xml/writer.js';

/**
 * The Software-Challenge 2022 wire protocol (spec §3) as typed packets. `parseClient` (and
 * `parseServer` in protocol-read.ts, for our client) turn an element from the stream parser into a
 * packet and never throw; the `format*` functions are the only place a packet is spelled. Absent
 * attributes are `null`, the way XStream leaves a field it did not find.
 */

/** What the server writes before its first packet, and at the end of a stream (spec §3.1, §3.5). */
export const STREAM_OPEN = '<protocol>';
export const STREAM_CLOSE = '\n</protocol>';
/** The closing of a stream in which nothing was sent (XStream closes the still-empty root). */
export const STREAM_EMPTY = '<protocol/>';
export const CLOSE_CONNECTION = 'sc.protocol.CloseConnection';

export type ScoreCause = 'REGULAR' | 'LEFT' | 'RULE_VIOLATION' | 'SOFT_TIMEOUT' | 'HARD_TIMEOUT' | 'UNKNOWN';

export interface SlotDescriptor {
  readonly displayName: string | null;
  readonly canTimeout: boolean;
  readonly reserved: boolean;
}

/**
 * A move as a client sent it: XStream leaves a missing `<from>` null, and the official server
 * judges such a move like any other (an invalid move, issue #16); a missing `<to>` is a
 * protocol error.
 */
export interface ClientMove {
  readonly from: Coordinates | null;
  readonly to: Coordinates;
}

/** What a client may put into `<room><data class="…">`. Only a move is acted on. */
export type ClientRoomData =
  | { readonly class: 'move'; readonly move: ClientMove }
  | { readonly class: 'moveRequest' }
  | { readonly class: 'welcomeMessage'; readonly color: string | null }
  | { readonly class: 'paused'; readonly paused: boolean };

export type ClientPacket =
  | { readonly type: 'join'; readonly gameType: string | null }
  | { readonly type: 'joinRoom'; readonly roomId: string | null }
  | { readonly type: 'joinPrepared'; readonly reservationCode: string | null }
  | { readonly type: 'authenticate'; readonly password: string | null }
  | {
      readonly type: 'prepare';
      readonly gameType: string | null;
      readonly pause: boolean;
      readonly slots: readonly SlotDescriptor[];
    }
  | { readonly type: 'observe'; readonly roomId: string | null }
  | { readonly type: 'pause'; readonly roomId: string | null; readonly pause: boolean }
  | { readonly type: 'step'; readonly roomId: string | null; readonly forced: boolean }
  | { readonly type: 'cancel'; readonly roomId: string | null }
  | { readonly type: 'room'; readonly roomId: string | null; readonly data: ClientRoomData | null }
  | { readonly type: 'closeConnection' };

export interface ScoreEntry {
  readonly team: Team;
  /** '' when unnamed (then the wire has no `name` attribute). */
  readonly name: string;
  readonly cause: ScoreCause;
  readonly reason: string;
  /** Siegpunkte, Bernsteine, Leichtfiguren Vorne. */
  readonly parts: readonly number[];
}

export interface GameResult {
  /** ONE, then TWO. */
  readonly scores: readonly ScoreEntry[];
  /** Absent on a draw and on every timeout (spec §4 #2). */
  readonly winner: Team | null;
}

export type RoomMessage =
  | { readonly class: 'welcomeMessage'; readonly color: Team }
  | { readonly class: 'memento'; readonly state: State }
  | { readonly class: 'moveRequest' }
  | { readonly class: 'result'; readonly result: GameResult }
  | { readonly class: 'error'; readonly message: string; readonly original: ClientMove | null }
  | { readonly class: 'paused'; readonly paused: boolean };

export type ServerPacket =
  | { readonly type: 'joined'; readonly roomId: string }
  | { readonly type: 'joinedGameRoom'; readonly roomId: string; readonly playerCount: number }
  | { readonly type: 'prepared'; readonly roomId: string; readonly reservations: readonly string[] }
  | { readonly type: 'observed'; readonly roomId: string }
  | { readonly type: 'left'; readonly roomId: string }
  | { readonly type: 'errorpacket'; readonly message: string; readonly original: ClientPacket | null }
  | { readonly type: 'room'; readonly roomId: string; readonly data: RoomMessage }
  | { readonly type: 'closeConnection' };

export interface ProtocolError {
  /** `unknown-element`: no such packet; `bad-content`: a known packet XStream could not read. */
  readonly code: 'unknown-element' | 'bad-content';
  readonly message: string;
}

const bad = (message: string): Result<never, ProtocolError> => err({ code: 'bad-content', message });

// ---- reading attributes the XStream way ---------------------------------------------------------

export const attr = (e: XmlElement, key: string): string | null => e.attrs[key] ?? null;

/** XStream's BooleanConverter: "true" in any case is true, anything else (or nothing) false. */
const bool = (e: XmlElement, key: string): boolean => (attr(e, key) ?? '').toLowerCase() === 'true';

/**
 * XStream's IntConverter (`Long.decode`, then a 32-bit cast): signs, `0x`/`#` hex and leading-zero
 * octal are accepted, values up to 0xFFFFFFFF wrap. Null when Java would throw.
 */
export function decodeJavaInt(text: string): number | null {
  const m = /^([+-]?)(0[xX]|#|0(?=.)|)(.*)$/s.exec(text);
  if (!m || text.length > 40) return null;
  const [, sign, prefix, digits] = m as unknown as [string, string, string, string];
  const radix = prefix === '' ? 10 : prefix === '0' ? 8 : 16;
  const valid = radix === 10 ? /^[0-9]+$/ : radix === 8 ? /^[0-7]+$/ : /^[0-9a-fA-F]+$/;
  if (!valid.test(digits)) return null;
  let value = 0n;
  for (const ch of digits) value = value * BigInt(radix) + BigInt(parseInt(ch, radix));
  if (sign === '-') value = -value;
  if (value < -(2n ** 31n) || value > 0xffffffffn) return null;
  return Number(BigInt.asIntN(32, value));
}

const intAttr = (e: XmlElement, key: string): number | null => {
  const v = attr(e, key);
  // A missing int field keeps Java's default 0.
  return v === null ? 0 : decodeJavaInt(v);
};

const noChildren = (e: XmlElement): boolean => e.children.length === 0;

function parseCoordinates(
  e: XmlElement | undefined,
  what: string,
): Result<{ x: number; y: number }, ProtocolError> {
  if (!e) return bad(`a move needs <${what}>`);
  if (!noChildren(e)) return bad(`<${what}> has no child elements`);
  const x = intAttr(e, 'x');
  const y = intAttr(e, 'y');
  if (x === null || y === null) return bad(`<${what}> needs integer x and y`);
  return ok({ x, y });
}

/** `<from x y/><to x y/>` inside `data` or `originalMessage`; `<from>` may be missing (null). */
export function parseClientMove(e: XmlElement): Result<ClientMove, ProtocolError> {
  for (const c of e.children)
    if (c.name !== 'from' && c.name !== 'to') return bad(`a move has no <${c.name}>`);
  if (
    e.children.filter((c) => c.name === 'from').length > 1 ||
    e.children.filter((c) => c.name === 'to').length > 1
  ) {
    return bad('a move has one <from> and one <to>');
  }
  const fromElement = child(e, 'from');
  const from = fromElement === undefined ? ok(null) : parseCoordinates(fromElement, 'from');
  if (!from.ok) return from;
  const to = parseCoordinates(child(e, 'to'), 'to');
  if (!to.ok) return to;
  return ok({ from: from.value, to: to.value });
}

/** A complete move (`<from>` and `<to>`), as in our client's `originalMessage`. */
export function parseMoveElement(e: XmlElement): Result<Move, ProtocolError> {
  const move = parseClientMove(e);
  if (!move.ok) return move;
  const { from, to } = move.value;
  return from === null ? bad('a move needs <from>') : ok({ from, to });
}

function parseRoomData(e: XmlElement): Result<ClientRoomData, ProtocolError> {
  switch (attr(e, 'class')) {
    case 'move': {
      const move = parseClientMove(e);
      return move.ok ? ok({ class: 'move', move: move.value }) : move;
    }
    case 'moveRequest':
      return noChildren(e)
        ? ok({ class: 'moveRequest' })
        : bad('<data class="moveRequest"> has no child elements');
    case 'welcomeMessage':
      return noChildren(e)
        ? ok({ class: 'welcomeMessage', color: attr(e, 'color') })
        : bad('<data class="welcomeMessage"> has no child elements');
    case 'paused':
      return noChildren(e)
        ? ok({ class: 'paused', paused: bool(e, 'paused') })
        : bad('<data class="paused"> has no child elements');
    default:
      return bad(`a client cannot send <data class="${attr(e, 'class') ?? ''}">`);
  }
}

/** One packet a client sent (a child of its `<protocol>`). */
export function parseClient(e: XmlElement): Result<ClientPacket, ProtocolError> {
  const simple = (packet: ClientPacket): Result<ClientPacket, ProtocolError> =>
    noChildren(e) ? ok(packet) : bad(`<${e.name}> has no child elements`);
  switch (e.name) {
    case 'join':
      return simple({ type: 'join', gameType: attr(e, 'gameType') });
    case 'joinRoom':
      return simple({ type: 'joinRoom', roomId: attr(e, 'roomId') });
    case 'joinPrepared':
      return simple({ type: 'joinPrepared', reservationCode: attr(e, 'reservationCode') });
    case 'authenticate':
      return simple({ type: 'authenticate', password: attr(e, 'password') });
    case 'observe':
      return simple({ type: 'observe', roomId: attr(e, 'roomId') });
    case 'cancel':
      return simple({ type: 'cancel', roomId: attr(e, 'roomId') });
    case 'pause':
      return simple({ type: 'pause', roomId: attr(e, 'roomId'), pause: bool(e, 'pause') });
    case 'step':
      return simple({ type: 'step', roomId: attr(e, 'roomId'), forced: bool(e, 'forced') });
    case CLOSE_CONNECTION:
      return ok({ type: 'closeConnection' });
    case 'prepare': {
      const slots: SlotDescriptor[] = [];
      for (const s of e.children) {
        if (s.name !== 'slot' || !noChildren(s)) return bad('<prepare> holds only empty <slot> elements');
        slots.push({
          displayName: attr(s, 'displayName'),
          canTimeout: bool(s, 'canTimeout'),
          reserved: bool(s, 'reserved'),
        });
      }
      return ok({ type: 'prepare', gameType: attr(e, 'gameType'), pause: bool(e, 'pause'), slots });
    }
    case 'room': {
      if (e.children.some((c) => c.name !== 'data') || e.children.length > 1)
        return bad('<room> holds one <data>');
      const d = e.children[0];
      if (!d) return ok({ type: 'room', roomId: attr(e, 'roomId'), data: null });
      const data = parseRoomData(d);
      return data.ok ? ok({ type: 'room', roomId: attr(e, 'roomId'), data: data.value }) : data;
    }
    default:
      return err({ code: 'unknown-element', message: `unknown element <${e.name}>` });
  }
}

// ---- writing --------------------------------------------------------------------------------------

const coordinates = (name: string, c: { x: number; y: number }): XmlNode =>
  el(name, { x: String(c.x), y: String(c.y) });
/** XStream leaves out a null field: a move without `<from>` is written without it. */
const moveChildren = (m: ClientMove): XmlNode[] => [
  ...(m.from === null ? [] : [coordinates('from', m.from)]),
  coordinates('to', m.to),
];

function clientDataNode(d: ClientRoomData): XmlNode {
  switch (d.class) {
    case 'move':
      return el('data', { class: 'move' }, moveChildren(d.move));
    case 'moveRequest':
      return el('data', { class: 'moveRequest' });
    case 'welcomeMessage':
      return el('data', { class: 'welcomeMessage', color: d.color });
    case 'paused':
      return el('data', { class: 'paused', paused: String(d.paused) });
  }
}

/** A client packet as an element, in XStream's field order. */
export function clientNode(p: ClientPacket): XmlNode {
  switch (p.type) {
    case 'join':
      return el('join', { gameType: p.gameType });
    case 'joinRoom':
      return el('joinRoom', { roomId: p.roomId });
    case 'joinPrepared':
      return el('joinPrepared', { reservationCode: p.reservationCode });
    case 'authenticate':
      return el('authenticate', { password: p.password });
    case 'observe':
      return el('observe', { roomId: p.roomId });
    case 'cancel':
      return el('cancel', { roomId: p.roomId });
    case 'pause':
      return el('pause', { roomId: p.roomId, pause: String(p.pause) });
    case 'step':
      return el('step', { roomId: p.roomId, forced: String(p.forced) });
    case 'prepare': {
      const slots = p.slots.map((s) =>
        el('slot', {
          displayName: s.displayName,
          canTimeout: String(s.canTimeout),
          reserved: String(s.reserved),
        }),
      );
      return el('prepare', { gameType: p.gameType, pause: String(p.pause) }, slots);
    }
    case 'room':
      return el('room', { roomId: p.roomId }, p.data ? [clientDataNode(p.data)] : []);
    case 'closeConnection':
      return el(CLOSE_CONNECTION);
  }
}

/** A client packet on one line, the way our client sends it. */
export const formatClient = (p: ClientPacket): string => writeCompact(clientNode(p));

const str = (v: string | null): string => (v === null ? 'null' : v);

/** Kotlin's data-class `toString()` of a request, as lobby error messages quote it. */
export function requestText(p: ClientPacket): string {
  switch (p.type) {
    case 'observe':
      return `ObservationRequest(roomId=${str(p.roomId)})`;
    case 'cancel':
      return `CancelRequest(roomId=${str(p.roomId)})`;
    case 'pause':
      return `PauseGameRequest(roomId=${str(p.roomId)}, pause=${p.pause})`;
    case 'step':
      return `StepRequest(roomId=${str(p.roomId)}, forced=${p.forced})`;
    case 'prepare':
      return `PrepareGameRequest(gameType=${str(p.gameType)}, slotDescriptors=[Lsc.shared.SlotDescriptor;@${IDENTITY_HASH}, pause=${p.pause})`;
    case 'room': {
      const d = p.data;
      const data =
        d === null
          ? 'null'
          : d.class === 'move'
            ? moveText(d.move)
            : d.class === 'moveRequest'
              ? `sc.protocol.room.MoveRequest@${IDENTITY_HASH}`
              : d.class === 'welcomeMessage'
                ? `WelcomeMessage(color=${str(d.color)})`
                : `GamePaused(paused=${d.paused})`;
      return `RoomPacket(roomId=${str(p.roomId)}, data=${data})`;
    }
    case 'join':
      return `JoinGameRequest(gameType=${str(p.gameType)})`;
    case 'joinRoom':
      return `JoinRoomRequest(roomId=${str(p.roomId)})`;
    case 'joinPrepared':
      return `JoinPreparedRoomRequest(reservationCode=${str(p.reservationCode)})`;
    case 'authenticate':
      return `AuthenticateRequest(password=${str(p.password)})`;
    case 'closeConnection':
      return 'CloseConnection';
  }
}

const FRAGMENTS: readonly (readonly [string, string])[] = [
  ['Siegpunkte', 'SUM'],
  ['Bernsteine', 'AVERAGE'],
  ['Leichtfiguren Vorne', 'AVERAGE'],
];

const DEFINITION = el(
  'definition',
  {},
  FRAGMENTS.map(([name, aggregation]) =>
    el('fragment', { name }, [textEl('aggregation', aggregation), textEl('relevantForRanking', 'true')]),
  ),
);

function resultChildren(r: GameResult): XmlNode[] {
  const entries = r.scores.map((s) => {
    // PlayerConverter leaves a blank name out.
    const player = el('player', { name: s.name.trim() === '' ? null : s.name, team: s.team });
    const parts = s.parts.map((part) => textEl('part', String(part)));
    return el('entry', {}, [player, el('score', { cause: s.cause, reason: s.reason }, parts)]);
  });
  const children = [DEFINITION, el('scores', {}, entries)];
  if (r.winner !== null) children.push(el('winner', { team: r.winner }));
  return children;
}

function roomDataNode(d: RoomMessage): XmlNode {
  switch (d.class) {
    case 'welcomeMessage':
      return el('data', { class: 'welcomeMessage', color: d.color });
    case 'memento':
      return el('data', { class: 'memento' }, [formatStateNode(d.state)]);
    case 'moveRequest':
      return el('data', { class: 'moveRequest' });
    case 'result':
      return el('data', { class: 'result' }, resultChildren(d.result));
    case 'error': {
      const original = d.original ? [el('originalMessage', { class: 'move' }, moveChildren(d.original))] : [];
      return el('data', { class: 'error', message: d.message }, original);
    }
    case 'paused':
      return el('data', { class: 'paused', paused: String(d.paused) });
  }
}

/** The request an errorpacket echoes: its element renamed, `class="<name>"` first (spec §3.9). */
function echoNode(p: ClientPacket): XmlNode {
  const node = clientNode(p);
  return { ...node, name: 'originalRequest', attrs: [['class', node.name], ...node.attrs] };
}

export function serverNode(p: ServerPacket): XmlNode {
  switch (p.type) {
    case 'joined':
    case 'observed':
    case 'left':
      return el(p.type, { roomId: p.roomId });
    case 'joinedGameRoom':
      return el('joinedGameRoom', { roomId: p.roomId, playerCount: String(p.playerCount) });
    case 'prepared':
      return el(
        'prepared',
        { roomId: p.roomId },
        p.reservations.map((c) => textEl('reservation', c)),
      );
    case 'errorpacket':
      return el('errorpacket', { message: p.message }, p.original ? [echoNode(p.original)] : []);
    case 'room':
      return el('room', { roomId: p.roomId }, [roomDataNode(p.data)]);
    case 'closeConnection':
      return el(CLOSE_CONNECTION);
  }
}

/** One server packet exactly as the official server writes it inside its `<protocol>`. */
export const formatServer = (p: ServerPacket): string => writePacket(serverNode(p));
