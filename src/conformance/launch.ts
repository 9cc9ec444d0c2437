import { spawn } from 'node:child_process';
import { BoundedOutput } from '../tournament/sandbox.js';

/**
 * Starts the client under test for one scenario: no shell, its own process group (stopped as a
 * whole at the end), the user's environment and working directory, stdout/stderr kept (bounded)
 * for the report.
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

export function launchClient(argv: readonly string[], options: { cwd?: string; maxOutputBytes?: number } = {}): ClientProcess {
  const out = new BoundedOutput(options.maxOutputBytes ?? 32 * 1024);
  const err = new BoundedOutput(options.maxOutputBytes ?? 32 * 1024);
  let exit: ClientExit | null = null;
  let spawnError: string | null = null;
  let resolveExit!: (e: ClientExit) => void;
  const exited = new Promise<ClientExit>((resolve) => (resolveExit = resolve));
  const [file, ...args] = argv;
  const finish = (e: ClientExit): void => {
    if (exit !== null) return;
    exit = e;
    resolveExit(e);
  };
  let pid: number | undefined;
  if (file === undefined || file === '') {
    spawnError = 'empty command';
    finish({ code: null, signal: null });
  } else {
    const child = spawn(file, args, { cwd: options.cwd ?? process.cwd(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    pid = child.pid;
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', (e) => {
      if (pid === undefined) {
        spawnError = e.message;
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
    },
  };
}
