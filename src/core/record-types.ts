/**
 * The shapes of the record store's rows as the store returns them and the dashboard API sends
 * them. Types only (no Node, no SQLite), so the browser app imports them from here too.
 */

/**
 * `superseded`: a finished game record of a tournament match's attempt that did not count (its
 * worker was presumed gone, or the match was played again after a kill or an outage); the attempt
 * that counted has records of its own. Kept, so that a student still sees what was played.
 */
export type MatchStatus = 'running' | 'finished' | 'aborted' | 'superseded';

export interface SeatRecord {
  seat: number;
  name: string;
  kind: string;
  address?: string | undefined;
}

export interface MatchRecord {
  id: string;
  game: string;
  seed: string | null;
  status: MatchStatus;
  startedAt: number;
  endedAt: number | null;
  result: unknown;
  meta: unknown;
  seats: SeatRecord[];
}

export interface EventRecord {
  seq: number;
  at: number;
  seat: number | null;
  type: string;
  data: unknown;
}

export interface WireRecord {
  seq: number;
  at: number;
  conn: string;
  dir: 'in' | 'out';
  data: string;
}

export interface MatchDetail extends MatchRecord {
  events: EventRecord[];
  wire: WireRecord[];
}

/** Matches that started in one hour, counted by status (`/api/match-hours`). */
export interface HourGroup {
  /** The hour's start, ms since epoch (UTC hours). */
  hour: number;
  matches: number;
  finished: number;
  aborted: number;
  running: number;
}

/** A match without its wire log (`/api/matches/:id?wire=0`): the log comes in pages. */
export interface MatchSummary extends MatchRecord {
  events: EventRecord[];
  /** Wire log lines (a multi-line entry counts once per line). */
  wireLines: number;
}

/** One line of a wire log page; `key` is unique within the match (entry seq, line index). */
export interface WireLine extends WireRecord {
  key: string;
}

/** A page of a match's wire log (`/api/matches/:id/wire`), one line per row. */
export interface WirePage {
  /** Lines with the connection filter, before paging. */
  total: number;
  offset: number;
  /** Every connection of the match with its line count. */
  conns: { conn: string; lines: number }[];
  lines: WireLine[];
}

/** A tournament as the store keeps it (`/api/tournaments`). */
export type TournamentStatus = 'running' | 'stopped' | 'finished' | 'failed';

export interface TournamentRecord {
  /** Short, URL-safe, unique (e.g. `t-20261125-204512-dame`). */
  id: string;
  name: string;
  game: string;
  format: string;
  /** The validated tournament spec (src/tournament/file.ts TournamentSpec) as JSON data. */
  spec: unknown;
  /** The tournament file's text as given, when it came from a file. */
  source: string | null;
  status: TournamentStatus;
  /** Matches scheduled so far (Swiss: grows round by round) and how many are done. */
  total: number;
  done: number;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
  /**
   * When it was archived (`tournament archive`): its file holds its records, which retention may
   * take from then on; null while retention keeps them (issue 37).
   */
  archivedAt: number | null;
  /** Why it failed or stopped, when it did. */
  note: string | null;
}

export type TournamentMatchStatus = 'pending' | 'running' | 'done';

/** Captured output of one external program in one match (bounded). */
export interface ProgramOutput {
  seat: number;
  name: string;
  stdout: string;
  stderr: string;
  /** Bytes dropped beyond the bound. */
  truncated: number;
  exit: { code: number | null; signal: string | null; limit?: string; error?: string } | null;
}

/** One scheduled match of a tournament. */
export interface TournamentMatchRecord {
  tournamentId: string;
  /** The schedule id `<round>-<index>`. */
  id: string;
  round: number;
  index: number;
  /** Entrant names by seat. */
  seats: string[];
  seed: number;
  bye: boolean;
  status: TournamentMatchStatus;
  /** src/tournament/standings.ts MatchResult once done. */
  result: unknown;
  /** Record-store match ids of what the game server recorded. */
  records: string[];
  output: ProgramOutput[];
  startedAt: number | null;
  endedAt: number | null;
  /** Which process played it (`host:pid`). */
  worker: string | null;
  /** How often it was started (more than once after a crash or stop cut it off). */
  attempts: number;
}

/** The filters of a match listing (RecordStore.listMatches and its backends). */
export interface ListOptions {
  game?: string | undefined;
  /** Leave out the matches of this game (the dashboard lists Mia's many rounds per hour instead). */
  notGame?: string | undefined;
  status?: MatchStatus | undefined;
  /** Only matches with a seat of this name. */
  player?: string | undefined;
  /** Only the game records of this tournament (superseded attempts included). */
  tournament?: string | undefined;
  limit?: number | undefined;
  /** Skip this many of the matches found (paging). */
  offset?: number | undefined;
  /** Started before this (ms since epoch). */
  before?: number | undefined;
  /** Started at or after this (ms since epoch). */
  since?: number | undefined;
}

/** The retention class of a match record (core/record-keep.ts, issue 37). */
export type KeepClass = 'house' | 'played' | 'ladder' | 'tournament' | 'archived';

/** Why a record went, as the store notes it. */
export type PruneReason = 'retention' | 'prune' | 'tournament deleted';

/** What a link to a record that is gone is told (`/api/matches/:id/pruned`). */
export interface PrunedNote {
  id: string;
  /** When it was deleted (ms since epoch). */
  prunedAt: number;
  reason: PruneReason;
  /** The record's own note (exact), or a house game mark that covers its start (probable). */
  exact: boolean;
  keep: KeepClass | null;
  tournamentId: string | null;
}
