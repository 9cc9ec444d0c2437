import type { Clock, Timer } from '../../core/clock.js';
import { INTERNAL_ERROR } from '../../core/guard.js';
import type { Logger } from '../../core/log.js';
import { matchesTotal } from '../../core/metrics.js';
import type { Records } from '../../core/record-backend.js';
import { err, ok, type Result } from '../../core/result.js';
import { Rng } from '../../core/rng.js';
import { randomDiscard } from './bots/random.js';
import type { GameEvent, SeenEvent, Viewer } from './events.js';
import { TEXT, messagesFor, wireMap, type MessageContext } from './messages.js';
import {
  MAX_CHAT_LENGTH,
  MELDUNG_SERVER,
  OK,
  Outgoing,
  type ClientMessage,
  type ServerMessage,
} from './protocol.js';
import {
  abort,
  apply,
  legalActions,
  newGame,
  status,
  totalPoints,
  type Action,
  type Board,
  type Colour,
  type LegalActions,
  type State,
} from './rules/index.js';
import { matchRow, type CatanMatchRow, type CatanResultRow, type SeatKind } from './snapshot.js';
import { view, type View } from './view.js';

/**
 * One game in progress: it owns the rules state, the seats and the decision timer. It sees no
 * socket: each seat is a `Peer` that takes server messages, and every message a seat gets is made
 * from the event as censored for that seat (`censor`, normally `censorEvent`), so nothing a seat
 * may not know can reach it. Any exception ends this game (recorded `aborted`, reason `internal error`),
 * never the server.
 */

/** Where a seat's messages go: a TCP connection, or a house bot in this process. */
export interface Peer {
  /** The connection's name in logs and wire records (`address:port`, `bot:<name>`). */
  readonly conn: string;
  /** The record id of the game this peer plays in (for its wire records). */
  matchId: string | null;
  /** One message; the same `Outgoing` goes to every receiver of an identical copy. */
  deliver(out: Outgoing): void;
  /** The game is over: flush and close. */
  end(): void;
}

export interface Participant {
  readonly id: number;
  readonly name: string;
  readonly colour: Colour;
  readonly kind: SeatKind;
  readonly address: string;
  readonly peer: Peer;
}

export interface HistoryStep {
  readonly state: State;
  readonly events: readonly GameEvent[];
}

export interface MatchOptions {
  readonly number: number;
  readonly seed: string;
  /** In lobby order (the turn order is drawn from the seed unless `fixedOrder`). */
  readonly participants: readonly Participant[];
  readonly board?: { readonly board: Board; readonly robber: number } | undefined;
  readonly fixedOrder?: boolean | undefined;
  /** Fixes dice (transcript tests); undefined: the rules' RNG rolls. */
  readonly dice?: (() => readonly [number, number] | undefined) | undefined;
  /** D10: the time each decision may take before the server acts for the player; null: no limit. */
  readonly timeoutMs: number | null;
  /** End the game without a winner (reason `turn limit`) once this many turns are played; null: never. */
  readonly turnLimit?: number | null | undefined;
  /**
   * A player the server has acted for (D10) this many times in a row is out: the game ends
   * (aborted, reason `timeout`); null: never.
   */
  readonly timeoutStreak?: number | null | undefined;
  /** More for the record's meta (a tournament's match id). */
  readonly meta?: Readonly<Record<string, unknown>> | undefined;
  readonly clock: Clock;
  readonly log: Logger;
  readonly store: Records | null;
  readonly censor: (event: GameEvent, viewer: Viewer) => SeenEvent;
  /**
   * `censor` shows every seat but an event's subject (and spectators) the same copy, as
   * `censorEvent` does: it is then made once for all of them. Off for test censors.
   */
  readonly sameForOthers: boolean;
  /** Public events for spectators. */
  readonly publish: (type: string, data: unknown) => void;
  /** Test hook: the full state and events after every step (the start included). */
  readonly onStep?: ((matchId: string, step: HistoryStep) => void) | undefined;
  readonly onEnd: (match: Match, result: CatanResultRow) => void;
}

interface Seat extends Participant {
  gone: boolean;
  /** Decisions the server took for this player (D10), in all and since its last own action. */
  timeouts: number;
  streak: number;
  /** Actions the rules refused (each answered with its Fehler), and the first refusal's Meldung. */
  refused: number;
  firstRefusal: string | null;
}

const GAME = 'catan';
const KEEP_LINES = 60;
const OK_OUT = new Outgoing(OK);

/** The player an event is private to (§2.6), or null for a public event. */
function subjectOf(e: GameEvent): number | null {
  switch (e.type) {
    case 'gained':
    case 'paid':
    case 'devCardBought':
      return e.player;
    case 'playerUpdated':
      return e.player.id;
    default:
      return null;
  }
}

