import { availableParallelism } from 'node:os';
import { LineCounter, parseDocument, type Document, type Node as YamlNode } from 'yaml';
import { z } from 'zod';

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
}

export interface TournamentFileError {
  file: string;
  line: number;
  column: number;
  path: string;
  message: string;
}

export type ParseResult = { ok: true; spec: TournamentSpec } | { ok: false; errors: TournamentFileError[] };

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
});

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

function checkSemantics(raw: RawFile): Problem[] {
  const problems: Problem[] = [];
  const { game, format } = raw;
  const allowed = FORMATS_BY_GAME[game];
  if (!allowed.includes(format)) {
    problems.push({
      path: ['format'],
      message: `${game} cannot be played as ${format} (allowed: ${allowed.join(', ')})`,
    });
  }
  const seen = new Map<string, number>();
  raw.entrants.forEach((e, i) => {
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
  });
  const twoPlayer = format === 'round-robin' || format === 'swiss';
  if (raw.gamesPerPairing !== undefined) {
    if (!twoPlayer) problems.push({ path: ['gamesPerPairing'], message: `not used by ${format}` });
    else if (raw.gamesPerPairing % 2 !== 0) {
      problems.push({
        path: ['gamesPerPairing'],
        message: 'must be even: every seed is played from both sides',
      });
    }
  }
  if (raw.gamesPerTable !== undefined && game !== 'mia')
    problems.push({ path: ['gamesPerTable'], message: 'only for mia tables' });
  if (raw.rounds !== undefined && format === 'round-robin')
    problems.push({ path: ['rounds'], message: 'not used by round-robin' });
  const range = TABLE_SIZE[game];
  if (raw.tableSize !== undefined) {
    if (range === undefined) problems.push({ path: ['tableSize'], message: `${game} is a 2-player game` });
    else if (raw.tableSize < range.min || raw.tableSize > range.max) {
      const bounds = Number.isFinite(range.max) ? `${range.min}–${range.max}` : `at least ${range.min}`;
      problems.push({ path: ['tableSize'], message: `${game} tables seat ${bounds}` });
    } else if (raw.tableSize > raw.entrants.length) {
      problems.push({ path: ['tableSize'], message: `larger than the field of ${raw.entrants.length}` });
    }
  } else if (range !== undefined && raw.entrants.length < range.min) {
    problems.push({ path: ['entrants'], message: `${game} needs at least ${range.min} entrants` });
  }
  return problems;
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
    gamesPerTable: raw.gamesPerTable ?? 20,
    moveTime: raw.moveTime ?? 1,
    seed: raw.seed ?? raw.name,
    parallel: raw.parallel ?? Math.max(1, cores - 1),
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

/** Parses and validates a tournament file; every problem is reported, each with its line. */
export function parseTournament(text: string, options: ParseOptions = {}): ParseResult {
  const file = options.file ?? 'tournament.yaml';
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      errors: doc.errors.map((e) => {
        const pos = e.linePos?.[0] ?? { line: 1, col: 1 };
        return {
          file,
          line: pos.line,
          column: pos.col,
          path: '',
          message: e.message.split('\n')[0] ?? e.message,
        };
      }),
    };
  }
  if (doc.contents === null) {
    return { ok: false, errors: [{ file, line: 1, column: 1, path: '', message: 'empty tournament file' }] };
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    // e.g. an alias to an anchor that is never set
    return {
      ok: false,
      errors: [{ file, line: 1, column: 1, path: '', message: e instanceof Error ? e.message : String(e) }],
    };
  }
  const parsed = fileSchema.safeParse(data);
  const problems: Problem[] = parsed.success
    ? checkSemantics(parsed.data)
    : parsed.error.issues.flatMap((i): Problem[] => {
        const path = i.path as (string | number)[];
        if (i.code === 'unrecognized_keys')
          return i.keys.map((k) => ({ path: [...path, k], message: 'unknown key' }));
        return [{ path, message: i.message }];
      });
  if (problems.length > 0) {
    return {
      ok: false,
      errors: problems.map((p) => ({
        file,
        ...locate(doc, counter, p.path),
        path: pathText(p.path),
        message: p.message,
      })),
    };
  }
  return { ok: true, spec: toSpec(parsed.data as RawFile, options.cores ?? availableParallelism()) };
}
