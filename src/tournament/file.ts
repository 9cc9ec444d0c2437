import { availableParallelism } from 'node:os';
import { LineCounter, parseDocument, type Document, type Node as YamlNode, type YAMLError } from 'yaml';
import { z } from 'zod';
import { parsePortRange, type PortRange } from '../core/ports.js';
import { DEFAULT_GAMES_PER_TABLE, tournamentHints } from './hints.js';

/**
 * The tournament file: YAML (or JSON, which YAML reads too) validated into a TournamentSpec.
 * Pure apart from reading the core count for the `parallel` default; no file access here.
 */

export const GAME_NAMES = ['catan', 'mia', 'connect4', 'dame', 'ostseeschach'] as const;
export type GameName = (typeof GAME_NAMES)[number];

export const FORMATS = ['round-robin', 'swiss', 'seatings', 'tables'] as const;
export type Format = (typeof FORMATS)[number];

/** Which formats a game can be played in: 2-player games pair, Catan seats, Mia sits at tables. */
export const FORMATS_BY_GAME: Readonly<Record<GameName, readonly Format[]>> = {
  catan: ['seatings'],
  mia: ['tables'],
  connect4: ['round-robin', 'swiss'],
  dame: ['round-robin', 'swiss'],
  ostseeschach: ['round-robin', 'swiss'],
};

/** The placeholders an external program's command line may use, as the courses start clients. */
export const PLACEHOLDERS: Readonly<Record<GameName, readonly string[]>> = {
  ostseeschach: ['host', 'port', 'reservation'],
  dame: ['host', 'port', 'gameId', 'player'],
  catan: ['host', 'port', 'name'],
  mia: ['host', 'port', 'name'],
  // The inviter moves first (connect4.md §3.3): to play first, a peer invites the referee at {invite}.
  connect4: ['port', 'invite', 'host'],
};

const TABLE_SIZE: Readonly<Partial<Record<GameName, { min: number; max: number }>>> = {
  catan: { min: 3, max: 4 },
  mia: { min: 2, max: Number.POSITIVE_INFINITY },
};

export interface Limits {
  cpuSeconds?: number | undefined;
  memoryMb?: number | undefined;
  wallSeconds?: number | undefined;
}

import type { Isolation } from '../sandbox/box.js';

export type { Isolation } from '../sandbox/box.js';

export type Entrant =
  | { name: string; kind: 'bot'; bot: string; options: Record<string, unknown> }
  | { name: string; kind: 'command'; command: string; cwd?: string; limits: Limits; isolation?: Isolation; keepState?: boolean };

export interface TournamentSpec {
  name: string;
  game: GameName;
  format: Format;
  entrants: Entrant[];
  /** Games per pairing (2-player formats; even, so every seed is played from both sides). */
  gamesPerPairing: number;
  /** Swiss rounds, Mia table rounds, or Catan board seeds (each replayed once per seat rotation). */
  rounds: number;
  /** Seats per table (Catan 3–4, Mia 2+); 2 for the 2-player games. */
  tableSize: number;
  /** Mia: rounds of Mäxchen one table plays (its placings come from the score after them). */
  gamesPerTable: number;
  /** Thinking time per move in seconds, handed to bots and servers. */
  moveTime: number;
  seed: string | number;
  parallel: number;
  /** Ports the arena's servers listen on (the file's `ports`); absent: the settings' or any. */
  ports?: PortRange | undefined;
}

export interface TournamentFileError {
  file: string;
  line: number;
  column: number;
  path: string;
  message: string;
}

/**
 * `warnings` stop nothing (a hint such as Mia's `rounds` vs `gamesPerTable`); they are printed like
 * the errors, with "warning:" before the message.
 */
export type ParseResult =
  | { ok: true; spec: TournamentSpec; warnings: TournamentFileError[] }
  | { ok: false; errors: TournamentFileError[]; warnings: TournamentFileError[] };

export function formatError(e: TournamentFileError): string {
  return `${e.file}:${e.line}:${e.column}: ${e.path === '' ? '' : `${e.path}: `}${e.message}`;
}

const NAME = /^[A-Za-z0-9_.-]{1,32}$/;
const positive = z.number().positive();
const positiveInt = z.number().int().positive();

const entrantSchema = z.strictObject({
  name: z.string().regex(NAME, 'must be 1–32 characters of A–Z a–z 0–9 _ . -'),
  bot: z.string().min(1).optional(),
  options: z.record(z.string(), z.unknown()).optional(),
  command: z.string().min(1).optional(),
  cwd: z.string().min(1).optional(),
  limits: z
    .strictObject({
      cpuSeconds: positive.optional(),
      memoryMb: positive.optional(),
      wallSeconds: positive.optional(),
    })
    .optional(),
});