export class Match {
  readonly id: string;
  readonly startedAt: number;
  private state: State;
  private readonly seats: Seat[];
  private readonly byId = new Map<number, Seat>();
  private timer: Timer | null = null;
  private ended = false;
  private readonly rng: Rng;
  private readonly lines: string[] = [];
  private readonly ctx: MessageContext;
  private readonly log: Logger;
  /** Decisions the server took for a player (D10). */
  timeouts = 0;
  /** The player who was out for not answering (`timeoutStreak`), if one was. */
  timedOut: number | null = null;
  /** The player whose lost connection ended the game (D9), if one did. */
  lostBy: number | null = null;

  private constructor(
    private readonly o: MatchOptions,
    start: { state: State; events: readonly GameEvent[] },
  ) {
    this.state = start.state;
    this.startedAt = o.clock.now();
    this.rng = Rng.seeded(`${o.seed}/stand-in`);
    const order = this.state.players.map((p) => p.id);
    this.seats = order.map((id) => ({ ...o.participants.find((p) => p.id === id)!, gone: false, timeouts: 0, streak: 0, refused: 0, firstRefusal: null }));
    for (const s of this.seats) this.byId.set(s.id, s);
    const map = wireMap(this.state);
    this.ctx = { map: () => map, order: () => this.seats };
    this.id =
      o.store?.startMatch({
        game: GAME,
        seed: o.seed,
        startedAt: this.startedAt,
        seats: this.seats.map((s, seat) => ({ seat, name: s.name, kind: s.kind, address: s.address })),
        // Only the server's own bots at the table: retention takes it first (issue 37).
        house: this.seats.every((s) => s.kind === 'bot'),
        meta: {
          number: o.number,
          players: o.participants.map((p) => ({ id: p.id, name: p.name, colour: p.colour, kind: p.kind })),
          order,
          fixedBoard: o.board !== undefined,
          fixedOrder: o.fixedOrder === true,
          timeoutMs: o.timeoutMs,
          ...(o.turnLimit == null ? {} : { turnLimit: o.turnLimit }),
          ...o.meta,
        },
      }) ?? `catan-${o.number}-${o.seed}`;
    this.log = o.log.child({ match: this.id });
    for (const s of this.seats) s.peer.matchId = this.id;
  }

  /** Deals the game and sends `Spiel gestartet`, the order chat and the first Statusupdates. */
  static start(o: MatchOptions): Result<Match, string> {
    const started = newGame({
      seed: o.seed,
      players: o.participants.map((p) => ({ id: p.id, name: p.name, colour: p.colour })),
      ...(o.board ? { board: o.board } : {}),
      ...(o.fixedOrder ? { fixedOrder: true } : {}),
    });
    if (!started.ok) return err(started.error);
    const match = new Match(o, started.value);
    match.guard(() => {
      match.o.publish('matchStarted', {
        match: match.id,
        number: o.number,
        players: match.seats.map((s) => ({ id: s.id, name: s.name, colour: s.colour, kind: s.kind })),
      });
      match.record(null, 'start', { order: match.seats.map((s) => s.id) });
      match.step(started.value);
      match.arm();
    });
    return ok(match);
  }

  get over(): boolean {
    return this.ended;
  }

  get players(): readonly Participant[] {
    return this.seats;
  }

  /**
   * Per player in turn order: true victory points (hidden cards included), decisions the server
   * took for them (D10), whether their lost connection ended the game (D9; connections that
   * close after the end do not count), and the actions the rules refused them (the first's Meldung).
   */
  tally(): { id: number; name: string; points: number; timeouts: number; lost: boolean; refused: number; firstRefusal: string | null }[] {
    return this.seats.map((s) => {
      const p = this.state.players.find((x) => x.id === s.id)!;
      return { id: s.id, name: s.name, points: totalPoints(p), timeouts: s.timeouts, lost: s.id === this.lostBy, refused: s.refused, firstRefusal: s.firstRefusal };
    });
  }

  /** What the player may know now (for house bots; the same view the web client gets). */
  viewFor(viewer: Viewer): View {
    return view(this.state, viewer);
  }

  legalActions(id: number): LegalActions {
    return legalActions(this.state, id);
  }

  /** A message from a seated player (a connection or a house bot). */
  receive(id: number, message: ClientMessage): void {
    this.guard(() => {
      const seat = this.byId.get(id);
      if (!seat || seat.gone) return;
      switch (message.type) {
        case 'hello':
          this.send(seat, { type: 'error', message: MELDUNG_SERVER.wrongStatus });
          return;
        case 'player':
        case 'startGame':
          this.send(seat, { type: 'error', message: MELDUNG_SERVER.gameRunning });
          return;
        case 'chat':
          this.chat(seat, message.text);
          return;
        case 'action':
          this.act(seat, message.action, false);
          return;
      }
    });
  }

