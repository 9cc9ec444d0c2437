import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, openSync, readSync, closeSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BoundedOutput } from '../tournament/sandbox.js';

/**
 * Starts the client under test for one scenario: no shell, its own process group (stopped as a
 * whole at the end), the user's environment and working directory, stdout/stderr kept (bounded)
 * for the report.
 *
 * Before it starts, `prepareLaunch` fills the placeholders, writes the client's config files
 * (`--config-file client.conf=client.conf.in`) into a fresh directory per scenario, and finds the
 * program: a program that cannot start is named with the reason (`no program "foo" on PATH (…)`,
 * `./client: not executable (chmod +x ./client)`), and `spielhalle` runs this package's own CLI
 * when it is not on PATH (a checkout, where only `npm run spielhalle` knows it).
 */

export interface ClientExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ClientProcess {
  readonly pid: number | undefined;
  /** Resolves when the process has exited (or could not start: then `spawnError` is set). */
  readonly exited: Promise<ClientExit>;
  exit(): ClientExit | null;
  /** Why the program could not start (`no program "foo" on PATH (…)`), or null. */
  spawnError(): string | null;
  stdout(): string;
  stderr(): string;
  /** SIGTERM to the process group, SIGKILL `graceMs` later; resolves when the leader is gone. */
  stop(graceMs?: number): Promise<void>;
}

const PLACEHOLDER = /\{([^{}\s]*)\}/g;

/** The argv with every {placeholder} filled in its word; an unknown placeholder is an error. */
export function fillArgv(words: readonly string[], values: Readonly<Record<string, string>>): string[] {
  return words.map((w) =>
    w.replace(PLACEHOLDER, (whole, key: string) => {
      const value = values[key];
      if (value === undefined) throw new Error(`no value for placeholder ${whole}`);
      return value;
    }),
  );
}

/**
 * A placeholder in a config file's template: `{name}` or `{config:name}`. Other braces (a JSON
 * object, `{}`) are text and stay as they are.
 */
const TEMPLATE_PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9_]*(?::[^{}\s]+)?)\}/g;

/** The placeholders a config file's template uses, without braces, in order of appearance. */
export function templatePlaceholders(template: string): string[] {
  return [...new Set([...template.matchAll(TEMPLATE_PLACEHOLDER)].map((m) => m[1]!))];
}

/** The template with its {placeholders} filled; an unknown placeholder is an error. */
export function fillTemplate(template: string, values: Readonly<Record<string, string>>, from = 'the config file'): string {
  return template.replace(TEMPLATE_PLACEHOLDER, (whole, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`no value for placeholder ${whole} in ${from}`);
    return value;
  });
}

/**
 * A file the client reads (`--config-file client.conf=client.conf.in`): `name` is where it is
 * written, relative to the scenario's own directory; `template` its text with {placeholders};
 * `from` where the template came from (for messages).
 */
export interface ConfigFile {
  name: string;
  template: string;
  from: string;
}

/** The placeholder for a config file's path: `{config}` (the first) and `{config:<name>}` (each). */
export const CONFIG_PLACEHOLDER = 'config';

/** Placeholder names that config files add to a run (`config`, `config:client.conf`, …). */
export function configPlaceholders(files: readonly ConfigFile[]): string[] {
  return files.length === 0 ? [] : [CONFIG_PLACEHOLDER, ...files.map((f) => `${CONFIG_PLACEHOLDER}:${f.name}`)];
}

/** Why `name` cannot be a config file's name (a relative path inside the scenario's directory), or null. */
export function badConfigName(name: string): string | null {
  if (name === '') return 'the file name is empty';
  if (isAbsolute(name)) return `${name} is an absolute path: give a name such as client.conf (put {config} on the command line for a path)`;
  const n = normalize(name);
  if (n === '.' || n.startsWith('..') || n.endsWith('/')) return `${name} must name a file inside the client's working directory`;
  return null;
}

/** This package's own CLI (dist/cli.js beside this module's dist/ or src/), or null when it is not built. */
export function ownCli(): string | null {
  const cli = join(fileURLToPath(new URL('../..', import.meta.url)), 'dist', 'cli.js');
  return existsSync(cli) ? cli : null;
}

/** The program the client command starts, found as the system would; `argv` is what to spawn. */
export type ProgramCheck = { ok: true; argv: string[]; note: string | null } | { ok: false; message: string };

const executable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