const fileSchema = z.strictObject({
  name: z.string().min(1),
  game: z.enum(GAME_NAMES),
  format: z.enum(FORMATS),
  entrants: z.array(entrantSchema).min(2, 'need at least 2 entrants'),
  gamesPerPairing: positiveInt.optional(),
  rounds: positiveInt.optional(),
  tableSize: positiveInt.optional(),
  gamesPerTable: positiveInt.optional(),
  moveTime: positive.optional(),
  seed: z.union([z.string().min(1), z.number().int()]).optional(),
  parallel: positiveInt.optional(),
  isolation: z.enum(['bwrap', 'none']).optional(),
  keepState: z.boolean().optional(),
  /** Ports the tournament's servers listen on, e.g. "20000-20999" (firewalled labs). */
  ports: z.union([z.string().min(1), z.number().int()]).optional(),
});

/** Mia: rounds of Mäxchen a table plays when the file does not say. */
export { DEFAULT_GAMES_PER_TABLE };

type RawFile = z.infer<typeof fileSchema>;
type Problem = { path: (string | number)[]; message: string };

export type SplitResult = { ok: true; words: string[] } | { ok: false; message: string };

/**
 * Splits a command line into words like a POSIX shell does for quoting — '…' literal, "…" with
 * \" \\ \$ \` escapes, a backslash escaping the next character outside quotes — without running a
 * shell: no globbing, no variables, no pipes.
 */
export function splitCommandLine(line: string): SplitResult {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return { ok: false, message: 'unterminated single quote' };
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      inWord = true;
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        const d = line[j] as string;
        const next = line[j + 1];
        if (d === '\\' && next !== undefined && '"\\$`\n'.includes(next)) {
          if (next !== '\n') word += next;
          j++;
        } else word += d;
      }
      if (j >= line.length) return { ok: false, message: 'unterminated double quote' };
      i = j;
    } else if (c === '\\') {
      const next = line[i + 1];
      if (next === undefined) return { ok: false, message: 'trailing backslash' };
      if (next !== '\n') {
        word += next;
        inWord = true;
      }
      i++;
    } else if (c === ' ' || c === '\t' || c === '\n') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return { ok: true, words };
}

const PLACEHOLDER = /\{([^{}\s]*)\}/g;

function placeholdersIn(command: string): string[] {
  return [...command.matchAll(PLACEHOLDER)].map((m) => m[1] as string);
}

/**
 * The argv for one match: the command line split into words, then each {placeholder} replaced
 * inside its word, so a value with spaces stays one argument and is never seen by a shell.
 */
export function commandArgv(command: string, values: Readonly<Record<string, string | number>>): string[] {
  const split = splitCommandLine(command);
  if (!split.ok) throw new Error(`command line: ${split.message}`);
  return split.words.map((w) =>
    w.replace(PLACEHOLDER, (whole, key: string) => {
      const value = values[key];
      if (value === undefined) throw new Error(`no value for placeholder ${whole}`);
      return String(value);
    }),
  );
}

/** What the semantic checks see: every key that passed its own schema; the others are left out. */
type PartialFile = Partial<Omit<RawFile, 'entrants'>> & {
  /** Each entrant that passed its schema, at its index; null where it did not. */
  entrants?: (RawFile['entrants'][number] | null)[];
  /** The number of entrants the file lists (valid or not). */
  fieldSize?: number;
};

/**
 * The checks between keys (format fits the game, names, placeholders, table sizes). They run on
 * whatever passed the schema, so a structure error elsewhere (a missing key, a wrong type) does
 * not hide them; a check whose keys are missing or wrong is skipped.
 */
