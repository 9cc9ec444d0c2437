import { UsageError } from '../../core/errors.js';
import { C4_DEFAULTS } from './transport.js';

/** The network options of `bot connect4` and `play connect4` (commander's names; play-main.ts gives the same). */
export interface NetworkFlags {
  port?: string;
  bind?: string;
  lan?: boolean;
  broadcast?: string;
  peerPort: string[];
}

/** `--peer-port` when not given: the Connect Four ports of peers on this machine. */
export const DEFAULT_PEER_PORTS: readonly string[] = ['32442', '32443', '32444', '32445', '32446', '32447', '32448', '32449'];

export function portNumber(value: string, flag: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new UsageError(`${flag} must be a port number (0–65535), got "${value}"`);
  return n;
}

export function network(flags: NetworkFlags) {
  return {
    bindAddress: flags.bind ?? (flags.lan ? C4_DEFAULTS.lanBindAddress : C4_DEFAULTS.bindAddress),
    broadcastAddress: flags.lan ? (flags.broadcast ?? C4_DEFAULTS.lanBroadcastAddress) : null,
    peerPorts: flags.peerPort.map((p) => portNumber(p, '--peer-port')),
  };
}

/** Ports to try in order: the one given; else 32442, then the other peer ports, then any free one. */
export function candidatePorts(flags: NetworkFlags, peerPorts: readonly number[]): number[] {
  if (flags.port !== undefined) return [portNumber(flags.port, '--port')];
  return flags.lan ? [C4_DEFAULTS.port] : [...new Set([C4_DEFAULTS.port, ...peerPorts, 0])];
}

export async function bindFirst<T>(ports: number[], start: (port: number) => Promise<T>): Promise<T> {
  let last: unknown;
  for (const port of ports) {
    try {
      return await start(port);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      last = err;
    }
  }
  throw new Error(`no free UDP port among ${ports.join(', ')} (${(last as Error).message})`);
}
