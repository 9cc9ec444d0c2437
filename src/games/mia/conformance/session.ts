import type { Judgement, ScriptedWire } from '../../../core/conformance.js';
import { Rng, rngState, type RngState } from '../../../core/rng.js';
import { ProbabilisticBot } from '../bots/probabilistic.js';
import type { MiaBot } from '../bots/types.js';
import type { Dice } from '../dice.js';
import { formatServer, isValidName, parseClient, type RejectReason, type ServerMessage } from '../protocol.js';
import { apply, currentPlayer, startRound, type RoundEvent, type RoundMove } from '../rules.js';
import { ClientInbox, ENDED, expectedAnswer, TIMEOUT, type Question } from './inbox.js';
import { MIA_JUDGEMENTS as J } from './judgements.js';

/**
 * One scripted stretch of a Mia server's life, as our server (table.ts) plays it for the client
 * under test: its registration, rounds under the real rules (rules.ts) against simulated players
 * (our probabilistic bot, or moves the scenario prescribes), and an end. Every datagram is spelled
 * by protocol.ts, the code our server writes with, and sent when our server would send it. What a
 * scenario varies is data: who joins, whose answer is lost on the way, how datagrams are delivered
 * (twice, late, between heartbeats, slowly), and how the stretch ends.
 */

/** What the simulated players do on their turns, in order, before their bots take over. */
export type OpponentAction = { see: true } | { roll: Dice; announce: Dice };

export interface RoundPlan {
  /**
   * Whose JOIN the server sees: everyone's (default); the client's alone (ONLY_ONE_PLAYER); nobody's,
   * the client's being lost on the way (NO_PLAYERS); the others', the client's lost (a round without it).
   */
  joins?: 'all' | 'client-only' | 'none' | 'others';
  /** The round was under way when the client registered: no invitation, no ROUND STARTED for it. */
  inProgress?: boolean;
  order?: 'shuffle' | 'client-first' | 'client-last';
  script?: readonly OpponentAction[];
  /** The client's first answer of this kind in the round is lost on the way: the server times out. */
  lose?: 'turn' | 'announce';
  /** The client's rolls (otherwise the rules' dice). */
  clientDice?: readonly Dice[];
}

export type Delivery =
  | { kind: 'once' }
  /** Every datagram twice in a row. */
  | { kind: 'twice' }
  /** A copy of each question the client answered comes again after the server's next datagram. */
  | { kind: 'late' }
  /** A HEARTBEAT after every datagram (a server with a very short heartbeat interval). */
  | { kind: 'heartbeats' }
  /** Every datagram `gapMs` after the one before, the reply to a client datagram `replyMs` after it. */
  | { kind: 'slow'; gapMs: number; replyMs: number };

export interface MiaSession {
  /** The name the command line gives the client ({name}). */
  name: string;
  /** The simulated players, registered before the client. */
  opponents: readonly string[];
  /** Players registered once and gone, with their points: they stay in every SCORE (docs/mia.md decision 10). */
  absent?: readonly (readonly [string, number])[];
  /** Our server's answer timeout; the kit's default 1000 ms (with start-early) is kind to slow machines. */
  answerMs?: number;
  startEarly?: boolean;
  /** How the server answers the first REGISTER (later ones under another valid name are accepted). */
  registration?: 'accept' | RejectReason;
  rounds: readonly RoundPlan[];
  delivery?: Delivery;
  /**
   * invitation: a last ROUND STARTING that must be joined, 300 ms of quiet, then the kit stops the
   * client; unregistered: UNREGISTERED unasked; silent: after the last JOIN the server says nothing.
   */
  end?: 'invitation' | 'unregistered' | 'silent';
  silentMs?: number;
  seed?: string;
  /** The scenario's own rule: what a missing answer or a stopped client breaks in this scenario. */
  judgement?: Judgement;
}

/** The kit's answer time: our server set to answerMs 1000 with start-early (spec §decisions 5). */
export const KIT_ANSWER_MS = 1000;
/** Our server's default answer time (spec §Rounds). */
export const SERVER_ANSWER_MS = 250;
const HEARTBEAT_MS = 2000;
/** Time to start and register: generous, for a JVM or a whole CLI starting on a busy machine. */
const REGISTER_MS = 20_000;
/** After REJECTED: the public bots send nothing more but exit only after 5 s of silence (their heartbeat timer). */
const AFTER_REJECT_MS = 8000;
const EXIT_MS = 2000;
const QUIET_MS = 300;
const UNREGISTERED_MS = 1000;
/** How many datagrams a second a client may send while the server is silent (re-registering, say). */
const SILENT_RATE = 2;

