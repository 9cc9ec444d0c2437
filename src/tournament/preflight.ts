import { randomUUID } from 'node:crypto';
import { createSocket, type Socket as DgramSocket } from 'node:dgram';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import type { Server, Socket } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { freeUdpPortInRange, tcpServerInRange, udpSocketInRange, type PortRange } from '../core/ports.js';
import type { ProgramEndpoints, ProgramExit, ProgramRun, TournamentSupport } from '../core/tournament-match.js';
import type { GameModule } from '../games/types.js';
import { PLACEHOLDERS, splitCommandLine, type Entrant, type GameName, type TournamentSpec } from './file.js';
import { arenaPorts } from './play-match.js';
import { BOX_PATH, createSandboxLauncher, resolveProgram } from './sandbox.js';

/**
 * The preflight of a tournament's entrants (issue #33): before the first match is played or even
 * recorded, every entrant is checked — a bot exists with those options; a program's working
 * directory exists, its placeholders fit the game, its program is found and executable, and a
 * short smoke start shows that it starts. Every bad entrant is reported, each with why, so a
 * tutor fixes them all at once instead of watching a program lose every match as a crash.
 *
 * The smoke start (where the game's tournament support says how a program reaches it: `smoke`) runs the program as a match would (its box or its isolation, its limits) with
 * its placeholders filled, against a silent endpoint of the game's kind: a TCP server that accepts
 * and says nothing (Dame, Ostseeschach, Catan), a UDP socket that reads and answers nothing (Mia,
 * Connect Four's referee at `{invite}`). It is judged only by what is certain within the window:
 *
 * - it never started (the sandbox's own error, e.g. the box could not be set up), or
 * - it ended within the window without having reached the endpoint (no connection, no datagram):
 *   a real client at that point waits for the server's first word, so ending there means it could
 *   not start (`Error: Unable to access jarfile`, `can't open file`, `Cannot find module`, a usage
 *   message). Its exit and the last line it wrote to stderr are shown.
 *
 * A program still running at the end of the window, or one that reached the endpoint, passes:
 * a slow start (a JVM on a loaded machine) is never held against it.
 */

/** How long a smoke start watches a program (from its launch) before it passes, on an idle machine. */
export const SMOKE_MS = 1000;
/** After a program's exit, how long the smoke start still looks for its datagram or connection. */
const REACHED_GRACE_MS = 250;
/** At most this many times SMOKE_MS on a loaded machine (smokeWindow). */
const SMOKE_STRETCH = 5;

/**
 * The smoke start's window: SMOKE_MS, stretched by how busy the machine is (the load average per
 * core, up to SMOKE_STRETCH times). On a loaded machine the box and even a shell take longer to
 * start: a program that fails at once must not outlast a fixed second and pass (seen in CI: a
 * script that printed `Unable to access jarfile` and exited passed under load).
 */
export function smokeWindow(load = loadavg()[0] ?? 0, cores = availableParallelism()): number {
  return Math.round(SMOKE_MS * Math.min(SMOKE_STRETCH, Math.max(1, load / Math.max(1, cores))));
}
/** Smoke starts at a time (each is a program start: a JVM, a box). */
const SMOKE_PARALLEL = 4;

export interface EntrantProblem {
  /** The entrant's index in the file's `entrants`. */
  index: number;
  entrant: string;
  /** The entrant's key the problem is about, for a field path (`entrants[1].cwd`). */
  key: 'bot' | 'command' | 'cwd' | null;
  message: string;
}

/** `entrant anna: no such program: /does/not/exist` */
export const problemLine = (p: EntrantProblem): string => `entrant ${p.entrant}: ${p.message}`;
/** `entrants[1].command`, the field path the dashboard maps to its inputs. */
export const problemPath = (p: EntrantProblem): string => `entrants[${p.index}]${p.key === null ? '' : `.${p.key}`}`;

export interface PreflightOptions {
  /** The games (tests pass their own); a bot is checked against its game's tournament support. */
  games: readonly GameModule[];
  /** The smoke start's window in ms; 0: no smoke start. Default smokeWindow(): SMOKE_MS, longer on a loaded machine. */
  smokeMs?: number;
  /** Where the silent endpoints listen (the tournament's port range), if anywhere in particular. */
  ports?: PortRange | null;
}

type Transport = NonNullable<TournamentSupport['smoke']>;

