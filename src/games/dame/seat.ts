import type { Timer } from '../../core/clock.js';
import { DEFAULT_SEAT_NAMES, type ProtocolFault, type Seat, type ServerGroup } from './protocol.js';
import type { DameState } from './rules.js';
import type { DameSeatKind, DameSeatRow } from './snapshot.js';

/** A seat of a match, the connection that sits in it, and the groups built from seats. */

/** A connection as the match sees it. */
export interface SeatPeer {
  readonly conn: string;
  readonly address: string;
  /** Writes one group (paced, spec §2.6); `onWritten` runs once it has actually gone out. */
  send(group: ServerGroup, onWritten?: () => void): void;
  /** Writes the error line and closes the connection. */
  fail(fault: ProtocolFault): void;
  /** Closes the connection once everything queued has been written. */
  close(): void;
  /** From now on the connection's wire log belongs to this record (earlier lines included). */
  attachRecord(matchId: string): void;
}

/** The client line the seat owes: none, or the answer to WAIT, MOVE, OKTHINK. */
export type Expecting = 'nothing' | 'OKWAIT' | 'THINKING' | 'PLAY';

export interface SeatState {
  readonly seat: Seat;
  readonly name: string;
  kind: DameSeatKind;
  peer: SeatPeer | null;
  address: string | null;
  expecting: Expecting;
  /** Fires the next WAIT. */
  idle: Timer | null;
  /** Fires the timeout of the answer owed. */
  answer: Timer | null;
  /** The turn came while an OKWAIT was outstanding: MOVE follows the OKWAIT. */
  moveOwed: boolean;
  /** The game ended while an OKWAIT was outstanding: GAMEOVER follows the OKWAIT. */
  gameOverOwed: boolean;
  /** Got an error line: no GAMEOVER for it. */
  failed: boolean;
}

export function newSeat(seat: Seat, engine: boolean, name: string = DEFAULT_SEAT_NAMES[seat]): SeatState {
  return {
    seat,
    name,
    kind: engine ? 'engine' : 'open',
    peer: null,
    address: engine ? 'engine' : null,
    expecting: 'nothing',
    idle: null,
    answer: null,
    moveOwed: false,
    gameOverOwed: false,
    failed: false,
  };
}

export function cancelTimers(s: SeatState): void {
  s.idle?.cancel();
  s.answer?.cancel();
  s.idle = null;
  s.answer = null;
}

/** Back to an open seat (a client left or was dropped before the game started). */
export function openSeat(s: SeatState): void {
  cancelTimers(s);
  s.kind = 'open';
  s.peer = null;
  s.address = null;
  s.expecting = 'nothing';
  s.moveOwed = false;
  s.gameOverOwed = false;
  s.failed = false;
}

const ready = (s: SeatState): boolean => s.kind === 'engine' || (s.kind === 'client' && s.peer !== null);

/** YOU … ENDPLAYERS for the client in `seat`. */
export function playersGroup(seats: readonly [SeatState, SeatState], seat: Seat): ServerGroup {
  const other = seats[seat === 0 ? 1 : 0];
  return {
    type: 'players',
    you: { seat, name: seats[seat].name, ready: true },
    others: [{ seat: other.seat, name: other.name, ready: ready(other) }],
  };
}

/** The GAMEOVER block: a draw is a win for both; an aborted game for nobody. */
export function gameOverGroup(state: DameState): ServerGroup {
  const r = state.result;
  const winners: [boolean, boolean] =
    r === null ? [false, false] : r.kind === 'drawn' ? [true, true] : [r.winner === 'white', r.winner === 'black'];
  return { type: 'gameOver', board: state, winners };
}

export function seatRow(s: SeatState): DameSeatRow {
  return { seat: s.seat, name: s.name, kind: s.kind, connected: ready(s), address: s.address };
}
