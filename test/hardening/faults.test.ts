import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { loadSettings } from '../../src/config.js';
import { silentLogger } from '../../src/core/log.js';
import { sqliteOf } from '../support/records.js';
import { HouseBot } from '../../src/games/catan/house-bot.js';
import { Match as CatanMatch } from '../../src/games/catan/match.js';
import { Board } from '../../src/games/connect4/peer/board.js';
import { Repeater } from '../../src/games/connect4/peer/repeater.js';
import { AutoPlayer } from '../../src/games/connect4/peer/auto-player.js';
import { Connection as DameConnection } from '../../src/games/dame/connection.js';
import { DameServer } from '../../src/games/dame/server.js';
import { MiaTable } from '../../src/games/mia/table.js';
import { Connection as OstseeschachConnection } from '../../src/games/ostseeschach/connection.js';
import { Lobby } from '../../src/games/ostseeschach/lobby.js';
import { serve, type Running } from '../../src/serve.js';
import { escapes } from '../fuzz/lib/servers.js';
import { FAST_HOUSE_ENV, freePorts, GAMES, sleep, type Game } from './serve.js';


/**
 * Error boundaries across games: all five games in one serve() in this process, their house
 * games running; then an exception is thrown once from a socket handler, a timer and the house
 * loop of every game at once. The process must see no uncaught exception, and every game — the
 * four others and the faulty one itself — must go on finishing matches.
 */

type Proto = Record<string, (...args: unknown[]) => unknown>;

/** Throws once from `method` of `proto`, on its first call after arming; counts the calls. */
function throwOnce(proto: object, method: string, label: string): { fired: () => boolean } {
  const original = (proto as Proto)[method] as (...args: unknown[]) => unknown;
  let fired = false;
  vi.spyOn(proto as Proto, method).mockImplementation(function (this: unknown, ...args: unknown[]) {
    if (!fired) {
      fired = true;
      throw new Error(`injected fault: ${label}`);
    }
    return original.apply(this, args);
  });
  return { fired: () => fired };
}

describe('a fault in one game', () => {
  let escaped: ReturnType<typeof escapes> | null = null;
  let running: Running | null = null;

  afterAll(async () => {
    vi.restoreAllMocks();
    escaped?.remove();
    await running?.lifecycle.stop();
  });

  it('ends at most its match or connection: all five games keep finishing matches', async () => {
    escaped = escapes();
    const ports = await freePorts();
    const env: Record<string, string> = {
      ...FAST_HOUSE_ENV,
      SPIELHALLE_DATA_DIR: mkdtempSync(join(tmpdir(), 'spielhalle-faults-')),
      SPIELHALLE_MIA_PORT: String(ports.mia),
      SPIELHALLE_DAME_PORT: String(ports.dame),
      SPIELHALLE_OSTSEESCHACH_PORT: String(ports.ostseeschach),
      SPIELHALLE_CATAN_PORT: String(ports.catan),
      SPIELHALLE_CONNECT4_PORT: String(ports.connect4),
      SPIELHALLE_CONNECT4_PEER_PORTS: `${ports.connect4},${ports.connect4 + 1}`,
      SPIELHALLE_WEB_ENABLED: 'false',
      SPIELHALLE_SEED: 'faults',
    };
    const settings = loadSettings({ env, cwd: tmpdir() }).config;
    running = await serve(settings, [], silentLogger);
    const store = sqliteOf(running);
    const finished = (game: Game): number =>
      store.listMatches({ game, status: 'finished', limit: 1000 }).length;
    const untilAll = async (what: string, ok: (game: Game) => boolean, ms: number): Promise<void> => {
      const deadline = Date.now() + ms;
      while (!GAMES.every(ok) && Date.now() < deadline) await sleep(250);
      const missing = GAMES.filter((g) => !ok(g));
      expect(missing, `games without ${what}`).toEqual([]);
    };

    // Every game plays before any fault.
    await untilAll('a finished match before the faults', (g) => finished(g) > 0, 120_000);

    const faults: Record<Game, { fired: () => boolean }[]> = {
      mia: [
        throwOnce(MiaTable.prototype, 'receive', 'mia socket handler'),
        throwOnce(MiaTable.prototype, 'closeJoinWindow', 'mia timer'),
        throwOnce(MiaTable.prototype, 'newRound', 'mia round cycle'),
      ],
      dame: [
        throwOnce(DameConnection.prototype, 'receive', 'dame socket handler'),
        throwOnce(DameServer.prototype, 'createGame', 'dame house loop'),
      ],
      ostseeschach: [
        throwOnce(OstseeschachConnection.prototype, 'receive', 'ostseeschach socket handler'),
        // The house loop runs in a worker thread: its prepared room fails on the server's side.
        throwOnce(Lobby.prototype, 'createRoom', 'ostseeschach house room'),
      ],
      catan: [
        throwOnce(CatanMatch.prototype, 'receive', 'catan match input'),
        throwOnce(HouseBot.prototype, 'deliver', 'catan house bot'),
      ],
      connect4: [
        throwOnce(Board.prototype, 'receive', 'connect4 socket handler'),
        throwOnce(Repeater.prototype, 'tick', 'connect4 timer'),
        throwOnce(AutoPlayer.prototype, 'play', 'connect4 house bot'),
      ],
    };
    await untilAll('every fault fired', (g) => faults[g].every((f) => f.fired()), 120_000);
    const after = Object.fromEntries(GAMES.map((g) => [g, finished(g)])) as Record<Game, number>;

    // Nothing escaped, and every game finishes matches again.
    await untilAll('a finished match after the faults', (g) => finished(g) > after[g], 180_000);
    expect(escaped.list).toEqual([]);
    for (const server of running.servers) expect(server.info().status, server.game).toBe('running');
  }, 420_000);
});
