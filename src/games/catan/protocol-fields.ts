import { err, ok, type Result } from '../../core/result.js';
import { spellUmlauts } from '../../core/umlauts.js';
import { DEV_CARDS, RESOURCES, TERRAINS, type DevCard, type FieldType, type Hidden, type Piece, type Resource, type ResourceCounts, type Status } from './rules/types.js';

/**
 * How messages are read, for both directions of the codec (protocol.ts, protocol-server.ts).
 * Reading the fields of a decoded JSON message: keys and enumerated values may come with
 * ä/ö/ü/ß (catan.md §2.1), free text (names, chat) never changes. A missing or mistyped field is a
 * `Fail`, which the parsers turn into `Ungueltige Nachricht`; nothing here throws past them.
 */

/** The ASCII transliteration the protocol sends (`Räuber` → `Raeuber`, `Straße` → `Strasse`). */
export const ascii = spellUmlauts;

const lookups = new WeakMap<readonly string[], ReadonlyMap<string, string>>();

/** `values` by their ASCII spelling. */
function lookup(values: readonly string[]): ReadonlyMap<string, string> {
  let map = lookups.get(values);
  if (!map) {
    map = new Map(values.map((v) => [ascii(v), v]));
    lookups.set(values, map);
  }
  return map;
}

export class Fail extends Error {
  constructor(
    readonly code: 'shape' | 'missing-field' | 'bad-value',
    readonly detail: string,
  ) {
    super(detail);
  }
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The fields of one message body, by their ASCII names; unknown keys are simply never asked for (D13). */
export class Fields {
  private readonly body: Record<string, unknown>;
  /** Keys by their ASCII spelling, built only for a body that has a key with an umlaut. */
  private byName: Map<string, unknown> | null = null;

  constructor(
    body: unknown,
    readonly type: string,
  ) {
    if (!isObject(body)) throw new Fail('shape', `${type}: the value must be an object`);
    this.body = body;
    for (const key of Object.keys(body)) {
      if (ascii(key) !== key) {
        this.byName = new Map(Object.keys(body).map((k) => [ascii(k), body[k]]));
        break;
      }
    }
  }

  private get(name: string): unknown {
    if (this.byName) return this.byName.get(name);
    return Object.hasOwn(this.body, name) ? this.body[name] : undefined;
  }

  has(name: string): boolean {
    const v = this.get(name);
    return v !== undefined && v !== null;
  }

  raw(name: string): unknown {
    return this.get(name);
  }

  private need(name: string): unknown {
    const v = this.get(name);
    if (v === undefined || v === null) throw new Fail('missing-field', `${this.type}: "${name}" is missing`);
    return v;
  }

  string(name: string): string {
    const v = this.need(name);
    if (typeof v !== 'string') throw new Fail('bad-value', `${this.type}: "${name}" must be a string`);
    return v;
  }

  /** A string from a fixed list, umlauts accepted. */
  oneOf<T extends string>(name: string, values: readonly T[]): T {
    const found = lookup(values).get(ascii(this.string(name))) as T | undefined;
    if (found === undefined) throw new Fail('bad-value', `${this.type}: "${name}" is not one of ${values.join(', ')}`);
    return found;
  }

  int(name: string): number {
    const v = this.need(name);
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new Fail('bad-value', `${this.type}: "${name}" must be an integer`);
    return v;
  }

  optionalInt(name: string): number | undefined {
    return this.has(name) ? this.int(name) : undefined;
  }

  optionalString(name: string): string | undefined {
    return this.has(name) ? this.string(name) : undefined;
  }

  resources(name: string): ResourceCounts {
    return resourcesOf(this.need(name), `${this.type}.${name}`);
  }

  /** A Rohstoffe object or its censored form `{"Unbekannt":n}`. */
  resourcesOrHidden(name: string): ResourceCounts | Hidden {
    const v = this.need(name);
    if (isObject(v) && 'Unbekannt' in v) return { Unbekannt: count(v.Unbekannt, `${this.type}.${name}.Unbekannt`) };
    return resourcesOf(v, `${this.type}.${name}`);
  }

  object(name: string): Fields {
    return new Fields(this.need(name), `${this.type}.${name}`);
  }

