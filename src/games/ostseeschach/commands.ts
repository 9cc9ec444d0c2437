import { Option, type Command } from 'commander';
import { commandLogLevel } from '../../core/command-log.js';
import { UsageError } from '../../core/errors.js';
import { createLogger, type Logger } from '../../core/log.js';
import { BOT_NAMES, createBot, type BotName } from './bots/index.js';
import { DEFAULT_BUDGET_MS, OstseeschachClient, type ClientOutcome, type JoinRequest } from './client.js';
import { EngineThread } from './engine-thread.js';
import { OSTSEESCHACH_DEFAULTS } from './server.js';

/**
 * `spielhalle bot ostseeschach -h <host> -p <port> -r <reservation>`: our client on any
 * Software-Challenge 2022 server, with the official player's flags (spec §3.10): `-h` is the
 * host, as in the official clients, so help is on `--help` only. Without `-r` or `--room` it
 * sends a plain `<join/>`. Exit code 0 after a game with a result, 1 when there was no game
 * (no connection, a refused join, a stream that ended early), 2 for a usage error.
 */

interface BotFlags {
  host: string;
  port: string;
  reservation?: string;
  room?: string;
  bot: BotName;
  timeMs: string;
  seed: string;
}


function wholeNumber(value: string, flag: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got "${value}"`);
  return n;
}

export function joinRequestOf(opts: { reservation?: string | undefined; room?: string | undefined }): JoinRequest {
  if (opts.reservation !== undefined && opts.room !== undefined) throw new UsageError('give either -r/--reservation or --room, not both');
  if (opts.reservation !== undefined) {
    if (opts.reservation.trim() === '') throw new UsageError('-r/--reservation needs a reservation code');
    return { kind: 'prepared', reservationCode: opts.reservation };
  }
  if (opts.room !== undefined) {
    if (opts.room.trim() === '') throw new UsageError('--room needs a room id');
    return { kind: 'room', roomId: opts.room };
  }
  // The official Java player names the game type; rooms of any type are filled regardless.
  return { kind: 'join', gameType: 'swc_2022_ostseeschach' };
}

/** One line for the user: who we were and how the game ended. */
export function outcomeLine(o: ClientOutcome): string {
  return JSON.stringify({
    roomId: o.roomId,
    team: o.team,
    points: o.points,
    winner: o.result?.winner ?? null,
    moves: o.moves,
    scores: o.result?.scores.map((s) => ({ team: s.team, cause: s.cause, reason: s.reason, parts: s.parts })) ?? [],
    errors: o.errors,
  });
}

export function registerOstseeschachBotCommand(bot: Command): void {
  bot
    .command('ostseeschach')
    .description('play one Ostseeschach game (Software-Challenge 2022) on any SC 2022 server with our engine or another bot')
    .helpOption('--help', 'display help for command')
    .option('-h, --host <host>', 'server host', OSTSEESCHACH_DEFAULTS.host)
    .option('-p, --port <port>', 'server TCP port', String(OSTSEESCHACH_DEFAULTS.port))
    .option('-r, --reservation <code>', 'reservation code of a prepared room (joinPrepared)')
    .option('--room <id>', 'join this room (joinRoom)')
    .addOption(new Option('--bot <bot>', 'who chooses the moves').choices(BOT_NAMES).default('engine'))
    .option('--time-ms <ms>', 'think time per move, from the moveRequest (the server allows 2000)', String(DEFAULT_BUDGET_MS))
    .option('--seed <seed>', 'seed of the bot\'s random choices', 'spielhalle')
    .option('--log-level <level>', 'log level (debug shows every packet; default info)')
    .action(async (opts: BotFlags, cmd: Command) => {
      const port = wholeNumber(opts.port, '-p/--port', 1, 65535);
      const budgetMs = wholeNumber(opts.timeMs, '--time-ms', 10, 60_000);
      const join = joinRequestOf(opts);
      const log: Logger = createLogger({ level: commandLogLevel(cmd, 'info') });
      // The engine thinks in a worker thread, so the client reads every packet while it thinks: a
      // result that arrives meanwhile ends the game at once, and the move is never sent.
      const engine = opts.bot === 'engine' ? new EngineThread(opts.seed, log) : null;
      engine?.warm().catch((err: unknown) => {
        if (!engine.closed) log.warn({ err }, 'the engine did not warm up');
      });
      const client = new OstseeschachClient({ host: opts.host, port, join, bot: engine?.bot ?? createBot(opts.bot), budgetMs, seed: opts.seed, log });
      try {
        await client.start();
      } catch (error) {
        await engine?.close();
        const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        throw new Error(`cannot connect to ${opts.host}:${port} (${code})`);
      }
      const stop = (): void => client.stop();
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, stop);
      const outcome = await client.finished;
      await engine?.close();
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.off(signal, stop);
      process.stdout.write(`${outcomeLine(outcome)}\n`);
      if (outcome.result === null) {
        const why = outcome.errors[0] ?? (outcome.roomId === null ? 'the server did not let us join' : 'the game ended without a result');
        throw new Error(`no game played: ${why}`);
      }
    });
}
