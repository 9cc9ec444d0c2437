import { Option, type Command } from 'commander';
import { commandLogLevel } from '../../core/command-log.js';
import { UsageError } from '../../core/errors.js';
import { createLogger, type Logger } from '../../core/log.js';
import { createDameBot, DAME_BOTS, type DameBotName } from './bots/index.js';
import { DameClient, DEFAULT_MARGIN_MS, type DamePlayer } from './client.js';
import { DameEnginePool } from './engine-pool.js';
import { formatTurnLine, type DameTurn } from './move-lines.js';
import { botPlayer, workerPlayer } from './players.js';
import { DEFAULT_PORT, isGameId, type Seat } from './protocol.js';

/**
 * `spielhalle bot dame -g <game-id> [-p <1|2>]`: our client on any MNM Gameserver, with the
 * course client's flags. `-p` is the course's 1-based player number: 1 asks for `PLAYER 0`
 * (White), 2 for `PLAYER 1` (Black); without it the client sends a bare `PLAYER`.
 */

export function playerFlag(value: string | undefined): Seat | null {
  if (value === undefined) return null;
  if (value === '1') return 0;
  if (value === '2') return 1;
  throw new UsageError(`-p must be 1 (White, PLAYER 0) or 2 (Black, PLAYER 1), got "${value}"`);
}

function number(value: string, flag: string, min: number, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got "${value}"`);
  return n;
}

interface BotFlags {
  gameId: string;
  player?: string;
  host: string;
  port: string;
  bot: DameBotName;
  margin: string;
  seed: string;
  moves?: boolean;
}

/**
 * Whether `bot dame` prints a line per turn while it plays: on a terminal by default, elsewhere
 * only with `--moves` (scripts that read its output get the one JSON line they always got);
 * `--no-moves` silences a terminal.
 */
export function printsMoves(flag: boolean | undefined, isTTY: boolean | undefined): boolean {
  return flag ?? isTTY === true;
}

export function registerDameBotCommand(bot: Command): void {
  bot
    .command('dame')
    .description('play one Dame (Checkers) game on an MNM Gameserver with our engine or another bot')
    .requiredOption('-g, --game-id <id>', 'the 13-character game id')
    .option('-p, --player <1|2>', 'the course client\'s player number: 1 = White (PLAYER 0), 2 = Black (PLAYER 1); default any free seat')
    .option('--host <host>', 'server host', '127.0.0.1')
    .option('--port <port>', 'server TCP port', String(DEFAULT_PORT))
    .addOption(new Option('--bot <bot>', 'who chooses the moves').choices(DAME_BOTS).default('engine'))
    .option('--margin <ms>', 'time kept back from each MOVE time', String(DEFAULT_MARGIN_MS))
    .option('--seed <seed>', 'seed of the bot\'s random choices', 'spielhalle')
    .option('--moves', 'print one line per turn as the game goes (the default on a terminal)')
    .option('--no-moves', 'print only the result line, also on a terminal')
    .option('--log-level <level>', 'log level (debug shows every line; default info)')
    .action(async (opts: BotFlags, cmd: Command) => {
      if (!isGameId(opts.gameId)) throw new UsageError(`-g must be 13 characters from 0-9, A-Z, a-z, got "${opts.gameId}"`);
      const seat = playerFlag(opts.player);
      const port = number(opts.port, '--port', 1, 65535);
      const marginMs = number(opts.margin, '--margin', 0, 60_000);
      const log: Logger = createLogger({ level: commandLogLevel(cmd, 'info') });
      // The engine thinks in a worker thread, so the client reads every line while it thinks: a
      // GAMEOVER that arrives meanwhile ends the game at once, and the move is never sent.
      const engine = opts.bot === 'engine' ? new DameEnginePool({ threads: 1, log }) : null;
      // Warmed while the client connects: the first move request queues behind the warm-up.
      engine?.warm().catch((err: unknown) => {
        if (!engine.closed) log.warn({ err }, 'the engine did not warm up');
      });
      const player: DamePlayer = engine ? workerPlayer(engine, opts.seed) : botPlayer(createDameBot(opts.bot), opts.seed);
      let turns = 0;
      const onTurn = printsMoves(opts.moves, process.stdout.isTTY)
        ? (turn: DameTurn) => void process.stdout.write(`${formatTurnLine(++turns, turn)}\n`)
        : undefined;
      const client = new DameClient({ host: opts.host, port, gameId: opts.gameId, seat, player, marginMs, log, ...(onTurn ? { onTurn } : {}) });
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => client.stop());
      const result = await client.run();
      // A think still in flight is cut off: nothing of it can be sent, and nothing keeps the process.
      await engine?.close();
      process.stdout.write(`${JSON.stringify(result)}\n`);
      if (result.outcome === 'error') process.exitCode = 1;
    });
}
