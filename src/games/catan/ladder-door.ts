import type { CatanLadderTicket } from './session.js';

export type { CatanLadderTicket, LadderSeat } from './session.js';

/**
 * How a Catan connection enters the rated ladder (issue 34) without knowing it: a student's client
 * connects to the server's ladder port (`games.catan.ladderPort`) and gives its personal ladder
 * code as its name (`Spieler` with `Name`), unchanged. The ladder (src/ladder/catan.ts) implements
 * this door; the hall asks it at `Spieler` and hands the connection over at `Spiel starten`. The
 * client then waits, as in any lobby, until the ladder has made its game (other students, or
 * house bots after the wait); the hall moves it into that game's lobby (`Hall.ladderGame`).
 */
export interface CatanLadderDoor {
  /**
   * `Spieler` on the ladder port: null when the name is no ladder code (`Ungueltiger Name`, and
   * the connection is closed); otherwise the name the game shows (the roster's), or a refusal in
   * words (a revoked code, a frozen season).
   */
  admit(code: string, host: string): { ok: true; name: string; ticket: CatanLadderTicket } | { ok: false; text: string } | null;
  /** Whether `code` is a ladder code (a student's secret: records show it as `(Liga-Code)`). */
  isCode(code: string): boolean;
}