  /** D9: the player's connection is gone; the game ends without a winner. */
  disconnect(id: number): void {
    this.guard(() => {
      const seat = this.byId.get(id);
      if (!seat || seat.gone) return;
      seat.gone = true;
      if (this.ended) return;
      this.lostBy = id;
      const aborted = abort(this.state, id);
      if (!aborted.ok) throw new Error(`abort refused: ${aborted.error.code}`);
      this.state = aborted.value.state;
      this.record(this.seatOf(id), 'disconnect', { player: id });
      this.step(aborted.value);
      this.finish('aborted', 'disconnect', TEXT.lost(seat.name), null);
    });
  }

  /** Server shutdown (or a tournament calling the match off): everyone is told the game is off. */
  stop(message: string = TEXT.serverStopped, reason = 'server stopped'): void {
    this.guard(() => {
      if (this.ended) return;
      this.broadcast({ type: 'gameOver', message });
      this.finish('aborted', reason, message, null);
    });
  }

  private chat(seat: Seat, text: string): void {
    if (text.length > MAX_CHAT_LENGTH) {
      this.send(seat, { type: 'error', message: MELDUNG_SERVER.invalidMessage });
      return;
    }
    this.broadcast({ type: 'chat', sender: seat.id, text });
    this.send(seat, OK);
  }

  private act(seat: Seat, action: Action, standIn: boolean): void {
    if (this.ended) {
      this.send(seat, { type: 'error', message: MELDUNG_SERVER.wrongStatus });
      return;
    }
    const dice = action.type === 'roll' ? this.o.dice?.() : undefined;
    const played: Action = dice ? { type: 'roll', dice } : action;
    const result = apply(this.state, seat.id, played);
    if (!result.ok) {
      seat.refused++;
      seat.firstRefusal ??= result.error.message;
      this.send(seat, { type: 'error', message: result.error.message });
      return;
    }
    this.state = result.value.state;
    const rolled = result.value.events.find((e) => e.type === 'rolled');
    this.record(this.seatOf(seat.id), played.type, {
      player: seat.id,
      action: played,
      ...(rolled ? { dice: rolled.dice } : {}),
      ...(standIn ? { timeout: true } : {}),
    });
    this.step(result.value);
    // D10: a move the server made for the player gets no OK.
    if (!standIn) {
      seat.streak = 0;
      this.send(seat, OK);
    }
    const s = status(this.state);
    const limit = this.o.turnLimit ?? null;
    if (s.kind === 'won') {
      const w = this.byId.get(s.winner)!;
      this.finish('finished', 'won', TEXT.won(w.name), s.winner);
    } else if (limit !== null && this.state.turnNumber >= limit) {
      const message = TEXT.turnLimit(limit);
      this.broadcast({ type: 'gameOver', message });
      this.finish('finished', 'turn limit', message, null);
    } else this.arm();
  }

  /** Sends one step's events, each as censored for each seat, and keeps the spectator's copy. */
  private step(step: HistoryStep): void {
    this.o.onStep?.(this.id, step);
    for (const e of step.events) {
      const copies = new Map<Viewer, Outgoing[]>();
      const subject = subjectOf(e);
      const copyFor = (viewer: Viewer): Outgoing[] => {
        // The censored copy depends only on whether the viewer is the subject (see `sameForOthers`).
        const key: Viewer = !this.o.sameForOthers ? viewer : viewer === subject ? viewer : 'spectator';
        let out = copies.get(key);
        if (!out) {
          out = messagesFor(this.o.censor(e, viewer), this.ctx).map((m) => new Outgoing(m));
          copies.set(key, out);
        }
        return out;
      };
      for (const seat of this.seats) {
        if (seat.gone) continue;
        for (const out of copyFor(seat.id)) seat.peer.deliver(out);
      }
      for (const out of copyFor('spectator')) this.spectate(out.line);
    }
  }

  private spectate(line: string): void {
    this.lines.push(line);
    if (this.lines.length > KEEP_LINES) this.lines.shift();
    this.o.publish('line', { match: this.id, line });
  }

  private send(seat: Seat, message: ServerMessage): void {
    if (!seat.gone) seat.peer.deliver(message === OK ? OK_OUT : new Outgoing(message));
  }

  private broadcast(message: ServerMessage): void {
    const out = new Outgoing(message);
    for (const seat of this.seats) if (!seat.gone) seat.peer.deliver(out);
    this.spectate(out.line);
  }

  private seatOf(id: number): number {
    return this.seats.findIndex((s) => s.id === id);
  }

  private record(seat: number | null, type: string, data: unknown): void {
    this.o.store?.addEvent(this.id, { at: this.o.clock.now(), seat, type, data });
  }