/** Every time window and tolerance of the Mia scenarios (docs/check-client/mia.md "Timers and tolerances"; the flood budget is inbox.ts's). */
export const MIA_TIMERS = { KIT_ANSWER_MS, SERVER_ANSWER_MS, HEARTBEAT_MS, REGISTER_MS, AFTER_REJECT_MS, EXIT_MS, QUIET_MS, UNREGISTERED_MS, SILENT_RATE } as const;


const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function runMiaSession(s: MiaSession): (wire: ScriptedWire) => Promise<void> {
  return (wire) => new MiaScript(wire, s).run();
}

class MiaScript {
  private readonly answerMs: number;
  private readonly inbox: ClientInbox;
  private readonly tokenRng: Rng;
  private deal: RngState;
  private readonly scores = new Map<string, number>();
  private readonly bots = new Map<string, MiaBot>();
  private roundNumber = 0;
  private lastHeartbeat = 0;
  /** A question the client answered, to come again after the next datagram (delivery 'late'). */
  private lateCopy: string | null = null;
  /** The next datagram replies to the client (delivery 'slow'). */
  private replying = false;

  constructor(
    private readonly wire: ScriptedWire,
    private readonly s: MiaSession,
  ) {
    this.answerMs = s.answerMs ?? KIT_ANSWER_MS;
    this.inbox = new ClientInbox(wire, s.name, J, (line) => wire.send([line]));
    const seed = s.seed ?? 'check-client';
    this.tokenRng = Rng.seeded(`${seed}:tokens`);
    this.deal = rngState(`${seed}:dice`);
    for (const name of s.opponents) {
      this.scores.set(name, 0);
      this.bots.set(name, new ProbabilisticBot(`${seed}:${name}`));
    }
    for (const [name, points] of s.absent ?? []) this.scores.set(name, points);
  }

  private get me(): string {
    return this.inbox.name;
  }

  /** The turn-answer judgement: the strict one when the scenario is about our server's 250 ms. */
  private get timely(): Judgement {
    return this.s.judgement ?? (this.answerMs <= SERVER_ANSWER_MS ? J.answerTime : J.turn);
  }

  async run(): Promise<void> {
    if (!(await this.register())) return;
    for (const plan of this.s.rounds) await this.round(plan);
    await this.finish();
  }

  /** A UUID v4 as our server's randomUUID writes it, from the session's seed. */
  private token(): string {
    const hex = (n: number): string => Array.from({ length: n }, () => this.tokenRng.int(0, 15).toString(16)).join('');
    return `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[this.tokenRng.int(0, 3)] ?? '8'}${hex(3)}-${hex(12)}`;
  }

  private async out(...messages: ServerMessage[]): Promise<void> {
    const d = this.s.delivery ?? { kind: 'once' };
    for (const m of messages) {
      const line = formatServer(m);
      if (d.kind === 'slow') await this.wire.delay(this.replying ? d.replyMs : d.gapMs);
      this.replying = false;
      await this.wire.send(d.kind === 'twice' ? [line, line] : d.kind === 'heartbeats' ? [line, 'HEARTBEAT'] : [line]);
      if (this.lateCopy !== null) {
        const copy = this.lateCopy;
        this.lateCopy = null;
        this.wire.note('a late copy of an earlier message (UDP may duplicate and reorder datagrams)');
        await this.wire.send([copy]);
      }
    }
  }

  /** Sends a question and remembers its token. */
  private async ask(kind: Question['kind'], message: ServerMessage & { token: string }): Promise<Question> {
    await this.out(message);
    const q: Question = { kind, token: message.token, line: formatServer(message), askedAt: this.wire.now() };
    this.inbox.asked(q);
    return q;
  }

  /** The client answered `q`: delivery modes react to it. */
  private answered(q: Question): void {
    this.replying = true;
    if (this.s.delivery?.kind === 'late') this.lateCopy = q.line;
  }

  private scoreMessage(): ServerMessage {
    return { type: 'SCORE', scores: [...this.scores.entries()].sort(([a], [b]) => byName(a, b)) };
  }

  // ---- registration ----------------------------------------------------------------------------