function checkSemantics(raw: PartialFile): Problem[] {
  const problems: Problem[] = [];
  const { game, format } = raw;
  if (game !== undefined && format !== undefined) {
    const allowed = FORMATS_BY_GAME[game];
    if (!allowed.includes(format)) {
      problems.push({
        path: ['format'],
        message: `${game} cannot be played as ${format} (allowed: ${allowed.join(', ')})`,
      });
    }
  }
  const seen = new Map<string, number>();
  (raw.entrants ?? []).forEach((e, i) => {
    if (e === null) return;
    const first = seen.get(e.name);
    if (first !== undefined)
      problems.push({
        path: ['entrants', i, 'name'],
        message: `duplicate name ${e.name} (also entrants[${first}])`,
      });
    else seen.set(e.name, i);
    if ((e.bot === undefined) === (e.command === undefined)) {
      problems.push({ path: ['entrants', i], message: 'needs exactly one of bot or command' });
    }
    if (e.bot !== undefined) {
      for (const key of ['cwd', 'limits'] as const) {
        if (e[key] !== undefined)
          problems.push({ path: ['entrants', i, key], message: `only for a command entrant` });
      }
    }
    if (e.command !== undefined) {
      if (e.options !== undefined)
        problems.push({ path: ['entrants', i, 'options'], message: 'only for a bot entrant' });
      const split = splitCommandLine(e.command);
      if (!split.ok) problems.push({ path: ['entrants', i, 'command'], message: split.message });
      if (game !== undefined) {
        const known = PLACEHOLDERS[game];
        for (const p of placeholdersIn(e.command)) {
          if (!known.includes(p)) {
            const list = known.map((k) => `{${k}}`).join(' ');
            problems.push({
              path: ['entrants', i, 'command'],
              message: `unknown placeholder {${p}} for ${game} (allowed: ${list})`,
            });
          }
        }
      }
    }
  });
  const twoPlayer = format === 'round-robin' || format === 'swiss';
  if (raw.gamesPerPairing !== undefined && format !== undefined) {
    if (!twoPlayer) problems.push({ path: ['gamesPerPairing'], message: `not used by ${format}` });
    else if (raw.gamesPerPairing % 2 !== 0) {
      problems.push({
        path: ['gamesPerPairing'],
        message: 'must be even: every seed is played from both sides',
      });
    }
  } else if (raw.gamesPerPairing !== undefined && raw.gamesPerPairing % 2 !== 0 && game !== undefined && TABLE_SIZE[game] === undefined) {
    problems.push({ path: ['gamesPerPairing'], message: 'must be even: every seed is played from both sides' });
  }
  if (raw.gamesPerTable !== undefined && game !== undefined && game !== 'mia')
    problems.push({ path: ['gamesPerTable'], message: 'only for mia tables' });
  if (raw.rounds !== undefined && format === 'round-robin')
    problems.push({ path: ['rounds'], message: 'not used by round-robin' });
  if (raw.ports !== undefined) {
    const range = parsePortRange(String(raw.ports));
    if (typeof range === 'string') problems.push({ path: ['ports'], message: range });
  }
  const range = game === undefined ? undefined : TABLE_SIZE[game];
  const field = raw.fieldSize;
  if (game === undefined) return problems;
  if (raw.tableSize !== undefined) {
    if (range === undefined) problems.push({ path: ['tableSize'], message: `${game} is a 2-player game` });
    else if (raw.tableSize < range.min || raw.tableSize > range.max) {
      const bounds = Number.isFinite(range.max) ? `${range.min}–${range.max}` : `at least ${range.min}`;
      problems.push({ path: ['tableSize'], message: `${game} tables seat ${bounds}` });
    } else if (field !== undefined && raw.tableSize > field) {
      problems.push({ path: ['tableSize'], message: `larger than the field of ${field}` });
    }
  } else if (range !== undefined && field !== undefined && field >= 2 && field < range.min) {
    problems.push({ path: ['entrants'], message: `${game} needs at least ${range.min} entrants` });
  }
  return problems;
}

/** Hints that stop nothing (hints.ts: the same ones the dashboard shows). */
function warningsOf(raw: PartialFile): Problem[] {
  return tournamentHints(raw).map((h) => ({ path: [h.key], message: h.message }));
}

function toSpec(raw: RawFile, cores: number): TournamentSpec {
  const n = raw.entrants.length;
  const entrants: Entrant[] = raw.entrants.map((e) =>
    e.bot !== undefined
      ? { name: e.name, kind: 'bot', bot: e.bot, options: e.options ?? {} }
      : {
          name: e.name,
          kind: 'command',
          command: e.command ?? '',
          ...(e.cwd === undefined ? {} : { cwd: e.cwd }),
          limits: e.limits ?? {},
          ...(raw.isolation === undefined ? {} : { isolation: raw.isolation }),
          ...(raw.keepState === undefined ? {} : { keepState: raw.keepState }),
        },
  );
  const defaultTable = raw.game === 'catan' ? Math.min(4, n) : raw.game === 'mia' ? Math.min(4, n) : 2;
  const defaultRounds =
    raw.format === 'swiss' ? Math.max(1, Math.ceil(Math.log2(n))) : raw.format === 'round-robin' ? 1 : n;
  return {
    name: raw.name,
    game: raw.game,
    format: raw.format,
    entrants,
    gamesPerPairing: raw.gamesPerPairing ?? 2,
    rounds: raw.rounds ?? defaultRounds,
    tableSize: raw.tableSize ?? defaultTable,
    gamesPerTable: raw.gamesPerTable ?? DEFAULT_GAMES_PER_TABLE,
    moveTime: raw.moveTime ?? 1,
    seed: raw.seed ?? raw.name,
    parallel: raw.parallel ?? Math.max(1, cores - 1),
    ...(raw.ports === undefined ? {} : { ports: parsePortRange(String(raw.ports)) as PortRange }),
  };
}

