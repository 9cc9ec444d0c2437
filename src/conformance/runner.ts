import { createSocket, type Socket as DgramSocket } from 'node:dgram';
import type { Server, Socket } from 'node:net';
import { LineFramer } from '../core/framing.js';
import { defaultPortRange, tcpServerInRange, udpSocketInRange } from '../core/ports.js';
import {
  ConformanceFailure,
  type ConformanceScenario,
  type ConformanceStep,
  type GameConformance,
  type Judgement,
  type ScriptedWire,
  type WireEntry,
} from '../core/conformance.js';
import { launchClient, prepareLaunch, type ClientExit, type ClientProcess, type ConfigFile } from './launch.js';
import { ScriptedConnection, WireLog, tcpEndpoint, udpEndpoint } from './wire.js';

/**
 * Plays one scenario: a scripted server on 127.0.0.1 (an ephemeral TCP port, or a UDP socket for
 * games over UDP), the client under test
 * started with the placeholders filled, the scenario's steps over the real connection, the
 * judgement, and the client's process group stopped at the end.
 */

/** `skipped`: not run, because the first scenarios all failed the same way (fail fast; RunOptions.keepGoing). */
export type ScenarioStatus = 'pass' | 'fail' | 'error' | 'skipped';

export interface ScenarioResult {
  game: string;
  id: string;
  title: string;
  /** What played against the client (GameConformance.scriptedSide). */
  scriptedSide: 'server' | 'peer';
  status: ScenarioStatus;
  durationMs: number;
  /**
   * fail/error: what went wrong, in one sentence whose subject is the client (the report puts
   * "the client" before it): "sent nothing where the server expected THINKING …", "reset the connection …".
   */
  message: string | null;
  /** fail: the rule it broke (the failing step's own, else the scenario's). */
  judgement: Judgement | null;
  /** fail/error: the wire around the failure. */
  excerpt: WireEntry[];
  wire: WireEntry[];
  stdout: string;
  stderr: string;
  exit: ClientExit | null;
  /** The client was still running at the end of the scenario and was stopped by the kit. */
  stopped: boolean;
  /** Deviations the spec tells the other side to tolerate (ScriptedWire.warn): reported, not failed. */
  warnings: string[];
}

export interface RunOptions {
  /** The client's command line, split into words, with {placeholders}. */
  command: readonly string[];
  cwd?: string;
  /** Files the client reads (`--config-file`), written per scenario (launch.ts prepareLaunch). */
  configFiles?: readonly ConfigFile[];
  /** Multiplies every time window of the scenarios (a slow machine, a JVM that starts slowly). */
  timeoutScale?: number;
  /** How long the client may take to connect (nominal ms), default 10 000. */
  connectTimeoutMs?: number;
  /** Run every scenario even when the first ones all fail the same way (default: skip the rest). */
  keepGoing?: boolean;
}

/** How long a TCP client may take to connect (nominal ms; RunOptions.connectTimeoutMs). */
export const CONNECT_MS = 10_000;
/** After the last step: the reset of a close with unread lines reaches the kit this long after the close. */
export const RESET_SETTLE_MS = 30;

/** After this many scenarios have ended, all failed alike: the rest is skipped (unless keepGoing). */
export const FAIL_FAST_AFTER = 3;

