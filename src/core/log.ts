import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { pino, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };

/** pino's levels, quietest last: what `--log-level` and the `logLevel` setting accept. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const satisfies readonly LevelWithSilent[];

/**
 * How stderr logs look: `json` (one JSON object a line, for pipes, files and tools), `pretty`
 * (readable lines, pino-pretty), `auto` (pretty when stderr is a terminal and there is no log file).
 */
export const LOG_FORMATS = ['auto', 'pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LogOptions {
  level: LevelWithSilent;
  /** Write JSON lines to this file instead of stderr (always JSON, whatever `format` says). */
  file?: string | undefined;
  /** The look of stderr logs (default `json`). */
  format?: LogFormat | undefined;
}

/** Whether stderr logs come out readable: `pretty`, or `auto` on a terminal; never with a log file. */
export function prettyLogs(format: LogFormat | undefined, file: string | undefined, stderrIsTTY = process.stderr.isTTY): boolean {
  if (file) return false;
  return format === 'pretty' || (format === 'auto' && stderrIsTTY);
}

export function createLogger(options: LogOptions): Logger {
  if (options.file) {
    mkdirSync(dirname(options.file), { recursive: true });
    return pino(
      { level: options.level, base: { pid: process.pid } },
      pino.destination({ dest: options.file, sync: false, mkdir: true }),
    );
  }
  if (prettyLogs(options.format, options.file)) {
    // Loaded only here: every command imports this module, and pino-pretty's modules cost start-up
    // time that JSON logs and `solve` do not need. The stream form, synchronous on fd 2 like the
    // JSON path: a crash or exit loses no line (a worker transport could).
    const { PinoPretty } = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
    const stream = PinoPretty({
      destination: 2,
      sync: true,
      colorize: process.stderr.isTTY && !process.env.NO_COLOR,
      translateTime: 'SYS:HH:MM:ss',
      ignore: 'pid,hostname',
      singleLine: true,
    });
    return pino({ level: options.level, base: null }, stream);
  }
  return pino({ level: options.level, base: null }, pino.destination({ dest: 2, sync: true }));
}

/**
 * A logger for what house bots do routinely (their games, rounds, connections): its `info` lines
 * go out at `debug`, so a `serve` at the default level shows start-up, warnings, errors and the
 * matches of real players, and `--log-level debug` shows the house games too. Warnings and errors
 * keep their level. Children inherit it.
 */
export function houseLogger(parent: Logger): Logger {
  return new Proxy(parent, {
    get(target, key, receiver) {
      if (key === 'info') return target.debug.bind(target);
      if (key === 'child') return (...args: unknown[]) => houseLogger(Reflect.apply(target.child, target, args) as Logger);
      if (key === 'isLevelEnabled') return (level: string) => target.isLevelEnabled(level === 'info' ? 'debug' : level);
      const value: unknown = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
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