function pathText(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out === '' ? '' : '.'}${String(p)}`;
  return out;
}

/** The deepest node of the document that exists along the path, for its position. */
function locate(
  doc: Document,
  counter: LineCounter,
  path: readonly PropertyKey[],
): { line: number; column: number } {
  for (let depth = path.length; depth >= 0; depth--) {
    const keys = path.slice(0, depth) as (string | number)[];
    const node = (depth === 0 ? doc.contents : doc.getIn(keys, true)) as YamlNode | null | undefined;
    if (node?.range) {
      const pos = counter.linePos(node.range[0]);
      return { line: pos.line, column: pos.col };
    }
  }
  return { line: 1, column: 1 };
}

export interface ParseOptions {
  /** The name the errors show, e.g. the path the user gave. */
  file?: string;
  /** Cores for the `parallel` default (cores minus one); the machine's by default. */
  cores?: number;
}

/** A value as a user wrote it, for "got …" in messages (short). */
function shown(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  const text =
    typeof value === 'string'
      ? `"${value}"`
      : typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint'
        ? String(value)
        : typeof value;
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
}

function valueAt(data: unknown, path: readonly PropertyKey[]): { found: boolean; value: unknown } {
  let v: unknown = data;
  for (const key of path) {
    if (v === null || typeof v !== 'object' || !(key in v)) return { found: false, value: undefined };
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return { found: true, value: v };
}

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'a mapping (key: value lines)',
  array: 'a list (lines starting with "- ")',
  record: 'a mapping (key: value lines)',
};

/** One zod issue in a tutor's words: `missing key "game"`, not zod's "Invalid option". */
function describeIssue(issue: z.core.$ZodIssue, data: unknown): Problem[] {
  const path = issue.path as (string | number)[];
  if (issue.code === 'unrecognized_keys') return issue.keys.map((k) => ({ path: [...path, k], message: 'unknown key' }));
  const at = valueAt(data, path);
  const key = path[path.length - 1];
  if (!at.found && path.length > 0 && typeof key === 'string')
    return [{ path: path.slice(0, -1), message: `missing key "${key}"` }];
  switch (issue.code) {
    case 'invalid_value':
      return [{ path, message: `must be one of ${issue.values.map(String).join(', ')} (got ${shown(at.value)})` }];
    case 'invalid_type':
      return [{ path, message: `must be ${TYPE_WORDS[issue.expected] ?? issue.expected} (got ${shown(at.value)})` }];
    case 'invalid_union': {
      // seed, ports: text or a whole number
      return [{ path, message: `must be text or a whole number (got ${shown(at.value)})` }];
    }
    case 'too_small':
      if (issue.origin === 'array') return [{ path, message: issue.message }];
      if (issue.origin === 'string') return [{ path, message: 'must not be empty' }];
      return [{ path, message: `must be ${issue.inclusive === false ? 'above' : 'at least'} ${String(issue.minimum)} (got ${shown(at.value)})` }];
    default:
      return [{ path, message: issue.message }];
  }
}

/** The file's keys that passed their own schema (semantic checks run on them). */
function validParts(data: unknown): PartialFile {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return {};
  const out: Record<string, unknown> = {};
  const record = data as Record<string, unknown>;
  for (const [key, schema] of Object.entries(fileSchema.shape)) {
    if (key === 'entrants' || !(key in record)) continue;
    const r = (schema as z.ZodType).safeParse(record[key]);
    if (r.success && r.data !== undefined) out[key] = r.data;
  }
  const list = record.entrants;
  if (Array.isArray(list)) {
    out.entrants = list.map((e) => {
      const r = entrantSchema.safeParse(e);
      return r.success ? r.data : null;
    });
    out.fieldSize = list.length;
  }
  return out;
}

const INDENT_CODES = new Set(['BLOCK_AS_IMPLICIT_KEY', 'MULTILINE_IMPLICIT_KEY', 'BAD_INDENT', 'MISSING_CHAR', 'UNEXPECTED_TOKEN']);

/**
 * A YAML error where the user sees it: an over-indented line makes the parser complain at the
 * key above it (a value cannot start a mapping), so such errors are moved to the first word of
 * the line where they end, and said in words.
 */
function yamlProblem(e: YAMLError, text: string, counter: LineCounter): { line: number; column: number; message: string } {
  const first = e.message.split('\n')[0] ?? e.message;
  const [from, to] = e.pos;
  const start = counter.linePos(from);
  const end = counter.linePos(Math.max(from, to - 1));
  const indent = INDENT_CODES.has(e.code);
  const moved = indent && end.line > start.line;
  const pos = moved ? end : start;
  // The first word of that line, when the position is the line's leading blanks (or was moved there).
  const lineText = text.split(/\r?\n/)[pos.line - 1] ?? '';
  const lead = (/^[ \t]*/.exec(lineText)?.[0].length ?? 0) + 1;
  const column = moved || pos.col <= lead ? lead : pos.col;
  let message = first;
  if (e.code === 'BLOCK_AS_IMPLICIT_KEY' || e.code === 'MULTILINE_IMPLICIT_KEY')
    message = 'wrong indentation: this line is indented deeper than the line above it';
  else if (e.code === 'BAD_INDENT') message = `wrong indentation (${first})`;
  else if (e.code === 'MISSING_CHAR' && first.includes('Sequence item'))
    message = `wrong indentation: a list item's keys need the same indentation, or a new item its "- " (${first})`;
  return { line: pos.line, column, message };
}

