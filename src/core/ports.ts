import { createSocket, type Socket as DgramSocket } from 'node:dgram';
import { createServer, type Server } from 'node:net';

/**
 * Port ranges for firewalled labs (issue #33): where a lab lets only, say, 20000–20999 through,
 * tournament arenas and check-client's scripted servers listen only there (`tournaments.ports`,
 * a tournament file's `ports`, `check-client --ports`). Binding tries the range's ports from a
 * random start (parallel matches rarely collide) and moves on at EADDRINUSE or EACCES; only when
 * every port of the range is taken does it fail, naming the range.
 */

export interface PortRange {
  readonly from: number;
  readonly to: number;
}

const RANGE = /^\s*(\d{1,5})\s*[-–]\s*(\d{1,5})\s*$/;

/** `"20000-20999"` (or one port, `"20000"`) as a range; a string says what is wrong. */
export function parsePortRange(text: string): PortRange | string {
  const single = /^\s*(\d{1,5})\s*$/.exec(text);
  const m = single === null ? RANGE.exec(text) : null;
  if (single === null && m === null) return `must be a range of ports such as "20000-20999", got "${text}"`;
  const from = Number(single !== null ? single[1] : m![1]);
  const to = Number(single !== null ? single[1] : m![2]);
  for (const p of [from, to]) if (p < 1 || p > 65535) return `ports are 1–65535, got ${p}`;
  if (to < from) return `the range ends below its start (${from}-${to})`;
  return { from, to };
}

export function formatPortRange(range: PortRange): string {
  return range.from === range.to ? String(range.from) : `${range.from}-${range.to}`;
}

export function inRange(range: PortRange, port: number): boolean {
  return port >= range.from && port <= range.to;
}

/**
 * The range the process uses where no one passes one (check-client's scripted servers: set by
 * `check-client --ports`); null: ports the system picks.
 */
let processRange: PortRange | null = null;

export function setDefaultPortRange(range: PortRange | null): void {
  processRange = range;
}

export function defaultPortRange(): PortRange | null {
  return processRange;
}

export class NoFreePortError extends Error {
  override readonly name = 'NoFreePortError';
  constructor(range: PortRange) {
    super(`no free port in ${formatPortRange(range)} (every one is taken; widen the port range)`);
  }
}

const taken = (err: unknown): boolean => {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'EADDRINUSE' || code === 'EACCES';
};

/**
 * Calls `attempt` with port 0 (no range) or with each port of the range in turn, from a random
 * start, until one does not fail with EADDRINUSE/EACCES; other errors are thrown at once.
 */
export async function withPortIn<T>(range: PortRange | null | undefined, attempt: (port: number) => Promise<T>): Promise<T> {
  if (range === null || range === undefined) return attempt(0);
  const size = range.to - range.from + 1;
  const start = Math.floor(Math.random() * size);
  for (let i = 0; i < size; i++) {
    try {
      return await attempt(range.from + ((start + i) % size));
    } catch (err) {
      if (!taken(err)) throw err;
    }
  }
  throw new NoFreePortError(range);
}

/** Listens on `host` at a port of the range (or one the system picks); resolves with the port. */
export function listenInRange(server: Server, host: string, range: PortRange | null | undefined): Promise<number> {
  return withPortIn(
    range,
    (port) =>
      new Promise<number>((resolve, reject) => {
        const onError = (err: Error): void => reject(err);
        server.once('error', onError);
        server.listen(port, host, () => {
          server.off('error', onError);
          const address = server.address();
          resolve(typeof address === 'object' && address !== null ? address.port : port);
        });
      }),
  );
}

/** A TCP server listening in the range (`createServer` options as node:net's). */
export async function tcpServerInRange(host: string, range: PortRange | null | undefined, options: Parameters<typeof createServer>[0] = {}): Promise<Server> {
  const server = createServer(options);
  await listenInRange(server, host, range);
  return server;
}

/** A UDP socket bound in the range: a fresh socket per try (a socket whose bind failed is spent). */
export function udpSocketInRange(host: string, range: PortRange | null | undefined, create: () => DgramSocket = () => createSocket('udp4')): Promise<DgramSocket> {
  return withPortIn(
    range,
    (port) =>
      new Promise<DgramSocket>((resolve, reject) => {
        const socket = create();
        const onError = (err: Error): void => {
          try {
            socket.close();
          } catch {
            // closed already
          }
          reject(err);
        };
        socket.once('error', onError);
        socket.bind(port, host, () => {
          socket.off('error', onError);
          resolve(socket);
        });
      }),
  );
}

/** Binds a UDP socket someone made (and gave its handlers) at a port of the range; a failed bind is retried on it. */
export function bindSocketInRange(socket: DgramSocket, host: string, range: PortRange | null | undefined): Promise<number> {
  return withPortIn(
    range,
    (port) =>
      new Promise<number>((resolve, reject) => {
        const onError = (err: Error): void => reject(err);
        socket.once('error', onError);
        socket.bind(port, host, () => {
          socket.off('error', onError);
          resolve(socket.address().port);
        });
      }),
  );
}

/** A UDP port in the range that was free a moment ago (for a program that binds it itself). */
export async function freeUdpPortInRange(host: string, range: PortRange | null | undefined): Promise<number> {
  const socket = await udpSocketInRange(host, range);
  const port = socket.address().port;
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

/** Starts a server; one that fails to start (its port taken) is stopped again before the error goes on. */
export async function startedOrStopped<T extends { start(): Promise<unknown>; stop(): Promise<unknown> }>(server: T): Promise<T> {
  try {
    await server.start();
  } catch (err) {
    await server.stop().catch(() => undefined);
    throw err;
  }
  return server;
}

/** A settings value (`tournaments.ports`, checked when the settings were read): '' is no range. */
export function portRangeSetting(text: string): PortRange | null {
  if (text.trim() === '') return null;
  const range = parsePortRange(text);
  return typeof range === 'string' ? null : range;
}
