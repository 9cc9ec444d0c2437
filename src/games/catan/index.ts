import type { GameServer } from '../../core/game-server.js';
import { guard } from '../../core/guard.js';
import type { Stoppable } from '../../core/lifecycle.js';
import type { GameModule, ServeContext } from '../types.js';
import { registerCatanBotCommand } from './commands.js';
import { catanConformance } from './conformance/index.js';
import { houseBotSeats, houseLineUp } from './house-games.js';
import { verifyCatanMatch } from './replay.js';
import { CatanServer } from './server.js';
import { catanTournament } from './tournament.js';
import { catanServerOptions } from './settings.js';
import type { CatanResultRow } from './snapshot.js';
import { registerCatanWebRoutes } from './web.js';

export { CatanServer, CATAN_DEFAULTS, createCatanServer } from './server.js';
export type { CatanSnapshot } from './snapshot.js';

/**
 * Siedler von Catan over protocol 0.3: the server on TCP 6000, `bot catan`, the dashboard's
 * lobby, spectator, record and play routes, and games of house bots so there is something to watch.
 */

function catanOf(server: GameServer): CatanServer {
  if (!(server instanceof CatanServer)) throw new Error('not a Catan server');
  return server;
}

/**
 * `houseGames` loops ("tables"), each starting a game of house bots, waiting for its end and a
 * pause, and again; game g of table t is seated by `houseLineUp(seed, t, g)` (house-games.ts).
 */
function startHouseBots(ctx: ServeContext, server: GameServer): Promise<Stoppable[]> {
  const s = ctx.settings.games.catan;
  const catan = catanOf(server);
  const log = ctx.log.child({ game: 'catan', part: 'house-games' });
  const parts: Stoppable[] = [];
  for (let i = 0; i < s.houseGames; i++) {
    const table = i + 1;
    /** The table's games so far: the next one's place in the schedule (a game that could not start keeps it). */
    let games = 0;
    let stopped = false;
    let timer: NodeJS.Timeout | null = null;
    let current: string | null = null;
    const off = catan.subscribe((event) => {
      if (event.type !== 'matchEnded' || (event.data as CatanResultRow).id !== current) return;
      current = null;
      later(s.housePauseMs);
    });
    const later = (ms: number): void => {
      if (stopped) return;
      timer = setTimeout(step, ms);
      timer.unref();
    };
    const next = (): void => {
      timer = null;
      if (stopped) return;
      const seats = houseLineUp(catan.seed, table, games, s.housePlayers);
      catan.startGameWithBots(s.housePlayers, houseBotSeats(seats)).then(
        (id) => {
          games++;
          current = id;
          log.debug({ match: id, table, seats }, 'house game started');
        },
        (err: unknown) => {
          // The server is full or stopping: try again later.
          log.warn({ err: (err as Error).message }, 'no house game now');
          later(Math.max(s.housePauseMs, 5000));
        },
      );
    };
    // An exception while starting a house game is logged, and the loop tries again later.
    const step = guard(log, 'house game loop', next, () => later(Math.max(s.housePauseMs, 5000)));
    step();
    parts.push({
      name: `catan house game ${i + 1}`,
      stop: () => {
        stopped = true;
        off();
        if (timer) clearTimeout(timer);
      },
    });
  }
  return Promise.resolve(parts);
}

export const catan: GameModule = {
  name: 'catan',
  title: 'Die Siedler von Catan',
  createServer: (ctx) =>
    new CatanServer(catanServerOptions(ctx.settings.games.catan, ctx.settings, ctx.log, ctx.store)),
  startHouseBots,
  registerCommands: ({ bot }) => registerCatanBotCommand(bot),
  registerRoutes: (app, server, ctx) => {
    const s = ctx.settings.games.catan;
    registerCatanWebRoutes(app, catanOf(server), {
      log: ctx.log,
      store: ctx.store,
      maxBrowserPlayers: s.maxBrowserPlayers,
    });
  },
  verify: verifyCatanMatch,
  tournament: catanTournament,
  conformance: catanConformance,
};
