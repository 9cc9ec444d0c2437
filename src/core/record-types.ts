/**
 * The shapes of the record store's rows as the store returns them and the dashboard API sends
 * them. Types only (no Node, no SQLite), so the browser app imports them from here too.
 */

export type MatchStatus = 'running' | 'finished' | 'aborted';

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
