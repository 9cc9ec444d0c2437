import type { Clock, Timer } from '../../core/clock.js';
import type { Logger } from '../../core/log.js';
import { Rng } from '../../core/rng.js';
import type { CatanBot } from './bots/bot.js';
import { randomDiscard } from './bots/random.js';
import { legalFromView } from './client-legal.js';
import { ClientGame, type ClientView } from './client-view.js';
import { CLIENT_VERSION, PROTOCOL, type ClientMessage, type ServerMessage } from './protocol.js';
import { COLOURS, type Action, type Colour, type LegalActions, type Status } from './rules/index.js';

/**
 * The client's side of the protocol, without a socket: the handshake (Hallo, Spieler with the next
 * free colour after a `Fehler`, Spiel starten), then following the statuses and answering each
 * request to act with the bot's action, one at a time (the next is sent after the server's OK or
 * Fehler). A refused action is offered to the bot again as refused; after too many refusals the
 * driver falls back to a safe action (roll, a random discard, end the turn). The TCP client and
 * the server's house bots both run on this.
 *
 * The bot interface lives in bots/bot.ts and the named strategies in bots/strategies.ts (a bot
 * must not import the driver that calls it); both are re-exported here for older importers.
 */

export type { CatanBot, DecisionContext } from './bots/bot.js';
export { CATAN_STRATEGIES, createCatanBot, randomBot, type CatanStrategy } from './bots/strategies.js';

export interface DriverOptions {
  readonly name: string;
  /** The colour tried first; then the first free one. */
  readonly colour?: Colour | undefined;
  readonly version?: string | undefined;
  readonly bot: CatanBot;
  /** Hands one message to the server. */
  readonly send: (message: ClientMessage) => void;
  /** Runs `fn` later (never inside the delivery of a message). */
  readonly schedule: (fn: () => void) => void;
  readonly clock: Clock;
  readonly log: Logger;
  /** Where legal actions come from (default: worked out from the view). */
  readonly legal?: ((view: ClientView) => LegalActions) | undefined;
  /** How long to wait for OK or Fehler before acting again (servers that leave OK out). */
  readonly answerTimeoutMs?: number | undefined;
  /**
   * How long the offerer waits for every other player to accept or decline its open offers
   * before it acts again (default 1000 ms). Our bots answer at once; the limit is for clients
   * that never answer.
   */
  readonly tradeAnswerWaitMs?: number | undefined;
  readonly onOver?: ((view: ClientView) => void) | undefined;
  /** The driver gave up (wrong protocol, no colour left): the caller closes the connection. */
  readonly onGiveUp?: ((reason: string) => void) | undefined;
}

export interface DriverStats {
  actions: number;
  refused: number;
  fallbacks: number;
}

type InFlight = { readonly kind: 'player' } | { readonly kind: 'start' } | { readonly kind: 'action'; readonly action: Action };

const ACTING: ReadonlySet<Status> = new Set<Status>([
  'Dorf bauen',
  'Strasse bauen',
  'Wuerfeln',
  'Karten wegen Raeuber abgeben',
  'Raeuber versetzen',
  'Handeln oder Bauen',
]);
const FALLBACK_AFTER = 6;
const GIVE_UP_AFTER = 40;

const same = (a: Action, b: Action): boolean => JSON.stringify(a) === JSON.stringify(b);
const isAnswerTo = (a: Action, tradeId: number): boolean => (a.type === 'acceptTrade' || a.type === 'cancelTrade') && a.tradeId === tradeId;

export class BotDriver {
  readonly game = new ClientGame();
  readonly stats: DriverStats = { actions: 0, refused: 0, fallbacks: 0 };
  private inFlight: InFlight | null = null;
  private refused: Action[] = [];
  private readonly tried = new Set<Colour>();
  private colour: Colour | null = null;
  private name: string;
  private woken = false;
  private stopped = false;
  private stalled = false;
  private answered = new Set<number>();
  /** Own open offers: when each was seen and who of the others has accepted or declined it. */
  private readonly ownOffers = new Map<number, { readonly at: number; readonly answered: Set<number> }>();
  private answerWait: Timer | null = null;
  private watchdog: Timer | null = null;
  private readonly rng: Rng;

