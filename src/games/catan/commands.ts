import { Option, type Command } from 'commander';
import { commandLogLevel } from '../../core/command-log.js';
import { UsageError } from '../../core/errors.js';
import { createLogger, type Logger } from '../../core/log.js';
import {
  CatanClient,
  CATAN_STRATEGIES,
  createCatanBot,
  type CatanStrategy,
  type ClientResult,
} from './client.js';
import { COLOURS, type Colour } from './rules/index.js';

/**
 * `spielhalle bot catan`: one of our bots plays one game on any protocol 0.3 server and prints
 * the outcome as one JSON line. Exit codes: 0 after the game, 1 when the server cannot be reached
 * or the connection ends before `Spiel beendet`, 2 for usage errors, 3 when no game started
 * within `--lobby-timeout` (the bot leaves the lobby; nothing on stdout).
 */

/** Exit code when the lobby did not fill in time: not a lost game (0), not a broken connection (1). */
export const EXIT_LOBBY_TIMEOUT = 3;

interface BotFlags {
  host: string;
  port: string;
  name: string;
  strategy: CatanStrategy;
  colour?: string;
  seed: string;
  thinkMs: string;
  lobbyTimeout: string;
}

/** Characters as the server counts them (an emoji is one). */
export const codePoints = (text: string): number =>
  text.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, '_').length;

function whole(value: string, flag: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max)
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got "${value}"`);
  return n;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `120s`, `2m`, `1500ms`, `1h`, or a plain number of seconds; `0` is off (null). At most a day. */
export function durationFlag(value: string, flag: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(value.trim());
  const ms = m ? Math.round(Number(m[1]) * UNITS[m[2] ?? 's']!) : NaN;
  if (!Number.isFinite(ms) || ms > 86_400_000)
    throw new UsageError(`${flag} must be a duration such as 120s, 2m or 500ms (0: wait for ever), up to 24h, got "${value}"`);
  return ms === 0 ? null : ms;
}

/** How a duration reads in a message: whole seconds where it can. */
const spoken = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/** The protocol's colours, with `Weiß` for `Weiss` and any case. */
export function colourFlag(value: string | undefined): Colour | undefined {
  if (value === undefined) return undefined;
  const ascii = value.replace(/ß/g, 'ss').toLowerCase();
  const colour = COLOURS.find((c) => c.toLowerCase() === ascii);
  if (colour === undefined)
    throw new UsageError(`--colour must be one of ${COLOURS.join(', ')}, got "${value}"`);
  return colour;
}

/** What the command prints: the game's end as the bot saw it. */
export function summary(r: ClientResult): Record<string, unknown> {
  const me = r.view.players.find((p) => p.id === r.me);
  return {
    id: r.me,
    name: me?.name ?? null,
    colour: me?.colour ?? null,
    won: r.won,
    winner: r.winner,
    message: r.message,
    points: Object.fromEntries(r.view.players.map((p) => [p.name ?? String(p.id), p.points])),
    actions: r.stats.actions,
    refused: r.stats.refused,
  };
}

export function registerCatanBotCommand(bot: Command): void {
  bot
    .command('catan')
    .description('play one game of Siedler von Catan (protocol 0.3) on any server with one of our bots')
    .option('--host <host>', 'server host', '127.0.0.1')
    .option('--port <port>', 'server TCP port', '6000')
    .option('--name <name>', 'player name (1–40 characters)', 'KI Spielhalle')
    .addOption(
      new Option('--strategy <strategy>', 'how the bot plays').choices(CATAN_STRATEGIES).default('search'),
    )
    .option('--colour <colour>', `colour to ask for first (${COLOURS.join(', ')}); then the first free one`)
    .option('--seed <seed>', "seed of the bot's random choices", 'spielhalle')
    .option('--think-ms <ms>', 'pause before each message the bot sends', '0')
    .option(
      '--lobby-timeout <duration>',
      'leave and exit 3 when no game has started this long after connecting (e.g. 90s, 5m; 0: wait for ever)',
      '120s',
    )
    .option('--log-level <level>', 'log level (debug shows every line; default warn)')
    .action(async (opts: BotFlags, cmd: Command) => {
      const port = whole(opts.port, '--port', 1, 65535);
      const thinkMs = whole(opts.thinkMs, '--think-ms', 0, 60_000);
      const colour = colourFlag(opts.colour);
      const lobbyTimeoutMs = durationFlag(opts.lobbyTimeout, '--lobby-timeout');
      const name = opts.name.trim();
      if (name === '' || codePoints(name) > 40)
        throw new UsageError(`--name must have 1 to 40 characters, got "${opts.name}"`);
      const log: Logger = createLogger({ level: commandLogLevel(cmd, 'warn') });
      const client = new CatanClient({
        host: opts.host,
        port,
        name,
        colour,
        bot: createCatanBot(opts.strategy, opts.seed),
        thinkMs,
        lobbyTimeoutMs: lobbyTimeoutMs ?? undefined,
        log,
      });
      try {
        await client.start();
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
        throw new Error(`cannot connect to the Catan server at ${opts.host}:${port} (${code})`);
      }
      const stop = (): void => void client.stop();
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, stop);
      const result = await client.done;
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.off(signal, stop);
      await client.stop();
      if (result.lobbyTimedOut) {
        process.stderr.write(
          `spielhalle: no game started at ${opts.host}:${port} within ${spoken(lobbyTimeoutMs ?? 0)} (the lobby did not fill); left the lobby\n`,
        );
        process.exitCode = EXIT_LOBBY_TIMEOUT;
        return;
      }
      process.stdout.write(`${JSON.stringify(summary(result))}\n`);
      if (result.message === null) {
        process.stderr.write(
          `spielhalle: the connection to ${opts.host}:${port} ended before the game did\n`,
        );
        process.exitCode = 1;
      }
    });
}
