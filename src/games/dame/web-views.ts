/**
 * The JSON a browser player exchanges with `/ws/dame/play` (src/games/dame/web.ts). Types only,
 * so the browser app can import them without pulling in Node. The browser never computes a rule:
 * it offers exactly the `legal` moves it is sent.
 */

export type DameSeatNumber = 0 | 1;

/** One legal single move of the position the server asked about, in wire square names. */
export interface DameLegalMove {
  from: string;
  to: string;
  /** The square of the piece it jumps, or null for a step. */
  captured: string | null;
  promotes: boolean;
}

/**
 * `connecting`: the prolog is running; `waiting`: seated, the other seat is still open;
 * `their-turn`, `your-turn`: the game runs; `over`: the client has ended (result or error).
 */
export type DamePlayPhase = 'connecting' | 'waiting' | 'their-turn' | 'your-turn' | 'over';

export interface DamePlayResult {
  /** `error`: the client ended without a GAMEOVER block it could read (e.g. `- No free player`). */
  outcome: 'won' | 'lost' | 'draw' | 'error';
  /** `PLAYER0WON`/`PLAYER1WON` as read, or null without a GAMEOVER block. */
  winners: [boolean, boolean] | null;
  /** The server's reason as its record says (`no-pieces`, `timeout`, `disconnect`, …), when known. */
  reason: string | null;
  /** The `- ` line that ended the client, or what went wrong on its side. */
  error: string | null;
}

/** The whole state of the browser's seat, sent after every change. */
export interface DamePlayState {
  type: 'state';
  gameId: string;
  gameName: string | null;
  name: string;
  /** The seat the server gave (`+ YOU n`), null before. */
  seat: DameSeatNumber | null;
  phase: DamePlayPhase;
  /** The 8 BOARD rows, rank 8 first, without `+ `: the client's parsed board on your turn, else the public board. */
  board: string[];
  /** The last single move of the game (`D4:F6`), or null. */
  lastMove: string | null;
  /** The seat to move while the game runs, else null. */
  toMove: DameSeatNumber | null;
  plies: number;
  /** Move requests answered or pending so far: a new number is a new request. */
  turn: number;
  /** This request is the follow-up after a capture (same turn). */
  followUp: boolean;
  /** `+ MOVE <ms>` of the current request, or null. */
  moveTimeMs: number | null;
  /** Time left until the server's deadline when this message was sent, or null when not your turn. */
  remainingMs: number | null;
  /** The legal single moves of the current request; empty unless it is your turn. */
  legal: DameLegalMove[];
  opponent: { kind: string; connected: boolean; address: string | null } | null;
  result: DamePlayResult | null;
  /** The record of the game (its page shows the wire log of each connection). */
  matchId: string | null;
}

/** What the gateway sends: the state, every protocol line of its client, notices. */
export type DamePlayMessage =
  | DamePlayState
  /** One protocol line as it went over the wire (`in`: from the server, `out`: to the server). */
  | { type: 'line'; dir: 'in' | 'out'; line: string }
  /** A `- ` line from the server, verbatim. */
  | { type: 'errorLine'; line: string }
  /** A move the gateway did not pass on (not legal, not your turn); the game goes on. */
  | { type: 'refused'; from: string; to: string; reason: string }
  | { type: 'notice'; text: string };

/** What the browser sends. */
export type DamePlayCommand = { type: 'move'; from: string; to: string };

/** A browser player now connected through the gateway (`GET /api/dame/players`). */
export interface DameBrowserPlayer {
  gameId: string;
  seat: DameSeatNumber;
  name: string;
  /** `host:port` of its connection as the Dame server sees it (the seat's address). */
  address: string | null;
  since: number;
}

/** One position of a replayed Dame record: the start (no move), then one per recorded single move. */
export interface DameReplayFrame {
  /** The 8 BOARD rows, rank 8 first. */
  board: string[];
  /** The single move that led here (`C3:D4`), who played it, and the square it jumped. */
  move: string | null;
  side: 'white' | 'black' | null;
  captured: string | null;
  /** Who moves next: a side, or null once the game is over. */
  toMove: 'white' | 'black' | null;
  /** The side to move owes a follow-up single move (after a capture). */
  mustContinue: boolean;
}

/** A recorded Dame game replayed through the rules (`GET /api/dame/replay/:id`). */
export interface DameReplay {
  matchId: string;
  status: string;
  /** The seat names, White first. */
  names: [string, string];
  gameId: string | null;
  gameName: string | null;
  tournamentMatch: string | null;
  frames: DameReplayFrame[];
  /** The recorded result: seat 0/1 winning, null for a draw or no winner, with the reason. */
  result: { winner: 0 | 1 | null; reason: string } | null;
  /** verifyDameMatch: whether the record could be checked, and what does not hold. */
  checked: boolean;
  problems: string[];
}
