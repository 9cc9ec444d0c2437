/**
 * The public Dame server state as the dashboard shows it. Dame has no hidden information, so a
 * spectator sees every board. Types only: the web app imports this file.
 */

export type DameSeatKind = 'open' | 'client' | 'engine';
export type DameGameStatus = 'waiting' | 'running' | 'over';

export interface DameSeatRow {
  /** 0 = White (moves first), 1 = Black. */
  seat: 0 | 1;
  name: string;
  kind: DameSeatKind;
  /** A client is connected now (an engine seat always is). */
  connected: boolean;
  /** `host:port` of the client, `engine`, or null for an open seat. */
  address: string | null;
}

export interface DameResultRow {
  /** null for a draw or an aborted game. */
  winner: 0 | 1 | null;
  /** `no-pieces`, `no-moves`, `repetition`, `fifty-moves`, `timeout`, `invalid-move: <reason>`,
   * `disconnect`, `protocol-error: <line>`, `server stopped`, `internal error`. */
  reason: string;
}

export interface DameGameRow {
  /** The 13-character game id a client sends with `ID`. */
  id: string;
  name: string;
  createdAt: number;
  startedAt: number | null;
  endedAt: number | null;
  status: DameGameStatus;
  moveTimeMs: number;
  seats: [DameSeatRow, DameSeatRow];
  /** The seat to move while running, else null. */
  toMove: 0 | 1 | null;
  /** The side to move has captured and owes a follow-up single move. */
  mustContinue: boolean;
  /** The 8 BOARD rows as on the wire, rank 8 first, e.g. `8 * b * b * b * b`. */
  board: string[];
  /** Single moves played. */
  plies: number;
  /** The last single move, e.g. `D4:F6`. */
  lastMove: string | null;
  result: DameResultRow | null;
  /** The id of its record in the record store, once the game has started. */
  matchId: string | null;
}

export interface DameSnapshot {
  game: 'dame';
  port: number;
  mode: 'auto' | 'v2' | 'v3';
  /** Games waiting for players or running, oldest first. */
  games: DameGameRow[];
  /** The latest ended games, newest first (at most 20). */
  recent: DameGameRow[];
  /** Games ended since the server started. */
  gamesPlayed: number;
}
