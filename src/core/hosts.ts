import { isIP } from 'node:net';
import type { Logger } from './log.js';

/**
 * Fair share per client host: every server counts what one remote address (the IP, never IP and
 * port) holds — connections, games, rooms, lobbies, datagrams — so that one host, however many
 * ports or sockets it opens, cannot lock the others out.
 */

/** The IP of a remote address as servers compare it: `::ffff:127.0.0.2` is `127.0.0.2`. */
export function hostOf(address: string | undefined | null): string {
  if (!address) return '?';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/** True for an address only this machine can reach: 127.0.0.0/8, ::1, `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  const v4 = h.startsWith('::ffff:') ? h.slice('::ffff:'.length) : h;
  if (isIP(v4) === 4) return v4.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^(0{1,4}:){7}0{0,3}1$/.test(h);
  // Any other name may resolve to anything: count it as exposed.
  return false;
}

/** How many of something each host holds, with a cap per host (0 or Infinity: no cap). */
export class HostCounter {
  private readonly counts = new Map<string, number>();

  constructor(public limit: number) {}

  /** Counts one more for `host`, or returns false (and counts nothing) when it is at its cap. */
  tryAdd(host: string): boolean {
    const n = this.counts.get(host) ?? 0;
    if (this.limit > 0 && n >= this.limit) return false;
    this.counts.set(host, n + 1);
    return true;
  }

  remove(host: string): void {
    const n = this.counts.get(host) ?? 0;
    if (n <= 1) this.counts.delete(host);
    else this.counts.set(host, n - 1);
  }

  count(host: string): number {
    return this.counts.get(host) ?? 0;
  }

  /** Hosts that hold anything. */
  get hosts(): number {
    return this.counts.size;
  }
}

/**
 * A token bucket per key (a host, a player): `ratePerSecond` refills, `burst` is the most a
 * quiet key may send at once. Keys that have refilled completely are forgotten, so memory stays
 * bounded by the keys active in the last `burst / rate` seconds (and by `maxKeys`: past it, the
 * fullest buckets go first).
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number; dropped: number }>();
  private lastSweep = 0;

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
    private readonly maxKeys = 100_000,
  ) {}

  /**
   * Takes one token for `key` at time `now` (ms). Returns 0 when allowed, otherwise how many
   * datagrams this key has had dropped in a row (1 for the first).
   */
  take(key: string, now: number): number {
    const b = this.bucket(key, now);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      b.dropped = 0;
      return 0;
    }
    return ++b.dropped;
  }

  /**
   * Spends `amount` tokens (bytes, say) for `key`, going into debt if need be. Returns 0 while
   * the key is within its budget, otherwise how many ms until the debt is paid off.
   */
  spend(key: string, amount: number, now: number): number {
    const b = this.bucket(key, now);
    b.tokens -= amount;
    return b.tokens >= 0 ? 0 : Math.ceil((-b.tokens * 1000) / this.ratePerSecond);
  }

  /** The key's bucket, refilled up to `now` (a new key starts full). */
  private bucket(key: string, now: number): { tokens: number; at: number; dropped: number } {
    if (now - this.lastSweep > 10_000) this.sweep(now, false);
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size >= this.maxKeys) this.sweep(now, true);
      b = { tokens: this.burst, at: now, dropped: 0 };
      this.buckets.set(key, b);
    } else {
      b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) * this.ratePerSecond) / 1000);
      b.at = now;
    }
    return b;
  }

  get size(): number {
    return this.buckets.size;
  }

  private sweep(now: number, force: boolean): void {
    this.lastSweep = now;
    for (const [key, b] of this.buckets) {
      const tokens = b.tokens + ((now - b.at) * this.ratePerSecond) / 1000;
      if (tokens >= this.burst) this.buckets.delete(key);
    }
    if (force && this.buckets.size >= this.maxKeys) {
      // Still full: forget the oldest tenth (Map keeps insertion order).
      let drop = Math.ceil(this.maxKeys / 10);
      for (const key of this.buckets.keys()) {
        if (drop-- <= 0) break;
        this.buckets.delete(key);
      }
    }
  }
}

/**
 * A warning that a busy attacker would otherwise repeat thousands of times a second: logged at
 * most once per `intervalMs` per key, with the number of repeats swallowed since the last line.
 */
export class RateLimitedWarn {
  private readonly last = new Map<string, { at: number; suppressed: number }>();

  constructor(
    private readonly log: Logger,
    private readonly intervalMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  warn(key: string, fields: Record<string, unknown>, message: string): void {
    const t = this.now();
    const prev = this.last.get(key);
    if (prev && t - prev.at < this.intervalMs) {
      prev.suppressed++;
      return;
    }
    if (this.last.size > 10_000) this.last.clear();
    this.last.set(key, { at: t, suppressed: 0 });
    this.log.warn(prev && prev.suppressed > 0 ? { ...fields, suppressed: prev.suppressed } : fields, message);
  }
}
