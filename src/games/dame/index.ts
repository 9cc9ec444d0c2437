import { guard } from '../../core/guard.js';
import { RateLimitedWarn } from '../../core/hosts.js';
import type { GameServer } from '../../core/game-server.js';
import type { Stoppable } from '../../core/lifecycle.js';
import type { GameCommands, GameModule, ServeContext } from '../types.js';
import { createDameBot } from './bots/index.js';
import { DameClient } from './client.js';
import { registerDameBotCommand } from './commands.js';
import { registerDameNewCommand } from './new-command.js';
import { botPlayer } from './players.js';
import { verifyDameMatch } from './replay.js';
import { DameGameError, DameServer } from './server.js';
import { dameServerOptions } from './settings.js';
import { registerDameWebRoutes } from './web.js';

export { DameServer } from './server.js';

/**
 * Dame over the MNM Gameserver protocol: the server on TCP 1357, `bot dame`, `dame new`, the
 * game-creation API of the dashboard, and house games so there is something to watch.
 */

function dameOf(server: GameServer): DameServer {
  if (!(server instanceof DameServer)) throw new Error('not a Dame server');
  return server;
}

/**
 * One house game after another: the server's engine seat (White) against a client bot (Black) as a
 * real network client. Every step is guarded: a game that cannot be created (a full table) or a
 * round that fails is logged (rate-limited) and tried again after `housePauseMs`, so the loop
 * never stops and never takes the process down.
 */
function startHouseBots(ctx: ServeContext, server: GameServer): Promise<Stoppable[]> {
  const s = ctx.settings.games.dame;
  const dame = dameOf(server);
  const log = ctx.log.child({ game: 'dame', part: 'house' });
  const warn = new RateLimitedWarn(log, 60_000);
  const parts: Stoppable[] = [];
  for (let i = 0; i < s.houseGames; i++) {
    let client: DameClient | null = null;
    let stopped = false;
    let timer: NodeJS.Timeout | null = null;
    let round = 0;
    const later = (): void => {
      if (stopped) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(next, s.housePauseMs);
      timer.unref();
    };
    const next = guard(
      log,
      'dame house game',
      () => {
        timer = null;
        if (stopped) return;
        let gameId: string;
        try {
          gameId = dame.createGame({ name: `House game ${i + 1}.${round}`, moveTimeMs: s.houseMoveTimeMs, engineSeat: 0 });
        } catch (err) {
          if (!(err instanceof DameGameError)) throw err;
          warn.warn(`house:${err.code}`, { code: err.code, house: i + 1 }, `cannot create a house game (${err.message}): trying again later`);
          later();
          return;
        }
        const bot = createDameBot(round % 2 === 0 ? 'greedy' : 'depth2');
        client = new DameClient({ host: '127.0.0.1', port: dame.info().port, gameId, seat: 1, player: botPlayer(bot, `house:${i}:${round}`), log: ctx.log.child({ bot: `dame-house-${i}` }) });
        round++;
        void client.run().then(later, (err: unknown) => {
          log.warn({ err }, 'dame house game failed');
          later();
        });
      },
      // Anything else that throws is logged with its stack by guard; the loop goes on.
      () => later(),
    );
    next();
    parts.push({
      name: `dame house game ${i + 1}`,
      stop: () => {
        stopped = true;
        if (timer) clearTimeout(timer);
        client?.stop();
      },
    });
  }
  return Promise.resolve(parts);
}

export const dame: GameModule = {
  name: 'dame',
  title: 'Dame (Checkers)',
  createServer: (ctx) => new DameServer(dameServerOptions(ctx.settings.games.dame, ctx.settings.host, ctx.log, ctx.store)),
  startHouseBots,
  registerCommands: ({ bot, program }: GameCommands) => {
    registerDameBotCommand(bot);
    registerDameNewCommand(program);
  },
  registerRoutes: (app, server, ctx) => {
    const dameServer = dameOf(server);
    registerDameWebRoutes(app, dameServer, { log: ctx.log, host: dameServer.info().host });
  },
  verify: verifyDameMatch,
};
