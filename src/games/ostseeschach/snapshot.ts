import type { Move, PieceEntry, Team } from './board.js';
import type { ScoreEntry } from './protocol.js';

/**
 * The public Ostseeschach server as the dashboard shows it. Everything here is public on the
 * official server too (the game has no hidden information); reservation codes and the admin
 * password never appear.
 */

export interface OstseeschachSeatRow {
  team: Team;
  /** The prepared display name; '' in rooms created by `join`. */
  name: string;
  /** `address:port` of the connection in this seat, null while the seat is empty. */
  address: string | null;
  /** Waiting for a reservation code (prepared rooms). */
  reserved: boolean;
  canTimeout: boolean;
  /** Why the player left (LOST_CONNECTION, …), null while present. */
  left: string | null;
}

/** The board as any spectator sees it. */
export interface OstseeschachBoardView {
  turn: number;
  round: number;
  toMove: Team;
  /** In the official memento order. */
  pieces: PieceEntry[];
  ambers: Record<Team, number>;
  lastMove: Move | null;
}

export type OstseeschachRoomStatus = 'waiting' | 'running' | 'paused' | 'over';

export interface OstseeschachRoomRow {
  roomId: string;
  /** The record-store id once the game has started. */
  matchId: string | null;
  status: OstseeschachRoomStatus;
  /** Created by an admin `prepare` (else by `join`). */
  prepared: boolean;
  /** ONE's start-line layout (`RMRSHSMH`). */
  layout: string;
  seats: OstseeschachSeatRow[];
  observers: number;
  /** The team whose move is requested, null when none is. */
  awaiting: Team | null;
  board: OstseeschachBoardView;
  createdAt: number;
}

export interface OstseeschachResultRow {
  roomId: string;
  matchId: string | null;
  endedAt: number;
  turn: number;
  winner: Team | null;
  /** ONE, then TWO; empty when the room closed without a result (a one-player room). */
  scores: ScoreEntry[];
  layout: string;
  /** The board the game ended on (the dashboard keeps showing it). */
  board: OstseeschachBoardView;
}

export interface OstseeschachSnapshot {
  game: 'ostseeschach';
  port: number;
  connections: number;
  rooms: OstseeschachRoomRow[];
  /** The latest finished rooms, newest first (at most 20). */
  recent: OstseeschachResultRow[];
  gamesPlayed: number;
}

/** A recorded game as the dashboard replays it (`/api/ostseeschach/replay/<match-id>`). */
export interface OstseeschachReplay {
  matchId: string;
  roomId: string | null;
  status: 'running' | 'finished' | 'aborted' | 'superseded';
  layout: string;
  /** ONE's and TWO's names. */
  names: [string, string];
  /** The board before the first move and after each move: `frames[i]` is after `moves[i - 1]`. */
  frames: OstseeschachBoardView[];
  /** `xy-xy`, in order. */
  moves: string[];
  /** The recorded early ending (a rule violation, a timeout or a leave) and whose it was. */
  ending: { team: Team | null; type: string; detail: string } | null;
  winner: Team | null;
  scores: ScoreEntry[];
  /** Where the record and the rules disagree (empty for every game our server recorded). */
  problems: string[];
}
