import type { GameServer } from '../../core/game-server.js';
import type { GameCommands, GameModule, ServeContext } from '../types.js';
import { registerOstseeschachBotCommand } from './commands.js';
import { ostseeschachConformance } from './conformance/index.js';
import { startHouseGames } from './house.js';
import { verifyOstseeschachMatch } from './replay.js';
import { OstseeschachServer } from './server.js';
import { ostseeschachServerOptions } from './settings.js';
import { ostseeschachTournament } from './tournament.js';
import { registerOstseeschachWebRoutes } from './web.js';

export { OstseeschachServer, createOstseeschachServer, OSTSEESCHACH_DEFAULTS } from './server.js';
export { OstseeschachClient, playOnServer } from './client.js';
export { OstseeschachAdmin } from './admin.js';

/**
 * Ostseeschach (Software-Challenge 2022) for `spielhalle serve`: the XML server on TCP 13050, house
 * games between two engine bots in worker threads, `bot ostseeschach` with the official player's
 * flags, the replay route of the dashboard, and the rules check of recorded games.
 */

function ostseeschachOf(server: GameServer): OstseeschachServer {
  if (!(server instanceof OstseeschachServer)) throw new Error('not an Ostseeschach server');
  return server;
}

function startHouseBots(ctx: ServeContext, server: GameServer) {
  const s = ctx.settings.games.ostseeschach;
  const info = ostseeschachOf(server).info();
  return startHouseGames({
    games: s.houseGames,
    host: info.host,
    port: info.port,
    // Their own password: the server logs the house games' routine at debug (docs/operations.md, "Logs").
    adminPassword: ostseeschachOf(server).housePassword,
    moveTimeMs: s.houseMoveTimeMs,
    pauseMs: s.housePauseMs,
    seed: ctx.settings.seed === '' ? String(Date.now()) : ctx.settings.seed,
    log: ctx.log,
  });
}

export const ostseeschach: GameModule = {
  name: 'ostseeschach',
  title: 'Ostseeschach (Software-Challenge 2022)',
  createServer: (ctx) =>
    new OstseeschachServer(
      ostseeschachServerOptions(ctx.settings.games.ostseeschach, ctx.settings.host, ctx.settings.seed, ctx.log, ctx.store),
    ),
  startHouseBots,
  registerCommands: ({ bot }: GameCommands) => registerOstseeschachBotCommand(bot),
  registerRoutes: (app, _server, ctx) => registerOstseeschachWebRoutes(app, ctx.store),
  verify: verifyOstseeschachMatch,
  tournament: ostseeschachTournament,
  conformance: ostseeschachConformance,
};
