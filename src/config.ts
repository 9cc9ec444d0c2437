import { join } from 'node:path';
import { z } from 'zod';
import { loadConfig, type Loaded } from './core/config.js';
import { MIA_DEFAULTS } from './games/mia/server.js';

/** Every setting of `spielhalle serve`, with its default. See docs/operations.md. */

const port = z.number().int().min(0).max(65535);
const ms = z.number().int().min(1).max(600_000);

const miaSchema = z
  .object({
    enabled: z.boolean(),
    port,
    answerTimeoutMs: ms,
    heartbeatMs: ms,
    minPlayers: z.number().int().min(2).max(100),
    waitRecheckMs: ms,
    startEarly: z.boolean(),
    maxClients: z.number().int().min(2).max(5000),
    floodPerSecond: z.number().int().min(1).max(100_000),
    houseBots: z.number().int().min(0).max(20),
  })
  .strict();

export const settingsSchema = z
  .object({
    host: z.string().min(1),
    dataDir: z.string().min(1),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    logFile: z.string(),
    bots: z.boolean(),
    seed: z.string(),
    web: z.object({ enabled: z.boolean(), host: z.string().min(1), port }).strict(),
    games: z.object({ mia: miaSchema }).strict(),
  })
  .strict();

export type Settings = z.infer<typeof settingsSchema>;

export const DEFAULT_SETTINGS: Settings = {
  host: '127.0.0.1',
  dataDir: './data',
  logLevel: 'info',
  logFile: '',
  bots: true,
  seed: '',
  web: { enabled: true, host: '127.0.0.1', port: 8080 },
  games: {
    mia: {
      enabled: true,
      port: MIA_DEFAULTS.port,
      answerTimeoutMs: MIA_DEFAULTS.answerTimeoutMs,
      heartbeatMs: MIA_DEFAULTS.heartbeatMs,
      minPlayers: MIA_DEFAULTS.minPlayers,
      waitRecheckMs: MIA_DEFAULTS.waitRecheckMs,
      startEarly: MIA_DEFAULTS.startEarly,
      maxClients: MIA_DEFAULTS.maxClients,
      floodPerSecond: MIA_DEFAULTS.floodPerSecond,
      houseBots: 4,
    },
  },
};

export const GAME_NAMES = Object.keys(DEFAULT_SETTINGS.games) as (keyof Settings['games'])[];

export function loadSettings(options: {
  flags?: Record<string, unknown>;
  file?: string | undefined;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}): Loaded<Settings> {
  return loadConfig({
    schema: settingsSchema,
    defaults: DEFAULT_SETTINGS,
    ...(options.flags ? { flags: options.flags } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
    file: options.file,
  });
}

export const recordsFile = (s: Settings): string => join(s.dataDir, 'spielhalle.db');
