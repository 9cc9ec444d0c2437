/**
 * The JSON the dashboard API returns, imported as types from the server sources (no code crosses
 * over): the game-server shapes from core/game-server.ts, the record shapes from
 * core/record-types.ts (records.ts itself pulls in Node and SQLite).
 */
import type { SpectatorEvent } from '../../src/core/game-server.js';

export type {
  LeaderboardEntry,
  ServerInfo,
  ServerStatus,
  SpectatorEvent,
} from '../../src/core/game-server.js';

export type {
  EventRecord,
  HourGroup,
  MatchDetail,
  MatchRecord,
  MatchStatus,
  MatchSummary,
  PrunedNote,
  SeatRecord,
  WireLine,
  WirePage,
  WireRecord,
} from '../../src/core/record-types.js';

/** What /ws/spectate sends. */
export type SpectatorMessage =
  { type: 'snapshot'; game: string; data: unknown } | { type: 'event'; game: string; event: SpectatorEvent };
