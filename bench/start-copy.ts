import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What `npm ci && npm start` sees on a fresh clone, without cloning: the repository's files in a
 * scratch directory (no dist/, no web/dist/), with this checkout's node_modules linked in, as
 * `npm ci` would have installed them. Used by bench/start.ts and test/build.test.ts.
 */

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The files git knows (or, outside a git checkout, the folders the build reads) copied to a new directory. */
export function freshCopy(root = repoRoot): string {
  const dir = mkdtempSync(join(tmpdir(), 'spielhalle-start-'));
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  });
  const paths = listed.status === 0 ? listed.stdout.split('\0').filter((p) => p !== '') : null;
  if (paths) {
    for (const path of paths) {
      if (!existsSync(join(root, path))) continue; // deleted in the work tree
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      cpSync(join(root, path), join(dir, path));
    }
  } else {
    for (const entry of readdirSync(root)) {
      if (['node_modules', 'dist', 'data', 'test-results', '.git'].includes(entry)) continue;
      cpSync(join(root, entry), join(dir, entry), {
        recursive: true,
        filter: (src) => !src.startsWith(join(root, 'web', 'dist')),
      });
    }
  }
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

/** GET /healthz answered 200. */
async function healthy(port: number): Promise<boolean> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1000) });
    return r.ok;
  } catch {
    return false;
  }
}

export interface StartRun {
  /** ms from the spawn until the build said it was done (null: it printed no such line). */
  built: number | null;
  /** ms from the spawn until /healthz answered 200 (null: not within the limit). */
  healthy: number | null;
  stderr: string;
}

/**
 * Runs `command` (say `npm start -- <flags>`) in `cwd` as its own process group, times it until the
 * dashboard on `webPort` answers /healthz, then stops the whole group with SIGTERM.
 */
export async function timeStart(options: {
  cwd: string;
  command: string;
  args: string[];
  webPort: number;
  limitMs: number;
}): Promise<StartRun> {
  const started = performance.now();
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  let stderr = '';
  let built: number | null = null;
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    if (built === null && /build: (done in|up to date)/.test(stderr)) built = performance.now() - started;
  });
  const state = { exited: false };
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void gone.then(() => (state.exited = true));
  let ready: number | null = null;
  while (!state.exited && performance.now() - started < options.limitMs) {
    if (await healthy(options.webPort)) {
      ready = performance.now() - started;
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
  } catch {
    // already gone
  }
  await Promise.race([gone, new Promise((r) => setTimeout(r, 10_000))]);
  if (!state.exited && child.pid !== undefined) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  return { built, healthy: ready, stderr };
}
