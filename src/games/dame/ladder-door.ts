import type { Match } from './match.js';
import type { Seat } from './protocol.js';
import type { SeatPeer } from './seat.js';

/**
 * How a Dame connection enters the rated ladder (issue 34) without knowing it: a student's client
 * sends its personal ladder code as the Game-ID (`ID <code>`), unchanged. The ladder (src/ladder)
 * implements this door; the server only asks it at `ID` and hands the connection over at `PLAYER`.
 * The answer to `PLAYER` (`+ YOU …`) comes when the ladder has found the opponent (another client
 * or a house bot within its wait), so the player list already names both sides.
 */
export interface DameLadderDoor {
  /**
   * `ID <gameId>`: null when the id is no ladder code (the normal path goes on); otherwise the
   * game name to answer with, or a refusal in words (a revoked code, a frozen season).
   */
  admit(gameId: string, host: string): { ok: true; gameName: string; ticket: DameLadderTicket } | { ok: false; text: string } | null;
}

/** An admitted code, until its connection is seated in a game or gone. */
export interface DameLadderTicket {
  /** `PLAYER [n]`: the connection waits for its game; `enter` is called when it is made. */
  wait(request: Seat | null, peer: DameLadderPeer): void;
  /** The connection is gone before it was seated (or failed the prolog). */
  leave(): void;
}

/** The connection's side, as the ladder sees it (and, once it has entered, its match). */
export interface DameLadderPeer extends SeatPeer {
  readonly address: string;
  readonly host: string;
  /**
   * The game is made: this connection plays `seat` of `match` from now on (the ladder then seats
   * both sides at once with `Match.joinTogether`). False when the connection is gone.
   */
  enter(match: Match, seat: Seat): boolean;
  /** No game can be made (the ladder stopped, a limit): the client gets this line and is closed. */
  refuse(text: string): void;
}
