import { randomBytes, randomUUID } from 'node:crypto';

/**
 * The roster's secrets and its CSV import. Everything here is pure apart from the randomness of
 * the secrets, so the store (store.ts) and the dashboard check names the same way.
 */

const CODE_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
/** The largest multiple of 36 that fits a byte: bytes at or above it are drawn again (no modulo bias). */
const CODE_BYTE_LIMIT = 256 - (256 % CODE_ALPHABET.length);

function randomCodeChars(length: number): string {
  let out = '';
  while (out.length < length) {
    // 7 of 256 bytes are rejected: a few spare bytes usually finish the string in one draw.
    for (const byte of randomBytes(length - out.length + 4)) {
      if (byte >= CODE_BYTE_LIMIT) continue;
      out += CODE_ALPHABET.charAt(byte % CODE_ALPHABET.length);
      if (out.length === length) break;
    }
  }
  return out;
}

/** A personal code: 13 characters `[a-z0-9]` (the shape of an MNM game id), about 67 bits. */
export const newCode = (): string => randomCodeChars(13);

/** A personal code in the shape of an official reservation (UUID v4, lower case). */
export const newReservation = (): string => randomUUID();

/** A private page's link token: 32 characters base64url (192 bits). */
export const newPageToken = (): string => randomBytes(24).toString('base64url');

/** A roster entry's id: `e_` + 10 characters `[a-z0-9]`. */
export const newEntryId = (): string => `e_${randomCodeChars(10)}`;

export const isCode = (s: string): boolean => /^[a-z0-9]{13}$/.test(s);

export const isReservation = (s: string): boolean => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(s);

export const isPageToken = (s: string): boolean => /^[A-Za-z0-9_-]{32}$/.test(s);

/** Longest name (and group) in characters (code points). */
export const MAX_NAME_LENGTH = 40;

/**
 * Characters a name must not have: controls (newline, tab, ESC), format characters (bidi overrides
 * that would reorder a standings line, zero-width joiners), surrogates, private-use and unassigned
 * code points, line and paragraph separators. What is left is printable on one line, which is all
 * the roster promises; each game's own name limits (length in bytes, allowed charset, no spaces)
 * are applied where the name is sent on that game's wire.
 */
const UNSHOWABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u;

/** A name as it is stored: NFC (one spelling of "ü"), without surrounding white space. */
export const cleanName = (name: string): string => name.normalize('NFC').trim();

/**
 * What two names are compared by for duplicates: "Anna Schmidt" and "anna  schmidt" would be
 * indistinguishable to a student reading the standings.
 */
export const nameKey = (name: string): string => cleanName(name).toLowerCase().replace(/\s+/gu, ' ');

/** Why a (cleaned) name or group cannot be used, or null. `what` names it in the message. */
export function nameProblem(name: string, what = 'name', allowEmpty = false): string | null {
  if (name === '') return allowEmpty ? null : `empty ${what}`;
  const bad = UNSHOWABLE.exec(name);
  if (bad) {
    const cp = bad[0].codePointAt(0) ?? 0;
    return `${what} ${JSON.stringify(name)} has a character that cannot be shown (U+${cp.toString(16).toUpperCase().padStart(4, '0')})`;
  }
  const length = Array.from(name).length;
  if (length > MAX_NAME_LENGTH) return `${what} ${JSON.stringify(name)} is ${length} characters long (at most ${MAX_NAME_LENGTH})`;
  return null;
}

export interface RosterRow {
  name: string;
  /** '' when the CSV has no group column or the cell is empty. */
  group: string;
}

export interface RosterCsvError {
  /** 1-based line of the file where the record starts. */
  line: number;
  message: string;
}

export interface ParsedRoster {
  /** The rows without errors; import them only when `errors` is empty (the import is all-or-nothing). */
  rows: RosterRow[];
  errors: RosterCsvError[];
}

interface CsvRecord {
  line: number;
  fields: string[];
  error: string | null;
}

/** `null`: no separator (a one-column file, where a name may contain `,` or `;`). */
type Separator = ',' | ';' | null;

/**
 * Reads one RFC 4180 record from `i`. Line breaks are CRLF, LF or a lone CR, inside quotes too
 * (they count as lines for the line numbers; a name with one is refused later).
 */
function readRecord(text: string, start: number, line: number, sep: Separator): { record: CsvRecord; next: number; nextLine: number } {
  const fields: string[] = [];
  let error: string | null = null;
  let i = start;
  let at = line;
  const isBreak = (c: string | undefined): boolean => c === '\n' || c === '\r';
  const skipBreak = (): void => {
    if (text[i] === '\r' && text[i + 1] === '\n') i++;
    i++;
    at++;
  };
  for (;;) {
    let field = '';
    if (text[i] === '"') {
      const opened = at;
      i++;
      let closed = false;
      while (i < text.length) {
        const c = text[i] as string;
        if (c === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          closed = true;
          break;
        }
        if (isBreak(c)) {
          const crlf = c === '\r' && text[i + 1] === '\n';
          field += crlf ? '\r\n' : c;
          skipBreak();
          continue;
        }
        field += c;
        i++;
      }
      if (!closed) error ??= `a quoted field opened on line ${opened} is never closed`;
      // Text between the closing quote and the separator is not RFC 4180; say so rather than guess.
      if (i < text.length && text[i] !== sep && !isBreak(text[i])) {
        error ??= 'text after a closing quote (a quote inside a field is written "")';
        while (i < text.length && text[i] !== sep && !isBreak(text[i])) field += text[i++] as string;
      }
    } else {
      while (i < text.length && text[i] !== sep && !isBreak(text[i])) field += text[i++] as string;
    }
    fields.push(field);
    if (i < text.length && text[i] === sep) {
      i++;
      continue;
    }
    if (i < text.length) skipBreak();
    return { record: { line, fields, error }, next: i, nextLine: at };
  }
}

