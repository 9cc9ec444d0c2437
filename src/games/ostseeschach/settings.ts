import { z } from 'zod';
import type { Logger } from '../../core/log.js';
import type { Records } from '../../core/record-backend.js';
import { OSTSEESCHACH_DEFAULTS, type OstseeschachServerOptions } from './server.js';

/**
 * `games.ostseeschach.*` in the settings (docs/operations.md, docs/ostseeschach.md): the schema and
 * the defaults, which are the official server's (server.properties) where it has one.
 */

const port = z.number().int().min(0).max(65535);
const ms = z.number().int().min(1).max(600_000);

export const ostseeschachSettingsSchema = z
  .object({
    enabled: z.boolean(),
    /** The Software-Challenge port: 13050. */
    port,
    /** server.properties `password` for `<authenticate>` (official default `examplepassword`). */
    adminPassword: z.string().min(1).max(200),
    /** A move later than this (from the request) is a SOFT_TIMEOUT; official 2000. */
    softTimeoutMs: ms,
    /** No move at all within this ends the game; official 10000. */
    hardTimeoutMs: ms,
    /** server.properties `paused`: rooms created by `join` start paused. */
    paused: z.boolean(),
    maxConnections: z.number().int().min(1).max(100_000),
    /** Connections one remote IP may hold (fair share; 0: no cap); more are closed. */
    maxConnectionsPerHost: z.number().int().min(0).max(100_000),
    /** Bytes a second one client IP may send over all its connections (0: no budget). */
    maxInputBytesPerSecondPerHost: z.number().int().min(0).max(1_000_000_000),
    maxRooms: z.number().int().min(1).max(100_000),
    /** Open rooms one remote IP may have created by join or prepare (0: no cap); beyond: an errorpacket. */
    maxRoomsPerHost: z.number().int().min(0).max(100_000),
    /** A connection that has not joined, redeemed a code or authenticated by then is closed (0: never). */
    joinTimeoutMs: z.number().int().min(0).max(3_600_000),
    /** A prepared room that no player has joined by then is closed (0: never). */
    preparedRoomTimeoutMs: z.number().int().min(0).max(86_400_000),
    /** A client that leaves more than this unread is disconnected. */
    maxOutputBytes: z.number().int().min(64 * 1024).max(1 << 30),
    /** How long an ended connection may keep its side open. */
    lingerMs: z.number().int().min(0).max(600_000),
    /** House games at once: two engine bots in a prepared room, one game after another. */
    houseGames: z.number().int().min(0).max(8),
    /** Think time per move of the house bots (well inside the soft limit). */
    houseMoveTimeMs: z.number().int().min(10).max(1900),
    /** Pause between two house games, so a finished game stays on screen for a moment. */
    housePauseMs: z.number().int().min(0).max(600_000),
  })
  .strict();

export type OstseeschachSettings = z.infer<typeof ostseeschachSettingsSchema>;

export const OSTSEESCHACH_SETTINGS: OstseeschachSettings = {
  enabled: true,
  port: OSTSEESCHACH_DEFAULTS.port,
  adminPassword: OSTSEESCHACH_DEFAULTS.adminPassword,
  softTimeoutMs: OSTSEESCHACH_DEFAULTS.softTimeoutMs,
  hardTimeoutMs: OSTSEESCHACH_DEFAULTS.hardTimeoutMs,
  paused: OSTSEESCHACH_DEFAULTS.paused,
  maxConnections: OSTSEESCHACH_DEFAULTS.maxConnections,
  maxConnectionsPerHost: OSTSEESCHACH_DEFAULTS.maxConnectionsPerHost,
  // The server's own default is off (tests, benches); `serve` runs with 128 KiB/s: its XML reader is the costliest per byte.
  maxInputBytesPerSecondPerHost: 131_072,
  maxRooms: OSTSEESCHACH_DEFAULTS.maxRooms,
  maxRoomsPerHost: OSTSEESCHACH_DEFAULTS.maxRoomsPerHost,
  joinTimeoutMs: OSTSEESCHACH_DEFAULTS.joinTimeoutMs,
  preparedRoomTimeoutMs: OSTSEESCHACH_DEFAULTS.preparedRoomTimeoutMs,
  maxOutputBytes: OSTSEESCHACH_DEFAULTS.maxOutputBytes,
  lingerMs: OSTSEESCHACH_DEFAULTS.lingerMs,
  houseGames: 1,
  houseMoveTimeMs: 500,
  housePauseMs: 5000,
};

/** The server options for these settings (`host` and `seed` are the top-level settings). */
export function ostseeschachServerOptions(
  s: OstseeschachSettings,
  host: string,
  seed: string,
  log: Logger,
  store: Records | null,
): OstseeschachServerOptions {
  return {
    host,
    port: s.port,
    adminPassword: s.adminPassword,
    softTimeoutMs: s.softTimeoutMs,
    hardTimeoutMs: s.hardTimeoutMs,
    paused: s.paused,
    // An empty seed means a new one each start, like every other game's.
    seed: seed === '' ? `${Date.now()}-${process.pid}` : seed,
    log,
    store,
    maxConnections: s.maxConnections,
    maxConnectionsPerHost: s.maxConnectionsPerHost,
    maxInputBytesPerSecondPerHost: s.maxInputBytesPerSecondPerHost,
    maxRooms: s.maxRooms,
    maxRoomsPerHost: s.maxRoomsPerHost,
    joinTimeoutMs: s.joinTimeoutMs,
    preparedRoomTimeoutMs: s.preparedRoomTimeoutMs,
    maxOutputBytes: s.maxOutputBytes,
    lingerMs: s.lingerMs,
  };
}
