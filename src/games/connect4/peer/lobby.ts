import type { Clock, Timer } from '../../../core/clock.js';
import { HostCounter, hostOf } from '../../../core/hosts.js';
import type { RemotePeer } from './types.js';

/**
 * The two lists of the lobby (specs §3.3): who announced itself (gone 10 s after its last stage 1)
 * and who invited us (valid 10 s after the last copy). Both are capped in all and per remote IP,
 * so a flood of forged source addresses cannot grow them without bound, and one host sending from
 * many ports cannot crowd out the others.
 */

interface Entry {
  peer: RemotePeer;
  timer: Timer;
}

export class LobbyList {
  private readonly entries = new Map<string, Entry>();
  private readonly hosts: HostCounter;

  constructor(
    private readonly clock: Clock,
    private readonly expiryMs: number,
    private readonly onChange: () => void,
    private readonly max = 256,
    perHost = 16,
  ) {
    this.hosts = new HostCounter(perHost);
  }

  /** A stage 1 arrived from `peer`. */
  seen(peer: RemotePeer): void {
    const old = this.entries.get(peer.key);
    if (!old && (this.entries.size >= this.max || !this.hosts.tryAdd(hostOf(peer.address)))) return;
    old?.timer.cancel();
    const timer = this.clock.setTimeout(() => {
      if (this.entries.delete(peer.key)) this.hosts.remove(hostOf(peer.address));
      this.onChange();
    }, this.expiryMs);
    this.entries.set(peer.key, { peer, timer });
    if (!old || old.peer.name !== peer.name) this.onChange();
  }

  get(key: string): RemotePeer | undefined {
    return this.entries.get(key)?.peer;
  }

  list(): RemotePeer[] {
    return [...this.entries.values()].map((e) => e.peer);
  }

  clear(): void {
    for (const e of this.entries.values()) {
      e.timer.cancel();
      this.hosts.remove(hostOf(e.peer.address));
    }
    this.entries.clear();
  }
}

interface Invitation extends Entry {
  declined: boolean;
  lastAt: number;
}

export class InvitationBox {
  private readonly entries = new Map<string, Invitation>();
  private readonly hosts: HostCounter;

  constructor(
    private readonly clock: Clock,
    private readonly validMs: number,
    private readonly onNew: (from: RemotePeer) => void,
    private readonly onGone: (from: RemotePeer) => void,
    private readonly max = 64,
    perHost = 8,
  ) {
    this.hosts = new HostCounter(perHost);
  }

  /**
   * A stage 2 with a name arrived from `from`. A declined invitation stays declined while it
   * repeats. A new one is dropped when the box is full, or its host holds `perHost` already.
   */
  received(from: RemotePeer): void {
    const old = this.entries.get(from.key);
    if (!old && (this.entries.size >= this.max || !this.hosts.tryAdd(hostOf(from.address)))) return;
    old?.timer.cancel();
    const timer = this.clock.setTimeout(() => {
      const gone = this.entries.get(from.key);
      if (!gone) return;
      this.entries.delete(from.key);
      this.hosts.remove(hostOf(from.address));
      if (!gone.declined) this.onGone(gone.peer);
    }, this.validMs);
    this.entries.set(from.key, {
      peer: from,
      timer,
      declined: old?.declined ?? false,
      lastAt: this.clock.now(),
    });
    if (!old) this.onNew(from);
  }

  decline(key: string): boolean {
    const e = this.entries.get(key);
    if (!e || e.declined) return false;
    e.declined = true;
    return true;
  }

  /** A valid, not declined invitation from `key`. */
  get(key: string): RemotePeer | undefined {
    const e = this.entries.get(key);
    return e && !e.declined ? e.peer : undefined;
  }

  /** Valid, not declined invitations, the most recent copy first. */
  active(): RemotePeer[] {
    return [...this.entries.values()]
      .filter((e) => !e.declined)
      .sort((a, b) => b.lastAt - a.lastAt)
      .map((e) => e.peer);
  }

  clear(): void {
    for (const e of this.entries.values()) {
      e.timer.cancel();
      this.hosts.remove(hostOf(e.peer.address));
    }
    this.entries.clear();
  }
}