function isDirectory(dir: string): boolean | null {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return null;
  }
}

/** The file and placeholder checks of one program entrant (no process started). */
function staticProblems(game: GameName, e: Extract<Entrant, { kind: 'command' }>, index: number): EntrantProblem[] {
  const problems: EntrantProblem[] = [];
  const add = (key: EntrantProblem['key'], message: string): void => {
    problems.push({ index, entrant: e.name, key, message });
  };
  if (e.cwd !== undefined) {
    const dir = isDirectory(e.cwd);
    // A typo in cwd would otherwise run the program in a new empty directory it creates.
    if (dir === null) add('cwd', `no such directory (cwd): ${e.cwd}`);
    else if (!dir) add('cwd', `cwd is not a directory: ${e.cwd}`);
  }
  const split = splitCommandLine(e.command);
  if (!split.ok) {
    add('command', `command line: ${split.message}`);
    return problems;
  }
  const known = PLACEHOLDERS[game];
  const unknown = [...new Set([...e.command.matchAll(/\{([^{}\s]*)\}/g)].map((m) => m[1] as string))].filter((p) => !known.includes(p));
  for (const p of unknown) add('command', `unknown placeholder {${p}} for ${game} (allowed: ${known.map((k) => `{${k}}`).join(' ')})`);
  if (unknown.length > 0 || problems.some((p) => p.key === 'cwd')) return problems;
  const first = split.words[0];
  if (first === undefined) {
    add('command', 'empty command');
    return problems;
  }
  if (/\{[^{}\s]*\}/.test(first)) return problems; // the program's own name is filled per match
  // Found as the sandbox will look for it: relative to the working directory, else on PATH (a box
  // searches its own PATH first). Without a cwd the program runs in a new empty directory.
  const cwd = e.cwd ?? path.join(tmpdir(), 'spielhalle-no-cwd');
  const boxed = (e.isolation ?? 'bwrap') !== 'none';
  const pathVar = boxed ? `${BOX_PATH}:${process.env.PATH ?? ''}` : (process.env.PATH ?? '');
  const found = resolveProgram(first, cwd, pathVar);
  if ('error' in found) add('command', e.cwd === undefined && first.includes('/') && !path.isAbsolute(first) ? `${found.error} (the entrant has no cwd: a relative program path needs one)` : found.error);
  return problems;
}

interface SilentEndpoint {
  values: Record<string, string>;
  endpoints: ProgramEndpoints;
  /** Resolves when the program reached it (a connection, a datagram). */
  reached: Promise<void>;
  close(): Promise<void>;
}

async function silentEndpoint(transport: Transport, name: string, ports: PortRange | null | undefined): Promise<SilentEndpoint> {
  const host = '127.0.0.1';
  let touched!: () => void;
  const reached = new Promise<void>((resolve) => (touched = resolve));
  // Values in the shapes a real match gives (a client may check them and exit at once otherwise):
  // a 13-character MNM game id, a UUID as an official reservation.
  const base = { host, name, gameId: 'preflight0000', player: '1', reservation: randomUUID() };
  if (transport === 'tcp') {
    const sockets = new Set<Socket>();
    const server: Server = await tcpServerInRange(host, ports);
    server.on('connection', (s) => {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
      touched();
    });
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    return {
      values: { ...base, port: String(port) },
      endpoints: { tcp: [port], udp: [] },
      reached,
      close: () =>
        new Promise<void>((resolve) => {
          for (const s of sockets) s.destroy();
          server.close(() => resolve());
        }),
    };
  }
  const socket: DgramSocket = await udpSocketInRange(host, ports, () => createSocket('udp4'));
  socket.on('message', () => touched());
  socket.on('error', () => undefined);
  const port = socket.address().port;
  const close = (): Promise<void> => new Promise<void>((resolve) => socket.close(() => resolve()));
  if (transport === 'udp') return { values: { ...base, port: String(port) }, endpoints: { tcp: [], udp: [port] }, reached, close };
  // Connect Four: the program listens on {port} and may invite the referee at {invite}.
  const listen = await freeUdpPortInRange(host, ports);
  return {
    values: { ...base, port: String(listen), invite: `${host}:${port}` },
    endpoints: { tcp: [], udp: [port], udpListen: [listen] },
    reached,
    close,
  };
}

