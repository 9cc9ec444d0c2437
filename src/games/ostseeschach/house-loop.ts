import type { Logger } from '../../core/log.js';
import { OstseeschachAdmin } from './admin.js';
import { createBot, type Bot, type BotName } from './bots/index.js';
import { OstseeschachClient, type ClientOutcome } from './client.js';

/**
 * House games: one game after another between two of our bots on a running server, through the
 * same doors a contest uses. An administrator prepares a room with two reserved, timed slots
 * (so house games never take a student's `join`), and each bot redeems its code over TCP.
 *
 * To teach something, the games differ (housePlan): our strong engine (the full move time) meets
 * a cycle of weaker opponents, and it changes colour every game, as the official TestClient
 * alternates colours. The cycle has an odd length, so within two rounds of it every pairing is
 * played from both sides. The plan depends on the game's number only.
 */

/**
 * One seat of a house game: which bot, its think time per move, and its name after the loop's:
 * `A (engine 500 ms)` for the strong engine, `B (depth2)` for its opponent, so `House 1 A` is
 * always the strong side.
 */
export interface HouseSeat {
  /** Which of the loop's bot instances plays it (an engine keeps its table from game to game). */
  readonly key: string;
  readonly bot: BotName;
  readonly budgetMs: number;
  readonly label: string;
}

/** The opponents of the strong engine in turn, with their share of the move time. */
export const HOUSE_OPPONENTS: readonly { readonly bot: BotName; readonly share: number }[] = [
  { bot: 'depth2', share: 1 },
  { bot: 'engine', share: 0.1 },
  { bot: 'random', share: 1 },
];

/** A hurried engine still thinks this long per move. */
const MIN_ENGINE_MS = 10;

const seat = (key: 'A' | 'B', bot: BotName, budgetMs: number): HouseSeat => ({
  key,
  bot,
  budgetMs,
  label: `${key} (${bot === 'engine' ? `engine ${budgetMs} ms` : bot})`,
});

/**
 * The seats (ONE, TWO) of house game `round` (0-based). The strong engine plays ONE in even
 * games and TWO in odd ones, against HOUSE_OPPONENTS[round % 3]. With `fixed` bots (tests),
 * bot A and bot B just swap colours every game, as before.
 */
export function housePlan(
  round: number,
  moveTimeMs: number,
  fixed?: readonly [BotName, BotName],
): [HouseSeat, HouseSeat] {
  if (fixed) {
    const a = { key: 'A', bot: fixed[0], budgetMs: moveTimeMs, label: 'A' };
    const b = { key: 'B', bot: fixed[1], budgetMs: moveTimeMs, label: 'B' };
    return round % 2 === 0 ? [a, b] : [b, a];
  }
  const strong = seat('A', 'engine', moveTimeMs);
  const o = HOUSE_OPPONENTS[round % HOUSE_OPPONENTS.length] as { bot: BotName; share: number };
  const budget = o.bot === 'engine' ? Math.max(MIN_ENGINE_MS, Math.round(moveTimeMs * o.share)) : moveTimeMs;
  const weak = seat('B', o.bot, Math.min(moveTimeMs, budget));
  return round % 2 === 0 ? [strong, weak] : [weak, strong];
}

export interface HouseLoopOptions {
  host: string;
  port: number;
  adminPassword: string;
  /** The bots' think time per move. */
  moveTimeMs: number;
  /** Wait after each game. */
  pauseMs: number;
  /** `House 1` names the bots `House 1 A (engine 500 ms)` and `House 1 B (depth2)` (see housePlan). */
  name: string;
  /** A fixed pair that swaps colours each game instead of housePlan's line-ups (tests). */
  bots?: readonly [BotName, BotName] | undefined;
  seed: string;
  log: Logger;
  /** Each game's end as our clients saw it. */
  onGame?: ((game: HouseGame) => void) | undefined;
}

export interface HouseGame {
  roomId: string;
  /** Display names of ONE and TWO. */
  names: [string, string];
  outcomes: [ClientOutcome, ClientOutcome];
}

/** After this many failures in a row (no server, wrong password) the loop waits longer. */
const RETRY_MS = [1000, 2000, 5000, 10_000, 30_000] as const;

