import type { Clock } from '../../core/clock.js';
import { guard } from '../../core/guard.js';
import type { Logger } from '../../core/log.js';
import type { Records } from '../../core/record-backend.js';
import type { CatanBot } from './bots/bot.js';
import { randomBot } from './bots/strategies.js';
import { BotDriver } from './driver.js';
import type { Peer } from './match.js';
import { formatClient, type ClientMessage, type Outgoing } from './protocol.js';
import type { Colour } from './rules/index.js';
import type { Lobby, Session } from './session.js';
import type { SeatKind } from './snapshot.js';

/**
 * One of our bots in a seat of its own, without a socket: it is a session of the hall like any
 * connection, receives the same server messages (as objects) and answers with the same client
 * messages, through the same `Hall.receive` and `Match.receive` a network client reaches. Its
 * view is built from those messages; only its legal actions come from the match (`exactLegal`), so
 * it never needs a second try.
 *
 * Its loop (think timers, the driver's own timers, the messages it is handed) runs behind an error
 * boundary: an exception in it ends the bot's game as an internal error (`Match.fail`), or takes
 * the bot out of its lobby, and touches nothing else.
 */

/** What a house bot needs of the hall (lobby.ts): the calls a connection makes. */
export interface HouseBotHall {
  connect(peer: Peer, address: string, kind: SeatKind, target: Lobby | null): Session;
  receive(session: Session, message: ClientMessage): void;
  disconnected(session: Session): void;
}

/** A house bot's seat as the caller wants it (house games, docs/catan.md); unset parts are the hall's defaults. */
export interface BotSeat {
  readonly name?: string | undefined;
  /** The colour it asks for first (then the first free one). */
  readonly colour?: Colour | undefined;
  readonly strategy?: ((seed: string) => CatanBot) | undefined;
  /** Its pause before each message (default: the server's `botThinkMs`). */
  readonly thinkMs?: number | undefined;
}

export interface HouseBotOptions {
  readonly hall: HouseBotHall;
  readonly lobby: Lobby;
  readonly name: string;
  readonly seed: string;
  /** Makes the bot (default: baseline R from bots/random.ts). The lead's strong AI plugs in here. */
  readonly strategy?: ((seed: string) => CatanBot) | undefined;
  /** The colour asked for first (default: the first free one). */
  readonly colour?: Colour | undefined;
  /** Pause before each of the bot's messages (0: the next turn of the event loop). */
  readonly thinkMs: number;
  /** Legal actions from the match rather than worked out from the bot's view. */
  readonly exactLegal: boolean;
  readonly clock: Clock;
  readonly log: Logger;
  readonly store: Records | null;
}

export class HouseBot implements Peer {
  readonly conn: string;
  matchId: string | null = null;
  private readonly session: Session;
  private readonly driver: BotDriver;
  private readonly log: Logger;
  private failed = false;

  constructor(private readonly o: HouseBotOptions) {
    this.conn = `bot:${o.name}`;
    const log = (this.log = o.log.child({ conn: this.conn }));
    const guarded = (what: string, fn: () => void): (() => void) => guard(log, `house bot ${what}`, fn, (err) => this.fail(err));
    // The driver's own timers (watchdog, answer wait) run behind the boundary too.
    const clock: Clock = {
      now: () => o.clock.now(),
      setTimeout: (fn, ms) => o.clock.setTimeout(guarded('timer', fn), ms),
      setInterval: (fn, ms) => o.clock.setInterval(guarded('timer', fn), ms),
    };
    this.driver = new BotDriver({
      name: o.name,
      colour: o.colour,
      bot: (o.strategy ?? ((seed: string) => randomBot(seed)))(o.seed),
      send: (m) => {
        o.store?.addWire({ matchId: this.matchId, game: 'catan', conn: this.conn, at: o.clock.now(), dir: 'in', data: formatClient(m) });
        o.hall.receive(this.session, m);
      },
      schedule: (fn) => {
        const step = guarded('move', fn);
        if (o.thinkMs > 0) o.clock.setTimeout(step, o.thinkMs);
        else setImmediate(step);
      },
      clock,
      log,
      legal: o.exactLegal ? (view) => this.session.match?.legalActions(this.session.id!) ?? { player: view.me ?? 0, status: 'Warten', actions: [], discard: null, offer: null } : undefined,
    });
    this.session = o.hall.connect(this, this.conn, 'bot', o.lobby);
  }

  deliver(out: Outgoing): void {
    if (this.failed) return;
    this.o.store?.addWire({ matchId: this.matchId, game: 'catan', conn: this.conn, at: this.o.clock.now(), dir: 'out', data: out.line });
    try {
      this.driver.receive(out.message);
    } catch (err) {
      // Not the sender's fault: the bot's own boundary, not the caller's, takes it.
      this.log.error({ err, where: 'house bot receive' }, 'house bot receive: internal error');
      this.fail(err);
    }
  }

  end(): void {
    this.driver.stop();
    setImmediate(guard(this.log, 'house bot end', () => this.o.hall.disconnected(this.session)));
  }

  /** The bot broke: its game ends as an internal error (a lobby just loses the bot). Later, not inside whoever called the bot. */
  private fail(err: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.driver.stop();
    setImmediate(
      guard(this.log, 'house bot failure', () => {
        const match = this.session.match;
        if (match && !match.over) match.fail(err);
        else this.o.hall.disconnected(this.session);
      }),
    );
  }
}
