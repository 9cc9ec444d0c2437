/**
 * Die Liga (issue 34): the always-on rated ladder. Students connect their unchanged clients with a
 * personal code; the ladder pairs them by rating (or with a house bot after a wait), plays the
 * game through the game's own server, and rates the result. These are the shapes its parts share:
 * the roster and the store (store.ts), the ratings (ratings.ts), the pairing (pairing.ts) and the
 * running ladder (ladder.ts) with one adapter per game.
 */

export type LadderGame = 'dame' | 'ostseeschach' | 'connect4' | 'mia' | 'catan';
export const LADDER_GAMES: readonly LadderGame[] = ['dame', 'ostseeschach', 'connect4', 'mia', 'catan'];

/** One student (or team) on the roster. */
export interface RosterEntry {
  /** Stable id of the entry (`e_` + 10 characters), never shown to other students. */
  id: string;
  /** What the tables and standings show (from the CSV or the dashboard). */
  name: string;
  /** The course group (tutorial, team); '' when none. */
  group: string;
  /**
   * The personal code in the shape an MNM game id has: 13 characters `[a-z0-9]`. Dame: the Game-ID
   * (`ID <code>`); Catan, Mia and Connect Four: the name a client gives.
   */
  code: string;
  /** The personal code in the shape of an official reservation (a UUID v4): Ostseeschach `-r`. */
  reservation: string;
  /** The private page's link token (32 characters `[A-Za-z0-9_-]`): /liga/<pageToken>. */
  pageToken: string;
  /** Revoked entries are refused with a clear error and paired with nobody. */
  revoked: boolean;
  createdAt: number;
}

/** A rating as the ladder keeps it: Glicko-2 for the 2-player games, OpenSkill (μ, σ) for Catan. */
export interface Rating {
  /** Glicko-2 rating on the Glicko scale (1500 start); OpenSkill: the displayed μ on the same scale. */
  rating: number;
  /** Rating deviation (Glicko-2 RD; OpenSkill: σ on the same scale). */
  rd: number;
  /** Glicko-2 volatility (OpenSkill: 0). */
  vol: number;
  /** Rated games played. */
  games: number;
}

/** Who sat in a ladder game: an entry of the roster, or a house bot of a level. */
export type LadderSide = { kind: 'entry'; entryId: string } | { kind: 'house'; level: string };

/** Why a side lost (or what ended the game), in the words the student page shows. */
export type LossReason =
  | { kind: 'played' } // lost on the board
  | { kind: 'timeout'; detail: string }
  | { kind: 'invalid-move'; detail: string; rule?: string }
  | { kind: 'protocol'; detail: string; scenario?: string; command?: string }
  | { kind: 'disconnect'; detail: string }
  | { kind: 'crash'; detail: string };

/** One seat of a finished ladder game. */
export interface LadderGameSeat {
  side: LadderSide;
  /** The name shown on the wire and in the record. */
  name: string;
  /** 1 win, 0.5 draw, 0 loss (2-player); Catan: the place's share (1 first … 0 last). */
  score: number;
  /** The rating before and after this game (a house bot's stays its anchor). */
  before: Rating;
  after: Rating;
  /** For a side that lost or was forfeited: why. */
  reason: LossReason | null;
}

export interface LadderGameRecord {
  id: string;
  game: LadderGame;
  season: string;
  startedAt: number;
  endedAt: number;
  seats: LadderGameSeat[];
  /** The game's record in the record store (replay and wire log), when it was recorded. */
  recordId: string | null;
}

export interface Season {
  id: string;
  name: string;
  startedAt: number;
  /** A frozen season takes no more games (standings for grading); an archived one is read-only history. */
  frozenAt: number | null;
  archivedAt: number | null;
}

/** One point of an entry's rating history (the plot on the student page). */
export interface RatingPoint {
  at: number;
  gameId: string;
  rating: number;
  rd: number;
}
