import { Option, type Command } from 'commander';
import { commandLogLevel } from '../../core/command-log.js';
import { UsageError } from '../../core/errors.js';
import { createLogger, type Logger } from '../../core/log.js';
import type { Stoppable } from '../../core/lifecycle.js';
import type { GameServer } from '../../core/game-server.js';
import type { GameCommands, GameModule, ServeContext } from '../types.js';
import { createBot, MIA_STRATEGIES, type MiaStrategy } from './bots/index.js';
import { MiaClient } from './client.js';
import { miaConformance } from './conformance/index.js';
import { HouseLineup } from './house.js';
import { isValidName, MAX_NAME_LENGTH } from './protocol.js';
import { summarizeRound, verifyRound } from './replay.js';
import { MiaServer } from './server.js';
import { miaTournament } from './tournament.js';

export { MiaServer, MIA_DEFAULTS } from './server.js';
export type { MiaSnapshot } from './snapshot.js';

const HOUSE: readonly MiaStrategy[] = ['adaptive', 'probabilistic', 'honest', 'random'];

async function startHouseBots(ctx: ServeContext, server: GameServer): Promise<Stoppable[]> {
  const { houseBots: count, maxMissedRounds } = ctx.settings.games.mia;
  const port = server.info().port;
  const clients: Stoppable[] = [];
  const names = Array.from({ length: count }, (_, i) => {
    const strategy = HOUSE[i % HOUSE.length] as MiaStrategy;
    return { strategy, name: `house-${strategy}${i >= HOUSE.length ? String(Math.floor(i / HOUSE.length) + 1) : ''}` };
  });
  if (server instanceof MiaServer) server.setHouseNames(names.map((n) => n.name));
  // Without a seed every start draws other line-ups (as the server rolls other dice); with one, the same.
  const lineup = new HouseLineup(
    names.map((n) => n.name),
    ctx.settings.seed === '' ? Date.now() : ctx.settings.seed,
    maxMissedRounds,
  );
  for (const { strategy, name } of names) {
    const client = new MiaClient({
      host: '127.0.0.1',
      port,
      name,
      bot: createBot(strategy, `${ctx.settings.seed}:${name}`),
      log: ctx.log.child({ bot: name }),
      joins: () => lineup.joins(name),
      registerAgain: true,
    });
    await client.start();
    clients.push({ name: `mia bot ${name}`, stop: () => client.stop() });
  }
  return clients;
}

function registerCommands({ bot }: GameCommands): void {
  bot
    .command('mia')
    .description('play Mäxchen on a Mia server with one of our bots')
    .option('--host <host>', 'server host', '127.0.0.1')
    .option('--port <port>', 'server UDP port', '9000')
    .option('--name <name>', 'player name (1–20 characters, none of , ; : or spaces)', 'mia-bot')
    .addOption(new Option('--strategy <strategy>', 'how the bot plays').choices(MIA_STRATEGIES).default('adaptive'))
    .option('--seed <seed>', 'seed of the bot\'s random choices', 'spielhalle')
    .option('--spectate', 'register as a spectator and print what happens')
    .option('--stay', 'keep running when the server unregisters us for good (default: exit with code 0, as at the end of a tournament table)')
    .action(async (opts: { host: string; port: string; name: string; strategy: MiaStrategy; seed: string; spectate?: boolean; stay?: boolean }, cmd: Command) => {
      const port = Number(opts.port);
      if (!Number.isInteger(port) || port < 1 || port > 65535) throw new UsageError(`--port must be a port number, got "${opts.port}"`);
      // A name the protocol cannot carry would register as something else (`a;b` as `a`) or be rejected.
      if (!isValidName(opts.name))
        throw new UsageError(`--name must be 1 to ${MAX_NAME_LENGTH} characters without , ; : spaces or control characters, got ${JSON.stringify(opts.name)}`);
      const log: Logger = createLogger({ level: commandLogLevel(cmd, 'info') });
      let unregistered = (): void => undefined;
      const client = new MiaClient({
        host: opts.host,
        port,
        name: opts.name,
        ...(opts.spectate ? { onMessage: (line: string) => process.stdout.write(line + '\n') } : { bot: createBot(opts.strategy, opts.seed) }),
        log,
        // Unregistered unasked (expired, a server restarted): register again; a table that has
        // ended rejects that, and then the bot is done.
        registerAgain: true,
        onUnregistered: () => unregistered(),
      });
      await client.start();
      log.info({ name: opts.name, strategy: opts.spectate ? 'spectator' : opts.strategy, server: `${opts.host}:${port}` }, 'registered; Ctrl-C to stop');
      await new Promise<void>((resolve) => {
        for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
        if (opts.stay !== true)
          unregistered = () => {
            log.info('the server unregistered us: done');
            resolve();
          };
      });
      await client.stop();
      log.info(client.stats, 'stopped');
    });
}

export const mia: GameModule = {
  name: 'mia',
  title: 'Mäxchen (Mia)',
  createServer: (ctx) => {
    const s = ctx.settings.games.mia;
    return new MiaServer({
      host: ctx.settings.host,
      port: s.port,
      answerTimeoutMs: s.answerTimeoutMs,
      heartbeatMs: s.heartbeatMs,
      minPlayers: s.minPlayers,
      waitRecheckMs: s.waitRecheckMs,
      startEarly: s.startEarly,
      maxClients: s.maxClients,
      maxClientsPerHost: s.maxClientsPerHost,
      maxMissedRounds: s.maxMissedRounds,
      expireSilenceMs: s.expireSilenceMs,
      floodPerSecond: s.floodPerSecond,
      unregisteredPerSecond: s.unregisteredPerSecond,
      seed: ctx.settings.seed === '' ? Date.now() : ctx.settings.seed,
      log: ctx.log,
      store: ctx.store,
    });
  },
  startHouseBots,
  registerCommands,
  verify: verifyRound,
  summarize: summarizeRound,
  tournament: miaTournament,
  conformance: miaConformance,
};
