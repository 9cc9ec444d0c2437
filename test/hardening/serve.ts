import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

/**
 * The hardening harness: ONE `spielhalle serve` child process (`node dist/cli.js serve`) with all
 * five games and fast house games, on free ports and a data directory of its own. It tells when
 * every port accepts, whether `/healthz` answers 200, the RSS of the child, and how many house
 * games each game finished in a time window (read from the record store, read-only).
 *
 * Attackers bind 127.0.0.2 (`ATTACKER`); everything the harness and the house bots do comes from
 * 127.0.0.1, so per-host limits can tell them apart.
 */

export const GAMES = ['mia', 'connect4', 'dame', 'ostseeschach', 'catan'] as const;
export type Game = (typeof GAMES)[number];
export type Counts = Record<Game, number>;

export const ATTACKER = '127.0.0.2';

export interface Ports {
  mia: number;
  connect4: number;
  dame: number;
  ostseeschach: number;
  catan: number;
  web: number;
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** `SPIELHALLE_HARDENING_CLI` runs the suite against another build (e.g. an older checkout's dist/cli.js). */
const cli = process.env.SPIELHALLE_HARDENING_CLI ?? join(root, 'dist', 'cli.js');

/**
 * House games that finish often (seconds, not minutes) and are paced by timers (think times and
 * pauses), not by the CPU, so that their rate measures starvation and not the machine's load.
 * Limits (per-host caps, timeouts) are left at their defaults: those are what the suite proves.
 */
export const FAST_HOUSE_ENV: Readonly<Record<string, string>> = {
  SPIELHALLE_MIA_ANSWER_TIMEOUT_MS: '100',
  SPIELHALLE_MIA_HOUSE_BOTS: '4',
  SPIELHALLE_DAME_HOUSE_MOVE_TIME_MS: '20',
  SPIELHALLE_OSTSEESCHACH_HOUSE_MOVE_TIME_MS: '10',
  SPIELHALLE_OSTSEESCHACH_HOUSE_PAUSE_MS: '1500',
  SPIELHALLE_CATAN_BOT_THINK_MS: '5',
  SPIELHALLE_CATAN_HOUSE_PAUSE_MS: '500',
  SPIELHALLE_CONNECT4_SPARRING_PAUSE_MS: '0',
  SPIELHALLE_CONNECT4_SPARRING_LEVEL: 'easy',
};

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `node scripts/build.mjs --server-only --quiet`, once at a time across test processes. */
export function buildServer(): void {
  if (process.env.SPIELHALLE_HARDENING_CLI !== undefined) return;
  const lock = join(tmpdir(), 'spielhalle-hardening-build.lock');
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock older than 5 minutes belongs to a build that died.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 300_000) rmdirSync(lock);
      } catch {
        // gone meanwhile
      }
      if (Date.now() > deadline) throw new Error(`build lock ${lock} held for 5 minutes`);
      spawnSync(process.execPath, ['-e', 'setTimeout(() => {}, 200)']);
    }
  }
  try {
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--server-only', '--quiet'], {
      cwd: root,
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`build failed (exit ${String(r.status)}):\n${r.stdout}${r.stderr}`);
  } finally {
    rmdirSync(lock);
  }
}

function freeTcpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function udpFree(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const s = createSocket('udp4');
    s.once('error', () => {
      s.close();
      resolve(null);
    });
    s.bind(port, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
}

/** Free ports for every server; Connect Four needs two in a row (its sparring bot takes port + 1). */
export async function freePorts(): Promise<Ports> {
  const mia = (await udpFree(0))!;
  let connect4 = 0;
  for (let i = 0; i < 50 && connect4 === 0; i++) {
    const p = await udpFree(0);
    if (p !== null && p < 65535 && (await udpFree(p + 1)) !== null) connect4 = p;
  }
  if (connect4 === 0) throw new Error('no two free UDP ports in a row');
  return {
    mia,
    connect4,
    dame: await freeTcpPort(),
    ostseeschach: await freeTcpPort(),
    catan: await freeTcpPort(),
    web: await freeTcpPort(),
  };
}

export function tcpAccepts(port: number, timeoutMs = 2000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    const t = setTimeout(() => done(false), timeoutMs);
    const done = (ok: boolean): void => {
      clearTimeout(t);
      s.destroy();
      resolve(ok);
    };
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/** Mia answers `ECHO` from anyone: the UDP server reads its port. */
export function miaEchoes(port: number, timeoutMs = 2000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createSocket('udp4');
    const t = setTimeout(() => done(false), timeoutMs);
    const done = (ok: boolean): void => {
      clearTimeout(t);
      s.close();
      resolve(ok);
    };
    s.on('message', (m) => {
      if (m.toString().startsWith('ECHOING')) done(true);
    });
    s.once('error', () => done(false));
    s.bind(0, '127.0.0.1', () => s.send('ECHO;harness', port, '127.0.0.1'));
  });
}