/** A failure's message without its numbers (ports, times), to tell "the same way" apart. */
const failureShape = (message: string | null): string =>
  (message ?? '')
    // A reset shows as ECONNRESET or EPIPE, and the exit is known or not yet, as the moment falls.
    .replace(/\((ECONNRESET|EPIPE)\)/g, '(reset)')
    .replace(/ \(its process (exited with code|was killed by) [^)]*\)/g, '')
    // A client that ends at once may end before or after the server's first write: the same way.
    .replace(/,? (\d+ ms after the server's (\d+-byte )?(line|datagram) "[^"]*"|before the server had sent anything)/g, '')
    // A client gone at once resets or closes, as the moment falls (unread lines or none yet).
    .replace(/: it closed its socket while the server's lines were still unread or on their way/g, '')
    .replace(/reset the connection at \d+ ms \(reset\)|closed the connection/g, 'ended the connection')
    .replace(/\d+/g, '#');

/** Placeholder values the kit gives every scenario (the scenario adds its own, e.g. `player`). */
export const BASE_PLACEHOLDERS = { host: '127.0.0.1', gameId: 'conformance01', reservation: 'conformance', name: 'check-client' } as const;

const EXCERPT_BEFORE = 14;
const EXCERPT_AFTER = 4;

function excerptAround(entries: readonly WireEntry[], atMs: number): WireEntry[] {
  let i = entries.findIndex((e) => e.atMs > atMs);
  if (i < 0) i = entries.length;
  return entries.slice(Math.max(0, i - EXCERPT_BEFORE), i + EXCERPT_AFTER);
}

/** The scripted server: at a port of `check-client --ports` (firewalled labs), else any. */
function listen(): Promise<Server> {
  return tcpServerInRange('127.0.0.1', defaultPortRange(), { allowHalfOpen: true });
}

function bindUdp(port = 0): Promise<DgramSocket> {
  if (port === 0) return udpSocketInRange('127.0.0.1', defaultPortRange());
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    socket.once('error', reject);
    socket.bind(port, '127.0.0.1', () => {
      socket.off('error', reject);
      resolve(socket);
    });
  });
}

/** A UDP port on 127.0.0.1 that was free a moment ago (for a client that binds its own port). */
async function freeUdpPort(): Promise<number> {
  const s = await bindUdp();
  const port = s.address().port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

async function runStep(step: ConformanceStep, wire: ScriptedWire): Promise<void> {
  switch (step.kind) {
    case 'send':
      return wire.send(step.lines, { ...(step.splitAt ? { splitAt: step.splitAt } : {}), ...(step.gapMs !== undefined ? { gapMs: step.gapMs } : {}) });
    case 'expect':
      await wire.expect(step.pattern, step.withinMs, step.what, step.judgement);
      return;
    case 'expectSilence':
      return wire.expectSilence(step.ms, step.what, step.judgement);
    case 'delay':
      return wire.delay(step.ms);
    case 'halfClose':
      return wire.halfClose();
    case 'close':
      wire.close();
      return;
    case 'expectClose':
      return wire.expectClose(step.withinMs, step.what, step.judgement);
    case 'expectExit':
      return wire.expectExit(step.withinMs, step.what, {
        ...(step.code !== undefined ? { code: step.code } : {}),
        ...(step.judgement ? { judgement: step.judgement } : {}),
      });
    case 'script':
      return step.run(wire);
  }
}

export async function runScenario(game: string, conformance: GameConformance, scenario: ConformanceScenario, options: RunOptions): Promise<ScenarioResult> {
  const scale = options.timeoutScale ?? 1;
  const udp = conformance.transport === 'udp';
  const log = new WireLog();
  const server = udp ? null : await listen();
  const dgram = udp ? await bindUdp() : null;
  const port = dgram !== null ? dgram.address().port : portOf(server!);
  const clientPort = udp ? await freeUdpPort() : 0;
  let client: ClientProcess | null = null;
  let socket: Socket | null = null;
  let scripted: ScriptedConnection | null = null;
  let status: ScenarioStatus = 'pass';
  let message: string | null = null;
  let judgement: Judgement | null = null;
  let failedAt = 0;
  let stopped = false;
  /** When the client reset the connection (closed it with the server's lines unread), if it did. */
  const resets: { atMs: number; code: string }[] = [];
  const connected = new Promise<Socket>((resolve) => {
    server?.on('connection', (s) => {
      if (socket === null) {
        socket = s;
        log.add('note', `the client connected from port ${s.remotePort ?? '?'}`);
        resolve(s);
      } else {
        log.add('note', 'a second connection was refused (the scenario plays one)');
        s.destroy();
      }
    });
  });
  try {
    const host = BASE_PLACEHOLDERS.host;
    const values: Record<string, string> = {
      ...BASE_PLACEHOLDERS,
      port: String(port),
      ...scenario.placeholders,
      ...(conformance.placeholdersFor?.({ host, port, clientPort }) ?? {}),
    };
    const launch = prepareLaunch(options.command, values, { ...(options.cwd !== undefined ? { cwd: options.cwd } : {}), configFiles: options.configFiles ?? [] });
    for (const note of launch.notes) log.add('note', note);
    log.add('note', `started: ${launch.argv.join(' ')}`);
    client = launchClient(launch.argv, { cwd: launch.cwd, onStopped: launch.cleanup });
    const started = client;
    const settings = { scale, maxLineBytes: conformance.maxLineBytes, normalize: conformance.normalize, addresses: { host, port, clientPort } };
    let wire: ScriptedConnection;
    if (dgram !== null) {
      // UDP has no connection: the script starts at once; the client is gone when its process exits.
      const { endpoint, attach } = udpEndpoint(dgram, log, conformance.maxLineBytes, { address: host, port: clientPort });
      wire = new ScriptedConnection(endpoint, log, started, settings);
      scripted = wire;
      attach(wire);
      const w = wire;
      void started.exited.then((e) => {
        const spawnError = started.spawnError();
        w.markEnded(spawnError !== null ? `the client could not be started: ${spawnError}` : `the client exited (${e.signal !== null ? `signal ${e.signal}` : `code ${String(e.code)}`})`);
      });
    } else {
      let timer: NodeJS.Timeout | undefined;
      const first = await Promise.race([
        connected,
        started.exited.then((e) => ({ exited: e })),
        new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), (options.connectTimeoutMs ?? CONNECT_MS) * scale))),
      ]);
      clearTimeout(timer);
      const spawnError = started.spawnError();
      if (spawnError !== null) throw new Error(`the client could not be started: ${spawnError}`);
      if (first === 'timeout') throw new ConformanceFailure(`did not connect to ${values.host}:${values.port} within ${(options.connectTimeoutMs ?? CONNECT_MS) * scale} ms`, { hint: 'Check that the client takes host and port from its command line ({host} {port}).' });
      if ('exited' in first) {
        const e = first.exited;
        throw new ConformanceFailure(`exited (${e.signal ?? `code ${String(e.code)}`}) before it connected`, { hint: 'Run the command by hand: the placeholders must land where the client reads them.' });
      }
      // A reset is the client closing its socket with the server's lines unread (or lines still
      // coming): whatever the scenario judges after it, the connection did not end as it must.
      first.on('error', (e: NodeJS.ErrnoException) => {
        if (e.code === 'ECONNRESET' || e.code === 'EPIPE') resets.push({ atMs: log.now(), code: e.code });
      });
      const { endpoint, attach } = tcpEndpoint(first, log, conformance.framer?.() ?? new LineFramer(conformance.maxLineBytes));
      wire = new ScriptedConnection(endpoint, log, started, settings);
      scripted = wire;
      attach(wire);
    }
    for (const step of scenario.steps()) await runStep(step, wire);
    if (!udp) {
      // The reset of a close with unread lines reaches the kit a moment after the close.
      await new Promise((resolve) => setTimeout(resolve, RESET_SETTLE_MS));
      const reset = resets[0];
      if (reset !== undefined) throw resetFailure(reset, scripted);
    }
  } catch (e) {
    failedAt = log.now();
    const spawnError = client?.spawnError() ?? null;
    if (spawnError !== null) {
      status = 'error';
      message = `the client could not be started: ${spawnError}`;
      log.add('note', `ERROR: ${message}`);
    } else if (e instanceof ConformanceFailure) {
      status = 'fail';
      // Cause first: a reset before the failure is what went wrong; the failure is its symptom.
      // Else a character the server's writes (or a usual read size) cut in two, when the client
      // sent nothing after it: it is what the client stumbled over.
      const r = resets[0];
      const wire: ScriptedConnection | null = scripted;
      const cut = wire?.cutBefore(failedAt) ?? null;
      const then = /^the /.test(e.message) ? 'after that ' : 'after that it ';
      const cause =
        r !== undefined && r.atMs <= failedAt && !e.message.startsWith(RESET_HEADLINE)
          ? `${resetFailure(r, scripted).message}; ${then}`
          : cut !== null && wire !== null && !e.message.includes(wire.describeCut(cut)) && !e.message.startsWith(RESET_HEADLINE)
            ? `got ${wire.describeCut(cut)}; ${then}`
            : '';
      // After a reset, "closed the connection …" only repeats it: what the server expected follows.
      const symptom = r !== undefined && cause.startsWith(RESET_HEADLINE) ? (/^closed the connection [^;]*; (the server expected .*)$/s.exec(e.message)?.[1] ?? null) : null;
      message = symptom !== null ? `${cause.replace(/; after that (it )?$/, '')}; ${symptom}` : `${cause}${e.message}`;
      // A headline that names a cut character: the scenario's own rule (about reading) is the one it broke.
      const cutNamed = cut !== null && wire !== null && message.includes(wire.describeCut(cut));
      judgement = cutNamed
        ? { rule: scenario.rule, section: scenario.section, hint: scenario.hint }
        : { rule: e.judgement.rule ?? scenario.rule, section: e.judgement.section ?? scenario.section, hint: e.judgement.hint ?? scenario.hint };
      log.add('note', `FAIL: ${e.message}`);
    } else {
      status = 'error';
      message = e instanceof Error ? e.message : String(e);
      log.add('note', `ERROR: ${message}`);
    }
  } finally {
    const s = socket as Socket | null;
    s?.destroy();
    stopped = client !== null && client.exit() === null;
    await client?.stop();
    if (server !== null) await new Promise<void>((resolve) => server.close(() => resolve()));
    if (dgram !== null) {
      try {
        dgram.close();
      } catch {
        // closed by the script already
      }
    }
  }
  return {
    game,
    id: scenario.id,
    title: scenario.title,
    scriptedSide: conformance.scriptedSide ?? 'server',
    status,
    durationMs: log.now(),
    message,
    judgement,
    excerpt: status === 'pass' ? [] : excerptAround(log.entries, failedAt),
    wire: log.entries,
    stdout: client?.stdout() ?? '',
    stderr: client?.stderr() ?? '',
    exit: client?.exit() ?? null,
    stopped,
    warnings: [...(scripted?.warnings ?? [])],
  };
}