  array(name: string): unknown[] {
    const v = this.need(name);
    if (!Array.isArray(v)) throw new Fail('bad-value', `${this.type}: "${name}" must be an array`);
    return v;
  }
}

function count(v: unknown, where: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new Fail('bad-value', `${where} must be a count`);
  return v;
}

/** Known resource keys with non-negative integer counts, in the canonical order, zeros dropped. */
export function resourcesOf(v: unknown, where: string): ResourceCounts {
  if (!isObject(v)) throw new Fail('bad-value', `${where} must be a Rohstoffe object`);
  const out: Partial<Record<Resource, number>> = {};
  // Resource names have no umlauts: only keys with one need their ASCII form.
  let byName: Map<string, unknown> | null = null;
  for (const key of Object.keys(v)) {
    if (ascii(key) !== key) {
      byName = new Map(Object.keys(v).map((k) => [ascii(k), v[k]]));
      break;
    }
  }
  for (const r of RESOURCES) {
    const n = byName ? byName.get(r) : Object.hasOwn(v, r) ? v[r] : undefined;
    if (n === undefined) continue;
    const k = count(n, `${where}.${r}`);
    if (k > 0) out[r] = k;
  }
  return out;
}

/** Rohstoffe in the canonical key order; `all` lists zeros too (a player's own hand, §2.6). */
export function wireResources(r: ResourceCounts | Hidden, all = false): Record<string, number> {
  if ('Unbekannt' in r) return { Unbekannt: r.Unbekannt };
  const out: Record<string, number> = {};
  for (const k of RESOURCES) {
    const v = r[k] ?? 0;
    if (all || v !== 0) out[k] = v;
  }
  return out;
}

// ---- messages -----------------------------------------------------------------------------------

export const INVALID_MESSAGE = 'Ungueltige Nachricht';

export interface ProtocolError {
  readonly code: 'json' | 'shape' | 'unknown-type' | 'missing-field' | 'bad-value';
  /** The `Meldung` to answer with. */
  readonly message: typeof INVALID_MESSAGE;
  readonly detail: string;
}

export const protocolError = (code: ProtocolError['code'], detail: string): ProtocolError => ({ code, message: INVALID_MESSAGE, detail });

export const STATUSES: readonly Status[] = [
  'Spiel starten',
  'Wartet auf Spielbeginn',
  'Dorf bauen',
  'Strasse bauen',
  'Wuerfeln',
  'Karten wegen Raeuber abgeben',
  'Raeuber versetzen',
  'Handeln oder Bauen',
  'Warten',
  'Verbindung verloren',
];
export const PIECES: readonly Piece[] = ['Strasse', 'Dorf', 'Stadt'];
export const FIELD_TYPES: readonly FieldType[] = [...TERRAINS, 'Meer'];
export const BOUGHT_CARDS: readonly (DevCard | 'Unbekannt')[] = [...DEV_CARDS, 'Unbekannt'];

/** The one key of a message object and its value. */
function envelope(value: unknown): Result<{ type: string; body: unknown }, ProtocolError> {
  if (!isObject(value)) return err(protocolError('shape', 'a message is a JSON object'));
  const keys = Object.keys(value);
  if (keys.length !== 1) return err(protocolError('shape', `a message has exactly one key, not ${keys.length}`));
  const key = keys[0]!;
  return ok({ type: ascii(key), body: value[key] });
}

export function decode(text: string): Result<unknown, ProtocolError> {
  try {
    return ok(JSON.parse(text) as unknown);
  } catch {
    return err(protocolError('json', 'not JSON'));
  }
}

export type Reader<T> = (f: Fields) => T;

/** Reads one message with the reader its type names; a wrong shape is `Ungueltige Nachricht`. */
export function run<T>(readers: ReadonlyMap<string, Reader<T>>, value: unknown): Result<T, ProtocolError> {
  const env = envelope(value);
  if (!env.ok) return env;
  const reader = readers.get(env.value.type);
  if (!reader) return err(protocolError('unknown-type', `unknown message type "${env.value.type.slice(0, 60)}"`));
  try {
    return ok(reader(new Fields(env.value.body, env.value.type)));
  } catch (e) {
    if (e instanceof Fail) return err(protocolError(e.code, e.detail));
    return err(protocolError('shape', 'unreadable message'));
  }
}
