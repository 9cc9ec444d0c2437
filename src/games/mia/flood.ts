import { readFileSync } from 'node:fs';
import { Counter } from 'prom-client';
import { registry } from '../../core/metrics.js';

/**
 * What the Mia server needs to ride out a flood (issue 36): a cheap look at a datagram's command
 * before it is parsed, the kernel's drop counter of the server's socket, and the counters of
 * /metrics.
 */

export const miaDroppedTotal = new Counter({
  name: 'spielhalle_mia_dropped_total',
  help: "Mia datagrams dropped unread: over a registered client's budget (client), over its host's (host), registrations over the host's budget (registrations), lost in the kernel with the receive queue full (kernel)",
  labelNames: ['reason'] as const,
  registers: [registry],
});

const REGISTER = Buffer.from('REGISTER');

/** Whether a datagram is a REGISTER or REGISTER_SPECTATOR, judged from its first bytes alone. */
export function isRegistration(msg: Buffer): boolean {
  return msg.length >= REGISTER.length && msg.compare(REGISTER, 0, REGISTER.length, 0, REGISTER.length) === 0;
}

/**
 * The kernel's count of datagrams dropped at the UDP sockets bound to `port` (the last column of
 * /proc/net/udp; a full receive queue is the usual cause). `read` returns the drops since the last
 * call; 0 where /proc/net/udp cannot be read (not Linux).
 */
export class KernelDrops {
  private last: number | null = null;
  private readonly needle: string | null;

  constructor(port?: number) {
    this.needle = port === undefined ? null : `:${port.toString(16).toUpperCase().padStart(4, '0')} `;
  }

  /** Every drop counted so far, or null when it cannot be read. */
  total(): number | null {
    if (this.needle === null) return null;
    let text: string;
    try {
      text = readFileSync('/proc/net/udp', 'latin1');
    } catch {
      return null;
    }
    let sum = 0;
    let found = false;
    for (const line of text.split('\n')) {
      // "  sl  local_address rem_address   st … drops": the local address is the second field.
      const local = line.trimStart().split(' ', 2)[1];
      if (local === undefined || !`${local} `.endsWith(this.needle)) continue;
      found = true;
      sum += Number(line.trimEnd().slice(line.trimEnd().lastIndexOf(' ') + 1)) || 0;
    }
    return found ? sum : null;
  }

  read(): number {
    const total = this.total();
    if (total === null) return 0;
    const fresh = this.last === null ? 0 : Math.max(0, total - this.last);
    this.last = total;
    return fresh;
  }
}
