/**
 * The record store as servers, the dashboard and tournaments use it (issue #19): buffered writes
 * that never wait (a game server records as it plays); reads and tournament writes whose answer
 * may be a promise, so every caller awaits them. Two backends: SQLite (records.ts, RecordStore:
 * the embedded default, which answers at once) and PostgreSQL (records-pg.ts, PgRecordStore,
 * `database: postgres://…`, which answers over the network). The same logical schema in both;
 * the parametrised suite test/core/record-backend.test.ts holds them to the same behaviour.
 */
import type {
  HourGroup,
  ListOptions,
  MatchDetail,
  MatchRecord,
  MatchStatus,
  ProgramOutput,
  SeatRecord,
  TournamentMatchRecord,
  TournamentMatchStatus,
  TournamentRecord,
  TournamentStatus,
} from './record-types.js';
import type { KeepClass, PrunedNote } from './record-keep.js';
import type { ResultsPage, StandingsSnapshot, TournamentResultRow } from './standings-rows.js';

export interface NewMatch {
  id?: string;
  game: string;
  seed?: string | number | null;
  startedAt: number;
  seats: SeatRecord[];
  meta?: unknown;
  /**
   * A game the serving process plays on its own between its house bots only: retention takes it
   * first (issue 37). A tournament's or the ladder's game is classed by its meta instead.
   */
  house?: boolean | undefined;
}

export interface WireLine {
  conn: string;
  at: number;
  dir: 'in' | 'out';
  data: string;
}

/** Who plays a tournament match, and which attempt of it this is. */
export interface TournamentClaim {
  worker: string;
  attempt: number;
}

/** What `Records.health` tells. */
export interface RecordsHealth {
  failing: boolean;
  /** The last error, while failing (`SQLITE_FULL: database or disk is full`). */
  reason: string | null;
  /** Failing since (ms since epoch). */
  since: number | null;
  /** Rows held in memory, waiting to be written. */
  heldRows: number;
}

/** A value now (SQLite) or later (PostgreSQL): callers await it either way. */
export type Answer<T> = T | Promise<T>;

export interface Records {
  readonly kind: 'sqlite' | 'postgres';

  // ---- Writes that never wait: queued, committed in batches, in order. ----
  startMatch(input: NewMatch): string;
  addEvent(matchId: string, event: { at: number; seat?: number | null; type: string; data?: unknown }): void;
  addWire(entry: WireLine & { matchId: string | null; game: string }): void;
  addWireBatch(matchId: string, game: string, entries: readonly WireLine[]): void;
  finishMatch(matchId: string, end: { status: Exclude<MatchStatus, 'running'>; endedAt: number; result: unknown }): void;
  setScores(game: string, scores: ReadonlyMap<string, number>, at: number): void;
  /** Resolves once everything queued so far is committed. */
  drain(): Promise<void>;
  /** Called when a batch could not be written (the server goes on). */
  onWriteError: (err: Error) => void;
  /**
   * How the writes are doing (/healthz answers 503 while `failing`): failing while the store
   * cannot write for a transient reason (SQLite: disk full, I/O error) and holds rows to retry.
   * Optional: a backend without it counts as healthy.
   */
  health?(): RecordsHealth;

  // ---- Reads: they see every write queued before them. ----
  getScores(game: string): Answer<Map<string, number>>;
  listMatches(options?: ListOptions): Answer<MatchRecord[]>;
  countListed(options?: ListOptions): Answer<number>;
  listHours(options?: ListOptions): Answer<HourGroup[]>;
  getMatch(id: string): Answer<MatchDetail | null>;
  countMatches(game?: string): Answer<number>;

