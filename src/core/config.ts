import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { z } from 'zod';

/**
 * Configuration in layers: flags > SPIELHALLE_* environment > spielhalle.config.json > defaults.
 * The environment names come from the defaults' shape: `games.mia.port` is SPIELHALLE_MIA_PORT
 * (the `games.` prefix is dropped), `web.port` is SPIELHALLE_WEB_PORT, `dataDir` SPIELHALLE_DATA_DIR.
 */

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Tree = Record<string, unknown>;

const isTree = (v: unknown): v is Tree => typeof v === 'object' && v !== null && !Array.isArray(v);

export function envName(path: readonly string[]): string {
  const parts = path[0] === 'games' ? path.slice(1) : path;
  return 'SPIELHALLE_' + parts.map((p) => p.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()).join('_');
}

function leaves(tree: Tree, prefix: string[] = []): [string[], unknown][] {
  const out: [string[], unknown][] = [];
  for (const [key, value] of Object.entries(tree)) {
    if (isTree(value)) out.push(...leaves(value, [...prefix, key]));
    else out.push([[...prefix, key], value]);
  }
  return out;
}

function setPath(tree: Tree, path: readonly string[], value: unknown): void {
  let node = tree;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (!isTree(next)) node[key] = {};
    node = node[key] as Tree;
  }
  node[path[path.length - 1] as string] = value;
}

function deepMerge(base: Tree, over: Tree): Tree {
  const out: Tree = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    const prev = out[key];
    out[key] = isTree(prev) && isTree(value) ? deepMerge(prev, value) : value;
  }
  return out;
}

function coerce(raw: string, like: unknown, name: string): unknown {
  // A list setting is written comma-separated: SPIELHALLE_CONNECT4_PEER_PORTS=32442,32443.
  if (Array.isArray(like)) {
    if (raw.trim() === '') return [];
    return raw.split(',').map((part) => coerce(part.trim(), like[0] ?? '', name));
  }
  if (typeof like === 'number') {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n)) throw new ConfigError(`${name}: expected a number, got "${raw}"`);
    return n;
  }
  if (typeof like === 'boolean') {
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off)$/i.test(raw)) return false;
    throw new ConfigError(`${name}: expected true or false, got "${raw}"`);
  }
  return raw;
}

export interface LoadOptions<T> {
  schema: z.ZodType<T>;
  defaults: T;
  /** Overrides from the command line, shaped like the config (undefined = not given). */
  flags?: Tree;
  env?: NodeJS.ProcessEnv;
  /** Explicit file; without it `spielhalle.config.json` in `cwd` is used when present. */
  file?: string | undefined;
  cwd?: string;
}

export interface Loaded<T> {
  config: T;
  file: string | null;
}

export function loadConfig<T>(options: LoadOptions<T>): Loaded<T> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const defaults = options.defaults as unknown as Tree;
  const source = new Map<string, string>();

  let file: string | null = null;
  let fromFile: Tree = {};
  const candidate = options.file ? resolve(cwd, options.file) : resolve(cwd, 'spielhalle.config.json');
  if (options.file && !existsSync(candidate)) throw new ConfigError(`config file not found: ${candidate}`);
  if (existsSync(candidate)) {
    file = candidate;
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(candidate, 'utf8')) as Json;
    } catch (err) {
      throw new ConfigError(`${candidate}: not valid JSON (${(err as Error).message})`);
    }
    if (!isTree(parsed)) throw new ConfigError(`${candidate}: expected a JSON object`);
    fromFile = parsed;
    for (const [path] of leaves(parsed)) source.set(path.join('.'), candidate);
  }

  const fromEnv: Tree = {};
  for (const [path, like] of leaves(defaults)) {
    const name = envName(path);
    const raw = env[name];
    if (raw === undefined) continue;
    setPath(fromEnv, path, coerce(raw, like, name));
    source.set(path.join('.'), name);
  }
  const flags = options.flags ?? {};
  for (const [path, value] of leaves(flags)) if (value !== undefined) source.set(path.join('.'), 'command line');

  const merged = deepMerge(deepMerge(deepMerge(defaults, fromFile), fromEnv), flags);
  const result = options.schema.safeParse(merged);
  if (!result.success) {
    const issue = result.error.issues[0];
    const key = issue ? issue.path.map(String).join('.') : '?';
    const from = source.get(key);
    const message = issue?.message ?? 'invalid';
    throw new ConfigError(`invalid setting ${key}: ${message}${from ? ` (from ${from})` : ''}`);
  }
  return { config: result.data, file };
}