function readRecords(text: string, sep: Separator): CsvRecord[] {
  const records: CsvRecord[] = [];
  for (let i = 0, line = 1; i < text.length; ) {
    const { record, next, nextLine } = readRecord(text, i, line, sep);
    records.push(record);
    i = next;
    line = nextLine;
  }
  return records;
}

/** Blank lines (and Excel's rows of empty cells, `;;`) are skipped. */
const isBlank = (r: CsvRecord): boolean => r.error === null && r.fields.every((f) => f.trim() === '');

const NAME_COLUMNS = new Set(['name']);
const GROUP_COLUMNS = new Set(['group', 'gruppe']);

const headerColumn = (cell: string): 'name' | 'group' | null => {
  const h = cell.trim().toLowerCase();
  return NAME_COLUMNS.has(h) ? 'name' : GROUP_COLUMNS.has(h) ? 'group' : null;
};

/**
 * The separator the header line uses. German Excel writes `;`, most other tools `,`; the one that
 * finds a name column (then: more columns) wins. A header of one column needs no separator.
 */
function detectSeparator(text: string): Separator {
  let best: { sep: Separator; score: number } = { sep: null, score: 0 };
  for (const sep of [',', ';'] as const) {
    let header: CsvRecord | undefined;
    for (let i = 0, line = 1; i < text.length && header === undefined; ) {
      const { record, next, nextLine } = readRecord(text, i, line, sep);
      if (!isBlank(record)) header = record;
      i = next;
      line = nextLine;
    }
    if (header === undefined || header.fields.length < 2) continue;
    const score = (header.fields.some((f) => headerColumn(f) === 'name') ? 1000 : 0) + header.fields.length;
    if (score > best.score) best = { sep, score };
  }
  return best.sep;
}

/**
 * Parses a roster CSV: a header row with a `name` column (or `Name`) and an optional `group` (or
 * `Gruppe`) column, any letter case; other columns (a student number, an e-mail) are ignored.
 * RFC 4180 quoting, CRLF or LF, a UTF-8 BOM, and `,` or `;` as the separator. Every error of the
 * file is reported in one pass, with the line it is on.
 */
export function parseRosterCsv(text: string): ParsedRoster {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const records = readRecords(body, detectSeparator(body)).filter((r) => !isBlank(r));
  const errors: RosterCsvError[] = [];
  const rows: RosterRow[] = [];
  const header = records[0];
  if (header === undefined) return { rows, errors: [{ line: 1, message: 'the file is empty (expected a header line with a column "name")' }] };
  if (header.error !== null) return { rows, errors: [{ line: header.line, message: header.error }] };

  let nameAt = -1;
  let groupAt = -1;
  header.fields.forEach((cell, index) => {
    const column = headerColumn(cell);
    if (column === null) return;
    if ((column === 'name' ? nameAt : groupAt) !== -1) {
      errors.push({ line: header.line, message: `the header has the column ${column} twice` });
    } else if (column === 'name') nameAt = index;
    else groupAt = index;
  });
  if (nameAt === -1) errors.push({ line: header.line, message: 'the header has no column "name" (or "Name")' });
  if (errors.length > 0) return { rows, errors };

  const firstLineOf = new Map<string, number>();
  for (const record of records.slice(1)) {
    // A record whose quoting is broken has no trustworthy fields: its one error is the quoting.
    if (record.error !== null) {
      errors.push({ line: record.line, message: record.error });
      continue;
    }
    const problems: string[] = [];
    const extra = record.fields.slice(header.fields.length).filter((f) => f.trim() !== '');
    if (extra.length > 0) {
      problems.push(`${record.fields.length} fields, but the header has ${header.fields.length} columns (is a name with a separator not quoted?)`);
    }
    const name = cleanName(record.fields[nameAt] ?? '');
    const group = groupAt === -1 ? '' : cleanName(record.fields[groupAt] ?? '');
    const nameError = nameProblem(name);
    if (nameError !== null) problems.push(nameError);
    const groupError = nameProblem(group, 'group', true);
    if (groupError !== null) problems.push(groupError);
    if (name !== '') {
      const first = firstLineOf.get(nameKey(name));
      if (first !== undefined) problems.push(`duplicate name ${JSON.stringify(name)} (first on line ${first})`);
      else firstLineOf.set(nameKey(name), record.line);
    }
    for (const message of problems) errors.push({ line: record.line, message });
    if (problems.length === 0) rows.push({ name, group });
  }
  return { rows, errors };
}
