import type { Settings } from '../config.js';
import type { GameServer } from '../core/game-server.js';
import type { Logger } from '../core/log.js';
import { CatanServer } from '../games/catan/server.js';
import { Connect4Hub } from '../games/connect4/hub.js';
import { DameServer } from '../games/dame/server.js';
import { MiaServer } from '../games/mia/server.js';
import { OstseeschachServer } from '../games/ostseeschach/server.js';
import { CatanLadderTable } from './catan.js';
import { Connect4LadderTable } from './connect4.js';
import { DameLadderTable } from './dame.js';
import { Ladder } from './ladder.js';
import { MiaLadderTable } from './mia.js';
import { OstseeschachLadderTable } from './ostseeschach.js';
import { ladderStoreWhere, openSettingsLadderStore } from './store.js';

/** Per game with a ladder: its table added and its door opened on the game's server. */
const OPEN: Record<Settings['ladder']['games'][number], (ladder: Ladder, server: GameServer, log: Logger, settings: Settings) => void | Promise<void>> = {
  dame: (ladder, server) => {
    if (!(server instanceof DameServer)) throw new Error('the dame server is no DameServer');
    const table = new DameLadderTable(ladder, server);
    ladder.addTable(table);
    server.setLadder(table);
  },
  ostseeschach: (ladder, server, log) => {
    if (!(server instanceof OstseeschachServer)) throw new Error('the ostseeschach server is no OstseeschachServer');
    const table = new OstseeschachLadderTable(ladder, server, { log: log.child({ component: 'ladder', game: 'ostseeschach' }) });
    ladder.addTable(table);
    server.setLadder(table);
  },
  // Connect Four has no server to hand a connection over: the hub opens the Liga peer on its own port.
  connect4: async (ladder, server, log) => {
    if (!(server instanceof Connect4Hub)) throw new Error('the connect4 server is no Connect4Hub');
    const table = new Connect4LadderTable(ladder, server, { log: log.child({ component: 'ladder', game: 'connect4' }) });
    ladder.addTable(table);
    await table.open();
  },
  // Mia's ladder has a port of its own too, where the name a client registers is its ladder code.
  mia: async (ladder, server, log, settings) => {
    if (!(server instanceof MiaServer)) throw new Error('the mia server is no MiaServer');
    const table = new MiaLadderTable(ladder, server, { log: log.child({ component: 'ladder', game: 'mia' }) });
    ladder.addTable(table);
    const port = await table.open(settings.games.mia.ladderPort);
    log.info({ game: 'mia', port }, 'ladder port open');
  },
  // Catan's ladder has a port of its own, where the name a client gives is its ladder code.
  catan: async (ladder, server, log, settings) => {
    if (!(server instanceof CatanServer)) throw new Error('the catan server is no CatanServer');
    const s = settings.games.catan;
    const table = new CatanLadderTable(ladder, server, { log: log.child({ component: 'ladder', game: 'catan' }), timeoutMs: s.aiTurnTimeoutMs > 0 ? s.aiTurnTimeoutMs : 10_000 });
    ladder.addTable(table);
    const port = await table.open(s.ladderPort);
    log.info({ game: 'catan', port }, 'ladder port open');
  },
};

/**
 * The ladder in `serve` (settings `ladder`): its store, one table per game whose server runs, each
 * game's door opened on its server. Games without a ladder table yet are named in the log.
 */
export async function startLadder(settings: Settings, servers: readonly GameServer[], log: Logger): Promise<Ladder | null> {
  const s = settings.ladder;
  if (!s.enabled) return null;
  // With `database.url` the ladder lives in PostgreSQL beside the records, shared by every serve
  // process that points there (docs/ladder.md, Several servers); else in <dataDir>/ladder.db.
  const store = await openSettingsLadderStore(settings, log.child({ component: 'ladder' }));
  const ladder = new Ladder({
    store,
    log: log.child({ component: 'ladder' }),
    settings: {
      houseAfterMs: s.houseAfterSeconds * 1000,
      window: s.window,
      widenPerSecond: s.widenPerSecond,
      sameHostAllowed: s.sameHostAllowed,
      maxGamesPerEntry: s.maxGamesPerEntry,
      minGames: s.minGames,
    },
  });
  for (const game of s.games) {
    const server = servers.find((x) => x.game === game);
    if (server === undefined) {
      log.warn({ game }, 'ladder: the game is not served, so it has no ladder');
      continue;
    }
    await OPEN[game](ladder, server, log, settings);
  }
  try {
    await ladder.start();
  } catch (err) {
    await store.close();
    throw err;
  }
  log.info({ games: ladder.games, store: ladderStoreWhere(settings) }, 'ladder open');
  return ladder;
}

/** Stops the ladder: waiting clients are told, running games finish on their servers, the store closes. */
export async function stopLadder(ladder: Ladder, servers: readonly GameServer[]): Promise<void> {
  for (const server of servers) if (server instanceof DameServer || server instanceof OstseeschachServer) server.setLadder(null);
  for (const server of servers) if (server instanceof CatanServer) await server.closeLadderPort();
  await ladder.stop();
  for (const server of servers) if (server instanceof MiaServer) await server.closeLadderPort();
  for (const server of servers) if (server instanceof Connect4Hub) await server.closeLadder();
  await ladder.store.close();
}