  /** True when the scenario goes on with the client registered; false when it ended (it exited). */
  private async register(): Promise<boolean> {
    const wire = this.wire;
    const rejected = new Set<string>();
    const nameValid: boolean = isValidName(this.s.name);
    let deadline = wire.now() + wire.scaled(REGISTER_MS);
    for (;;) {
      const got = await this.inbox.take((deadline - wire.now()) / wire.scaled(1));
      if (got === TIMEOUT) {
        if (rejected.size === 0) return wire.fail(`did not send REGISTER;${this.s.name} within ${wire.scaled(REGISTER_MS)} ms`, J.register);
        return wire.fail(`neither exited nor registered under another name within ${wire.scaled(AFTER_REJECT_MS)} ms of REJECTED: a rejected client is not in the game`, J.rejected);
      }
      if (got === ENDED) {
        if (rejected.size === 0 && !nameValid) {
          await wire.expectExit(EXIT_MS, `after refusing the invalid name "${this.s.name}" itself`, { judgement: J.rejected });
          wire.note('the client refused the invalid name itself: fine');
          return false;
        }
        if (rejected.size === 0) return this.inbox.gone(`REGISTER;${this.s.name}`, J.register);
        await wire.expectExit(EXIT_MS, 'after REJECTED', { judgement: J.rejected });
        return false;
      }
      const parsed = parseClient(got);
      const m = parsed.ok ? parsed.message : null;
      if (m?.type === 'ECHO') {
        await wire.send([`ECHOING;${m.text}`]);
        continue;
      }
      if (m?.type === 'REGISTER_SPECTATOR') return wire.fail(`sent "${got}": a player client registers with REGISTER`, J.register);
      if (m?.type !== 'REGISTER') {
        if (rejected.size > 0) return wire.fail(`sent "${got}" although it is not registered`, J.rejected);
        return wire.fail(`sent "${got}" before it registered`, J.register);
      }
      const name = m.name ?? '';
      if (rejected.has(name)) return wire.fail(`registered "${name}" again after REJECTED: the answer stays the same`, J.rejected);
      const mayRename = rejected.size > 0 || !nameValid;
      if (name !== this.s.name && !mayRename) return wire.fail(`sent "${got}", but the command line gave the name "${this.s.name}"`, J.register);
      const reject: RejectReason | null = !isValidName(name)
        ? 'INVALID_NAME'
        : rejected.size === 0 && this.s.registration === 'NAME_ALREADY_TAKEN'
          ? 'NAME_ALREADY_TAKEN'
          : null;
      if (reject !== null) {
        rejected.add(name);
        await wire.send([formatServer({ type: 'REJECTED', reason: reject })]);
        deadline = wire.now() + wire.scaled(AFTER_REJECT_MS);
        continue;
      }
      if (name !== this.s.name) wire.note(`the client registers as "${name}" instead: fine`);
      this.inbox.name = name;
      this.scores.set(name, 0);
      await wire.send([formatServer({ type: 'REGISTERED' })]);
      this.lastHeartbeat = wire.now();
      // Our server looks for enough players again at most 500 ms later (spec §Rounds).
      await wire.delay(50);
      return true;
    }
  }

  // ---- rounds ----------------------------------------------------------------------------------

  /** ROUND STARTING for the client, with the HEARTBEAT that is due by now (in the join window). */
  private async invite(): Promise<Question> {
    this.roundNumber++;
    const q = await this.ask('JOIN', { type: 'ROUND STARTING', token: this.token() });
    if (this.wire.now() - this.lastHeartbeat >= HEARTBEAT_MS && this.s.delivery?.kind !== 'heartbeats') {
      this.lastHeartbeat = this.wire.now();
      await this.out({ type: 'HEARTBEAT' });
    }
    return q;
  }

  private async awaitJoin(q: Question): Promise<void> {
    const got = await this.inbox.answer(q, q.askedAt + this.wire.scaled(this.answerMs), expectedAnswer(q), this.s.judgement ?? J.join);
    if (got === 'timeout')
      this.wire.fail(`did not answer "${q.line}" with ${expectedAnswer(q)} within ${this.wire.scaled(this.answerMs)} ms${this.inbox.ignoredText()}: our server plays the round without it`, this.s.judgement ?? (this.answerMs <= SERVER_ANSWER_MS ? J.answerTime : J.join));
    this.answered(q);
  }