const RESET_HEADLINE = 'reset the connection';

/**
 * The failure for a client that reset its connection, with what the server sent last before it
 * (`… (ECONNRESET), 2 ms after the server's 1024-byte line "+ xxx…": …`): what it choked on.
 */
function resetFailure(reset: { atMs: number; code: string }, wire: ScriptedConnection | null): ConformanceFailure {
  const after = wire !== null ? `, ${wire.afterSent(reset.atMs)}` : '';
  return new ConformanceFailure(
    `${RESET_HEADLINE} at ${reset.atMs} ms (${reset.code})${after}: it closed its socket while the server's lines were still unread or on their way`,
    {
      rule: 'A client reads what the server sends until the server ends the game (GAMEOVER … QUIT, or the server closes); closing earlier makes its system answer the server with a reset.',
      hint: 'Keep reading after an error or a GAMEOVER until the end the protocol names, then close; an exit code of 0 does not make up for lines left unread.',
    },
  );
}

/** A scenario not run, with why. */
export function skippedResult(game: string, conformance: GameConformance, scenario: ConformanceScenario, message: string): ScenarioResult {
  return {
    game,
    id: scenario.id,
    title: scenario.title,
    scriptedSide: conformance.scriptedSide ?? 'server',
    status: 'skipped',
    durationMs: 0,
    message,
    judgement: null,
    excerpt: [],
    wire: [],
    stdout: '',
    stderr: '',
    exit: null,
    stopped: false,
    warnings: [],
  };
}

