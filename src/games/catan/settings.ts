import { z } from 'zod';
import type { Logger } from '../../core/log.js';
import type { Records } from '../../core/record-backend.js';
import { CATAN_STRATEGIES, createCatanBot } from './bots/strategies.js';
import { CATAN_DEFAULTS, type CatanServerOptions } from './server.js';

/**
 * `games.catan.*` in the settings (docs/operations.md, docs/catan.md): the schema and the
 * defaults. Timeouts are numbers with 0 for "off", so every setting can come from the environment.
 */

const port = z.number().int().min(0).max(65535);
/** 0 = off. */
const msOrOff = z.number().int().min(0).max(3_600_000);

export const catanSettingsSchema = z
  .object({
    enabled: z.boolean(),
    /** The protocol 0.3 TCP port. */
    port,
    /** Die Liga's port (issue 34, docs/catan.md): a client gives its ladder code as its name here. */
    ladderPort: port,
    /** D10: time per decision in a game with at least one human before the server acts for them; 0 = off. */
    turnTimeoutMs: msOrOff,
    /** D10: the same in games of AI clients and house bots only; 0 = off. */
    aiTurnTimeoutMs: msOrOff,
    /** House bots fill a lobby this long after someone there sent `Spiel starten`; 0 = only on request. */
    botFillMs: msOrOff,
    /** House bots' pause before each message they send (makes games watchable and playable). */
    botThinkMs: z.number().int().min(0).max(60_000),
    /** How house bots that fill lobbies play (every strategy of `spielhalle bot catan --strategy`); house games vary theirs (house-games.ts). */
    botStrategy: z.enum(CATAN_STRATEGIES),
    /** Games of house bots only that `serve` keeps going, one after the other, for the dashboard. */
    houseGames: z.number().int().min(0).max(8),
    /** Players in a house game. */
    housePlayers: z.union([z.literal(3), z.literal(4)]),
    /** Pause between two house games. */
    housePauseMs: z.number().int().min(0).max(600_000),
    maxGames: z.number().int().min(1).max(100_000),
    maxConnections: z.number().int().min(1).max(100_000),
    /** TCP connections one remote IP may hold (0: no cap); the dashboard's own seats are not counted. */
    maxConnectionsPerHost: z.number().int().min(0).max(100_000),
    /** Bytes a second one client IP may send over all its connections (0: no budget). */
    maxInputBytesPerSecondPerHost: z.number().int().min(0).max(1_000_000_000),
    /** Lobbies and running games one remote IP's connections may sit in (0: no cap). */
    maxLobbiesPerHost: z.number().int().min(0).max(100_000),
    /** A lobby nobody has joined for this long is closed; 0 = never. */
    idleLobbyTimeoutMs: msOrOff,
    /** Messages a second one connection may send (burst: twice that). */
    floodPerSecond: z.number().int().min(1).max(1_000_000),
    helloTimeoutMs: z.number().int().min(1).max(600_000),
    /** People playing in the dashboard at once (each one is a TCP client of the Catan server). */
    maxBrowserPlayers: z.number().int().min(0).max(1000),
  })
  .strict();

export type CatanSettings = z.infer<typeof catanSettingsSchema>;

export const CATAN_SETTINGS: CatanSettings = {
  enabled: true,
  port: CATAN_DEFAULTS.port,
  ladderPort: 6010,
  turnTimeoutMs: 0,
  aiTurnTimeoutMs: CATAN_DEFAULTS.aiTurnTimeoutMs,
  botFillMs: 0,
  botThinkMs: 300,
  botStrategy: 'weighted',
  houseGames: 1,
  housePlayers: 4,
  housePauseMs: 10_000,
  maxGames: CATAN_DEFAULTS.maxGames,
  maxConnections: CATAN_DEFAULTS.maxConnections,
  maxConnectionsPerHost: CATAN_DEFAULTS.maxConnectionsPerHost,
  // The server's own default is off (tests, benches); what `serve` runs with is 1 MiB/s.
  maxInputBytesPerSecondPerHost: 1_048_576,
  maxLobbiesPerHost: CATAN_DEFAULTS.maxLobbiesPerHost,
  idleLobbyTimeoutMs: CATAN_DEFAULTS.idleLobbyTimeoutMs,
  floodPerSecond: CATAN_DEFAULTS.floodPerSecond,
  helloTimeoutMs: CATAN_DEFAULTS.helloTimeoutMs,
  maxBrowserPlayers: 32,
};

const off = (ms: number): number | null => (ms === 0 ? null : ms);

/** The server options for these settings (`host` and `seed` are the top-level settings). */
export function catanServerOptions(
  s: CatanSettings,
  top: { readonly host: string; readonly seed: string },
  log: Logger,
  store: Records | null,
): CatanServerOptions {
  return {
    host: top.host,
    port: s.port,
    // An empty seed means a new one each start.
    seed: top.seed === '' ? `catan-${Date.now().toString(36)}` : top.seed,
    log,
    store,
    turnTimeoutMs: off(s.turnTimeoutMs),
    aiTurnTimeoutMs: off(s.aiTurnTimeoutMs),
    botFillMs: off(s.botFillMs),
    botThinkMs: s.botThinkMs,
    botStrategy: (seed) => createCatanBot(s.botStrategy, seed),
    maxGames: s.maxGames,
    maxConnections: s.maxConnections,
    maxConnectionsPerHost: s.maxConnectionsPerHost,
    maxInputBytesPerSecondPerHost: s.maxInputBytesPerSecondPerHost,
    maxLobbiesPerHost: s.maxLobbiesPerHost,
    idleLobbyTimeoutMs: off(s.idleLobbyTimeoutMs),
    floodPerSecond: s.floodPerSecond,
    helloTimeoutMs: s.helloTimeoutMs,
  };
}
