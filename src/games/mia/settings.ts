import { z } from 'zod';
import { MIA_DEFAULTS } from './server.js';

/** `games.mia.*` in the settings (docs/operations.md): the schema and the defaults. */

const port = z.number().int().min(0).max(65535);
const ms = z.number().int().min(1).max(600_000);

export const miaSettingsSchema = z
  .object({
    enabled: z.boolean(),
    port,
    /** Die Liga's port (issue 34, docs/mia.md): a client registers with its ladder code here. */
    ladderPort: port,
    answerTimeoutMs: ms,
    heartbeatMs: ms,
    minPlayers: z.number().int().min(2).max(100),
    waitRecheckMs: ms,
    startEarly: z.boolean(),
    maxClients: z.number().int().min(2).max(5000),
    maxClientsPerHost: z.number().int().min(0).max(5000),
    maxMissedRounds: z.number().int().min(0).max(1_000_000),
    expireSilenceMs: z.number().int().min(0).max(86_400_000),
    floodPerSecond: z.number().int().min(1).max(100_000),
    unregisteredPerSecond: z.number().int().min(1).max(100_000),
    houseBots: z.number().int().min(0).max(20),
  })
  .strict();

export type MiaSettings = z.infer<typeof miaSettingsSchema>;

export const MIA_SETTINGS: MiaSettings = {
  enabled: true,
  port: MIA_DEFAULTS.port,
  ladderPort: 9010,
  answerTimeoutMs: MIA_DEFAULTS.answerTimeoutMs,
  heartbeatMs: MIA_DEFAULTS.heartbeatMs,
  minPlayers: MIA_DEFAULTS.minPlayers,
  waitRecheckMs: MIA_DEFAULTS.waitRecheckMs,
  startEarly: MIA_DEFAULTS.startEarly,
  maxClients: MIA_DEFAULTS.maxClients,
  maxClientsPerHost: MIA_DEFAULTS.maxClientsPerHost,
  maxMissedRounds: MIA_DEFAULTS.maxMissedRounds,
  expireSilenceMs: MIA_DEFAULTS.expireSilenceMs,
  floodPerSecond: MIA_DEFAULTS.floodPerSecond,
  unregisteredPerSecond: MIA_DEFAULTS.unregisteredPerSecond,
  houseBots: 4,
};