  constructor(private readonly o: DriverOptions) {
    this.name = o.name;
    this.rng = Rng.seeded(`${o.name}/driver`);
  }

  get view(): ClientView {
    return this.game.view();
  }

  stop(): void {
    this.stopped = true;
    this.watchdog?.cancel();
    this.answerWait?.cancel();
  }

  receive(m: ServerMessage): void {
    if (this.stopped) return;
    this.game.apply(m);
    switch (m.type) {
      case 'hello':
        if (m.protocol !== PROTOCOL) {
          this.giveUp(`the server speaks protocol ${m.protocol}, not ${PROTOCOL}`);
          return;
        }
        this.out({ type: 'hello', version: this.o.version ?? CLIENT_VERSION });
        return;
      case 'welcome':
        // The earlier players' Statusupdates follow the Willkommen: choose once they are read.
        this.o.schedule(() => {
          if (!this.stopped) this.choosePlayer();
        });
        return;
      case 'answer':
        if (m.text === 'OK') this.ok();
        else this.refusal(m.text);
        return;
      case 'error':
        this.refusal(m.message);
        return;
      case 'gameOver':
        this.stop();
        this.o.onOver?.(this.game.view());
        return;
      case 'tradeOffered':
        if (m.player === this.game.me) this.ownOffers.set(m.tradeId, { at: this.o.clock.now(), answered: new Set() });
        this.wake();
        return;
      case 'tradeAccepted':
        this.ownOffers.get(m.tradeId)?.answered.add(m.player);
        this.wake();
        return;
      case 'tradeCancelled':
        if (m.player === this.game.me) this.ownOffers.delete(m.tradeId);
        else this.ownOffers.get(m.tradeId)?.answered.add(m.player);
        this.wake();
        return;
      case 'tradeCompleted':
        this.ownOffers.delete(m.tradeId);
        return;
      case 'status':
        if (m.player.id === this.game.me) {
          this.refused = [];
          this.stalled = false;
        }
        this.wake();
        return;
      default:
        return;
    }
  }

  private out(message: ClientMessage): void {
    this.o.schedule(() => {
      if (!this.stopped) this.o.send(message);
    });
  }

  private giveUp(reason: string): void {
    this.stopped = true;
    this.o.log.warn({ reason }, 'giving up');
    this.o.onGiveUp?.(reason);
  }

  // ---- lobby ---------------------------------------------------------------------------------------

  private choosePlayer(): void {
    const taken = new Set(this.game.view().players.filter((p) => p.id !== this.game.me).map((p) => p.colour));
    const wish = this.o.colour;
    const next =
      wish !== undefined && !this.tried.has(wish) && !taken.has(wish)
        ? wish
        : (COLOURS.find((c) => !this.tried.has(c) && !taken.has(c)) ?? COLOURS.find((c) => !this.tried.has(c)));
    if (next === undefined) {
      this.giveUp('no colour left');
      return;
    }
    this.colour = next;
    this.tried.add(next);
    this.send({ kind: 'player' }, { type: 'player', name: this.name, colour: next });
  }

  private send(flight: InFlight, message: ClientMessage): void {
    this.inFlight = flight;
    this.watchdog?.cancel();
    const ms = this.o.answerTimeoutMs;
    if (ms !== undefined && ms > 0) {
      this.watchdog = this.o.clock.setTimeout(() => {
        this.watchdog = null;
        if (this.inFlight === flight) {
          this.inFlight = null;
          this.wake();
        }
      }, ms);
    }
    this.out(message);
  }

  private ok(): void {
    const flight = this.inFlight;
    this.inFlight = null;
    this.watchdog?.cancel();
    if (flight?.kind === 'player') this.send({ kind: 'start' }, { type: 'startGame' });
    else if (flight?.kind === 'action') this.refused = [];
    this.wake();
  }

