import { systemClock, type Clock } from '../../core/clock.js';
import { guard } from '../../core/guard.js';
import { hostOf } from '../../core/hosts.js';
import { silentLogger, type Logger } from '../../core/log.js';
import type { BotLevel } from './bots/index.js';
import type { Address, Admission, Peer, PeerEvent, RemotePeer } from './peer.js';

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
  /** Invitations the house bots never accept (a ladder code's: the Liga peer plays those). */
  refuses?: (peer: RemotePeer) => boolean;
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
      if (this.o.refuses?.(p) === true || !this.admissible(p, now)) continue;
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

/** One house game between the perfect house bot and its sparring partner. */
export interface HouseGamePlan {
  /** House games started before this one (0, 1, 2, …). */
  readonly index: number;
  /** The side that invites, and so moves first. */
  readonly first: 'house' | 'sparring';
  /** The level the sparring bot plays in this game (the house bot always plays perfect). */
  readonly sparringLevel: BotLevel;
}

/**
 * The sparring bot's levels in house games, in turn: the configured one first, then each weaker
 * one, so a spectator sees the perfect solver against a good bot and against a weak one.
 */
export function sparringRotation(configured: BotLevel): BotLevel[] {
  const order: BotLevel[] = ['perfect', 'strong', 'easy'];
  return [configured, ...order.slice(order.indexOf(configured) + 1)];
}

/**
 * House game `index` of a deterministic schedule: who moves first alternates from game to game,
 * and every level of `levels` plays one game as first and one as second player before the next
 * level's turn (sparring first, house first, with levels[0]; then the same with levels[1]; …).
 */
export function houseGamePlan(index: number, levels: readonly BotLevel[]): HouseGamePlan {
  const level = levels[Math.floor(index / 2) % levels.length];
  if (level === undefined) throw new RangeError('no sparring levels');
  return { index, first: index % 2 === 0 ? 'sparring' : 'house', sparringLevel: level };
}

export interface SparringSide {
  readonly peer: Peer;
  readonly address: Address;
}

export interface SparringSchedulerOptions {
  /** The perfect house bot. */
  house: SparringSide;
  sparring: SparringSide;
  pauseMs: number;
  /** The sparring bot's levels in turn (see houseGamePlan). */
  levels: readonly BotLevel[];
  log?: Logger;
}

/**
 * The house loop: invites between the two house peers whenever both idle in the lobby for a pause,
 * following houseGamePlan. The schedule moves on only when a game has started, so an invitation
 * that came to nothing (the invitee took someone else's) is tried again with the same plan and the
 * first player still alternates from game to game. Its timer is an error boundary: an exception is
 * logged and the loop goes on with the next pause.
 */
export class SparringScheduler {
  private timer: NodeJS.Timeout | null = null;
  private started = 0;
  /** The plan of the invitation we sent, until its game starts or it expires. */
  private inviting: HouseGamePlan | null = null;
  private playing: HouseGamePlan | null = null;
  private stopped = false;
  private readonly offs: (() => void)[];
  private readonly log: Logger;
  private readonly a: Peer;
  private readonly b: Peer;

  constructor(private readonly o: SparringSchedulerOptions) {
    this.a = o.house.peer;
    this.b = o.sparring.peer;
    this.log = (o.log ?? silentLogger).child({ game: 'connect4' });
    const schedule = guard(this.log, 'connect4 house loop', () => this.schedule());
    const watch = (side: 'house' | 'sparring') =>
      guard(this.log, 'connect4 house loop', (event: PeerEvent) => {
        this.follow(side, event);
        this.schedule();
      });
    this.offs = [this.a.on(watch('house')), this.b.on(watch('sparring'))];
    schedule();
  }

  /** House games started so far. */
  get gamesStarted(): number {
    return this.started;
  }

  /** The plan of the house game being played (or the last one), null before the first. */
  get current(): HouseGamePlan | null {
    return this.playing;
  }

  /**
   * The level the sparring bot plays in its running game: the plan's in a game with the house bot,
   * `fallback` (the configured level) against anyone else.
   */
  sparringLevel(fallback: BotLevel): BotLevel {
    const opponent = this.b.game?.opponent;
    const house = this.o.house.address;
    const withHouse = opponent !== undefined && opponent.port === house.port && (house.address === '0.0.0.0' || opponent.address === house.address);
    return withHouse && this.playing !== null ? this.playing.sparringLevel : fallback;
  }

  stop(): void {
    this.stopped = true;
    for (const off of this.offs) off();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private follow(side: 'house' | 'sparring', event: PeerEvent): void {
    const plan = this.inviting;
    if (plan === null || side !== plan.first) return;
    if (event.type === 'invite-expired') this.inviting = null;
    // The inviter's game is the planned one: our peers invite only through this loop.
    if (event.type === 'game-started' && event.game.firstPlayer === 'local') {
      this.inviting = null;
      this.started++;
      this.playing = plan;
    }
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
        const plan = houseGamePlan(this.started, this.o.levels);
        const [inviter, target] = plan.first === 'sparring' ? [this.b, this.o.house.address] : [this.a, this.o.sparring.address];
        this.inviting = inviter.invite(target).ok ? plan : null;
      },
      // Whatever failed, the next pause tries again.
      () => {
        this.timer = null;
        this.schedule();
      },
    );
    this.timer = setTimeout(fire, this.o.pauseMs);
    this.timer.unref();
  }
}
