import type { Command } from 'commander';
import type { LevelWithSilent } from 'pino';
import { UsageError } from './errors.js';
import { LOG_LEVELS } from './log.js';

/**
 * The log level a client subcommand runs at. The program has a `--log-level` of its own, and
 * commander hands the value to the program's copy wherever it is written (`spielhalle bot dame
 * --log-level debug` included), so a subcommand's option of that name is only help text: the
 * level is read with the program's options, and `fallback` applies when neither is given.
 */
export function commandLogLevel(cmd: Command, fallback: LevelWithSilent): LevelWithSilent {
  const level = cmd.optsWithGlobals<{ logLevel?: string }>().logLevel ?? fallback;
  if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got "${level}"`);
  return level as LevelWithSilent;
}
