import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { frame, FrameReader } from './frames.js';

/**
 * The runner's half of a box's network (relay-inside.ts is the other): a Unix socket bound into
 * the box, and the only way out of it. A connection from inside names the TCP port it wants; only
 * the ports of the box's own match are connected, to 127.0.0.1. Datagrams come through one
 * channel and leave from a socket per inside source port (or from the program's own port, where
 * the game calls the program there: Connect Four's referee), to the match's UDP ports only.
 */

/** What a box may reach: its match's game endpoint, on 127.0.0.1. */
export interface Endpoints {
  /** TCP ports the program connects to. */
  tcp: readonly number[];
  /** UDP ports of the services the program sends datagrams to. */
  udp: readonly number[];
  /** UDP ports where the program itself listens and the game sends first (bound outside for it). */
  udpListen?: readonly number[];
}

export interface RelayEvents {
  /** A TCP connection of the box reached the game from `localPort` (its address as the server sees it). */
  onTcp?: (port: number, localPort: number) => void;
  /** The box's datagrams leave from `localPort` (its address as a UDP server sees it). */
  onUdp?: (localPort: number) => void;
  /** Something the box asked for and did not get (a port that is not its match's). */
  onRefused?: (what: string) => void;
}

export class BoxRelay {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly udp = new Map<number, UdpSocket>();
  private closed = false;

  private constructor(
    server: Server,
    private readonly endpoints: Endpoints,
    private readonly events: RelayEvents,
  ) {
    this.server = server;
  }

  /** Listens on `path` (a Unix socket the box's uid may connect to). */
  static async open(path: string, endpoints: Endpoints, events: RelayEvents = {}): Promise<BoxRelay> {
    let relay: BoxRelay | null = null;
    const server = createServer({ allowHalfOpen: true }, (socket) => relay?.accept(socket));
    relay = new BoxRelay(server, endpoints, events);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
    // Bound now: the game may call the program's own port before the program has sent anything.
    await Promise.all((endpoints.udpListen ?? []).map((port) => relay.outsideSocket(port)));
    return relay;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const s of this.sockets) s.destroy();
    for (const u of this.udp.values()) u.close();
    this.udp.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: Socket): void {
    if (this.closed) return void socket.destroy();
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let head = '';
    const onData = (chunk: Buffer): void => {
      const text = chunk.toString('latin1');
      const nl = text.indexOf('\n');
      if (nl < 0) {
        head += text;
        if (head.length > 200) socket.destroy();
        return;
      }
      socket.off('data', onData);
      socket.pause();
      head += text.slice(0, nl);
      const rest = chunk.subarray(nl + 1);
      let request: { tcp?: unknown; udp?: unknown };
      try {
        request = JSON.parse(head) as { tcp?: unknown; udp?: unknown };
      } catch {
        return void socket.destroy();
      }
      if (typeof request.tcp === 'number') this.tcp(socket, request.tcp, rest);
      else if (request.udp === true) this.datagrams(socket, rest);
      else socket.destroy();
    };
    socket.on('data', onData);
  }

  private tcp(inside: Socket, port: number, rest: Buffer): void {
    if (!this.endpoints.tcp.includes(port)) {
      this.events.onRefused?.(`tcp ${port}`);
      return void inside.destroy();
    }
    const game = connect({ host: '127.0.0.1', port, allowHalfOpen: true, noDelay: true });
    this.sockets.add(game);
    game.on('close', () => this.sockets.delete(game));
    game.once('connect', () => {
      if (game.localPort !== undefined) this.events.onTcp?.(port, game.localPort);
    });
    if (rest.length > 0) game.write(rest);
    inside.pipe(game);
    game.pipe(inside);
    inside.resume();
    game.on('error', () => inside.destroy());
    inside.on('close', () => game.end());
    game.on('close', () => inside.end());
  }

  private datagrams(channel: Socket, rest: Buffer): void {
    const reader = new FrameReader();
    const take = (chunk: Buffer): void => {
      // From the program's port b to the match's port a: only the match's own ports.
      for (const { a: to, b: from, payload } of reader.push(chunk)) {
        if (!this.endpoints.udp.includes(to)) {
          this.events.onRefused?.(`udp ${to}`);
          continue;
        }
        void this.outsideSocket(from).then((socket) => socket.send(payload, to, '127.0.0.1'));
      }
    };
    this.channel = channel;
    channel.on('data', take);
    channel.resume();
    take(rest);
  }

  private channel: Socket | null = null;

  /**
   * The socket that stands for inside port `port` out here: bound at that very port where the
   * program listens there (the game calls it), else an ephemeral one. What arrives on it goes in.
   */
  private outsideSocket(port: number): Promise<UdpSocket> {
    const known = this.udp.get(port);
    if (known) return Promise.resolve(known);
    const socket = createSocket('udp4');
    this.udp.set(port, socket);
    socket.on('error', () => undefined);
    socket.on('message', (msg, from) => {
      if (from.address !== '127.0.0.1' || msg.length > 65_000) return;
      this.channel?.write(frame(from.port, port, msg));
    });
    const listens = (this.endpoints.udpListen ?? []).includes(port);
    return new Promise((resolve) =>
      socket.bind(listens ? port : 0, '127.0.0.1', () => {
        this.events.onUdp?.(socket.address().port);
        resolve(socket);
      }),
    );
  }
}