export class HouseLoop {
  private stopped = false;
  private admin: OstseeschachAdmin | null = null;
  private clients: OstseeschachClient[] = [];
  private roomId: string | null = null;
  private wake: (() => void) | null = null;
  private games = 0;
  /**
   * Each side's bot (by side and kind) keeps its engine (and transposition table, 12 MB) from game to
   * game: the table ages its entries per search, so nothing stale misleads it, and nothing is
   * reallocated.
   */
  private readonly bots = new Map<string, Bot>();
  readonly done: Promise<void>;

  constructor(private readonly o: HouseLoopOptions) {
    // Error boundary: the loop catches every failure of a game itself; this is the last resort.
    this.done = this.run().catch((err: unknown) => {
      try {
        this.o.log.error({ err }, 'house game loop failed');
      } catch {
        // Nothing left to tell.
      }
    });
  }

  /** Cancels the game in progress (a REGULAR end with 0 points each) and closes every connection. */
  async stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.wake?.();
      if (this.roomId !== null) this.admin?.cancel(this.roomId);
    }
    // The game in progress ends with the cancel; the admin connection is needed until then.
    await this.done;
    await this.admin?.close();
  }

  /**
   * One game after another until stopped. Whatever fails (no server, a full server, a refused
   * prepare, a bug in a game) is logged and retried after a growing pause: the house games are
   * never locked out for good.
   */
  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      try {
        await this.playOne();
        failures = 0;
        await this.sleep(this.o.pauseMs);
      } catch (error) {
        // A method, not the field: stop() changes it while this loop awaits.
        if (this.isStopped()) break;
        const wait = RETRY_MS[Math.min(failures, RETRY_MS.length - 1)] ?? 30_000;
        failures++;
        try {
          this.o.log.warn({ err: error, retryInMs: wait }, 'house game failed');
          await this.admin?.close();
        } catch {
          // The admin connection is dropped either way.
        }
        this.admin = null;
        await this.sleep(wait);
      }
    }
  }

  private bot(s: HouseSeat): Bot {
    const key = `${s.key} ${s.bot}`;
    let bot = this.bots.get(key);
    if (!bot) {
      bot = createBot(s.bot);
      this.bots.set(key, bot);
    }
    return bot;
  }

  private isStopped(): boolean {
    return this.stopped;
  }

  private async connectAdmin(): Promise<OstseeschachAdmin> {
    if (this.admin) return this.admin;
    const admin = new OstseeschachAdmin({ host: this.o.host, port: this.o.port, password: this.o.adminPassword, log: this.o.log });
    await admin.start();
    this.admin = admin;
    return admin;
  }

  private async playOne(): Promise<void> {
    const admin = await this.connectAdmin();
    const round = this.games++;
    const seats = housePlan(round, this.o.moveTimeMs, this.o.bots);
    const names: [string, string] = [`${this.o.name} ${seats[0].label}`, `${this.o.name} ${seats[1].label}`];
    const prepared = await admin.prepare(names.map((displayName) => ({ displayName, canTimeout: true, reserved: true })));
    if (this.stopped) {
      admin.cancel(prepared.roomId);
      return;
    }
    this.roomId = prepared.roomId;
    let ended = false;
    try {
      this.clients = prepared.reservations.map(
        (reservationCode, i) =>
          new OstseeschachClient({
            host: this.o.host,
            port: this.o.port,
            join: { kind: 'prepared', reservationCode },
            bot: this.bot(seats[i] ?? seats[0]),
            budgetMs: (seats[i] ?? seats[0]).budgetMs,
            seed: `${this.o.seed}:${round}:${i}`,
            log: this.o.log,
          }),
      );
      await Promise.all(this.clients.map((c) => c.start()));
      const [one, two] = await Promise.all(this.clients.map((c) => c.finished));
      ended = true;
      this.o.onGame?.({ roomId: prepared.roomId, names, outcomes: [one as ClientOutcome, two as ClientOutcome] });
    } finally {
      // Whatever failed, the room must not wait for a player forever.
      if (!ended) admin.cancel(prepared.roomId);
      for (const c of this.clients) c.stop();
      this.clients = [];
      this.roomId = null;
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }
}
