import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { pino, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };

/** pino's levels, quietest last: what `--log-level` and the `logLevel` setting accept. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const satisfies readonly LevelWithSilent[];

export interface LogOptions {
  level: LevelWithSilent;
  /** Write JSON lines to this file instead of stderr. */
  file?: string | undefined;
}

export function createLogger(options: LogOptions): Logger {
  if (options.file) {
    mkdirSync(dirname(options.file), { recursive: true });
    return pino(
      { level: options.level, base: { pid: process.pid } },
      pino.destination({ dest: options.file, sync: false, mkdir: true }),
    );
  }
  return pino({ level: options.level, base: null }, pino.destination({ dest: 2, sync: true }));
}

export const silentLogger: Logger = pino({ level: 'silent' });

export interface ConnectionFields {
  game: string;
  conn: string;
  match?: string;
}

/** A child logger for one connection; every wire message goes through `wire`. */
export function connectionLogger(parent: Logger, fields: ConnectionFields): Logger {
  return parent.child(fields);
}

/** Logs one wire message at debug level: `dir` is `in` (client to server) or `out`. */
export function logWire(log: Logger, dir: 'in' | 'out', data: string): void {
  if (log.isLevelEnabled('debug')) log.debug({ dir, data }, dir === 'in' ? 'recv' : 'send');
}
