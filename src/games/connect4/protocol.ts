import type { Result } from '../../core/result.js';

/**
 * The Connect Four ("4 Gewinnt") wire codec: one UDP datagram is one JSON object. Parsing is
 * tolerant of every dialect seen in the wild (docs/connect4.md, specs §3.8); formatting is strict:
 * compact JSON, integers as numbers, keys in one fixed order. This file is the only place a wire
 * string is spelled.
 */

export const PROTOCOL_VERSION = 2;
/** Datagrams longer than this are dropped unread (a real message is under 100 bytes). */
export const MAX_DATAGRAM_BYTES = 4096;
export const MAX_NAME_LENGTH = 32;

/** 0 = a game (terminal, bot), 1 = a web client behind a relay. Informational only. */
export type ClientType = number;

export type PeerMessage =
  /** Stage 1. `name` is null when the announcement carries no name. */
  | { kind: 'announce'; clienttype: unknown; name: string | null }
  /** Stage 2 with `clientname`. */
  | { kind: 'invitation'; clienttype: unknown; name: string }
  /** Stage 2 without `clientname` (missing or null). */
  | { kind: 'acceptance'; clienttype: unknown }
  /** Stage 3. */
  | { kind: 'ready'; clienttype: unknown }
  /** Stage 4 with integer `turn` and `column`; ranges are the peer's business (A sends turn −1). */
  | { kind: 'move'; clienttype: unknown; turn: number; column: number }
  /** Stage 4 whose `turn` or `column` is missing or not an integer: counts only as a sign of life. */
  | { kind: 'keepalive'; clienttype: unknown }
  /** Stage 5. */
  | { kind: 'game-over'; clienttype: unknown }
  /** Stage 99. */
  | { kind: 'abort'; clienttype: unknown };

export type ProtocolError =
  | { code: 'too-long'; bytes: number }
  | { code: 'empty' }
  | { code: 'not-json' }
  | { code: 'not-an-object' }
  | { code: 'bad-version'; version: unknown }
  | { code: 'bad-stage' }
  | { code: 'bad-clientname' }
  /** A well-formed version-2 message of a stage we do not know: dropped, but it is a sign of life. */
  | { code: 'unknown-stage'; stage: number };

/** What we send. */
export type OutgoingMessage =
  | { kind: 'announce'; name: string }
  | { kind: 'invitation'; name: string }
  | { kind: 'acceptance' }
  | { kind: 'ready' }
  | { kind: 'move'; turn: number; column: number }
  | { kind: 'game-over' }
  | { kind: 'abort' };

export const STAGE = {
  announce: 1,
  invitation: 2,
  acceptance: 2,
  ready: 3,
  move: 4,
  'game-over': 5,
  abort: 99,
} as const satisfies Record<OutgoingMessage['kind'], number>;

// eslint-disable-next-line no-control-regex
const EDGE_JUNK = /^[\s\u0000]+|[\s\u0000]+$/gu;
const INTEGER_TEXT = /^-?[0-9]{1,15}$/;

/**
 * A JSON integer, or a string of decimal digits (A quotes every value). Values beyond the safe
 * integer range are refused so a hostile `turn` cannot jam the "greater than" rule.
 */
export function readInteger(value: unknown): number | null {
  // `+ 0` turns a JSON -0 into 0, as for the string "-0" below.
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value + 0 : null;
  if (typeof value === 'string') {
    const text = value.trim();
    if (!INTEGER_TEXT.test(text)) return null;
    const n = Number(text);
    return n === 0 ? 0 : n; // no -0
  }
  return null;
}

const field = (o: Record<string, unknown>, key: string): unknown =>
  Object.hasOwn(o, key) ? o[key] : undefined;

/** Parses one datagram. Never throws. */
export function parseDatagram(datagram: Buffer | Uint8Array | string): Result<PeerMessage, ProtocolError> {
  try {
    return parseUnsafe(datagram);
  } catch {
    // JSON.parse is the only thing that can throw here (e.g. pathological nesting); be safe anyway.
    return { ok: false, error: { code: 'not-json' } };
  }
}

