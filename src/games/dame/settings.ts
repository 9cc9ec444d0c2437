import { z } from 'zod';
import type { Logger } from '../../core/log.js';
import type { Records } from '../../core/record-backend.js';
import { DAME_DEFAULTS, type DameServerOptions } from './server.js';

/** `games.dame.*` in the settings (docs/operations.md, docs/dame.md): the schema and the defaults. */

const port = z.number().int().min(0).max(65535);
const ms = z.number().int().min(1).max(600_000);

export const dameSettingsSchema = z
  .object({
    enabled: z.boolean(),
    /** The MNM Gameserver port: 1357. */
    port,
    /** `auto`: MOTD after 2 s of client silence, majors 2 and 3; `v2`, `v3`: one major only. */
    mode: z.enum(['auto', 'v2', 'v3']),
    /** An unknown valid game id creates the game on first use. */
    autoCreate: z.boolean(),
    /** `+ MOVE <ms>` of games created without a move time (the course's 3000). */
    moveTimeMs: ms,
    waitIdleMs: ms,
    okwaitTimeoutMs: ms,
    prologTimeoutMs: ms,
    graceMs: z.number().int().min(0).max(60_000),
    motdDelayMs: z.number().int().min(0).max(60_000),
    motd: z.string().min(1).max(200),
    /** Think time of engine seats per single move; 0 = the game's move time. */
    engineTimeMs: z.number().int().min(0).max(600_000),
    engineThreads: z.number().int().min(1).max(64),
    maxGames: z.number().int().min(1).max(100_000),
    maxConnections: z.number().int().min(1).max(100_000),
    /** Open connections one client IP may hold (0: no cap). */
    maxConnectionsPerHost: z.number().int().min(0).max(100_000),
    /** Bytes a second one client IP may send over all its connections (0: no budget). */
    maxInputBytesPerSecondPerHost: z.number().int().min(0).max(1_000_000_000),
    /** Waiting games one client IP may have created with its `ID` (0: no cap). */
    maxGamesPerHost: z.number().int().min(0).max(100_000),
    /** A game that has not started this long after a client took a seat (or created it) is closed; 0: never. */
    idleSeatTimeoutMs: z.number().int().min(0).max(86_400_000),
    /** House games `npm start` keeps going: the engine against a client bot, colours and line-up changing (house.ts). */
    houseGames: z.number().int().min(0).max(8),
    /** Move time of house games (shorter than a student's, so there is more to watch). */
    houseMoveTimeMs: ms,
    /** Pause between two house games, and before trying again when one could not be created. */
    housePauseMs: z.number().int().min(10).max(600_000),
  })
  .strict();

export type DameSettings = z.infer<typeof dameSettingsSchema>;

export const DAME_SETTINGS: DameSettings = {
  enabled: true,
  port: DAME_DEFAULTS.port,
  mode: DAME_DEFAULTS.mode,
  autoCreate: DAME_DEFAULTS.autoCreate,
  moveTimeMs: DAME_DEFAULTS.defaultMoveTimeMs,
  waitIdleMs: DAME_DEFAULTS.waitIdleMs,
  okwaitTimeoutMs: DAME_DEFAULTS.okwaitTimeoutMs,
  prologTimeoutMs: DAME_DEFAULTS.prologTimeoutMs,
  graceMs: DAME_DEFAULTS.graceMs,
  motdDelayMs: DAME_DEFAULTS.motdDelayMs,
  motd: DAME_DEFAULTS.motd,
  engineTimeMs: 0,
  engineThreads: DAME_DEFAULTS.engineThreads,
  maxGames: DAME_DEFAULTS.maxGames,
  maxConnections: DAME_DEFAULTS.maxConnections,
  maxConnectionsPerHost: DAME_DEFAULTS.maxConnectionsPerHost,
  // The server's own default is off (tests, benches); what `serve` runs with is 1 MiB/s.
  maxInputBytesPerSecondPerHost: 1_048_576,
  maxGamesPerHost: DAME_DEFAULTS.maxGamesPerHost,
  idleSeatTimeoutMs: DAME_DEFAULTS.idleSeatTimeoutMs,
  houseGames: 1,
  houseMoveTimeMs: 1000,
  housePauseMs: 3000,
};

/** The server options for these settings (`host` is the top-level `settings.host`). */
export function dameServerOptions(s: DameSettings, host: string, log: Logger, store: Records | null): DameServerOptions {
  return {
    ...DAME_DEFAULTS,
    host,
    port: s.port,
    mode: s.mode,
    autoCreate: s.autoCreate,
    defaultMoveTimeMs: s.moveTimeMs,
    waitIdleMs: s.waitIdleMs,
    okwaitTimeoutMs: s.okwaitTimeoutMs,
    prologTimeoutMs: s.prologTimeoutMs,
    graceMs: s.graceMs,
    motdDelayMs: s.motdDelayMs,
    motd: s.motd,
    engineTimeMs: s.engineTimeMs,
    engineThreads: s.engineThreads,
    maxGames: s.maxGames,
    maxConnections: s.maxConnections,
    maxConnectionsPerHost: s.maxConnectionsPerHost,
    maxInputBytesPerSecondPerHost: s.maxInputBytesPerSecondPerHost,
    maxGamesPerHost: s.maxGamesPerHost,
    idleSeatTimeoutMs: s.idleSeatTimeoutMs,
    log,
    store,
  };
}
