import { createSocket, type Socket } from 'node:dgram';
import { networkInterfaces } from 'node:os';
import { silentLogger } from '../../core/log.js';
import { Peer, type Address, type PeerOptions } from './peer.js';

/**
 * The UDP side of a Connect Four peer: one socket for sending and receiving (specs §3.1), so every
 * reply style (to the source port, to a recorded port, to 32442) reaches it. By default it binds
 * 127.0.0.1 and broadcasts nothing; a LAN game is an explicit choice (`--lan`).
 */

export const C4_PORT = 32442;
export const C4_BROADCAST = '255.255.255.255';

export const C4_DEFAULTS = {
  port: C4_PORT,
  bindAddress: '127.0.0.1',
  /** What `--lan` means: all interfaces, and stage 1 to the broadcast address. */
  lanBindAddress: '0.0.0.0',
  lanBroadcastAddress: C4_BROADCAST,
  broadcastPort: C4_PORT,
} as const;

export interface UdpPeerOptions extends Omit<
  PeerOptions,
  'send' | 'announceTo' | 'localPort' | 'localAddresses'
> {
  /** Default 127.0.0.1. */
  bindAddress?: string;
  /** Default 32442; 0 picks a free port. */
  port?: number;
  /** Where stage 1 is broadcast; null (default) = no broadcast. */
  broadcastAddress?: string | null;
  /** The port broadcasts go to (default 32442). */
  broadcastPort?: number;
  /** Stage 1 also goes to 127.0.0.1 at each of these ports (several peers on one host, decision 11). */
  peerPorts?: readonly number[];
  /** Stage 1 also goes to each of these. */
  peerAddresses?: readonly Address[];
}

export interface UdpPeer {
  readonly peer: Peer;
  /** The bound address and port. */
  readonly address: Address;
  /** Stops the peer (a running game gets one 99) and closes the socket. */
  close(): Promise<void>;
}

function interfaceAddresses(): string[] {
  const out: string[] = [];
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) if (a.family === 'IPv4') out.push(a.address);
  return out;
}

/** Binds the socket, starts the peer in the lobby, and returns both. */
export async function startUdpPeer(options: UdpPeerOptions): Promise<UdpPeer> {
  const {
    bindAddress = C4_DEFAULTS.bindAddress,
    port = C4_DEFAULTS.port,
    broadcastAddress = null,
    broadcastPort = C4_DEFAULTS.broadcastPort,
    peerPorts = [],
    peerAddresses = [],
    ...rest
  } = options;
  const log = (options.log ?? silentLogger).child({ game: 'connect4' });
  const socket: Socket = createSocket({ type: 'udp4', reuseAddr: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, bindAddress, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  socket.on('error', (error) => log.warn({ err: error }, 'socket error'));
  if (broadcastAddress !== null) socket.setBroadcast(true);
  const bound = socket.address();
  const announceTo: Address[] = [];
  if (broadcastAddress !== null) announceTo.push({ address: broadcastAddress, port: broadcastPort });
  for (const p of peerPorts) if (p !== bound.port) announceTo.push({ address: '127.0.0.1', port: p });
  announceTo.push(...peerAddresses);

  let pending = 0;
  let drained: (() => void) | null = null;
  const peer = new Peer({
    ...rest,
    announceTo,
    localPort: bound.port,
    localAddresses: [...interfaceAddresses(), bound.address],
    send: (to, line) => {
      pending++;
      socket.send(line, to.port, to.address, (error) => {
        pending--;
        if (error) log.debug({ err: error, to: `${to.address}:${to.port}` }, 'send failed');
        if (pending === 0) drained?.();
      });
    },
  });
  socket.on('message', (msg, rinfo) => peer.receive(msg, { address: rinfo.address, port: rinfo.port }));
  peer.start();

  let closed: Promise<void> | null = null;
  return {
    peer,
    address: { address: bound.address, port: bound.port },
    close() {
      closed ??= (async () => {
        peer.stop();
        // Let a last 99 leave before the socket goes.
        if (pending > 0) {
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, 200);
            drained = () => {
              clearTimeout(t);
              resolve();
            };
          });
        }
        await new Promise<void>((resolve) => socket.close(() => resolve()));
      })();
      return closed;
    },
  };
}