  // ---- D10: decisions the server takes when a player does not ----------------------------------

  private arm(): void {
    this.timer?.cancel();
    this.timer = null;
    if (this.ended || this.o.timeoutMs === null) return;
    this.timer = this.o.clock.setTimeout(() => {
      this.timer = null;
      this.guard(() => this.expire());
    }, this.o.timeoutMs);
  }

  private expire(): void {
    const s = status(this.state);
    if (s.kind !== 'running') return;
    for (const id of s.toAct) {
      if (this.ended) return;
      const seat = this.byId.get(id)!;
      const action = this.standIn(id);
      if (!action) continue;
      this.timeouts++;
      seat.timeouts++;
      seat.streak++;
      const most = this.o.timeoutStreak ?? null;
      if (most !== null && seat.streak >= most) {
        this.log.info({ player: id, streak: seat.streak }, 'decisions timed out too often: the player is out');
        this.timedOut = id;
        const message = TEXT.timedOut(seat.name);
        this.broadcast({ type: 'gameOver', message });
        this.finish('aborted', 'timeout', message, null);
        return;
      }
      this.log.info({ player: id, action: action.type }, 'decision timed out: the server acts');
      this.act(seat, action, true);
    }
  }

  /** Rolls, discards at random, a random legal placement or robber move, or ends the turn (D10). */
  private standIn(id: number): Action | null {
    const legal = legalActions(this.state, id);
    if (legal.discard)
      return { type: 'discard', cards: randomDiscard(legal.discard.hand, legal.discard.count, this.rng) };
    if (legal.status === 'Wuerfeln') return { type: 'roll' };
    if (legal.status === 'Handeln oder Bauen') return { type: 'endTurn' };
    const placements = legal.actions.filter((a) => a.type === 'build' || a.type === 'moveRobber');
    return placements.length > 0 ? this.rng.pick(placements) : null;
  }

  // ---- the end -----------------------------------------------------------------------------------

  private guard(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.fail(e);
    }
  }

  /**
   * Ends the game after an exception in it or in one of its seats (a house bot): everyone gets
   * `Interner Fehler des Servers. Spiel abgebrochen.`, the record says `aborted`, reason
   * `internal error`, with the error's message.
   */
  fail(e: unknown): void {
    this.log.error({ err: e }, 'match failed');
    if (this.ended) return;
    try {
      this.broadcast({ type: 'gameOver', message: TEXT.internalError });
    } catch {
      // The seats are closed below either way.
    }
    this.finish('aborted', INTERNAL_ERROR, TEXT.internalError, null, e instanceof Error ? e.message : String(e));
  }

  private finish(
    kind: 'finished' | 'aborted',
    reason: string,
    message: string,
    winner: number | null,
    error?: string,
  ): void {
    if (this.ended) return;
    this.ended = true;
    this.timer?.cancel();
    this.timer = null;
    const endedAt = this.o.clock.now();
    const players = this.state.players.map((p) => ({
      id: p.id,
      name: p.name,
      colour: p.colour,
      points: totalPoints(p),
    }));
    const result: CatanResultRow = {
      id: this.id,
      number: this.o.number,
      startedAt: this.startedAt,
      endedAt,
      status: kind,
      winner,
      reason,
      message,
      players: this.state.players.map((p, i) => ({
        id: p.id,
        name: p.name,
        colour: p.colour,
        kind: this.seats[i]!.kind,
        points: p.id === winner ? totalPoints(p) : p.points,
      })),
      turns: this.state.turnNumber,
    };
    try {
      this.o.store?.finishMatch(this.id, {
        status: kind,
        endedAt,
        result: {
          reason,
          winner,
          winnerName: winner === null ? null : this.byId.get(winner)!.name,
          points: Object.fromEntries(players.map((p) => [p.id, p.points])),
          turns: this.state.turnNumber,
          timeouts: this.timeouts,
          ...(this.timedOut === null ? {} : { timedOut: this.timedOut }),
          ...(error === undefined ? {} : { error }),
        },
      });
      matchesTotal.inc({ game: GAME, status: kind });
      this.log.info({ reason, winner }, 'match over');
      this.o.publish('matchEnded', result);
    } catch (e) {
      this.log.error({ err: e }, 'could not record the end of the match');
    }
    // Whatever failed above, the seats are closed and the hall forgets the game.
    for (const seat of this.seats) {
      try {
        seat.peer.end();
      } catch (e) {
        this.log.error({ err: e, player: seat.id }, 'could not close a seat');
      }
    }
    this.o.onEnd(this, result);
  }

  row(): CatanMatchRow {
    return matchRow({
      id: this.id,
      number: this.o.number,
      startedAt: this.startedAt,
      state: this.state,
      seats: this.seats,
      lines: this.lines,
    });
  }
}