/** Parses and validates a tournament file; every problem is reported, each with its line. */
export function parseTournament(text: string, options: ParseOptions = {}): ParseResult {
  const file = options.file ?? 'tournament.yaml';
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  // An over-indented line gives two errors at the key above it; the one that spans to the line is kept.
  const spanned = new Set(doc.errors.filter((e) => e.code === 'MULTILINE_IMPLICIT_KEY').map((e) => e.pos[0]));
  const errors: TournamentFileError[] = doc.errors
    .filter((e) => !(e.code === 'BLOCK_AS_IMPLICIT_KEY' && spanned.has(e.pos[0])))
    .map((e) => ({ file, ...yamlProblem(e, text, counter), path: '' }));
  const done = (warnings: TournamentFileError[] = []): ParseResult => {
    // One error per place and message (a bad line can upset the parser twice), in file order.
    const seen = new Set<string>();
    const unique = errors.filter((e) => {
      const key = `${e.line}:${e.column}:${e.path}:${e.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    unique.sort((a, b) => a.line - b.line || a.column - b.column);
    return { ok: false, errors: unique, warnings };
  };
  if (doc.contents === null) {
    if (errors.length === 0) errors.push({ file, line: 1, column: 1, path: '', message: 'empty tournament file' });
    return done();
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    // e.g. an alias to an anchor that is never set
    errors.push({ file, line: 1, column: 1, path: '', message: e instanceof Error ? e.message : String(e) });
    return done();
  }
  // Structure and values in one pass: the schema's issues, and the checks between keys on every
  // key that passed its own schema. Lines with a YAML error get no second error from the schema.
  const yamlLines = new Set(errors.map((e) => e.line));
  for (const e of doc.errors) for (const at of e.pos) yamlLines.add(counter.linePos(at).line);
  const parsed = fileSchema.safeParse(data);
  const problems: Problem[] = parsed.success ? [] : parsed.error.issues.flatMap((i) => describeIssue(i, data));
  const parts = parsed.success ? { ...parsed.data, fieldSize: parsed.data.entrants.length } : validParts(data);
  problems.push(...checkSemantics(parts));
  const place = (p: Problem): TournamentFileError => ({ file, ...locate(doc, counter, p.path), path: pathText(p.path), message: p.message });
  for (const p of problems) {
    const e = place(p);
    if (!yamlLines.has(e.line)) errors.push(e);
  }
  const warnings = warningsOf(parts).map(place);
  if (errors.length > 0) return done(warnings);
  return { ok: true, spec: toSpec(parsed.data as RawFile, options.cores ?? availableParallelism()), warnings };
}

/** `file:line:col: warning: path: message` */
export function formatWarning(e: TournamentFileError): string {
  return `${e.file}:${e.line}:${e.column}: warning: ${e.path === '' ? '' : `${e.path}: `}${e.message}`;
}