export interface ServeOptions {
  /** Default: a new temporary directory, removed when the process is stopped or killed (unless `SPIELHALLE_HARDENING_KEEP` is set). */
  dataDir?: string;
  env?: Readonly<Record<string, string>>;
  seed?: string;
  logLevel?: string;
  readyTimeoutMs?: number;
}

/** Finished house games: matches with at least one seat that is not the attacker (or no seats). */
const HOUSE_FINISHED = `
  SELECT game, COUNT(*) AS n FROM matches m
  WHERE status = 'finished' AND ended_at >= ? AND ended_at < ? AND started_at >= ?
    AND (NOT EXISTS (SELECT 1 FROM seats s WHERE s.match_id = m.id)
         OR EXISTS (SELECT 1 FROM seats s WHERE s.match_id = m.id AND COALESCE(s.address, '') NOT LIKE '%${ATTACKER}%'))
  GROUP BY game`;

export const zeroCounts = (): Counts => ({ mia: 0, connect4: 0, dame: 0, ostseeschach: 0, catan: 0 });

export class ServeProcess {
  private stderr: string[] = [];
  private db: Database.Database | null = null;
  exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  /** The data directory is a temporary one of ours: removed once the process is gone. */
  private ownsDir = false;
  private readonly exited: Promise<void>;

