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
