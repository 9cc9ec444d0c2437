import type { LadderGame, LossReason, Rating, RatingPoint, Season } from '../../src/ladder/types.js';

/**
 * What Die Liga's API (src/web/ladder-api.ts) answers, as the Liga pages read it. The shapes of
 * the ladder's own values (seasons, ratings, reasons) come from src/ladder/types.ts; the answers
 * around them are spelled here, where they are read.
 */

export type { LadderGame, LossReason, RatingPoint, Season };

/** `GET /api/ladder` (`enabled: false` and no games when the ladder is off). */
export interface LadderOverview {
  enabled: boolean;
  games: {
    game: LadderGame;
    season: Season;
    live: {
      waiting: { entryId: string; name: string; since: number; seat: 0 | 1 | null }[];
      playing: { gameId: string; names: string[]; startedAt: number }[];
    } | null;
  }[];
  houseAfterMs: number;
  minGames: number;
}

export interface LadderStandingsRow {
  place: number;
  name: string;
  group: string;
  rating: number;
  rd: number;
  low: number;
  high: number;
  games: number;
  established: boolean;
  wins: number;
  draws: number;
  losses: number;
  lastPlayedAt: number | null;
}

/** `GET /api/ladder/:game/standings`. */
export interface LadderStandings {
  game: LadderGame;
  season: Season;
  minGames: number;
  rows: LadderStandingsRow[];
}

export interface LadderMyGame {
  id: string;
  at: number;
  seat: number;
  opponent: string;
  opponentIsHouse: boolean;
  /** 1 win, 0.5 draw, 0 loss (Catan: the place's share of the field). */
  score: number;
  /** The place among `players` seats (Catan has 3–4). */
  place: number;
  players: number;
  ratingBefore: number;
  ratingAfter: number;
  /** Why this student lost (or was forfeited), null otherwise. */
  reason: LossReason | null;
  recordId: string | null;
}

/** `GET /api/ladder/me/:token`: a student's private page. */
export interface LadderMe {
  entry: { name: string; group: string; code: string; reservation: string };
  games: {
    game: LadderGame;
    season: Season;
    rating: (Rating & { interval: [number, number]; established: boolean }) | null;
    history: RatingPoint[];
    games: LadderMyGame[];
  }[];
  minGames: number;
}

/** A roster entry as staff see it (`GET /api/ladder/roster`). */
export interface StaffEntry {
  id: string;
  name: string;
  group: string;
  code: string;
  reservation: string;
  /** `/liga/<pageToken>`. */
  page: string;
  revoked: boolean;
  createdAt: number;
}

/** A line of a refused CSV import (`POST /api/ladder/roster` → 400 `{errors}`). */
export interface RosterCsvError {
  line: number;
  message: string;
}

/** The private page's full link, to hand to a student (the server answers the path with the dashboard). */
export const pageLink = (page: string): string => `${window.location.origin}${page}`;

const LOCAL = new Set(['localhost', '127.0.0.1', '[::1]', '']);

/** Where a client connects: the dashboard's host (127.0.0.1 for a local one) and the game server's port. */
export const serverAddress = (port: number | null): string => {
  const host = window.location.hostname;
  return `${LOCAL.has(host) ? '127.0.0.1' : host}${port === null ? '' : `:${port}`}`;
};

/**
 * What a student types to play on the ladder with their unchanged client: the code in the field
 * the protocol already has (docs/ladder.md). Placeholders (`<code>`) on the public page, the
 * student's own codes on their page.
 */
export function joinCommand(
  game: LadderGame,
  codes: { code: string; reservation: string },
  port: number | null,
): string {
  const host = serverAddress(null);
  switch (game) {
    case 'dame':
      return `./sysprak-client -g ${codes.code}`;
    case 'ostseeschach':
      return `java -jar client.jar -h ${host} -p ${port ?? 13050} -r ${codes.reservation}`;
    default:
      return codes.code;
  }
}

/** `+12`, `−7`, `±0`. */
export const signed = (n: number): string => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '±0');

/** The result of a score in 'won' | 'draw' | 'lost'. */
export const outcomeOf = (score: number): 'won' | 'draw' | 'lost' =>
  score >= 0.75 ? 'won' : score <= 0.25 ? 'lost' : 'draw';
