import { guard } from '../../core/guard.js';
import { RateLimitedWarn } from '../../core/hosts.js';
import type { Stoppable } from '../../core/lifecycle.js';
import type { Logger } from '../../core/log.js';
import { Rng } from '../../core/rng.js';
import type { DameBotName } from './bots/types.js';
import type { CreateGameOptions } from './games.js';
import type { Seat } from './protocol.js';
import { DameGameError } from './server.js';

/**
 * House games: the server plays Dame by itself so the dashboard always has a game to show. To
 * make them worth watching, consecutive games of one table never look alike: the engine (a seat
 * of the server, thinking in a worker) changes colour every game, and its opponent (a client bot
 * over TCP) and its own think time go round a cycle of line-ups, in an order and from a colour
 * that the seed fixes. The cycle has an odd length, so over two rounds of it every line-up is
 * played with both colours.
 */

/** One line-up: who plays the engine, and how long the engine may think (a share of the move time). */
interface LineUp {
  opponent: Exclude<DameBotName, 'engine'>;
  engineShare: number;
}

/** From the full engine against the strongest baseline down to a hurried engine against a shallow one. */
export const HOUSE_LINEUPS: readonly LineUp[] = [
  { opponent: 'depth4', engineShare: 1 },
  { opponent: 'greedy', engineShare: 1 },
  { opponent: 'depth2', engineShare: 0.25 },
  { opponent: 'depth4', engineShare: 0.1 },
  { opponent: 'depth2', engineShare: 0.05 },
];

/** A hurried engine still thinks this long per single move (unless the full engine thinks less). */
const MIN_ENGINE_MS = 20;

export interface HouseGamePlan {
  /** The table (0-based; names count from 1) and the table's game number (0-based). */
  table: number;
  round: number;
  /** The seat the server's engine plays; the opponent bot takes the other one. */
  engineSeat: Seat;
  engineTimeMs: number;
  opponent: Exclude<DameBotName, 'engine'>;
  /** Seed of the opponent bot's choices. */
  botSeed: string;
  /** The game name players and spectators see, e.g. `House game 1.0: depth4 (White) v engine 1000 ms (Black)`. */
  name: string;
  /**
   * Who sits where, by seat (White, Black): `engine` and the opponent bot's name, as on the wire and
   * in the record, so the Matches page, `spielhalle matches` and a search by player show them.
   */
  seatNames: readonly [string, string];
}

/** The seat name of the server's engine in house games (its think time is in the game's name). */
export const HOUSE_ENGINE_NAME = 'engine';

/**
 * The plan of every game of one table: deterministic in (seed, table, engineMs), where `engineMs` is
 * the full engine's think time per single move (the house move time, or `engineTimeMs` when set).
 */
export function houseSchedule(seed: string, table: number, engineMs: number): (round: number) => HouseGamePlan {
  const rng = Rng.seeded(`dame-house:${seed}:${table}`);
  const order = rng.shuffle(HOUSE_LINEUPS);
  const firstEngineSeat = rng.int(0, 1);
  return (round) => {
    const lineUp = order[round % order.length]!;
    const engineSeat = ((firstEngineSeat + round) % 2) as Seat;
    const engineTimeMs = Math.min(engineMs, Math.max(MIN_ENGINE_MS, Math.round(engineMs * lineUp.engineShare)));
    const engine = `engine ${engineTimeMs} ms`;
    const [white, black] = engineSeat === 0 ? [engine, lineUp.opponent] : [lineUp.opponent, engine];
    return {
      table,
      round,
      engineSeat,
      engineTimeMs,
      opponent: lineUp.opponent,
      botSeed: `house:${seed}:${table}:${round}`,
      name: `House game ${table + 1}.${round}: ${white} (White) v ${black} (Black)`,
      seatNames: engineSeat === 0 ? [HOUSE_ENGINE_NAME, lineUp.opponent] : [lineUp.opponent, HOUSE_ENGINE_NAME],
    };
  };
}

export interface HouseTablesOptions {
  tables: number;
  seed: string;
  /** `+ MOVE <ms>` of house games: the client bot's time. */
  moveTimeMs: number;
  /** The full engine's think time per single move (see houseSchedule). */
  engineMs: number;
  pauseMs: number;
  log: Logger;
  /** Creates the game (throws a DameGameError when it cannot, e.g. a full table). */
  createGame(options: CreateGameOptions & { engineTimeMs: number }): string;
  /** Seats the opponent bot in the game; resolves when its game is over. */
  play(plan: HouseGamePlan, gameId: string): { done: Promise<unknown>; stop(): void };
}

/**
 * One house game after another at each table. Every step is guarded: a game that cannot be
 * created (a full table) or a round that fails is logged (rate-limited) and tried again after
 * `pauseMs`, so the loop never stops and never takes the process down. A table's round counts
 * only games that were created.
 */
export function startHouseTables(o: HouseTablesOptions): Stoppable[] {
  const warn = new RateLimitedWarn(o.log, 60_000);
  const parts: Stoppable[] = [];
  for (let table = 0; table < o.tables; table++) {
    const plan = houseSchedule(o.seed, table, o.engineMs);
    let current: { stop(): void } | null = null;
    let stopped = false;
    let timer: NodeJS.Timeout | null = null;
    let round = 0;
    const later = (): void => {
      if (stopped) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(next, o.pauseMs);
      timer.unref();
    };
    const next = guard(
      o.log,
      'dame house game',
      () => {
        timer = null;
        if (stopped) return;
        const game = plan(round);
        let gameId: string;
        try {
          gameId = o.createGame({
            name: game.name,
            moveTimeMs: o.moveTimeMs,
            engineSeat: game.engineSeat,
            engineTimeMs: game.engineTimeMs,
            seatNames: game.seatNames,
            meta: { house: { table: table + 1, round, opponent: game.opponent, engineTimeMs: game.engineTimeMs } },
          });
        } catch (err) {
          if (!(err instanceof DameGameError)) throw err;
          warn.warn(`house:${err.code}`, { code: err.code, house: table + 1 }, `cannot create a house game (${err.message}): trying again later`);
          later();
          return;
        }
        round++;
        o.log.debug({ gameId, name: game.name, engineSeat: game.engineSeat, engineTimeMs: game.engineTimeMs, opponent: game.opponent }, 'house game');
        const running = o.play(game, gameId);
        current = running;
        running.done.then(later, (err: unknown) => {
          o.log.warn({ err }, 'dame house game failed');
          later();
        });
      },
      // Anything else that throws is logged with its stack by guard; the loop goes on.
      () => later(),
    );
    next();
    parts.push({
      name: `dame house game ${table + 1}`,
      stop: () => {
        stopped = true;
        if (timer) clearTimeout(timer);
        current?.stop();
      },
    });
  }
  return parts;
}