  private constructor(
    readonly child: ChildProcess,
    readonly ports: Ports,
    readonly dataDir: string,
  ) {
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve();
      }),
    );
    const keep = (d: Buffer): void => {
      this.stderr.push(...d.toString().split('\n'));
      if (this.stderr.length > 400) this.stderr = this.stderr.slice(-200);
    };
    child.stderr?.on('data', keep);
    child.stdout?.on('data', keep);
  }

  get pid(): number {
    return this.child.pid!;
  }

  get dbFile(): string {
    return join(this.dataDir, 'spielhalle.db');
  }

  get logFile(): string {
    return join(this.dataDir, 'serve.log');
  }

  get alive(): boolean {
    return this.exit === null;
  }

  stderrTail(lines = 30): string {
    return this.stderr
      .filter((l) => l !== '')
      .slice(-lines)
      .join('\n');
  }

  /** Starts `serve` on free ports (again on new ones if a port was taken meanwhile) and waits until it is ready. */
  static async start(options: ServeOptions = {}): Promise<ServeProcess> {
    const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'spielhalle-hardening-'));
    const ownsDir = options.dataDir === undefined && process.env.SPIELHALLE_HARDENING_KEEP === undefined;
    let lastError: Error | null = null;
    for (let attempt = 0; attempt < 4; attempt++) {
      const ports = await freePorts();
      const args = [
        cli,
        'serve',
        '--data-dir',
        dataDir,
        '--log-level',
        options.logLevel ?? 'warn',
        '--log-file',
        join(dataDir, 'serve.log'),
        '--seed',
        options.seed ?? 'hardening',
        '--mia-port',
        String(ports.mia),
        '--connect4-port',
        String(ports.connect4),
        '--dame-port',
        String(ports.dame),
        '--ostseeschach-port',
        String(ports.ostseeschach),
        '--catan-port',
        String(ports.catan),
        '--web-port',
        String(ports.web),
      ];
      const env = {
        ...process.env,
        ...FAST_HOUSE_ENV,
        SPIELHALLE_CONNECT4_PEER_PORTS: `${ports.connect4},${ports.connect4 + 1}`,
        ...options.env,
      };
      const child = spawn(process.execPath, args, { cwd: dataDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      const serve = new ServeProcess(child, ports, dataDir);
      try {
        await serve.waitReady(options.readyTimeoutMs ?? 60_000);
        serve.ownsDir = ownsDir;
        return serve;
      } catch (err) {
        lastError = err as Error;
        await serve.kill9();
        if (!/EADDRINUSE/.test(serve.stderrTail(100))) break;
      }
    }
    if (ownsDir) rmSync(dataDir, { recursive: true, force: true });
    throw lastError ?? new Error('serve did not start');
  }

  private async waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const fail = (what: string): Error => new Error(`serve not ready: ${what}\n${this.stderrTail()}`);
    while (!this.stderr.some((l) => l.startsWith('Spielhalle is running'))) {
      if (!this.alive) throw fail(`exited (${JSON.stringify(this.exit)})`);
      if (Date.now() > deadline) throw fail('no start banner');
      await sleep(100);
    }
    const tcp: Game[] = ['dame', 'ostseeschach', 'catan'];
    for (;;) {
      if (!this.alive) throw fail(`exited (${JSON.stringify(this.exit)})`);
      const ok =
        (await Promise.all(tcp.map((g) => tcpAccepts(this.ports[g])))).every(Boolean) &&
        (await miaEchoes(this.ports.mia)) &&
        (await this.health()) === 200;
      if (ok) return;
      if (Date.now() > deadline) throw fail('ports do not accept or /healthz is not 200');
      await sleep(200);
    }
  }

  /** The status of `GET /healthz` (0: no answer within the timeout). */
  async health(timeoutMs = 5000): Promise<number> {
    try {
      const r = await fetch(`http://127.0.0.1:${this.ports.web}/healthz`, {
        signal: AbortSignal.timeout(timeoutMs),
      });
      await r.arrayBuffer();
      return r.status;
    } catch {
      return 0;
    }
  }

  /** VmRSS of the child in KiB (null once it is gone). */
  rssKiB(): number | null {
    try {
      const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${this.pid}/status`, 'utf8'));
      return m ? Number(m[1]) : null;
    } catch {
      return null;
    }
  }

  /** CPU seconds the child used so far, all threads (null once it is gone). */
  cpuSeconds(): number | null {
    try {
      // The fields after the command name (which may hold spaces) start at the last ')'.
      const stat = readFileSync(`/proc/${this.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      return null;
    }
  }

  /** Bytes in the log file. */
  logBytes(): number {
    try {
      return statSync(this.logFile).size;
    } catch {
      return 0;
    }
  }

  private store(): Database.Database {
    this.db ??= new Database(this.dbFile, { readonly: true, fileMustExist: true });
    return this.db;
  }

  /** Finished house games per game with an end in [fromMs, toMs) (and a start at `startedFromMs` or later). */
  finished(fromMs: number, toMs = Date.now() + 1, startedFromMs = 0): Counts {
    const counts = zeroCounts();
    const rows = this.store().prepare(HOUSE_FINISHED).all(fromMs, toMs, startedFromMs) as {
      game: string;
      n: number;
    }[];
    for (const r of rows) if (r.game in counts) counts[r.game as Game] = r.n;
    return counts;
  }

  /**
   * Waits until each of `games` finished at least one house game since `fromMs` (that started at
   * `startedFromMs` or later); returns the counts when done, at the timeout, or when the process died.
   */
  async waitFinished(
    games: readonly Game[],
    fromMs: number,
    timeoutMs: number,
    startedFromMs = 0,
  ): Promise<Counts> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const counts = this.finished(fromMs, Date.now() + 1, startedFromMs);
      if (games.every((g) => counts[g] > 0) || Date.now() > deadline || !this.alive) return counts;
      await sleep(500);
    }
  }

  private closeStore(): void {
    this.db?.close();
    this.db = null;
  }

  private removeDir(): void {
    if (this.ownsDir) rmSync(this.dataDir, { recursive: true, force: true });
    this.ownsDir = false;
  }

  /** Bytes of the record store: the file and its write-ahead log. */
  storeBytes(): number {
    let n = 0;
    for (const f of [this.dbFile, `${this.dbFile}-wal`]) {
      try {
        n += statSync(f).size;
      } catch {
        // not there
      }
    }
    return n;
  }

  /** SIGTERM, then waits for the exit (SIGKILL after `timeoutMs`); returns the exit code. */
  async stop(timeoutMs = 20_000): Promise<number | null> {
    this.closeStore();
    if (this.alive) {
      this.child.kill('SIGTERM');
      const t = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
      await this.exited;
      clearTimeout(t);
    }
    this.removeDir();
    return this.exit?.code ?? null;
  }

  /** kill -9 and wait until the process is gone. */
  async kill9(): Promise<void> {
    this.closeStore();
    if (this.alive) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
    this.removeDir();
  }
}

/** Polls `/healthz` (and whether the process lives) every second, noting every answer that is not 200. */
export class HealthMonitor {
  readonly bad: { at: number; label: string; status: number }[] = [];
  checks = 0;
  /** What is going on now (the scenario), for the failure message. */
  label = '';
  private stopped = false;
  private readonly done: Promise<void>;

  constructor(
    private readonly serve: ServeProcess,
    everyMs = 1000,
  ) {
    this.done = (async () => {
      while (!this.stopped && this.serve.alive) {
        const status = await this.serve.health();
        this.checks++;
        if (status !== 200 && this.serve.exit === null)
          this.bad.push({ at: Date.now(), label: this.label, status });
        await sleep(everyMs);
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
  }
}
