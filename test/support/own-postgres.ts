import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/**
 * A PostgreSQL server of a test's own (issue #31: outages), in a temp directory on a free port,
 * from the installed PostgreSQL's `initdb`/`pg_ctl` (/usr/lib/postgresql/<version>/bin). Run as
 * the `postgres` user when the test runs as root (initdb refuses root). `stop('immediate')` is
 * the outage: the server dies without a word to its clients, as on a crash or a power cut.
 */

export function postgresBin(): string | null {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const versions = readdirSync(base).filter((v) => existsSync(join(base, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? null : join(base, versions[0], 'bin');
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export interface OwnPostgres {
  url: string;
  port: number;
  dir: string;
  start(): void;
  /** `pg_ctl stop -m <mode>`: `immediate` drops every connection at once (no shutdown packets). */
  stop(mode?: 'immediate' | 'fast'): void;
  /** Stops it and removes its directory. */
  destroy(): void;
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = postgresBin();
  if (bin === null) throw new Error('no PostgreSQL installed (/usr/lib/postgresql/*/bin/initdb)');
  const dir = mkdtempSync(join(tmpdir(), 'spielhalle-pg-'));
  const data = join(dir, 'data');
  const root = process.getuid?.() === 0;
  chmodSync(dir, 0o755);
  if (root) {
    const { uid, gid } = idOf('postgres');
    chownSync(dir, uid, gid);
  }
  const run = (cmd: string, args: string[]) => {
    const full = join(bin, cmd);
    const r = root
      ? spawnSync('runuser', ['-u', 'postgres', '--', full, ...args], { encoding: 'utf8' })
      : spawnSync(full, args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr || r.stdout}`);
  };
  const port = await freePort();
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const start = () =>
    run('pg_ctl', [
      '-D', data, '-l', join(dir, 'log'), '-w', '-t', '30',
      '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=100`,
      'start',
    ]);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    start,
    stop: (mode = 'immediate') => run('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']),
    destroy: () => {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // not running
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function idOf(user: string): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/**
 * A PostgreSQL server of the test file's own for the tests of the `describe` it is called in:
 * started in `beforeAll` (60 s allowed: initdb takes a few seconds), destroyed in `afterAll`. The
 * returned object stands for it from `beforeAll` on (`db.url`, `db.stop('immediate')`, …); reading
 * it before throws.
 */
export function useOwnPostgres(): OwnPostgres {
  let db: OwnPostgres | undefined;
  const started = (): OwnPostgres => {
    if (db === undefined) throw new Error('useOwnPostgres: the server is not started yet (read it in a test or hook)');
    return db;
  };
  beforeAll(async () => {
    db = await startOwnPostgres();
  }, 60_000);
  afterAll(() => {
    db?.destroy();
    db = undefined;
  });
  return {
    get url() {
      return started().url;
    },
    get port() {
      return started().port;
    },
    get dir() {
      return started().dir;
    },
    start: () => started().start(),
    stop: (mode) => started().stop(mode),
    destroy: () => started().destroy(),
  };
}