  private async round(plan: RoundPlan): Promise<void> {
    const joins = plan.joins ?? (plan.inProgress ? 'others' : 'all');
    let windowEnd = this.wire.now();
    if (plan.inProgress) this.roundNumber++;
    else {
      const q = await this.invite();
      await this.awaitJoin(q);
      windowEnd = q.askedAt + this.wire.scaled(this.answerMs);
      if (joins === 'none' || joins === 'others') this.wire.note('the JOIN is lost on the way: our server never sees it');
    }
    const number = this.roundNumber;
    const clientIn = joins === 'all' || joins === 'client-only';
    const others = joins === 'all' || joins === 'others' ? this.s.opponents : [];
    const joined = [...others, ...(clientIn ? [this.me] : [])];
    // Start-early cuts the join window short only when every invited player has joined.
    const startEarly = this.s.startEarly ?? this.answerMs > SERVER_ANSWER_MS;
    if (!plan.inProgress && !(startEarly && clientIn && others.length === this.s.opponents.length)) {
      if ((await this.inbox.quietUntil(windowEnd)) === 'ended') await this.inbox.gone('ROUND STARTED', this.s.judgement ?? J.alive);
    }
    if (joined.length === 0) {
      await this.out({ type: 'ROUND CANCELED', reason: 'NO_PLAYERS' }, this.scoreMessage());
      return;
    }
    if (joined.length === 1) {
      await this.out({ type: 'ROUND STARTED', round: number, players: joined }, { type: 'ROUND CANCELED', reason: 'ONLY_ONE_PLAYER' }, this.scoreMessage());
      return;
    }
    const order = plan.order === 'client-first' && clientIn ? [this.me, ...others] : plan.order === 'client-last' && clientIn ? [...others, this.me] : undefined;
    const start = startRound(number, joined, this.deal, order);
    if (!plan.inProgress) await this.out({ type: 'ROUND STARTED', round: number, players: start.state.players });
    else this.wire.note(`a round among ${joined.join(', ')} is under way since before the client registered`);
    let state = start.state;
    let events: readonly RoundEvent[] = start.events;
    const claims: { name: string; dice: Dice }[] = [];
    const script = [...(plan.script ?? [])];
    const dice = [...(plan.clientDice ?? [])];
    let pendingClaim: Dice | null = null;
    let lose = plan.lose ?? null;
    let question: Question | null = null;
    for (;;) {
      question = await this.emit(events, claims, state.players);
      if (state.phase === 'over') break;
      const actor = currentPlayer(state);
      let move: RoundMove;
      if (actor === this.me && question !== null) {
        const losing = (lose === 'turn' && state.phase === 'turn') || (lose === 'announce' && state.phase === 'announce');
        if (losing) lose = null;
        move = await this.clientMove(question, losing, dice);
        if (move.type === 'timeout' && !losing) {
          const r = apply(state, move);
          if (r.ok) await this.emit(r.value.events, claims, state.players);
          const reason = state.phase === 'turn' ? 'DID_NOT_TAKE_TURN' : 'DID_NOT_ANNOUNCE';
          return this.wire.fail(
            `did not answer "${question.line}" with ${expectedAnswer(question)} within ${this.wire.scaled(this.answerMs)} ms${this.inbox.ignoredText()}: our server declares it lost (${reason})`,
            this.timely,
          );
        }
      } else if (state.phase === 'turn') {
        const next = script.shift();
        if (next !== undefined) {
          pendingClaim = 'see' in next ? null : next.announce;
          move = 'see' in next ? { type: 'see' } : { type: 'roll', dice: next.roll };
        } else {
          pendingClaim = null;
          const action = this.bot(actor).onTurn({ me: actor, round: number, players: state.players, announcements: claims.slice() });
          move = action === 'see' ? { type: 'see' } : { type: 'roll' };
        }
      } else {
        const rolled = state.actual as Dice;
        const claim = pendingClaim ?? this.bot(actor).onRolled({ me: actor, round: number, players: state.players, announcements: claims.slice() }, rolled);
        pendingClaim = null;
        move = { type: 'announce', dice: claim };
      }
      const r = apply(state, move);
      if (!r.ok) throw new Error(`the scripted round cannot go on: ${r.error.message}`);
      state = r.value.state;
      events = r.value.events;
    }
    this.deal = state.rng;
  }

  private bot(name: string): MiaBot {
    const bot = this.bots.get(name);
    if (!bot) throw new Error(`no bot for ${name}`);
    return bot;
  }

