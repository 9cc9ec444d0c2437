import { createSocket, type Socket as DgramSocket } from 'node:dgram';
import { createServer, type Server, type Socket } from 'node:net';
import { LineFramer } from '../core/framing.js';
import {
  ConformanceFailure,
  type ConformanceScenario,
  type ConformanceStep,
  type GameConformance,
  type Judgement,
  type ScriptedWire,
  type WireEntry,
} from '../core/conformance.js';
import { fillArgv, launchClient, type ClientExit, type ClientProcess } from './launch.js';
import { ScriptedConnection, WireLog, tcpEndpoint, udpEndpoint } from './wire.js';

/**
 * Plays one scenario: a scripted server on 127.0.0.1 (an ephemeral TCP port, or a UDP socket for
 * games over UDP), the client under test
 * started with the placeholders filled, the scenario's steps over the real connection, the
 * judgement, and the client's process group stopped at the end.
 */

export type ScenarioStatus = 'pass' | 'fail' | 'error';

export interface ScenarioResult {
  game: string;
  id: string;
  title: string;
  /** What played against the client (GameConformance.scriptedSide). */
  scriptedSide: 'server' | 'peer';
  status: ScenarioStatus;
  durationMs: number;
  /** fail/error: what went wrong, in one sentence about the client ("expected THINKING …"). */
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
}

export interface RunOptions {
  /** The client's command line, split into words, with {placeholders}. */
  command: readonly string[];
  cwd?: string;
  /** Multiplies every time window of the scenarios (a slow machine, a JVM that starts slowly). */
  timeoutScale?: number;
  /** How long the client may take to connect (nominal ms), default 10 000. */
  connectTimeoutMs?: number;
}

/** Placeholder values the kit gives every scenario (the scenario adds its own, e.g. `player`). */
export const BASE_PLACEHOLDERS = { host: '127.0.0.1', gameId: 'conformance01', reservation: 'conformance', name: 'check-client' } as const;

const EXCERPT_BEFORE = 14;
const EXCERPT_AFTER = 4;

function excerptAround(entries: readonly WireEntry[], atMs: number): WireEntry[] {
  let i = entries.findIndex((e) => e.atMs > atMs);
  if (i < 0) i = entries.length;
  return entries.slice(Math.max(0, i - EXCERPT_BEFORE), i + EXCERPT_AFTER);
}

function listen(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer({ allowHalfOpen: true });
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function bindUdp(port = 0): Promise<DgramSocket> {
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
  let status: ScenarioStatus = 'pass';
  let message: string | null = null;
  let judgement: Judgement | null = null;
  let failedAt = 0;
  let stopped = false;
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
    const argv = fillArgv(options.command, values);
    log.add('note', `started: ${argv.join(' ')}`);
    client = launchClient(argv, options.cwd === undefined ? {} : { cwd: options.cwd });
    const started = client;
    const settings = { scale, maxLineBytes: conformance.maxLineBytes, normalize: conformance.normalize, addresses: { host, port, clientPort } };
    let wire: ScriptedConnection;
    if (dgram !== null) {
      // UDP has no connection: the script starts at once; the client is gone when its process exits.
      const { endpoint, attach } = udpEndpoint(dgram, log, conformance.maxLineBytes, { address: host, port: clientPort });
      wire = new ScriptedConnection(endpoint, log, started, settings);
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
        new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), (options.connectTimeoutMs ?? 10_000) * scale))),
      ]);
      clearTimeout(timer);
      const spawnError = started.spawnError();
      if (spawnError !== null) throw new Error(`the client could not be started: ${spawnError}`);
      if (first === 'timeout') throw new ConformanceFailure(`did not connect to ${values.host}:${values.port} within ${(options.connectTimeoutMs ?? 10_000) * scale} ms`, { hint: 'Check that the client takes host and port from its command line ({host} {port}).' });
      if ('exited' in first) {
        const e = first.exited;
        throw new ConformanceFailure(`exited (${e.signal ?? `code ${String(e.code)}`}) before it connected`, { hint: 'Run the command by hand: the placeholders must land where the client reads them.' });
      }
      const { endpoint, attach } = tcpEndpoint(first, log, conformance.framer?.() ?? new LineFramer(conformance.maxLineBytes));
      wire = new ScriptedConnection(endpoint, log, started, settings);
      attach(wire);
    }
    for (const step of scenario.steps()) await runStep(step, wire);
  } catch (e) {
    failedAt = log.now();
    const spawnError = client?.spawnError() ?? null;
    if (spawnError !== null) {
      status = 'error';
      message = `the client could not be started: ${spawnError}`;
      log.add('note', `ERROR: ${message}`);
    } else if (e instanceof ConformanceFailure) {
      status = 'fail';
      message = e.message;
      judgement = { rule: e.judgement.rule ?? scenario.rule, section: e.judgement.section ?? scenario.section, hint: e.judgement.hint ?? scenario.hint };
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
  const worker = async (): Promise<void> => {
    while (next < scenarios.length) {
      const i = next++;
      const r = await runScenario(game, conformance, scenarios[i]!, options);
      results[i] = r;
      options.onResult?.(r);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.parallel ?? 1, scenarios.length)) }, worker));
  return results;
}