  private refusal(meldung: string): void {
    const flight = this.inFlight;
    this.inFlight = null;
    this.watchdog?.cancel();
    if (!flight) {
      this.o.log.debug({ meldung }, 'Fehler for nothing in flight');
      return;
    }
    this.o.log.debug({ meldung, flight }, 'refused');
    if (flight.kind === 'action') {
      this.stats.refused++;
      this.refused.push(flight.action);
      this.wake();
      return;
    }
    if (meldung === 'Ungueltiger Name' && this.name !== `KI ${String(this.game.me)}`) {
      this.name = `KI ${String(this.game.me)}`;
      this.tried.clear();
    }
    // Spieler or Spiel starten refused: most likely the colour; try the next.
    this.choosePlayer();
  }

  // ---- the game ----------------------------------------------------------------------------------

  private wake(): void {
    if (this.woken || this.stopped) return;
    this.woken = true;
    this.o.schedule(() => {
      this.woken = false;
      this.decide();
    });
  }

  private decide(): void {
    if (this.stopped || this.inFlight || this.stalled || !this.game.inGame) return;
    const self = this.game.self;
    if (!self) return;
    const acting = ACTING.has(self.status);
    // Outside one's turn the only choices are answers to offers not answered yet, one at a time.
    const fresh = acting ? undefined : this.game.offersByOthers().find((id) => !this.answered.has(id));
    if (!acting && fresh === undefined) return;
    const view = this.game.view();
    if (acting && this.awaitingAnswers(view)) return;
    const me = view.players.find((p) => p.id === view.me)!;
    let legal = (this.o.legal ?? legalFromView)(view);
    if (fresh !== undefined) {
      this.answered.add(fresh);
      legal = { ...legal, actions: legal.actions.filter((a) => isAnswerTo(a, fresh)) };
    }
    const refused = this.refused;
    if (refused.length > 0) legal = { ...legal, actions: legal.actions.filter((a) => !refused.some((r) => same(a, r))) };
    let action = refused.length < FALLBACK_AFTER ? this.o.bot.decide({ view, legal, refused }) : null;
    // Silence is no answer: the offerer waits for one, so an offer the bot passes on is declined (D11).
    if (fresh !== undefined && (action === null || !isAnswerTo(action, fresh)) && refused.length === 0) action = { type: 'cancelTrade', tradeId: fresh };
    if (action === null && acting) {
      action = this.fallback(legal);
      if (action) this.stats.fallbacks++;
    }
    if (action === null) return;
    if (refused.length >= GIVE_UP_AFTER) {
      this.stalled = true;
      this.o.log.error({ status: me.status, refused: refused.length }, 'every action refused: waiting for the server');
      return;
    }
    this.stats.actions++;
    this.send({ kind: 'action', action }, { type: 'action', action });
  }

  /**
   * Whether an own offer still waits for answers from some of the other players (and its wait
   * has not run out): then the driver decides once they are in or at the deadline, so no
   * acceptance arrives for an offer it has already completed or withdrawn by ending the turn.
   */
  private awaitingAnswers(view: ClientView): boolean {
    const others = view.players.length - 1;
    const limit = this.o.tradeAnswerWaitMs ?? 1000;
    const now = this.o.clock.now();
    let until = Infinity;
    for (const [id, offer] of this.ownOffers) {
      if (!view.trades.some((t) => t.id === id)) {
        this.ownOffers.delete(id);
        continue;
      }
      if (offer.answered.size < others && now < offer.at + limit) until = Math.min(until, offer.at + limit);
    }
    if (until === Infinity) return false;
    this.answerWait?.cancel();
    this.answerWait = this.o.clock.setTimeout(() => {
      this.answerWait = null;
      this.wake();
    }, until - now);
    return true;
  }

  /** A safe action for the current status when the bot has none (or keeps being refused). */
  private fallback(legal: LegalActions): Action | null {
    if (legal.discard) return { type: 'discard', cards: randomDiscard(legal.discard.hand, legal.discard.count, this.rng) };
    if (legal.status === 'Wuerfeln') return { type: 'roll' };
    if (legal.status === 'Handeln oder Bauen') return { type: 'endTurn' };
    return legal.actions.length > 0 ? this.rng.pick(legal.actions) : null;
  }
}