  // ---- Tournaments: committed when the promise resolves (a resumed tournament depends on them). ----
  createTournament(t: Omit<TournamentRecord, 'done' | 'total' | 'updatedAt' | 'finishedAt' | 'archivedAt' | 'note'>): Answer<void>;
  getTournament(id: string): Answer<TournamentRecord | null>;
  listTournaments(options?: { game?: string | undefined; limit?: number | undefined; offset?: number | undefined }): Answer<TournamentRecord[]>;
  setTournamentStatus(id: string, status: TournamentStatus, at: number, note?: string | null): Answer<void>;
  addTournamentMatches(
    tournamentId: string,
    matches: readonly { id: string; round: number; index: number; seats: readonly string[]; seed: number; bye?: boolean | undefined }[],
  ): Answer<void>;
  startTournamentMatch(tournamentId: string, id: string, at: number, worker: string): Answer<void>;
  finishTournamentMatch(tournamentId: string, id: string, end: { at: number; result: unknown; records: readonly string[]; output: readonly ProgramOutput[] }): Answer<void>;
  resetTournamentMatch(tournamentId: string, id: string): Answer<void>;
  /**
   * A worker takes a match (issue #19): `running` under this worker, one attempt more, whoever held
   * it before. Null when the match is done already (its job is then complete).
   */
  claimTournamentMatch(tournamentId: string, id: string, at: number, worker: string): Answer<TournamentClaim | null>;
  /**
   * Done with this result only while the claim still holds (running, same worker and attempt):
   * false when the match was taken over or finished since, and the result is discarded.
   */
  finishClaimedTournamentMatch(
    tournamentId: string,
    id: string,
    claim: TournamentClaim,
    end: { at: number; result: unknown; records: readonly string[]; output: readonly ProgramOutput[] },
  ): Answer<boolean>;
  /** Back to pending only while the claim still holds; false when it did not. */
  releaseTournamentMatch(tournamentId: string, id: string, claim: TournamentClaim): Answer<boolean>;
  /** `limit`/`offset` (without `entrant`): one page of them, in the same order. */
  listTournamentMatches(tournamentId: string, options?: { status?: TournamentMatchStatus | undefined; entrant?: string | undefined; limit?: number | undefined; offset?: number | undefined }): Answer<TournamentMatchRecord[]>;
  listFinishedTournamentMatches(tournamentId: string): Answer<TournamentMatchRecord[]>;
  getTournamentMatch(tournamentId: string, id: string): Answer<TournamentMatchRecord | null>;
  /**
   * Done matches by the cursor `finish_seq` (issue 38): a page after `after`, or the newest; just
   * what the standings and the rate need, never the captured output.
   */
  listTournamentResults(tournamentId: string, page?: ResultsPage): Answer<TournamentResultRow[]>;
  /** The tournament's saved live standings (src/tournament/standings-store.ts), null without. */
  getTournamentStandings(tournamentId: string): Answer<StandingsSnapshot | null>;
  /** Saves them, unless the store has a snapshot of a later `finishSeq`; committed when it resolves. */
  saveTournamentStandings(tournamentId: string, snapshot: { finishSeq: number; state: unknown; at: number }): Answer<void>;
  /** Ids of the game records still running that a tournament match started (`meta.tournamentMatch`, `<tournament>/<match>`). */
  liveRecordsOf(tournamentMatch: string): Answer<string[]>;
  /** Marks those aborted with this reason (an earlier attempt whose worker is gone); how many. */
  abortLiveRecordsOf(tournamentMatch: string, at: number, reason: string): Answer<number>;
  /**
   * Marks the finished game records of a tournament match that are not among `counted` (the
   * records of the attempt whose result counts) `superseded`, each with an event `superseded`
   * ({ reason, counted }); their ids. Committed when the promise resolves.
   */
  supersedeRecordsOf(tournamentMatch: string, counted: readonly string[], at: number, reason: string): Answer<string[]>;
  /** A record's retention class and tournament (issue 37); null when there is no such record. */
  keepOf(id: string): Answer<{ keep: KeepClass; tournamentId: string | null } | null>;
  /** Why a record is not in the store, when retention, `prune` or a tournament's deletion took it (issue 37). */
  prunedNote(id: string): Answer<PrunedNote | null>;
  /**
   * Deletes a tournament on purpose with every game record of it (each leaves a note); how many
   * records went, null when there is no such tournament.
   */
  deleteTournament(id: string, at: number): Answer<{ records: number } | null>;
  /** Marks a tournament archived: retention may take its records from now on (its file holds them). */
  archiveTournament(id: string, at: number): Answer<void>;
  /** An event added to a match after it ended; committed when the promise resolves. */
  appendEvent(matchId: string, event: { at: number; seat?: number | null; type: string; data?: unknown }): Answer<void>;

  /** Commits what is queued and lets go (a serving store marks its own unfinished matches aborted). */
  close(): Answer<void>;
}

