import { spawn, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Starts `node dist/cli.js serve` on free ports and times, from the spawn, when each port first
 * answers: a TCP port when a connection is accepted, a UDP port when a datagram sent to it no
 * longer comes back as "port unreachable" (a connected UDP socket gets ECONNREFUSED for that).
 * Shared by test/serve-startup.test.ts and bench/serve-startup.ts.
 */

export interface ProbePort {
  name: string;
  transport: 'tcp' | 'udp';
  port: number;
}

export interface StartupRun {
  /** ms from spawn until the port answered; null if it never did within the limit. */
  ready: Record<string, number | null>;
  /** The `listening` log lines (parsed JSON), with the ms since spawn they arrived at. */
  listening: { at: number; line: Record<string, unknown> }[];
  /** All of stderr, for diagnostics. */
  stderr: string;
  /** ms from spawn until every port answered (null if one never did). */
  all: number | null;
}

const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `count` ports that were free a moment ago for TCP and UDP alike, each with a free neighbour
 * above it. Picked at random *below* Linux's ephemeral range (32768–60999): a port the kernel hands
 * out for `listen(0)` or an outgoing connection of a test running beside this one could otherwise
 * take it between this probe and the server's bind (seen: EADDRINUSE with the worker tests' many
 * PostgreSQL connections and loopback servers running in parallel).
 */
export async function freePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const out: number[] = [];
  while (out.length < count) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const tcpFree = await new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen(port, host, () => s.close(() => resolve(true)));
    });
    if (!tcpFree) continue;
    // The Connect Four sparring bot binds port + 1: keep every pick and its neighbour distinct.
    if (out.some((p) => Math.abs(p - port) <= 1)) continue;
    if (!(await udpFree(port, host)) || !(await udpFree(port + 1, host))) continue;
    out.push(port);
  }
  return out;
}

function udpFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createSocket('udp4');
    s.once('error', () => {
      s.close();
      resolve(false);
    });
    s.bind(port, host, () => s.close(() => resolve(true)));
  });
}

function tcpAccepts(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ port, host });
    const done = (ok: boolean): void => {
      s.destroy();
      resolve(ok);
    };
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
    s.setTimeout(1000, () => done(false));
  });
}

/** A zero-length datagram: every game server here drops it unread. */
function udpBound(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createSocket('udp4');
    let refused = false;
    s.on('error', () => (refused = true));
    s.connect(port, host, () => {
      s.send(Buffer.alloc(0), (err) => {
        if (err) refused = true;
        // Loopback reports an unreachable port at once; 20 ms is a wide margin. The timer fires before
        // the I/O of the same loop turn is read, so the verdict waits for setImmediate (after the poll phase).
        setTimeout(() => {
          setImmediate(() => {
            s.close();
            resolve(!refused);
          });
        }, 20);
      });
    });
  });
}

export interface StartupOptions {
  cli: string;
  args: string[];
  ports: ProbePort[];
  host?: string;
  limitMs?: number;
  env?: Record<string, string>;
  /** Keep the server running after every port answered for this long (to let house bots start). */
  lingerMs?: number;
  /**
   * Keep the server running after every port answered until this many `listening` lines arrived
   * (within the limit): a port accepts from its listen() on, a moment before the line that says so
   * is written, and a server stopped in between never writes it.
   */
  listeningLines?: number;
}

/** Spawns the server, probes every port until it answers (or `limitMs`), then stops the server. */
export async function measureStartup(o: StartupOptions): Promise<StartupRun> {
  const host = o.host ?? '127.0.0.1';
  const limit = o.limitMs ?? 30_000;
  const dataDir = mkdtempSync(join(tmpdir(), 'spielhalle-startup-'));
  const ready: Record<string, number | null> = Object.fromEntries(o.ports.map((p) => [p.name, null]));
  const listening: StartupRun['listening'] = [];
  let stderr = '';
  const t0 = performance.now();
  const child: ChildProcess = spawn(process.execPath, [o.cli, 'serve', '--data-dir', dataDir, ...o.args], {
    env: { ...process.env, ...o.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let pending = '';
  child.stderr?.on('data', (d: Buffer) => {
    const at = performance.now() - t0;
    stderr += d.toString();
    pending += d.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const text of lines) {
      if (!text.startsWith('{')) continue;
      try {
        const line = JSON.parse(text) as Record<string, unknown>;
        if (line.msg === 'listening') listening.push({ at, line });
      } catch {
        // not a log line
      }
    }
  });
  const exited = (): boolean => child.exitCode !== null || child.signalCode !== null;
  try {
    await Promise.all(
      o.ports.map(async (p) => {
        while (!exited() && performance.now() - t0 < limit) {
          const ok = p.transport === 'tcp' ? await tcpAccepts(p.port, host) : await udpBound(p.port, host);
          if (ok) {
            ready[p.name] = performance.now() - t0;
            return;
          }
          await wait(5);
        }
      }),
    );
    if (o.listeningLines !== undefined)
      while (listening.length < o.listeningLines && !exited() && performance.now() - t0 < limit) await wait(5);
    if (o.lingerMs) await wait(o.lingerMs);
  } finally {
    if (!exited()) {
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
  const times = Object.values(ready);
  const all = times.every((t) => t !== null) ? Math.max(...times) : null;
  return { ready, listening, stderr, all };
}

/** The serve flags and probe list for every game plus the dashboard on fresh free ports. */
export async function allGamesOnFreePorts(): Promise<{ args: string[]; ports: ProbePort[] }> {
  const [web, mia, connect4, dame, ostseeschach, catan] = (await freePorts(6)) as [number, number, number, number, number, number];
  const ports: ProbePort[] = [
    { name: 'dashboard', transport: 'tcp', port: web },
    { name: 'mia', transport: 'udp', port: mia },
    { name: 'connect4', transport: 'udp', port: connect4 },
    { name: 'dame', transport: 'tcp', port: dame },
    { name: 'ostseeschach', transport: 'tcp', port: ostseeschach },
    { name: 'catan', transport: 'tcp', port: catan },
  ];
  const args = ['--web-port', String(web), ...ports.slice(1).flatMap((p) => [`--${p.name}-port`, String(p.port)])];
  return { args, ports };
}