const isFile = (path: string): boolean => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/**
 * Finds `argv[0]` as `spawn` would (a path: relative to `cwd`; a bare name: on PATH) and says in
 * one phrase why it cannot start: `no program "foo" on PATH (…)`, `./client: no such file (in …)`,
 * `./client: not executable (chmod +x ./client)`. `spielhalle` not on PATH runs this package's CLI.
 */
export function findProgram(argv: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): ProgramCheck {
  const [file, ...args] = argv;
  if (file === undefined || file === '') return { ok: false, message: 'empty command' };
  if (process.platform === 'win32') return { ok: true, argv: [...argv], note: null };
  if (file.includes('/')) {
    const path = resolve(cwd, file);
    let stat;
    try {
      stat = statSync(path);
    } catch {
      return { ok: false, message: `${file}: no such file${isAbsolute(file) ? '' : ` (in ${cwd})`}` };
    }
    if (stat.isDirectory()) return { ok: false, message: `${file}: a directory, not a program` };
    if (!executable(path)) return { ok: false, message: `${file}: not executable (chmod +x ${file})` };
    return { ok: true, argv: [...argv], note: null };
  }
  // No PATH at all: the system's default, as execvp() searches it.
  const pathVar = env.PATH ?? '/bin:/usr/bin';
  let notExecutable: string | null = null;
  for (const dir of pathVar.split(delimiter)) {
    const candidate = resolve(cwd, dir === '' ? '.' : dir, file);
    if (!isFile(candidate)) continue;
    if (executable(candidate)) return { ok: true, argv: [...argv], note: null };
    notExecutable ??= candidate;
  }
  if (file === 'spielhalle') {
    const cli = ownCli();
    if (cli !== null) return { ok: true, argv: [process.execPath, cli, ...args], note: `spielhalle is not on PATH: runs this package's CLI, ${process.execPath} ${cli}` };
  }
  if (notExecutable !== null) return { ok: false, message: `"${file}" on PATH is not executable: ${notExecutable} (chmod +x ${notExecutable})` };
  const here = isFile(join(cwd, file)) ? `; there is a ${file} in ${cwd}: write ./${file} to start that one` : '';
  return { ok: false, message: `no program "${file}" on PATH (${pathVar})${here}` };
}

/** Why a program that passed findProgram still did not start (a missing `#!` interpreter, …). */
function spawnFailure(file: string, cwd: string, e: NodeJS.ErrnoException): string {
  if (e.code === 'ENOENT' || e.code === 'EACCES' || e.code === 'ENOEXEC') {
    const interpreter = shebang(file.includes('/') ? resolve(cwd, file) : null);
    if (interpreter !== null) return `${file}: its interpreter ${interpreter} (the #! line) could not be started (${e.code})`;
    return `${file}: could not be started (${e.code})`;
  }
  return e.message;
}