const lastLine = (text: string): string => text.trim().split('\n').filter((l) => l.trim() !== '').at(-1)?.trim().slice(0, 200) ?? '';

function exitWords(exit: ProgramExit): string {
  if (exit.limit !== undefined) return `was stopped by its ${exit.limit} limit`;
  if (exit.signal !== null) return `was killed by ${exit.signal}`;
  return `exited with code ${String(exit.code)}`;
}

/** Starts the program as a match would and watches it for `ms`: a problem, or null when it starts. */
async function smokeStart(transport: Transport, e: Extract<Entrant, { kind: 'command' }>, index: number, ms: number, ports: PortRange | null | undefined): Promise<EntrantProblem | null> {
  const scratch = e.cwd === undefined ? mkdtempSync(path.join(tmpdir(), 'spielhalle-preflight-')) : null;
  const endpoint = await silentEndpoint(transport, e.name, ports);
  const sandbox = createSandboxLauncher({
    command: e.command,
    cwd: e.cwd ?? (scratch as string),
    limits: e.limits,
    ...(e.isolation === undefined ? {} : { isolation: e.isolation }),
    // Never written back: a smoke start leaves the entrant's directory as it was.
    keepState: false,
    stopGraceMs: 200,
  });
  let run: ProgramRun | null = null;
  try {
    run = sandbox.launch(endpoint.values, endpoint.endpoints);
    let timer: NodeJS.Timeout | undefined;
    const verdict = await Promise.race([
      run.exited.then((exit) => ({ kind: 'exit' as const, exit })),
      endpoint.reached.then(() => ({ kind: 'reached' as const })),
      new Promise<{ kind: 'running' }>((resolve) => (timer = setTimeout(() => resolve({ kind: 'running' }), ms))),
    ]);
    clearTimeout(timer);
    if (verdict.kind !== 'exit') return null;
    // A program that reached the endpoint and then ended passes; on a busy machine its exit may be
    // seen a moment before its datagram or connection is (seen in CI): a short look for it first.
    const reachedToo = await Promise.race([
      endpoint.reached.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), REACHED_GRACE_MS)),
    ]);
    if (reachedToo) return null;
    const exit = verdict.exit;
    if (exit.error !== undefined) return { index, entrant: e.name, key: 'command', message: `could not start: ${exit.error}` };
    const said = lastLine(sandbox.outputs()[0]?.stderr ?? '') || lastLine(sandbox.outputs()[0]?.stdout ?? '');
    return {
      index,
      entrant: e.name,
      key: 'command',
      message: `${exitWords(exit)} within ${(ms / 1000).toFixed(1)} s of its start without connecting${said === '' ? '' : `: ${said}`}`,
    };
  } catch (err) {
    return { index, entrant: e.name, key: 'command', message: `could not start: ${err instanceof Error ? err.message : String(err)}` };
  } finally {
    await run?.stop().catch(() => undefined);
    await sandbox.stopAll().catch(() => undefined);
    await endpoint.close();
    if (scratch !== null) rmSync(scratch, { recursive: true, force: true });
  }
}

/** Every problem of every entrant, in the file's order (empty: all can play). */
export async function preflight(spec: TournamentSpec, options: PreflightOptions): Promise<EntrantProblem[]> {
  const problems: EntrantProblem[] = [];
  const support = options.games.find((g) => g.name === spec.game)?.tournament;
  const smoke: { e: Extract<Entrant, { kind: 'command' }>; index: number }[] = [];
  spec.entrants.forEach((e, index) => {
    if (e.kind === 'bot') {
      for (const message of support?.checkBot(e.bot, e.options) ?? []) problems.push({ index, entrant: e.name, key: 'bot', message });
      return;
    }
    const found = staticProblems(spec.game, e, index);
    problems.push(...found);
    if (found.length === 0) smoke.push({ e, index });
  });
  const ms = options.smokeMs ?? smokeWindow();
  const transport = support?.smoke;
  if (ms > 0 && transport !== undefined) {
    const ports = arenaPorts(spec, options.ports);
    const queue = [...smoke];
    const worker = async (): Promise<void> => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        const p = await smokeStart(transport, next.e, next.index, ms, ports);
        if (p !== null) problems.push(p);
      }
    };
    await Promise.all(Array.from({ length: Math.min(SMOKE_PARALLEL, queue.length) }, worker));
  }
  return problems.sort((a, b) => a.index - b.index);
}