function portOf(server: Server): number {
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : 0;
}

/** Runs scenarios, `parallel` at a time, calling `onResult` as each ends; results in scenario order. */
export async function runScenarios(
  game: string,
  conformance: GameConformance,
  scenarios: readonly ConformanceScenario[],
  options: RunOptions & { parallel?: number; onResult?: (r: ScenarioResult) => void },
): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = new Array<ScenarioResult>(scenarios.length);
  let next = 0;
  const ended: ScenarioResult[] = [];
  /** The headline the first scenarios all failed with, once they did (fail fast). */
  let failingAlike: string | null = null;
  const worker = async (): Promise<void> => {
    while (next < scenarios.length) {
      const i = next++;
      const scenario = scenarios[i]!;
      const r =
        failingAlike !== null
          ? skippedResult(game, conformance, scenario, `not run: the first ${FAIL_FAST_AFTER} scenarios all failed the same way (${failingAlike}); fix that first, or run every scenario with --keep-going`)
          : await runScenario(game, conformance, scenario, options);
      results[i] = r;
      if (r.status !== 'skipped') {
        ended.push(r);
        const first = ended.slice(0, FAIL_FAST_AFTER);
        if (
          options.keepGoing !== true &&
          failingAlike === null &&
          first.length === FAIL_FAST_AFTER &&
          first.every((x) => x.status !== 'pass' && failureShape(x.message) === failureShape(first[0]!.message))
        )
          failingAlike = first[0]!.message ?? 'no message';
      }
      options.onResult?.(r);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.parallel ?? 1, scenarios.length)) }, worker));
  return results;
}
