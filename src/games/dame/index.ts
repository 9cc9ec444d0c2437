import type { GameServer } from '../../core/game-server.js';
import type { Stoppable } from '../../core/lifecycle.js';
import { houseLogger } from '../../core/log.js';
import type { GameCommands, GameModule, ServeContext } from '../types.js';
import { createDameBot } from './bots/index.js';
import { DameClient } from './client.js';
import { dameConformance } from './conformance/index.js';
import { registerDameBotCommand } from './commands.js';
import { startHouseTables } from './house.js';
import { registerDameNewCommand } from './new-command.js';
import { botPlayer } from './players.js';
import { verifyDameMatch } from './replay.js';
import { DameServer } from './server.js';
import { dameServerOptions } from './settings.js';
import { dameTournament } from './tournament.js';
import { registerDameReplayRoute, registerDameWebRoutes } from './web.js';

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
 * The house tables of house.ts on this server: the server's engine seat against a client bot that
 * plays over real TCP, colours and line-up changing from game to game (docs/dame.md).
 */
function startHouseBots(ctx: ServeContext, server: GameServer): Promise<Stoppable[]> {
  const s = ctx.settings.games.dame;
  const dame = dameOf(server);
  return Promise.resolve(
    startHouseTables({
      tables: s.houseGames,
      // No seed: a new schedule each start, as the other games' house bots do.
      seed: ctx.settings.seed === '' ? String(Date.now()) : ctx.settings.seed,
      moveTimeMs: s.houseMoveTimeMs,
      engineMs: s.engineTimeMs > 0 ? s.engineTimeMs : s.houseMoveTimeMs,
      pauseMs: s.housePauseMs,
      log: ctx.log.child({ game: 'dame', part: 'house' }),
      createGame: (options) => dame.createGame({ ...options, house: true }),
      play: (plan, gameId) => {
        const seat = plan.engineSeat === 0 ? 1 : 0;
        const player = botPlayer(createDameBot(plan.opponent), plan.botSeed);
        const client = new DameClient({ host: '127.0.0.1', port: dame.info().port, gameId, seat, player, log: houseLogger(ctx.log.child({ bot: `dame-house-${plan.table}` })) });
        return { done: client.run(), stop: () => client.stop() };
      },
    }),
  );
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
    registerDameReplayRoute(app, ctx.store);
  },
  verify: verifyDameMatch,
  tournament: dameTournament,
  conformance: dameConformance,
};
