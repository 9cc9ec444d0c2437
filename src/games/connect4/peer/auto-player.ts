import { systemClock, type Clock, type Timer } from '../../../core/clock.js';
import { silentLogger, type Logger } from '../../../core/log.js';
import { legalMoves, type C4State } from '../rules.js';
import type { DrivenPeer, PeerEvent, RemotePeer } from './types.js';

/**
 * Drives a Peer without a human: accepts invitations while idle (decision 12), asks the chooser
 * for a column whenever it is our turn, and returns to the lobby when a game's end window closes.
 * It never invites anyone; a caller that wants that calls `peer.invite` itself.
 *
 * Which invitation it accepts is the `admission`'s choice (default: the most recent one); the
 * house bots share one that gives every remote IP a fair share (house.ts). Its event handler and
 * timers are error boundaries: an exception ends at most the running game (`peer.internalError`).
 */

export type MoveChooser = (state: C4State) => number | Promise<number>;

/** Which invitations an AutoPlayer accepts, and when. */
export interface Admission {
  /** The invitation to accept among the valid ones (the most recent copy first), or null to wait. */
  pick(invitations: readonly RemotePeer[]): RemotePeer | null;
  /** After `pick` chose to wait: in how many ms it may choose differently (null: not by itself). */
  retryInMs(invitations: readonly RemotePeer[]): number | null;
  /** The peer holds a game (or an acceptance) with `opponent` from now on… */
  hold(opponent: RemotePeer): void;
  /** …and no longer: it is back in the lobby. */
  release(opponent: RemotePeer): void;
}

export interface AutoPlayerOptions {
  /** Accept invitations while idle (default true). */
  acceptInvitations?: boolean;
  /** Waits this long before asking the chooser (default 0: at the next timer tick). */
  thinkDelayMs?: number;
  /** Which invitation to accept (default: the most recent). */
  admission?: Admission;
  clock?: Clock;
  log?: Logger;
}

export interface AutoPlayerStats {
  games: number;
  won: number;
  lost: number;
  drawn: number;
  aborted: number;
}

export class AutoPlayer {
  readonly stats: AutoPlayerStats = { games: 0, won: 0, lost: 0, drawn: 0, aborted: 0 };
  private readonly unsubscribe: () => void;
  private readonly clock: Clock;
  private readonly log: Logger;
  private stopped = false;
  /** The opponent (or inviter) this peer is busy with, as told to the admission. */
  private holding: RemotePeer | null = null;
  private retry: Timer | null = null;

  constructor(
    private readonly peer: DrivenPeer,
    private readonly choose: MoveChooser,
    private readonly options: AutoPlayerOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.log = options.log ?? silentLogger;
    this.unsubscribe = peer.on((event) => this.guarded(() => this.onEvent(event)));
    this.guarded(() => this.acceptIfIdle());
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
    this.retry?.cancel();
    this.retry = null;
    this.release();
  }

  /** An error boundary: an exception here ends at most the peer's running game (only `gameId`, if given). */
  private guarded(fn: () => void, gameId?: string): void {
    try {
      fn();
    } catch (error) {
      this.peer.internalError(error, 'bot', gameId);
    }
  }

  private onEvent(event: PeerEvent): void {
    if (this.stopped) return;
    switch (event.type) {
      case 'phase':
        if (event.phase === 'lobby' || event.phase === 'stopped') this.release();
        this.acceptIfIdle();
        break;
      case 'invitation':
      case 'invite-expired':
        this.acceptIfIdle();
        break;
      case 'game-started':
        this.stats.games++;
        if (this.holding?.key !== event.game.opponent.key) {
          // We invited (or the game is with someone else than the one we accepted).
          this.release();
          this.hold(event.game.opponent);
        }
        break;
      case 'your-turn':
        this.clock.setTimeout(
          () => this.guarded(() => this.think(event.gameId, event.state), event.gameId),
          this.options.thinkDelayMs ?? 0,
        );
        break;
      case 'game-over':
        this.stats[event.outcome]++;
        break;
      case 'aborted':
        this.stats.aborted++;
        break;
      case 'end-window-closed':
        if (this.peer.game?.id === event.gameId) this.peer.backToLobby();
        break;
      default:
        break;
    }
  }

  private hold(opponent: RemotePeer): void {
    this.holding = opponent;
    this.options.admission?.hold(opponent);
  }

  private release(): void {
    const h = this.holding;
    if (!h) return;
    this.holding = null;
    this.options.admission?.release(h);
  }

  private acceptIfIdle(): void {
    if (
      this.stopped ||
      this.options.acceptInvitations === false ||
      this.peer.phase !== 'lobby' ||
      this.peer.invitee !== null
    )
      return;
    const invitations = this.peer.invitations();
    if (invitations.length === 0) return;
    const admission = this.options.admission;
    const from = admission ? admission.pick(invitations) : invitations[0];
    if (!from) {
      this.retryIn(admission?.retryInMs(invitations) ?? null);
      return;
    }
    this.release();
    this.hold(from);
    if (!this.peer.accept(from.key).ok) this.release();
  }

  /** Looks at the invitations again in `ms` (one such timer at a time). */
  private retryIn(ms: number | null): void {
    if (ms === null || this.retry) return;
    this.retry = this.clock.setTimeout(
      () =>
        this.guarded(() => {
          this.retry = null;
          this.acceptIfIdle();
        }),
      Math.max(1, ms),
    );
  }

  private stillOurs(gameId: string, state: C4State): boolean {
    const g = this.peer.game;
    return (
      !this.stopped &&
      this.peer.phase === 'playing' &&
      g?.id === gameId &&
      g.state.moves.length === state.moves.length
    );
  }

  private think(gameId: string, state: C4State): void {
    if (!this.stillOurs(gameId, state)) return;
    let choice: number | Promise<number>;
    try {
      choice = this.choose(state);
    } catch (error) {
      this.log.error({ err: error }, 'move chooser failed');
      this.play(gameId, state, null);
      return;
    }
    if (typeof choice === 'number') this.play(gameId, state, choice);
    else
      choice.then(
        (column) => this.guarded(() => this.play(gameId, state, column), gameId),
        (error: unknown) => {
          this.log.error({ err: error }, 'move chooser failed');
          this.guarded(() => this.play(gameId, state, null), gameId);
        },
      );
  }

  /** Plays the chosen column, or the first legal one if the chooser failed or chose badly. */
  private play(gameId: string, state: C4State, column: number | null): void {
    if (!this.stillOurs(gameId, state)) return;
    if (column !== null && this.peer.move(column).ok) return;
    if (column !== null) this.log.warn({ column }, 'move chooser picked an illegal column');
    const fallback = legalMoves(state)[0];
    if (fallback !== undefined) this.peer.move(fallback);
  }
}