  /** Sends a step's events as our server does; returns the client's question when one was asked. */
  private async emit(events: readonly RoundEvent[], claims: { name: string; dice: Dice }[], players: readonly string[]): Promise<Question | null> {
    let question: Question | null = null;
    for (const e of events) {
      switch (e.type) {
        case 'yourTurn':
          if (e.name === this.me) question = await this.ask('TURN', { type: 'YOUR TURN', token: this.token() });
          break;
        case 'playerRolls':
          await this.out({ type: 'PLAYER ROLLS', name: e.name });
          break;
        case 'rolled':
          if (e.name === this.me) question = await this.ask('ANNOUNCE', { type: 'ROLLED', dice: e.dice, token: this.token() });
          break;
        case 'announced':
          claims.push({ name: e.name, dice: e.dice });
          await this.out({ type: 'ANNOUNCED', name: e.name, dice: e.dice });
          break;
        case 'wantsToSee':
          await this.out({ type: 'PLAYER WANTS TO SEE', name: e.name });
          break;
        case 'actualDice':
          await this.out({ type: 'ACTUAL DICE', dice: e.dice });
          break;
        case 'lost':
          for (const p of players) if (!e.names.includes(p)) this.scores.set(p, (this.scores.get(p) ?? 0) + 1);
          await this.out({ type: 'PLAYER LOST', names: [...e.names].sort(byName), reason: e.reason }, this.scoreMessage());
          break;
      }
    }
    return question;
  }

  private async clientMove(q: Question, losing: boolean, dice: Dice[]): Promise<RoundMove> {
    const got = await this.inbox.answer(q, q.askedAt + this.wire.scaled(this.answerMs), expectedAnswer(q), this.timely, losing);
    if (got === 'timeout') {
      if (losing) this.wire.note(`${this.wire.scaled(this.answerMs)} ms without an answer: the server times out`);
      return { type: 'timeout' };
    }
    this.answered(q);
    if (got.type === 'ROLL') {
      const d = dice.shift();
      return d === undefined ? { type: 'roll' } : { type: 'roll', dice: d };
    }
    if (got.type === 'SEE') return { type: 'see' };
    if (got.type === 'ANNOUNCE' && got.dice !== null) return { type: 'announce', dice: got.dice };
    throw new Error(`unexpected answer ${got.type}`);
  }

  // ---- the end ---------------------------------------------------------------------------------

  private async finish(): Promise<void> {
    const wire = this.wire;
    const end = this.s.end ?? 'invitation';
    if (end === 'unregistered') return this.unregistered();
    const q = await this.invite();
    await this.awaitJoin(q);
    if (end === 'invitation') {
      if ((await this.inbox.quietUntil(wire.now() + wire.scaled(QUIET_MS))) === 'ended')
        return this.inbox.gone('nothing (the client joined and waits for the round)', this.s.judgement ?? J.alive);
      wire.note('the kit stops the client here: Mia has no end of game');
      return;
    }
    const silentMs = this.s.silentMs ?? 6000;
    wire.note(`the server falls silent for ${silentMs} ms (no round, no HEARTBEAT)`);
    this.inbox.serverAlive = false;
    const until = wire.now() + wire.scaled(silentMs);
    const times: number[] = [];
    for (;;) {
      const got = await this.inbox.take((until - wire.now()) / wire.scaled(1));
      if (got === TIMEOUT) return;
      if (got === ENDED) {
        await wire.expectExit(EXIT_MS, 'while the server was silent', { judgement: J.silent });
        return;
      }
      await this.inbox.judge(got, null);
      // More than SILENT_RATE datagrams within one second: a retry loop without a pause.
      times.push(wire.now());
      const recent = times.filter((t) => t > wire.now() - wire.scaled(1000));
      if (recent.length > SILENT_RATE)
        return wire.fail(`sent ${recent.length} datagrams within 1000 ms while the server was silent (at most ${SILENT_RATE})`, J.silent);
    }
  }

  private async unregistered(): Promise<void> {
    const wire = this.wire;
    await this.out({ type: 'UNREGISTERED' });
    const until = wire.now() + wire.scaled(UNREGISTERED_MS);
    for (;;) {
      const got = await this.inbox.take((until - wire.now()) / wire.scaled(1));
      if (got === TIMEOUT) {
        wire.note('the client stays quiet after UNREGISTERED (a tournament stops it): fine');
        return;
      }
      if (got === ENDED) {
        await wire.expectExit(EXIT_MS, 'after UNREGISTERED', { code: 0, judgement: J.unregistered });
        return;
      }
      const parsed = parseClient(got);
      const m = parsed.ok ? parsed.message : null;
      if (m?.type === 'UNREGISTER') {
        wire.note('UNREGISTER from an address that is no longer registered: our server does not answer');
        continue;
      }
      if (m?.type === 'REGISTER' && m.name === this.me) {
        wire.note('the client registers again (docs/mia.md decision 13 allows it)');
        await wire.send([formatServer({ type: 'REGISTERED' })]);
        const q = await this.invite();
        await this.awaitJoin(q);
        return;
      }
      await this.inbox.judge(got, null);
    }
  }
}
