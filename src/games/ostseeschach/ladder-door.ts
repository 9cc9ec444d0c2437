import type { RoomPeer } from './room.js';

/**
 * How an Ostseeschach connection enters the rated ladder (issue 34) without knowing it: a
 * student's client redeems its personal reservation code as it redeems any (`-r <code>`, so
 * `<joinPrepared reservationCode="C"/>`), unchanged. When C is no prepared room's code, the lobby
 * asks this door; the ladder (src/ladder) implements it. An admitted connection gets no answer
 * until the ladder has made its game (another client, or a house bot after the ladder's wait):
 * then it is seated in a room made for the two sides and gets `<joined roomId="R"/>`, and the game
 * begins as any game of the server.
 */
export interface OstseeschachLadderDoor {
  /**
   * `joinPrepared` with a code no prepared room has: null when it is no ladder code either (the
   * normal path: UnknownReservationException); a refusal in words (a revoked code, a frozen
   * season, a code that already plays); or admitted, with the way out for a connection that
   * closes while it waits.
   */
  admit(reservationCode: string, waiter: OstseeschachLadderWaiter): { ok: true; leave: () => void } | { ok: false; text: string } | null;
  /** Whether `code` is a ladder code (a student's secret: records show it as `(Liga-Code)`). */
  isCode(code: string): boolean;
}

/** An admitted connection, until the ladder seats it or it is gone. */
export interface OstseeschachLadderWaiter {
  /** The remote IP (the ladder may keep two codes of one host apart). */
  readonly host: string;
  /** Still connected, neither seated nor refused. */
  readonly waiting: boolean;
  /**
   * The game is made: the connection leaves the waiting room to be seated (Lobby.openRoomFor).
   * Null when it is no longer waiting.
   */
  take(): RoomPeer | null;
  /**
   * No game will come (the ladder stopped, a limit, the opponent vanished before the start, a room
   * that could not be opened after `take`): the joinPrepared is refused as any refused join is,
   * with these words, and the connection stays.
   */
  refuse(text: string): void;
}
