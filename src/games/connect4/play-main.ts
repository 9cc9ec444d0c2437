import { UsageError } from '../../core/errors.js';
import { LOG_LEVELS } from '../../core/log.js';
import { BOT_LEVELS, type BotLevel } from './bots/index.js';
import { DEFAULT_PEER_PORTS } from './network-flags.js';
import { runPlayConnect4, type PlayOptions } from './play-command.js';

/**
 * The quick way into `spielhalle play connect4` (src/cli.ts), as solve-main.ts is for `solve`: the
 * full program loads every game, the dashboard and SQLite first (most of a second), before the
 * board can show. This takes the plain forms — the options of `play connect4` — and gives up
 * (null) on anything else (help, global options, an unknown or malformed option or value), which
 * then goes to the full program and its usual messages. Both run the same runPlayConnect4.
 */

const FLAGS: Record<string, 'botFirst' | 'lan'> = { '--bot-first': 'botFirst', '--lan': 'lan' };
const VALUES: Record<string, 'name' | 'vs' | 'level' | 'port' | 'bind' | 'broadcast' | 'logLevel'> = {
  '--name': 'name',
  '--vs': 'vs',
  '--level': 'level',
  '--port': 'port',
  '--bind': 'bind',
  '--broadcast': 'broadcast',
  '--log-level': 'logLevel',
};

/** The options of `args` (what follows `play connect4`) and the log level, or null if the full parser is needed. */
export function parsePlayArgs(args: readonly string[], env: NodeJS.ProcessEnv = process.env): { opts: PlayOptions; logLevel: string } | null {
  const values: Record<string, string> = {};
  const flags: Record<string, boolean> = {};
  let peerPort: string[] | null = null;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (FLAGS[name] !== undefined && eq < 0) flags[FLAGS[name]] = true;
    else if (VALUES[name] !== undefined) {
      const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
      // A missing value, or one that looks like an option, is commander's to report.
      if (value === undefined || (eq < 0 && value.startsWith('-'))) return null;
      values[VALUES[name]] = value;
    } else if (name === '--peer-port') {
      // Variadic, as commander takes it: the values up to the next option; repeating it adds more.
      const taken: string[] = eq > 0 ? [arg.slice(eq + 1)] : [];
      while (eq < 0 && i + 1 < args.length && !args[i + 1]!.startsWith('-')) taken.push(args[++i]!);
      if (taken.length === 0) return null;
      peerPort = [...(peerPort ?? []), ...taken];
    } else return null;
  }
  const vs = values.vs ?? 'peer';
  const level = values.level ?? 'strong';
  const logLevel = values.logLevel ?? 'warn';
  // Values outside the choices get commander's messages.
  if ((vs !== 'peer' && vs !== 'bot') || !(BOT_LEVELS as readonly string[]).includes(level) || !(LOG_LEVELS as readonly string[]).includes(logLevel)) return null;
  const opts: PlayOptions = {
    name: values.name ?? env.USER ?? 'player',
    vs,
    level: level as BotLevel,
    peerPort: peerPort ?? [...DEFAULT_PEER_PORTS],
    ...(flags.botFirst ? { botFirst: true } : {}),
    ...(flags.lan ? { lan: true } : {}),
    ...(values.port !== undefined ? { port: values.port } : {}),
    ...(values.bind !== undefined ? { bind: values.bind } : {}),
    ...(values.broadcast !== undefined ? { broadcast: values.broadcast } : {}),
  };
  return { opts, logLevel };
}

/** Runs `play connect4` with `args` if this entry handles them; the exit code, or null for the full program. */
export async function playMain(args: readonly string[]): Promise<number | null> {
  const parsed = parsePlayArgs(args);
  if (parsed === null) return null;
  try {
    await runPlayConnect4(parsed.opts, parsed.logLevel as Parameters<typeof runPlayConnect4>[1]);
    return 0;
  } catch (err) {
    process.stderr.write(`spielhalle: ${err instanceof Error ? err.message : String(err)}\n`);
    return err instanceof UsageError ? 2 : 1;
  }
}