function shebang(path: string | null): string | null {
  if (path === null) return null;
  try {
    const fd = openSync(path, 'r');
    try {
      const buffer = Buffer.alloc(256);
      const n = readSync(fd, buffer, 0, buffer.length, 0);
      const first = buffer.subarray(0, n).toString('utf8').split('\n')[0]!;
      return first.startsWith('#!') ? first.slice(2).trim() : null;
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}

/** How one scenario starts the client: the argv to spawn, in which directory, what to log, and what to clean up after. */
export interface PreparedLaunch {
  argv: string[];
  cwd: string;
  /** For the wire log: the config files written, and `spielhalle` resolved to this package's CLI. */
  notes: string[];
  /** Removes the scenario's directory of config files (after the client's process group is gone). */
  cleanup(): void;
}

/**
 * Fills the command's placeholders and writes the config files for one scenario. Config files go
 * into a fresh directory; `{config}` (the first) and `{config:<name>}` are their paths. When the
 * command names none of them, that directory is the client's working directory (it reads
 * `client.conf` where it runs): then the program and every word that names a file or directory
 * where check-client runs (`client.py`, `.`, `build/client`) are given as absolute paths.
 */
export function prepareLaunch(
  command: readonly string[],
  values: Readonly<Record<string, string>>,
  options: { cwd?: string; configFiles?: readonly ConfigFile[]; env?: NodeJS.ProcessEnv } = {},
): PreparedLaunch {
  const base = options.cwd ?? process.cwd();
  const files = options.configFiles ?? [];
  const notes: string[] = [];
  let cwd = base;
  let dir: string | null = null;
  const cleanup = (): void => {
    if (dir !== null) rmSync(dir, { recursive: true, force: true });
  };
  let argv: string[];
  try {
    const all: Record<string, string> = { ...values };
    if (files.length > 0) {
      for (const f of files) {
        const bad = badConfigName(f.name);
        if (bad !== null) throw new Error(`config file: ${bad}`);
      }
      dir = mkdtempSync(join(tmpdir(), 'spielhalle-check-client-'));
      files.forEach((f, i) => {
        const path = join(dir!, f.name);
        if (i === 0) all[CONFIG_PLACEHOLDER] = path;
        all[`${CONFIG_PLACEHOLDER}:${f.name}`] = path;
      });
      const pathOnCommandLine = command.some((w) => [...w.matchAll(PLACEHOLDER)].some((m) => m[1] === CONFIG_PLACEHOLDER || m[1]!.startsWith(`${CONFIG_PLACEHOLDER}:`)));
      for (const f of files) {
        const path = join(dir, f.name);
        const text = fillTemplate(f.template, all, f.from);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, text);
        const shown = text.trim().split('\n').map((l) => l.trim()).filter((l) => l !== '').join(' ⏎ ');
        notes.push(`wrote ${pathOnCommandLine ? path : `${f.name} into the client's working directory ${dir}`}: ${shown.length > 300 ? `${shown.slice(0, 300)}…` : shown}`);
      }
      if (!pathOnCommandLine) cwd = dir;
    }
    argv = fillArgv(command, all);
    const written = new Set(files.map((f) => normalize(f.name)));
    if (cwd !== base) argv = argv.map((w, i) => fromBase(w, i, base, written));
  } catch (e) {
    cleanup();
    throw e;
  }
  const found = findProgram(argv, cwd, options.env);
  if (found.ok) {
    argv = found.argv;
    if (found.note !== null) notes.push(found.note);
  }
  return { argv, cwd, notes, cleanup };
}

/**
 * A word of the command as seen from the scenario's directory when it was written for `base`: a
 * config file written there (`-c client.conf`) stays relative.
 */
function fromBase(word: string, index: number, base: string, written: ReadonlySet<string>): string {
  if (word === '' || isAbsolute(word)) return word;
  if (index === 0) return word.includes('/') ? resolve(base, word) : word;
  if (word.startsWith('-') || written.has(normalize(word))) return word;
  return existsSync(resolve(base, word)) ? resolve(base, word) : word;
}

export function launchClient(
  argv: readonly string[],
  options: { cwd?: string; maxOutputBytes?: number; env?: NodeJS.ProcessEnv; onStopped?: () => void } = {},
): ClientProcess {
  const out = new BoundedOutput(options.maxOutputBytes ?? 32 * 1024);
  const err = new BoundedOutput(options.maxOutputBytes ?? 32 * 1024);
  let exit: ClientExit | null = null;
  let spawnError: string | null = null;
  let resolveExit!: (e: ClientExit) => void;
  const exited = new Promise<ClientExit>((resolve) => (resolveExit = resolve));
  const cwd = options.cwd ?? process.cwd();
  const finish = (e: ClientExit): void => {
    if (exit !== null) return;
    exit = e;
    resolveExit(e);
  };
  let pid: number | undefined;
  const found = findProgram(argv, cwd, options.env);
  if (!found.ok) {
    spawnError = found.message;
    finish({ code: null, signal: null });
  } else {
    const [file, ...args] = found.argv as [string, ...string[]];
    const child = spawn(file, args, { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'], ...(options.env !== undefined ? { env: options.env } : {}) });
    pid = child.pid;
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (pid === undefined) {
        spawnError = spawnFailure(file, cwd, e);
        finish({ code: null, signal: null });
      }
    });
    // 'close' waits for the pipes, so the report holds everything it printed; a grandchild that
    // keeps them open must not hold the exit back for long.
    child.on('exit', (code, signal) => setTimeout(() => finish({ code, signal }), 300).unref());
    child.on('close', (code, signal) => finish({ code, signal }));
  }
  const killGroup = (signal: NodeJS.Signals): void => {
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is gone already.
    }
  };
  return {
    get pid() {
      return pid;
    },
    exited,
    exit: () => exit,
    spawnError: () => spawnError,
    stdout: () => out.text(),
    stderr: () => err.text(),
    stop: async (graceMs = 500) => {
      // Members of the group may outlive the leader: always signal the group.
      killGroup('SIGTERM');
      if (exit === null) {
        const timer = setTimeout(() => killGroup('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      killGroup('SIGKILL');
      options.onStopped?.();
    },
  };
}
