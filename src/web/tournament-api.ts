/**
 * The JSON of the dashboard's tournament API (src/web/tournaments.ts). Types only, so the browser
 * app imports them too.
 */
import type { ProgramOutput, TournamentMatchStatus, TournamentRecord } from '../core/record-types.js';
import type { TournamentHint } from '../tournament/hints.js';
import type { MatchResult, SeatResult, Standings } from '../tournament/standings.js';

export type {
  MatchResult,
  SeatResult,
  Standings,
  StandingsRow,
  WinDrawLoss,
} from '../tournament/standings.js';

/** An entrant as the API shows it: never a program's command line or working directory. */
export type PublicEntrant =
  | { name: string; kind: 'bot'; bot: string; options: Record<string, unknown> }
  | { name: string; kind: 'program' };

/** A tournament without its spec's command lines and without its source text. */
export interface TournamentSummary extends Omit<TournamentRecord, 'spec' | 'source'> {
  /** Whether this serving process runs it now (only then can the dashboard stop it). */
  live: boolean;
  /** The entrant ranked first, once a match is done. */
  leader: string | null;
}

export interface TournamentProgress {
  done: number;
  total: number;
  /** Matches per minute over the recent finished matches; null before two are done. */
  perMinute: number | null;
  /** Milliseconds until the rest is done at that rate, while it runs. */
  etaMs: number | null;
}

export interface TournamentSettingsView {
  gamesPerPairing: number;
  rounds: number;
  tableSize: number;
  gamesPerTable: number;
  moveTime: number;
  seed: string | number;
  parallel: number;
}

export interface TournamentView extends TournamentSummary {
  entrants: PublicEntrant[];
  settings: TournamentSettingsView | null;
  progress: TournamentProgress;
  standings: Standings;
  /** Whether the dashboard may resume it (not finished, not running anywhere we can see). */
  resumable: boolean;
}

/** One scheduled match (`/api/tournaments/:id/matches`). */
export interface TournamentMatchView {
  id: string;
  round: number;
  index: number;
  seats: string[];
  seed: number;
  bye: boolean;
  status: TournamentMatchStatus;
  result: MatchResult | null;
  /** Record-store ids: each opens at `#/matches/<id>` (a running match: its live records, to watch). */
  records: string[];
  startedAt: number | null;
  endedAt: number | null;
  attempts: number;
  /** Who plays or played it (`host:pid`, a worker's `host:pid:random`). */
  worker: string | null;
}

/** One point of the rating chart: the standings after `done` finished matches. */
export interface HistoryPoint {
  done: number;
  ratings: Record<string, number>;
}

export interface TournamentHistory {
  method: Standings['method'];
  entrants: string[];
  points: HistoryPoint[];
}

/** One of an entrant's matches (`/api/tournaments/:id/entrants/:name`). */
export interface EntrantMatch {
  id: string;
  round: number;
  status: TournamentMatchStatus;
  seats: string[];
  /** Its own seat index in the match. */
  seat: number;
  result: (SeatResult & { note?: string }) | null;
  reason: string | null;
  records: string[];
  /** Its program's captured output in this match (program entrants only), each stream bounded. */
  output: ProgramOutput | null;
  endedAt: number | null;
}

export interface EntrantView {
  tournament: { id: string; name: string; game: string; status: TournamentRecord['status'] };
  entrant: PublicEntrant;
  row: Standings['rows'][number] | null;
  matches: EntrantMatch[];
}

/** A program staff registered in the settings (`tournaments.programs`), without its command. */
export interface ProgramView {
  name: string;
  game: string;
}

/** Our bots per game, for the entrant picker (`/api/tournaments/options`). */
export interface TournamentOptions {
  games: { game: string; formats: string[]; bots: { name: string; description: string }[] }[];
}

/**
 * A hint about the settings that stops nothing (src/tournament/hints.ts): the CLI's `warning:`
 * line as `path`, `message` and `line`; `code` and `values` for the dashboard's own texts.
 */
export interface TournamentWarning {
  code: TournamentHint['code'];
  path: string;
  message: string;
  line: string;
  values: TournamentHint['values'];
}

/** A 400 answer of POST /api/tournaments: every problem, one line each, as the CLI prints it. */
export interface TournamentErrors {
  error: string;
  errors: { path: string; message: string; line: string }[];
  /** The hints the CLI would print beside them. */
  warnings?: TournamentWarning[];
}

/** A 201 answer of POST /api/tournaments: the new tournament, and the hints about its settings. */
export interface TournamentCreated {
  id: string;
  warnings: TournamentWarning[];
}
