import type { Clock } from '../../core/clock.js';
import type { SeatRecord } from '../../core/records.js';
import type { Records } from '../../core/record-backend.js';
import type { Team } from './board.js';

/**
 * A room's entry in the record store: opened when the game starts (or when it ends with a result
 * before it could start), one event per move, violation, timeout or admin step, and the result.
 * Without a store it records nothing.
 */
export class RoomRecord {
  private id: string | null = null;
  private finished = false;

  constructor(
    private readonly store: Records | null,
    private readonly clock: Clock,
  ) {}

  /** The record-store id, null until the record is opened. */
  get matchId(): string | null {
    return this.id;
  }

  open(seed: string, seats: SeatRecord[], house: boolean, meta: unknown): void {
    if (this.id !== null || !this.store) return;
    this.id = this.store.startMatch({ game: 'ostseeschach', seed, startedAt: this.clock.now(), seats, meta, house });
  }

  event(team: Team | null, type: string, data: unknown): void {
    if (this.id === null) return;
    const seat = team === null ? null : team === 'ONE' ? 0 : 1;
    this.store?.addEvent(this.id, { at: this.clock.now(), seat, type, data });
  }

  /** Ends the record (once: a later call is ignored); true if this call ended it. */
  finish(status: 'finished' | 'aborted', result: unknown): boolean {
    if (this.id === null || this.finished) return false;
    this.finished = true;
    this.store?.finishMatch(this.id, { status, endedAt: this.clock.now(), result });
    return true;
  }
}
