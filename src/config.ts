import { join } from 'node:path';
import { z } from 'zod';
import { loadConfig, type Loaded } from './core/config.js';
import { LOG_FORMATS, LOG_LEVELS } from './core/log.js';
import { parsePortRange } from './core/ports.js';
import { CATAN_SETTINGS, catanSettingsSchema } from './games/catan/settings.js';
import { CONNECT4_SETTINGS, connect4SettingsSchema } from './games/connect4/settings.js';
import { DAME_SETTINGS, dameSettingsSchema } from './games/dame/settings.js';
import { MIA_SETTINGS, miaSettingsSchema } from './games/mia/settings.js';
import { OSTSEESCHACH_SETTINGS, ostseeschachSettingsSchema } from './games/ostseeschach/settings.js';

/** Every setting of `spielhalle serve`, with its default. See docs/operations.md. */

const port = z.number().int().min(0).max(65535);

export const settingsSchema = z
  .object({
    host: z.string().min(1),
    dataDir: z.string().min(1),
    logLevel: z.enum(LOG_LEVELS),
    logFile: z.string(),
    logFormat: z.enum(LOG_FORMATS),
    bots: z.boolean(),
    seed: z.string(),
    web: z
      .object({
        enabled: z.boolean(),
        host: z.string().min(1),
        port,
        // Needed for changes from the dashboard when it listens beyond loopback; empty: a new one each start.
        token: z
          .string()
          .max(200)
          .regex(/^$|^[\w.~-]{16,}$/, '16 or more letters, digits, or . _ ~ - (or empty for a new one each start)')
          .optional(),
      })
      .strict(),
    /**
     * Where records live: empty `url` (default) is the embedded SQLite store in dataDir; a
     * `postgres://…` url keeps them in PostgreSQL (one store for many machines, docs/operations.md),
     * in `schema`. SPIELHALLE_DATABASE_URL sets it from the environment.
     */
    database: z
      .object({
        url: z.string().regex(/^$|^postgres(ql)?:\/\//, 'empty (SQLite) or a postgres:// url'),
        schema: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'lower-case letters, digits and _'),
      })
      .strict(),
    /** Retention of the record store, applied by the running server (0: keep). */
    records: z
      .object({
        keepDays: z.number().min(0).max(100_000),
        /** House games (bot against bot, nobody from outside) go sooner (issue 37). */
        houseKeepDays: z.number().min(0).max(100_000),
        wireKeepDays: z.number().min(0).max(100_000),
        maxMegabytes: z.number().int().min(0).max(10_000_000),
        pruneEveryMinutes: z.number().min(1).max(10_080),
      })
      .strict(),
    /**
     * Programs staff register for tournaments started from the dashboard: the browser names one,
     * it never sends a command line (docs/tournaments.md, "Dashboard").
     */
    tournaments: z
      .object({
        programs: z
          .array(
            z
              .object({
                name: z.string().regex(/^[A-Za-z0-9_.-]{1,32}$/, '1–32 characters of A–Z a–z 0–9 _ . -'),
                game: z.enum(['catan', 'mia', 'connect4', 'dame', 'ostseeschach']),
                command: z.string().min(1),
                cwd: z.string().min(1).optional(),
                limits: z
                  .object({
                    cpuSeconds: z.number().positive().optional(),
                    memoryMb: z.number().positive().optional(),
                    wallSeconds: z.number().positive().optional(),
                  })
                  .strict()
                  .optional(),
              })
              .strict(),
          )
          .max(1000),
        /** Ports tournament arenas listen on, e.g. "20000-20999" (firewalled labs; '' = any). */
        ports: z
          .string()
          .max(32)
          .refine((v) => v === '' || typeof parsePortRange(v) !== 'string', 'a range of ports such as "20000-20999"'),
      })
      .strict(),
    /**
     * Die Liga, the rated ladder (issue 34, docs/ladder.md): off by default. Its roster, ratings
     * and games live in `<dataDir>/ladder.db`, or with `database.url` in PostgreSQL (tables `ladder_*`).
     */
    ladder: z
      .object({
        enabled: z.boolean(),
        /** The games with a ladder (any of the five; Connect Four, Catan and Mia on ports of their own). */
        games: z.array(z.enum(['dame', 'ostseeschach', 'connect4', 'mia', 'catan'])).max(5),
        /** A client nobody fits gets a house bot this long after it came. */
        houseAfterSeconds: z.number().min(1).max(600),
        /** Rating window at 0 s of waiting, and how many points a second it widens. */
        window: z.number().min(0).max(3000),
        widenPerSecond: z.number().min(0).max(3000),
        /** Two codes from one IP may be paired (off: no farming a second code on one machine). */
        sameHostAllowed: z.boolean(),
        /** Ladder games one code may have waiting or running at once. */
        maxGamesPerEntry: z.number().int().min(1).max(10),
        /** Rated games before a rating counts as established. */
        minGames: z.number().int().min(1).max(1000),
      })
      .strict(),
    // Each game's own settings live in its folder (src/games/<game>/settings.ts).
    games: z.object({ catan: catanSettingsSchema, mia: miaSettingsSchema, connect4: connect4SettingsSchema, dame: dameSettingsSchema, ostseeschach: ostseeschachSettingsSchema }).strict(),
  })
  .strict();

export type Settings = z.infer<typeof settingsSchema>;

export const DEFAULT_SETTINGS: Settings = {
  host: '127.0.0.1',
  dataDir: './data',
  logLevel: 'info',
  logFile: '',
  logFormat: 'auto',
  bots: true,
  seed: '',
  web: { enabled: true, host: '127.0.0.1', port: 8080, token: '' },
  database: { url: '', schema: 'public' },
  records: { keepDays: 365, houseKeepDays: 3, wireKeepDays: 30, maxMegabytes: 1024, pruneEveryMinutes: 60 },
  tournaments: { programs: [], ports: '' },
  ladder: { enabled: false, games: ['dame', 'ostseeschach'], houseAfterSeconds: 10, window: 150, widenPerSecond: 40, sameHostAllowed: true, maxGamesPerEntry: 1, minGames: 10 },
  games: {
    catan: CATAN_SETTINGS,
    mia: MIA_SETTINGS,
    connect4: CONNECT4_SETTINGS,
    dame: DAME_SETTINGS,
    ostseeschach: OSTSEESCHACH_SETTINGS,
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

/** The ladder's store (roster, ratings, ladder games). */
export const ladderFile = (s: Settings): string => join(s.dataDir, 'ladder.db');

/** Where the records of these settings live, for messages. */
export const recordsWhere = (s: Settings): string =>
  s.database.url === '' ? recordsFile(s) : `${s.database.url.replace(/\/\/[^@/]*@/, '//…@')} (schema ${s.database.schema})`;
