/**
 * The JSON the dashboard API returns. The game-server and Mia shapes are imported as types from
 * the server sources (no code crosses over); the record shapes are copied because records.ts
 * pulls in Node and SQLite.
 */
import type { SpectatorEvent } from '../../src/core/game-server.js';

export type {
  LeaderboardEntry,
  ServerInfo,
  ServerStatus,
  SpectatorEvent,
} from '../../src/core/game-server.js';

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

/** What /ws/spectate sends. */
export type SpectatorMessage =
  { type: 'snapshot'; game: string; data: unknown } | { type: 'event'; game: string; event: SpectatorEvent };
