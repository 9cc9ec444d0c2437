import { systemClock, type Clock } from '../../../core/clock.js';
import { silentLogger, type Logger } from '../../../core/log.js';
import type { Peer } from '../peer.js';
import { legalMoves, type C4State } from '../rules.js';
import type { PeerEvent } from './types.js';

/**
 * Drives a Peer without a human: accepts any invitation while idle (decision 12), asks the chooser
 * for a column whenever it is our turn, and returns to the lobby when a game's end window closes.
 * It never invites anyone; a caller that wants that calls `peer.invite` itself.
 */

export type MoveChooser = (state: C4State) => number | Promise<number>;

export interface AutoPlayerOptions {
  /** Accept invitations while idle in the lobby (default true). */
  acceptInvitations?: boolean;
  /** Waits this long before asking the chooser (default 0: at the next timer tick). */
  thinkDelayMs?: number;
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

  constructor(
    private readonly peer: Peer,
    private readonly choose: MoveChooser,
    private readonly options: AutoPlayerOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.log = options.log ?? silentLogger;
    this.unsubscribe = peer.on((event) => this.onEvent(event));
    this.acceptIfIdle();
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
  }

  private onEvent(event: PeerEvent): void {
    if (this.stopped) return;
    switch (event.type) {
      case 'invitation':
      case 'phase':
      case 'invite-expired':
        this.acceptIfIdle();
        break;
      case 'game-started':
        this.stats.games++;
        break;
      case 'your-turn':
        this.clock.setTimeout(() => this.think(event.gameId, event.state), this.options.thinkDelayMs ?? 0);
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

  private acceptIfIdle(): void {
    if (this.options.acceptInvitations === false || this.peer.phase !== 'lobby' || this.peer.invitee !== null)
      return;
    if (this.peer.invitations().length > 0) this.peer.accept();
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
        (column) => this.play(gameId, state, column),
        (error: unknown) => {
          this.log.error({ err: error }, 'move chooser failed');
          this.play(gameId, state, null);
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
