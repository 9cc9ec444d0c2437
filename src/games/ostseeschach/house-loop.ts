import type { Logger } from '../../core/log.js';
import { OstseeschachAdmin } from './admin.js';
import { createBot, type Bot, type BotName } from './bots/index.js';
import { OstseeschachClient, type ClientOutcome } from './client.js';

/**
 * House games: one game after another between two of our bots on a running server, through the
 * same doors a contest uses. An administrator prepares a room with two reserved, timed slots
 * (so house games never take a student's `join`), and each bot redeems its code over TCP.
 * Colours alternate from game to game, as the official TestClient alternates them.
 */

export interface HouseLoopOptions {
  host: string;
  port: number;
  adminPassword: string;
  /** The bots' think time per move. */
  moveTimeMs: number;
  /** Wait after each game. */
  pauseMs: number;
  /** `House 1` names the bots `House 1 A` and `House 1 B`. */
  name: string;
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
   * Each named bot keeps its engine (and transposition table, 12 MB) from game to game: the
   * table ages its entries per search, so nothing stale misleads it, and nothing is reallocated.
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

  /** Bot A is `bots[0]`, bot B `bots[1]`, whatever colour they play. */
  private bot(letter: string): Bot {
    let bot = this.bots.get(letter);
    if (!bot) {
      const kinds = this.o.bots ?? ['engine', 'engine'];
      bot = createBot(letter === 'A' ? kinds[0] : kinds[1]);
      this.bots.set(letter, bot);
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
    const letters: [string, string] = round % 2 === 0 ? ['A', 'B'] : ['B', 'A'];
    const names: [string, string] = [`${this.o.name} ${letters[0]}`, `${this.o.name} ${letters[1]}`];
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
            bot: this.bot(letters[i] ?? 'A'),
            budgetMs: this.o.moveTimeMs,
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
