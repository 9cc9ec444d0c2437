import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/log.js';
import type { RecordStore } from '../../core/records.js';
import { BotDriver, randomBot, type CatanBot } from './driver.js';
import type { Hall, Lobby, Session } from './lobby.js';
import type { Peer } from './match.js';
import { formatClient, type Outgoing } from './protocol.js';

/**
 * One of our bots in a seat of its own, without a socket: it is a session of the hall like any
 * connection, receives the same server messages (as objects) and answers with the same client
 * messages, through the same `Hall.receive` and `Match.receive` a network client reaches. Its
 * view is built from those messages; only its legal actions come from the match (`exactLegal`), so
 * it never needs a second try.
 */

export interface HouseBotOptions {
  readonly hall: Hall;
  readonly lobby: Lobby;
  readonly name: string;
  readonly seed: string;
  /** Makes the bot (default: baseline R from bots/random.ts). The lead's strong AI plugs in here. */
  readonly strategy?: ((seed: string) => CatanBot) | undefined;
  /** Pause before each of the bot's messages (0: the next turn of the event loop). */
  readonly thinkMs: number;
  /** Legal actions from the match rather than worked out from the bot's view. */
  readonly exactLegal: boolean;
  readonly clock: Clock;
  readonly log: Logger;
  readonly store: RecordStore | null;
}

export class HouseBot implements Peer {
  readonly conn: string;
  matchId: string | null = null;
  private readonly session: Session;
  private readonly driver: BotDriver;

  constructor(private readonly o: HouseBotOptions) {
    this.conn = `bot:${o.name}`;
    const log = o.log.child({ conn: this.conn });
    this.driver = new BotDriver({
      name: o.name,
      bot: (o.strategy ?? ((seed: string) => randomBot(seed)))(o.seed),
      send: (m) => {
        o.store?.addWire({ matchId: this.matchId, game: 'catan', conn: this.conn, at: o.clock.now(), dir: 'in', data: formatClient(m) });
        o.hall.receive(this.session, m);
      },
      schedule: (fn) => {
        if (o.thinkMs > 0) o.clock.setTimeout(fn, o.thinkMs);
        else setImmediate(fn);
      },
      clock: o.clock,
      log,
      legal: o.exactLegal ? (view) => this.session.match?.legalActions(this.session.id!) ?? { player: view.me ?? 0, status: 'Warten', actions: [], discard: null, offer: null } : undefined,
    });
    this.session = o.hall.connect(this, this.conn, 'bot', o.lobby);
  }

  deliver(out: Outgoing): void {
    this.o.store?.addWire({ matchId: this.matchId, game: 'catan', conn: this.conn, at: this.o.clock.now(), dir: 'out', data: out.line });
    this.driver.receive(out.message);
  }

  end(): void {
    this.driver.stop();
    setImmediate(() => this.o.hall.disconnected(this.session));
  }
}
