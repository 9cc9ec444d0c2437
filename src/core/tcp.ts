import { createServer, type Server, type ServerOpts, type Socket } from 'node:net';
import type { ServerStatus } from './game-server.js';
import { HostCounter, RateLimitedWarn, TokenBuckets, hostOf } from './hosts.js';
import type { Logger } from './log.js';

/**
 * The TCP side every stream-protocol server shares: listen (a bind error rejects, later socket
 * errors are logged, never thrown) and a stop that gives clients a moment to read the end of
 * their stream before their sockets go.
 */

export interface TcpListenOptions {
  readonly host: string;
  /** 0 for a free port. */
  readonly port: number;
  readonly server?: ServerOpts;
  readonly maxConnections?: number | undefined;
  /**
   * Open connections one remote IP may hold (0: no cap). A connection over the cap goes to
   * `onRefused` (which may write the protocol's error) and is then closed, never to `onSocket`.
   */
  readonly maxConnectionsPerHost?: number | undefined;
  readonly onRefused?: ((socket: Socket, host: string) => void) | undefined;
  /**
   * Bytes a second one remote IP may send, over all its connections (burst: 4 s of it; 0 or
   * absent: no budget). A host over it has its sockets paused until the budget refills, so TCP
   * pushes back on the sender and one host's flood cannot take the CPU every other game needs.
   */
  readonly maxInputBytesPerSecondPerHost?: number | undefined;
  /**
   * Connections the server trusts (the dashboard's own gateway, say): asked once per connection,
   * true passes it by the per-host caps and budget, and `onSocket` is told so.
   */
  readonly exempt?: ((socket: Socket) => boolean) | undefined;
  readonly log: Logger;
  readonly onSocket: (socket: Socket, exempt: boolean) => void;
}

/**
 * The connection handler with the per-host cap in front of it: counts open sockets per remote IP,
 * refuses (rate-limited warn) those over the cap, and guards the handler so that an exception
 * while accepting closes that one socket, never the server.
 */
function perHostGate(o: TcpListenOptions): (socket: Socket) => void {
  const hosts = new HostCounter(o.maxConnectionsPerHost ?? 0);
  const warn = new RateLimitedWarn(o.log);
  const rate = o.maxInputBytesPerSecondPerHost ?? 0;
  const budget = rate > 0 ? new TokenBuckets(rate, rate * 4, 10_000) : null;
  const accept = (socket: Socket, exempt: boolean, host: string): void => {
    try {
      o.onSocket(socket, exempt);
    } catch (err) {
      o.log.error({ err, host }, 'failed to accept a connection');
      socket.destroy();
    }
  };
  const handler = (socket: Socket): void => {
    const host = hostOf(socket.remoteAddress);
    if (o.exempt?.(socket) === true) return accept(socket, true, host);
    if (!hosts.tryAdd(host)) {
      warn.warn(`conn:${host}`, { host, limit: hosts.limit }, 'connection refused: too many connections from this host');
      try {
        o.onRefused?.(socket, host);
      } catch (err) {
        o.log.error({ err, host }, 'failed to refuse a connection');
      }
      socket.on('error', () => {});
      if (!socket.destroyed) socket.end();
      const timer = setTimeout(() => socket.destroy(), 2000);
      timer.unref();
      socket.once('close', () => clearTimeout(timer));
      return;
    }
    socket.once('close', () => hosts.remove(host));
    if (budget) {
      let resume: NodeJS.Timeout | null = null;
      socket.on('data', (chunk: Buffer) => {
        const waitMs = budget.spend(host, chunk.length, Date.now());
        if (waitMs <= 0 || resume !== null) return;
        warn.warn(`bytes:${host}`, { host, bytesPerSecond: rate }, 'input throttled: this host sends more than its share');
        socket.pause();
        resume = setTimeout(() => {
          resume = null;
          if (!socket.destroyed) socket.resume();
        }, waitMs);
        resume.unref();
      });
      socket.once('close', () => {
        if (resume !== null) clearTimeout(resume);
      });
    }
    accept(socket, false, host);
  };
  return handler;
}

export async function listenTcp(o: TcpListenOptions): Promise<{ server: Server; port: number }> {
  const server = createServer(o.server ?? {}, perHostGate(o));
  if (o.maxConnections !== undefined) server.maxConnections = o.maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      server.on('error', (err) => o.log.error({ err }, 'server socket error'));
      resolve();
    });
  });
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : o.port };
}

/**
 * Stops accepting and resolves once the server has closed: sockets still open after `graceMs`
 * are destroyed (`end: true` half-closes them first, so they can read what is still queued).
 */
export async function closeTcp(server: Server, sockets: () => Iterable<Socket>, o: { readonly graceMs: number; readonly end?: boolean }): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const timer = setTimeout(() => {
    for (const s of sockets()) s.destroy();
  }, o.graceMs);
  if (o.end === true) for (const s of sockets()) s.end();
  await closed;
  clearTimeout(timer);
}

/**
 * One TCP server's lifecycle as the dashboard sees it: the status, the port it is bound to (the
 * real one when asked for port 0) and the bind error if listening failed.
 */
export class TcpEndpoint {
  private server: Server | null = null;
  private state: ServerStatus = 'stopped';
  private failure: string | undefined;
  private bound: number;

  constructor(private readonly o: TcpListenOptions) {
    this.bound = o.port;
  }

  get status(): ServerStatus {
    return this.state;
  }

  get port(): number {
    return this.bound;
  }

  /** The bind error of the last start, if it failed. */
  get error(): string | undefined {
    return this.failure;
  }

  /** Listens; false if it already was. A bind error marks the endpoint failed and rejects. */
  async open(): Promise<boolean> {
    if (this.server) return false;
    this.state = 'starting';
    try {
      const { server, port } = await listenTcp(this.o);
      this.server = server;
      this.bound = port;
    } catch (err) {
      this.state = 'failed';
      this.failure = (err as Error).message;
      throw err;
    }
    this.state = 'running';
    return true;
  }

  /** Stops listening (see closeTcp); a failed endpoint keeps its status and error. */
  async close(sockets: () => Iterable<Socket>, o: { readonly graceMs: number; readonly end?: boolean }): Promise<void> {
    const server = this.server;
    this.server = null;
    if (this.state !== 'failed') this.state = 'stopped';
    if (server) await closeTcp(server, sockets, o);
  }
}