function parseUnsafe(datagram: Buffer | Uint8Array | string): Result<PeerMessage, ProtocolError> {
  const bytes = typeof datagram === 'string' ? Buffer.byteLength(datagram) : datagram.length;
  if (bytes > MAX_DATAGRAM_BYTES) return { ok: false, error: { code: 'too-long', bytes } };
  const raw =
    typeof datagram === 'string'
      ? datagram
      : Buffer.from(datagram.buffer, datagram.byteOffset, datagram.length).toString('utf8');
  const text = raw.replace(EDGE_JUNK, '');
  if (text === '') return { ok: false, error: { code: 'empty' } };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: { code: 'not-json' } };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, error: { code: 'not-an-object' } };
  const o = value as Record<string, unknown>;

  const version = field(o, 'version');
  if (readInteger(version) !== PROTOCOL_VERSION)
    return {
      ok: false,
      error: { code: 'bad-version', version: typeof version === 'string' ? version.slice(0, 20) : version },
    };
  const stage = readInteger(field(o, 'stage'));
  if (stage === null) return { ok: false, error: { code: 'bad-stage' } };
  const clientname = field(o, 'clientname');
  if (clientname !== undefined && clientname !== null && typeof clientname !== 'string')
    return { ok: false, error: { code: 'bad-clientname' } };
  const name = typeof clientname === 'string' ? clientname : null;
  const clienttype = field(o, 'clienttype');

  switch (stage) {
    case 1:
      return { ok: true, value: { kind: 'announce', clienttype, name } };
    case 2:
      return {
        ok: true,
        value: name === null ? { kind: 'acceptance', clienttype } : { kind: 'invitation', clienttype, name },
      };
    case 3:
      return { ok: true, value: { kind: 'ready', clienttype } };
    case 4: {
      const turn = readInteger(field(o, 'turn'));
      const column = readInteger(field(o, 'column'));
      if (turn === null || column === null) return { ok: true, value: { kind: 'keepalive', clienttype } };
      return { ok: true, value: { kind: 'move', clienttype, turn, column } };
    }
    case 5:
      return { ok: true, value: { kind: 'game-over', clienttype } };
    case 99:
      return { ok: true, value: { kind: 'abort', clienttype } };
    default:
      return { ok: false, error: { code: 'unknown-stage', stage } };
  }
}

/** Compact JSON, integers as numbers, keys always in the order version, clienttype, stage, clientname, turn, column. */
export function formatMessage(message: OutgoingMessage, clienttype: ClientType): string {
  const head = { version: PROTOCOL_VERSION, clienttype, stage: STAGE[message.kind] };
  switch (message.kind) {
    case 'announce':
    case 'invitation':
      return JSON.stringify({ ...head, clientname: message.name });
    case 'move':
      return JSON.stringify({ ...head, turn: message.turn, column: message.column });
    case 'acceptance':
    case 'ready':
    case 'game-over':
    case 'abort':
      return JSON.stringify(head);
  }
}

/** What we send as our own name: 1–32 printable ASCII characters (specs §3.8). */
export function isValidOwnName(name: string): boolean {
  return /^[\x20-\x7e]{1,32}$/u.test(name);
}

const utf8Strict = new TextDecoder('utf-8', { fatal: true });

/**
 * A's JSON writer escapes every byte ≥ 0x80 on its own, so "Jörg" arrives as "JÃ¶rg". If every
 * character fits in a byte and those bytes are valid UTF-8 with at least one multi-byte sequence,
 * the name is shown decoded. Plain Latin-1 text ("Jörg" sent properly) is not valid UTF-8 as bytes
 * and stays as it is.
 */
export function decodeByteEscapedName(name: string): string {
  let high = false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c > 0xff) return name;
    if (c >= 0x80) high = true;
  }
  if (!high) return name;
  try {
    return utf8Strict.decode(Buffer.from(name, 'latin1'));
  } catch {
    return name;
  }
}

// Control characters (C0, DEL, C1) and the bidi overrides and isolates that could reorder a terminal line.
const UNSHOWABLE = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** A received name as it may be shown: A's byte escapes decoded, control characters stripped, at most 32 characters. */
export function displayName(name: string): string {
  const clean = decodeByteEscapedName(name).replace(UNSHOWABLE, '').trim();
  const chars = Array.from(clean);
  return chars.length <= MAX_NAME_LENGTH ? clean : chars.slice(0, MAX_NAME_LENGTH).join('');
}
