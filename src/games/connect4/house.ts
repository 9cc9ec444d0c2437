import { systemClock, type Clock } from '../../core/clock.js';
import { guard } from '../../core/guard.js';
import { hostOf } from '../../core/hosts.js';
import { silentLogger, type Logger } from '../../core/log.js';
import type { Address, Admission, Peer, RemotePeer } from './peer.js';

/**
 * The house bots' side of fair play. Anyone may invite them, so what one remote IP can hold is
 * capped (`HouseAdmission`): a host flooding invitations from many ports gets at most
 * `maxGamesPerHost` games with the house bots at once, and after each game the bots accept that
 * host again only `hostPauseMs` later, while the invitations of others (the sparring partner
 * included) go first. `SparringScheduler` is the house loop: the two bots invite each other
 * whenever both idle in the lobby.
 */

export interface HouseAdmissionOptions {
  /** Games (and acceptances) the house bots together hold with one remote IP at once; 0: no cap. */
  maxGamesPerHost: number;
  /** After a game with an IP, the house bots accept that IP again only this much later. */
  hostPauseMs: number;
  /** Our own peers (the sparring partner): neither capped nor paused. */
  isOwn: (peer: Address) => boolean;
  clock?: Clock;
}

const MAX_REMEMBERED = 10_000;

/** One admission for all house bots, so that their caps and pauses count together. */
export class HouseAdmission implements Admission {
  private readonly clock: Clock;
  /** Games and acceptances held per IP. */
  private readonly held = new Map<string, number>();
  /** When each IP may be accepted again. */
  private readonly pausedUntil = new Map<string, number>();
  /** The round robin: when each IP (or own peer) last got a game, oldest first. */
  private readonly served = new Map<string, number>();
  private turn = 0;

  constructor(private readonly o: HouseAdmissionOptions) {
    this.clock = o.clock ?? systemClock;
  }

  /** Games held with `host` right now (for tests and the dashboard). */
  holding(host: string): number {
    return this.held.get(host) ?? 0;
  }

  /** The admissible invitation whose host waited longest since its last game (never: first). */
  pick(invitations: readonly RemotePeer[]): RemotePeer | null {
    const now = this.clock.now();
    let best: RemotePeer | null = null;
    let bestServed = Infinity;
    for (const p of invitations) {
      if (!this.admissible(p, now)) continue;
      const served = this.served.get(this.keyOf(p)) ?? -1;
      if (served < bestServed) {
        best = p;
        bestServed = served;
      }
    }
    return best;
  }

  retryInMs(invitations: readonly RemotePeer[]): number | null {
    const now = this.clock.now();
    let soonest: number | null = null;
    for (const p of invitations) {
      if (this.o.isOwn(p) || this.atCap(hostOf(p.address))) continue;
      const until = this.pausedUntil.get(hostOf(p.address)) ?? 0;
      if (until > now) soonest = Math.min(soonest ?? Infinity, until - now);
    }
    return soonest;
  }

  hold(opponent: RemotePeer): void {
    const key = this.keyOf(opponent);
    this.served.delete(key);
    this.served.set(key, ++this.turn);
    if (this.served.size > MAX_REMEMBERED)
      for (const k of [...this.served.keys()].slice(0, MAX_REMEMBERED / 10)) this.served.delete(k);
    if (this.o.isOwn(opponent)) return;
    const host = hostOf(opponent.address);
    this.held.set(host, (this.held.get(host) ?? 0) + 1);
  }

  release(opponent: RemotePeer): void {
    if (this.o.isOwn(opponent)) return;
    const host = hostOf(opponent.address);
    const n = this.held.get(host) ?? 0;
    if (n <= 1) this.held.delete(host);
    else this.held.set(host, n - 1);
    const now = this.clock.now();
    if (this.o.hostPauseMs > 0) {
      if (this.pausedUntil.size > MAX_REMEMBERED)
        for (const [k, until] of this.pausedUntil) if (until <= now) this.pausedUntil.delete(k);
      this.pausedUntil.set(host, now + this.o.hostPauseMs);
    }
  }

  private keyOf(p: Address): string {
    return this.o.isOwn(p) ? `own ${p.address}:${p.port}` : hostOf(p.address);
  }

  private atCap(host: string): boolean {
    return this.o.maxGamesPerHost > 0 && (this.held.get(host) ?? 0) >= this.o.maxGamesPerHost;
  }

  private admissible(p: Address, now: number): boolean {
    if (this.o.isOwn(p)) return true;
    const host = hostOf(p.address);
    return !this.atCap(host) && (this.pausedUntil.get(host) ?? 0) <= now;
  }
}

/**
 * The house loop: invites between the two house peers whenever both idle in the lobby for a pause,
 * taking turns so each moves first every other game. Its timer is an error boundary: an exception
 * is logged and the loop goes on with the next pause.
 */
export class SparringScheduler {
  private timer: NodeJS.Timeout | null = null;
  private turn = 0;
  private stopped = false;
  private readonly offs: (() => void)[];
  private readonly log: Logger;

  constructor(
    private readonly a: Peer,
    private readonly aAddress: Address,
    private readonly b: Peer,
    private readonly bAddress: Address,
    private readonly pauseMs: number,
    private readonly onGame: () => void,
    log: Logger = silentLogger,
  ) {
    this.log = log.child({ game: 'connect4' });
    const schedule = guard(this.log, 'connect4 house loop', () => this.schedule());
    this.offs = [a.on(schedule), b.on(schedule)];
    schedule();
  }

  stop(): void {
    this.stopped = true;
    for (const off of this.offs) off();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private idle(): boolean {
    return (
      this.a.phase === 'lobby' &&
      this.b.phase === 'lobby' &&
      this.a.invitee === null &&
      this.b.invitee === null
    );
  }

  private schedule(): void {
    if (this.stopped || this.timer || !this.idle()) return;
    const fire = guard(
      this.log,
      'connect4 house loop',
      () => {
        this.timer = null;
        if (this.stopped || !this.idle()) return;
        const [inviter, target] = this.turn++ % 2 === 0 ? [this.b, this.aAddress] : [this.a, this.bAddress];
        if (inviter.invite(target).ok) this.onGame();
      },
      // Whatever failed, the next pause tries again.
      () => {
        this.timer = null;
        this.schedule();
      },
    );
    this.timer = setTimeout(fire, this.pauseMs);
    this.timer.unref();
  }
}
