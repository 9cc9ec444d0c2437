import { cleanName, nameKey, nameProblem, type RosterRow } from './roster.js';
import {
  LADDER_GAMES,
  type LadderGame,
  type LadderGameRecord,
  type LadderGameSeat,
  type LadderSide,
  type LossReason,
  type Rating,
  type RatingPoint,
  type RosterEntry,
  type Season,
} from './types.js';

/**
 * What the ladder's two stores share: the interface, its errors, the checks a call passes before
 * it touches the database, and the mapping of rows to records (the SQL both run is store-sql.ts).
 * The SQLite store (store.ts) and the PostgreSQL store (store-pg.ts) differ only in how they
 * connect, migrate, lock and name their tables.
 */

export type LadderStoreErrorCode =
  | 'duplicate-name'
  | 'invalid-name'
  | 'not-found'
  | 'revoked'
  | 'unknown-game'
  | 'season-frozen'
  | 'season-archived'
  | 'duplicate-game'
  | 'invalid-game'
  | 'invalid-rating'
  /** recordGame: an entry's stored rating is no longer the seat's `before` (another process rated it meanwhile). */
  | 'stale-rating'
  | 'newer-schema'
  | 'closed';

/** A refusal the caller can act on (`code`); anything else (a full disk) is the driver's error. */
export class LadderStoreError extends Error {
  override readonly name = 'LadderStoreError';
  constructor(
    readonly code: LadderStoreErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface StandingsRow {
  entry: RosterEntry;
  rating: Rating;
  /** Seats where the entry scored more than every other seat / tied for the best / else. */
  wins: number;
  draws: number;
  losses: number;
  lastPlayedAt: number | null;
}

export interface ListGamesOptions {
  game?: LadderGame | undefined;
  season?: string | undefined;
  entryId?: string | undefined;
  /** Default 100. */
  limit?: number | undefined;
  offset?: number | undefined;
}

/**
 * The ladder's store: the roster, the seasons, the ratings and the rated games. Asynchronous,
 * although the SQLite store works synchronously, so that the PostgreSQL store (many `serve`
 * processes, one ladder) sits behind it unchanged. Every failure, a synchronous one too, arrives
 * as a rejected promise.
 */
export interface LadderStore {
  /**
   * Adds entries with fresh codes, all or none. Names are cleaned (NFC, trimmed) and checked
   * (roster.ts); a name equal (ignoring case and spacing) to another new one or to an unrevoked
   * entry's is refused with `duplicate-name`, a bad one with `invalid-name`.
   */
  addEntries(rows: readonly RosterRow[], at: number): Promise<RosterEntry[]>;
  /** In the order they were added; revoked ones only when asked for. */
  listEntries(options?: { includeRevoked?: boolean | undefined }): Promise<RosterEntry[]>;
  getEntry(id: string): Promise<RosterEntry | null>;
  /**
   * The entry that has this code now (a code replaced by `renew` finds nothing). A revoked entry is
   * returned with `revoked: true`, so that the ladder can tell its student why it is refused.
   */
  byCode(code: string): Promise<RosterEntry | null>;
  /** As byCode, for the reservation (a UUID, in any letter case). */
  byReservation(reservation: string): Promise<RosterEntry | null>;
  /** As byCode, for the private page's token. */
  byPageToken(token: string): Promise<RosterEntry | null>;
  /** Revokes an entry (idempotent); its name is free for a new entry. */
  revoke(id: string, at: number): Promise<RosterEntry>;
  /** New code, reservation and page token; the old ones find nothing from then on. Refused for a revoked entry. */
  renew(id: string, at: number): Promise<RosterEntry>;
  rename(id: string, name: string, group: string): Promise<RosterEntry>;

  /** The game's current season; 'Season 1' is created (at `at`, default now) on first use. */
  currentSeason(game: LadderGame, at?: number): Promise<Season>;
  /** Archives the current season and starts a new one, whose ratings start fresh. */
  startSeason(game: LadderGame, name: string, at: number): Promise<Season>;
  /** Freezes the current season: it takes no more games and no rating changes (idempotent). */
  freezeSeason(game: LadderGame, at: number): Promise<Season>;
  /** Lets the current season take games again; `at` (default now) only dates a Season 1 it has to create. */
  unfreezeSeason(game: LadderGame, at?: number): Promise<Season>;
  /** Oldest first. */
  listSeasons(game: LadderGame): Promise<Season[]>;

  getRating(game: LadderGame, season: string, entryId: string): Promise<Rating | null>;
  /** Refused for a frozen or archived season. Overwrites whatever is stored (a correction by staff). */
  setRating(game: LadderGame, season: string, entryId: string, rating: Rating): Promise<void>;
  /** Entries rated in the season, best rating first; revoked entries only when asked for. */
  standings(
    game: LadderGame,
    season: string,
    options?: { includeRevoked?: boolean | undefined },
  ): Promise<StandingsRow[]>;

  /**
   * Records a finished game and, in the same transaction, each entry seat's `after` as its new
   * rating and a point of its rating history. Refused for a frozen or archived season.
   *
   * The caller computes `after` from the `before` it read with getRating. When an entry's stored
   * rating is no longer that `before` (another process recorded a game of the entry meanwhile),
   * the whole game is refused with `stale-rating` and nothing is written: the caller reads the
   * ratings again, rates again and records again. (An entry without a stored rating takes any
   * `before`.) So a rating is never overwritten by one computed from an older rating.
   */
  recordGame(record: LadderGameRecord): Promise<void>;
  /** Newest (by end) first. */
  listGames(options?: ListGamesOptions): Promise<LadderGameRecord[]>;
  getGame(id: string): Promise<LadderGameRecord | null>;
  /** Oldest first. */
  ratingHistory(game: LadderGame, season: string, entryId: string): Promise<RatingPoint[]>;
  /**
   * Who the entry met in its latest game of the season: the other seat's entry id or house level
   * (in a game of more seats, the first other seat), or null when it has played none.
   */
  lastOpponent(game: LadderGame, season: string, entryId: string): Promise<string | null>;
  /** Games of the season the entry played in seat 0 and in seat 1 (who moves first). */
  seatCounts(game: LadderGame, season: string, entryId: string): Promise<[number, number]>;

  close(): Promise<void>;
}

export const DEFAULT_LIST_LIMIT = 100;

// ---- rows ----

export interface EntryRow {
  id: string;
  name: string;
  grp: string;
  code: string;
  reservation: string;
  page_token: string;
  created_at: number;
  revoked_at: number | null;
}

export interface SeasonRow {
  id: string;
  game: string;
  number: number;
  name: string;
  started_at: number;
  frozen_at: number | null;
  archived_at: number | null;
}

export interface GameRow {
  id: string;
  game: string;
  season: string;
  started_at: number;
  ended_at: number;
  record_id: string | null;
}

export interface SeatRow {
  game_id: string;
  seat: number;
  entry_id: string | null;
  house_level: string | null;
  name: string;
  score: number;
  before_rating: number;
  before_rd: number;
  before_vol: number;
  before_games: number;
  after_rating: number;
  after_rd: number;
  after_vol: number;
  after_games: number;
  reason: string | null;
}

export type StandingsDbRow = EntryRow &
  Rating & { wins: number; draws: number; losses: number; last: number | null };

export const toEntry = (r: EntryRow): RosterEntry => ({
  id: r.id,
  name: r.name,
  group: r.grp,
  code: r.code,
  reservation: r.reservation,
  pageToken: r.page_token,
  revoked: r.revoked_at !== null,
  createdAt: r.created_at,
});

export const toSeason = (r: SeasonRow): Season => ({
  id: r.id,
  name: r.name,
  startedAt: r.started_at,
  frozenAt: r.frozen_at,
  archivedAt: r.archived_at,
});

const toSide = (r: Pick<SeatRow, 'entry_id' | 'house_level'>): LadderSide =>
  r.entry_id !== null
    ? { kind: 'entry', entryId: r.entry_id }
    : { kind: 'house', level: r.house_level ?? '' };

export const toSeat = (r: SeatRow): LadderGameSeat => ({
  side: toSide(r),
  name: r.name,
  score: r.score,
  before: { rating: r.before_rating, rd: r.before_rd, vol: r.before_vol, games: r.before_games },
  after: { rating: r.after_rating, rd: r.after_rd, vol: r.after_vol, games: r.after_games },
  reason: r.reason === null ? null : (JSON.parse(r.reason) as LossReason),
});

export const toGame = (r: GameRow, seats: LadderGameSeat[]): LadderGameRecord => ({
  id: r.id,
  game: r.game as LadderGame,
  season: r.season,
  startedAt: r.started_at,
  endedAt: r.ended_at,
  seats,
  recordId: r.record_id,
});

export const toStandings = (r: StandingsDbRow): StandingsRow => ({
  entry: toEntry(r),
  rating: { rating: r.rating, rd: r.rd, vol: r.vol, games: r.games },
  wins: r.wins,
  draws: r.draws,
  losses: r.losses,
  lastPlayedAt: r.last,
});

/** The other seat of lastOpponent as the interface names it: an entry id or a house level. */
export const opponentId = (r: Pick<SeatRow, 'entry_id' | 'house_level'> | undefined): string | null => {
  if (r === undefined) return null;
  const side = toSide(r);
  return side.kind === 'entry' ? side.entryId : side.level;
};

/** The values of one game_seats row, in the column order of `insertSeat`. */
export const seatValues = (gameId: string, i: number, s: LadderGameSeat, outcome: string): unknown[] => [
  gameId,
  i,
  s.side.kind === 'entry' ? s.side.entryId : null,
  s.side.kind === 'house' ? s.side.level : null,
  s.name,
  s.score,
  outcome,
  s.before.rating,
  s.before.rd,
  s.before.vol,
  s.before.games,
  s.after.rating,
  s.after.rd,
  s.after.vol,
  s.after.games,
  s.reason === null ? null : JSON.stringify(s.reason),
];

// ---- checks made before the database is touched ----

export function checkGame(game: string): void {
  if (!(LADDER_GAMES as readonly string[]).includes(game))
    throw new LadderStoreError('unknown-game', `no ladder game ${JSON.stringify(game)}`);
}

/** addEntries' rows cleaned, or the refusal of the whole batch (a bad name, a name given twice). */
export function cleanRoster(rows: readonly RosterRow[]): { name: string; group: string }[] {
  const cleaned = rows.map((r) => ({ name: cleanName(r.name), group: cleanName(r.group) }));
  const invalid = cleaned
    .flatMap((r) => [nameProblem(r.name), nameProblem(r.group, 'group', true)])
    .filter((p) => p !== null);
  if (invalid.length > 0) throw new LadderStoreError('invalid-name', invalid.join('; '));
  const seen = new Set<string>();
  const twice: string[] = [];
  for (const r of cleaned) {
    if (seen.has(nameKey(r.name))) twice.push(r.name);
    seen.add(nameKey(r.name));
  }
  if (twice.length > 0)
    throw new LadderStoreError(
      'duplicate-name',
      `names given twice: ${twice.map((n) => JSON.stringify(n)).join(', ')}`,
    );
  return cleaned;
}

/** The refusal of names that are on the roster already (`clashes`: the new name and the one it meets). */
export function rosterClashes(clashes: readonly { name: string; other: string }[]): void {
  if (clashes.length > 0) {
    const list = clashes.map(
      (c) => `${JSON.stringify(c.name)} (on the roster as ${JSON.stringify(c.other)})`,
    );
    throw new LadderStoreError('duplicate-name', `names already on the roster: ${list.join(', ')}`);
  }
}

export function cleanRename(name: string, group: string): { name: string; group: string } {
  const clean = { name: cleanName(name), group: cleanName(group) };
  const problem = nameProblem(clean.name) ?? nameProblem(clean.group, 'group', true);
  if (problem !== null) throw new LadderStoreError('invalid-name', problem);
  return clean;
}

export function cleanSeasonName(game: LadderGame, name: string): string {
  checkGame(game);
  const clean = cleanName(name);
  const problem = nameProblem(clean, 'season name');
  if (problem !== null) throw new LadderStoreError('invalid-name', problem);
  return clean;
}

/** Unique over all games, so that a season id alone (in a URL, a game record) says which game. */
export const seasonId = (game: LadderGame, number: number): string => `${game}-${number}`;

/** The season a write goes to: it must be the game's, and neither frozen nor archived. */
export function mustBeOpen(row: SeasonRow | undefined, game: LadderGame, season: string): SeasonRow {
  if (row === undefined) throw new LadderStoreError('not-found', `no season ${season} of ${game}`);
  if (row.archived_at !== null) throw new LadderStoreError('season-archived', `season ${season} is archived`);
  if (row.frozen_at !== null) throw new LadderStoreError('season-frozen', `season ${season} is frozen`);
  return row;
}

export const notFound = (id: string): LadderStoreError =>
  new LadderStoreError('not-found', `no roster entry ${id}`);
export const duplicateGame = (id: string): LadderStoreError =>
  new LadderStoreError('duplicate-game', `game ${id} is recorded already`);
export const staleRating = (record: LadderGameRecord, entryId: string): LadderStoreError =>
  new LadderStoreError(
    'stale-rating',
    `game ${record.id}: the rating of ${entryId} changed since it was read (rate the game again)`,
  );

export function ratingProblem(r: Rating): string | null {
  if (![r.rating, r.rd, r.vol].every(Number.isFinite))
    return 'a rating, RD or volatility is not a finite number';
  if (!Number.isInteger(r.games) || r.games < 0) return 'the number of games is not a whole number >= 0';
  return null;
}

export function checkRating(r: Rating): void {
  const problem = ratingProblem(r);
  if (problem !== null) throw new LadderStoreError('invalid-rating', problem);
}

/** Win, draw or loss of each seat against the best of the others (2 players: 1 / 0.5 / 0; Catan: first place). */
function outcomes(seats: readonly LadderGameSeat[]): ('win' | 'draw' | 'loss')[] {
  return seats.map((seat, i) => {
    const best = Math.max(...seats.filter((_, j) => j !== i).map((s) => s.score));
    return seat.score > best ? 'win' : seat.score === best ? 'draw' : 'loss';
  });
}

/**
 * recordGame's checks: at least two seats, an entry in one seat only, finite ratings and scores.
 * Returns the outcome of each seat and the entry seats in id order (the order their ratings are
 * written in, so that two transactions lock them in the same order).
 */
export function checkGameRecord(record: LadderGameRecord): {
  outcome: ('win' | 'draw' | 'loss')[];
  rated: { entryId: string; seat: LadderGameSeat }[];
} {
  const { seats } = record;
  if (seats.length < 2)
    throw new LadderStoreError('invalid-game', `game ${record.id} has ${seats.length} seats`);
  const rated = seats.flatMap((seat) =>
    seat.side.kind === 'entry' ? [{ entryId: seat.side.entryId, seat }] : [],
  );
  // One rating per entry and game: an entry in two seats would have two `after`s.
  if (new Set(rated.map((r) => r.entryId)).size !== rated.length)
    throw new LadderStoreError('invalid-game', `game ${record.id} seats an entry twice`);
  for (const seat of seats) {
    const problem = ratingProblem(seat.before) ?? ratingProblem(seat.after);
    if (problem !== null)
      throw new LadderStoreError('invalid-rating', `game ${record.id}, ${seat.name}: ${problem}`);
    if (!Number.isFinite(seat.score))
      throw new LadderStoreError(
        'invalid-game',
        `game ${record.id}, ${seat.name}: the score is not a number`,
      );
  }
  rated.sort((a, b) => (a.entryId < b.entryId ? -1 : a.entryId > b.entryId ? 1 : 0));
  return { outcome: outcomes(seats), rated };
}
