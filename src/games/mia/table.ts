import { randomUUID } from 'node:crypto';
import type { Clock, Timer } from '../../core/clock.js';
import type { Logger } from '../../core/log.js';
import type { RecordStore } from '../../core/records.js';
import { Rng, type RngState } from '../../core/rng.js';
import { matchesTotal } from '../../core/metrics.js';
import { formatDice, type Dice } from './dice.js';
import { formatServer, isValidName, type CancelReason, type ClientMessage, type ServerMessage } from './protocol.js';
import { apply, roundPoints, startRound, type LossReason, type RoundEvent, type RoundMove, type RoundState } from './rules.js';
import type { MiaRoundRow, MiaSnapshot } from './snapshot.js';

/**
 * The Mia table: registrations, scores and the round cycle. It knows addresses but no sockets:
 * the server hands it parsed messages and gives it a `send` function, so the whole protocol runs
 * in tests on a virtual clock.
 */

export interface Address {
  readonly address: string;
  readonly port: number;
}

export const addressKey = (a: Address): string => `${a.address}:${a.port}`;

export interface TableOptions {
  answerTimeoutMs: number;
  heartbeatMs: number;
  minPlayers: number;
  /** How often to look again for enough players while waiting. */
  waitRecheckMs: number;
  /** Start a round as soon as every registered player has joined. */
  startEarly: boolean;
  maxClients: number;
  seed: string | number;
  port: number;
  clock: Clock;
  log: Logger;
  store: RecordStore | null;
  /** Sends one line to each of `to` (one address, or every recipient of a broadcast). */
  send: (to: readonly Address[], line: string) => void;
  tokens?: () => string;
  /** Fixes turn orders and dice (golden transcript tests); whatever it leaves undefined is random. */
  deal?: {
    order?: (round: number, joined: readonly string[]) => readonly string[] | undefined;
    dice?: () => Dice | undefined;
  };
  /** Public events for spectators of the dashboard. */
  publish?: (type: string, data: unknown) => void;
}

interface Client {
  readonly name: string;
  readonly kind: 'player' | 'spectator';
  readonly addr: Address;
  readonly key: string;
}

interface Participant {
  readonly addr: Address;
  /** False once the player unregistered: it stays in the round but its answers are ignored. */
  active: boolean;
}

type Stage =
  | { kind: 'stopped' }
  | { kind: 'waiting' }
  | {
      kind: 'joining';
      number: number;
      matchId: string | null;
      invited: Map<string, { addr: Address; token: string }>;
      joined: string[];
    }
  | {
      kind: 'playing';
      number: number;
      matchId: string | null;
      state: RoundState;
      participants: Map<string, Participant>;
      token: string;
    };

const GAME = 'mia';
const RECENT_ROUNDS = 20;

export class MiaTable {
  /** Registered clients by address, in registration order (the order of broadcasts). */
  private readonly clients = new Map<string, Client>();
  private readonly byName = new Map<string, Client>();
  /** Points of every player ever registered (kept across restarts through the record store). */
  private readonly scores = new Map<string, number>();
  private stage: Stage = { kind: 'stopped' };
  private roundNumber = 0;
  private rng: RngState;
  private timer: Timer | null = null;
  private heartbeat: Timer | null = null;
  private readonly tokens: () => string;
  private round: MiaRoundRow | null = null;
  private readonly recent: MiaRoundRow[] = [];
  private roundsPlayed = 0;

  constructor(private readonly o: TableOptions) {
    this.rng = Rng.seeded(o.seed).state();
    this.tokens = o.tokens ?? randomUUID;
    if (o.store) for (const [name, points] of o.store.getScores(GAME)) this.scores.set(name, points);
  }

  start(): void {
    if (this.stage.kind !== 'stopped') return;
    this.stage = { kind: 'waiting' };
    this.heartbeat = this.o.clock.setInterval(() => this.broadcast({ type: 'HEARTBEAT' }, false), this.o.heartbeatMs);
    this.newRound();
  }

  /** Stops the cycle; a round in progress is recorded as aborted. */
  stop(): void {
    this.timer?.cancel();
    this.heartbeat?.cancel();
    this.timer = this.heartbeat = null;
    if ((this.stage.kind === 'joining' || this.stage.kind === 'playing') && this.stage.matchId !== null) {
      this.o.store?.finishMatch(this.stage.matchId, {
        status: 'aborted',
        endedAt: this.o.clock.now(),
        result: { round: this.stage.number, reason: 'server stopped' },
      });
    }
    this.stage = { kind: 'stopped' };
  }

  get clientCount(): number {
    return this.clients.size;
  }

  get isRoundLive(): boolean {
    return this.stage.kind === 'joining' || this.stage.kind === 'playing';
  }

  scoreOf(name: string): number | undefined {
    return this.scores.get(name);
  }

  /** The score table, sorted by name (decision 1). */
  scoreTable(): [string, number][] {
    return [...this.scores].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  // ---- incoming -------------------------------------------------------------------------------

  /** One parsed message from `from`. Returns why it was dropped, or null when it was taken. */
  receive(message: ClientMessage, from: Address): string | null {
    const key = addressKey(from);
    switch (message.type) {
      case 'ECHO':
        this.sendTo(from, { type: 'ECHOING', text: message.text }, null);
        return null;
      case 'REGISTER':
      case 'REGISTER_SPECTATOR':
        return this.register(message.name, from, key, message.type === 'REGISTER' ? 'player' : 'spectator');
      case 'UNREGISTER':
        return this.unregister(key, from);
      default:
        break;
    }
    const client = this.clients.get(key);
    switch (message.type) {
      case 'JOIN':
        return this.join(key, message.token);
      case 'ROLL': {
        const dice = this.o.deal?.dice?.();
        return this.turn(key, dice ? { type: 'roll', dice } : { type: 'roll' }, message.token);
      }
      case 'SEE':
        return this.turn(key, { type: 'see' }, message.token);
      case 'ANNOUNCE':
        if (message.dice === null) return client ? 'announce with invalid dice' : 'not registered';
        return this.announce(key, message.dice, message.token);
    }
  }

  private register(name: string | undefined, from: Address, key: string, kind: Client['kind']): string | null {
    if (!isValidName(name)) {
      this.sendTo(from, { type: 'REJECTED', reason: 'INVALID_NAME' }, null);
      return null;
    }
    const holder = this.byName.get(name);
    if (holder && holder.addr.address !== from.address) {
      this.sendTo(from, { type: 'REJECTED', reason: 'NAME_ALREADY_TAKEN' }, null);
      return null;
    }
    const previous = this.clients.get(key);
    if (!holder && !previous && this.clients.size >= this.o.maxClients) return 'server full';
    // One registration per address and per name: drop whatever either held before.
    if (holder) this.forget(holder);
    if (previous) this.forget(previous);
    const client: Client = { name, kind, addr: { ...from }, key };
    this.clients.set(key, client);
    this.byName.set(name, client);
    if (kind === 'player') {
      if (!this.scores.has(name)) this.scores.set(name, 0);
      const score: ServerMessage = { type: 'SCORE', scores: this.scoreTable() };
      for (const c of this.clients.values()) if (c.kind === 'spectator') this.sendTo(c.addr, score, null);
    }
    this.sendTo(from, { type: 'REGISTERED' }, null);
    this.o.log.info({ name, kind, from: key, takeover: holder !== undefined && holder.key !== key }, 'registered');
    return null;
  }

  private forget(client: Client): void {
    this.clients.delete(client.key);
    if (this.byName.get(client.name) === client) this.byName.delete(client.name);
  }

  private unregister(key: string, from: Address): string | null {
    const client = this.clients.get(key);
    if (!client) return 'not registered';
    this.forget(client);
    if (this.stage.kind === 'playing') {
      const p = this.stage.participants.get(client.name);
      if (p && addressKey(p.addr) === key) p.active = false;
    }
    this.sendTo(from, { type: 'UNREGISTERED' }, null);
    this.o.log.info({ name: client.name, from: key }, 'unregistered');
    return null;
  }

  private join(key: string, token: string | undefined): string | null {
    if (this.stage.kind !== 'joining') return 'JOIN outside the join window';
    const stage = this.stage;
    for (const [name, invite] of stage.invited) {
      if (addressKey(invite.addr) !== key) continue;
      if (invite.token !== token) return 'JOIN with a wrong token';
      if (stage.joined.includes(name)) return 'JOIN repeated';
      if (!this.clients.has(key) && !this.byName.has(name)) return 'not registered';
      stage.joined.push(name);
      if (stage.matchId) this.o.store?.addEvent(stage.matchId, { at: this.o.clock.now(), type: 'join', data: { name } });
      if (this.o.startEarly && stage.joined.length === stage.invited.size) {
        this.timer?.cancel();
        this.closeJoinWindow();
      }
      return null;
    }
    return this.clients.has(key) ? 'JOIN without an invitation' : 'not registered';
  }

  private actor(key: string, token: string | undefined): string | null {
    if (this.stage.kind !== 'playing') return 'no round in play';
    const name = this.stage.state.players[this.stage.state.current] as string;
    const p = this.stage.participants.get(name);
    if (!p || addressKey(p.addr) !== key) return 'not the player to act';
    if (!p.active) return 'player has unregistered';
    if (token !== this.stage.token) return 'wrong token';
    return null;
  }

  private turn(key: string, move: RoundMove, token: string | undefined): string | null {
    const why = this.actor(key, token);
    if (why !== null) return why;
    if (this.stage.kind !== 'playing' || this.stage.state.phase !== 'turn') return 'not waiting for a turn';
    this.step(move);
    return null;
  }

  private announce(key: string, dice: Dice, token: string | undefined): string | null {
    const why = this.actor(key, token);
    if (why !== null) return why;
    if (this.stage.kind !== 'playing' || this.stage.state.phase !== 'announce') return 'not waiting for an announcement';
    this.step({ type: 'announce', dice });
    return null;
  }

  // ---- the round cycle -------------------------------------------------------------------------

  private players(): Client[] {
    return [...this.clients.values()].filter((c) => c.kind === 'player');
  }

  private schedule(ms: number, fn: () => void): void {
    this.timer?.cancel();
    this.timer = this.o.clock.setTimeout(() => {
      this.timer = null;
      try {
        fn();
      } catch (err) {
        // A bug in one round must not stop the table: record it and go on with the next round.
        this.o.log.error({ err }, 'round failed');
        this.abortRound(String(err));
      }
    }, ms);
  }

  private newRound(): void {
    if (this.stage.kind === 'stopped') return;
    const players = this.players();
    if (players.length < this.o.minPlayers) {
      this.stage = { kind: 'waiting' };
      this.schedule(this.o.waitRecheckMs, () => this.newRound());
      return;
    }
    const number = ++this.roundNumber;
    const now = this.o.clock.now();
    const matchId =
      this.o.store?.startMatch({
        game: GAME,
        seed: this.o.seed,
        startedAt: now,
        seats: players.map((p, i) => ({ seat: i, name: p.name, kind: 'player', address: p.key })),
        meta: { round: number, rng: this.rng },
      }) ?? null;
    const invited = new Map<string, { addr: Address; token: string }>();
    this.stage = { kind: 'joining', number, matchId, invited, joined: [] };
    this.round = {
      number,
      players: [],
      phase: 'joining',
      toAct: null,
      announcements: [],
      log: [],
      losers: [],
      reason: null,
      actual: null,
      matchId,
    };
    this.o.publish?.('roundStarting', { number });
    for (const p of players) {
      const token = this.tokens();
      invited.set(p.name, { addr: p.addr, token });
      this.sendTo(p.addr, { type: 'ROUND STARTING', token }, matchId);
    }
    this.schedule(this.o.answerTimeoutMs, () => this.closeJoinWindow());
  }

  private closeJoinWindow(): void {
    if (this.stage.kind !== 'joining') return;
    const { number, matchId, joined, invited } = this.stage;
    if (joined.length === 0) {
      this.cancel('NO_PLAYERS', number, matchId);
      return;
    }
    if (joined.length === 1) {
      this.broadcast({ type: 'ROUND STARTED', round: number, players: joined }, true, matchId);
      this.cancel('ONLY_ONE_PLAYER', number, matchId);
      return;
    }
    const { state, events } = startRound(number, joined, this.rng, this.o.deal?.order?.(number, joined));
    const participants = new Map<string, Participant>();
    for (const name of state.players) participants.set(name, { addr: (invited.get(name) as { addr: Address }).addr, active: true });
    this.stage = { kind: 'playing', number, matchId, state, participants, token: '' };
    if (this.round) {
      this.round.players = [...state.players];
      this.round.phase = 'turn';
    }
    if (matchId) this.o.store?.addEvent(matchId, { at: this.o.clock.now(), type: 'started', data: { order: state.players } });
    this.broadcast({ type: 'ROUND STARTED', round: number, players: state.players }, true, matchId);
    this.emit(events);
  }

  private cancel(reason: CancelReason, number: number, matchId: string | null): void {
    this.broadcast({ type: 'ROUND CANCELED', reason }, true, matchId);
    this.broadcast({ type: 'SCORE', scores: this.scoreTable() }, true, matchId);
    if (matchId) {
      this.o.store?.finishMatch(matchId, {
        status: 'aborted',
        endedAt: this.o.clock.now(),
        result: { round: number, canceled: reason },
      });
    }
    matchesTotal.inc({ game: GAME, status: 'canceled' });
    this.finishRoundRow('canceled', [], reason);
    this.newRound();
  }

  private abortRound(reason: string): void {
    if ((this.stage.kind === 'joining' || this.stage.kind === 'playing') && this.stage.matchId) {
      this.o.store?.finishMatch(this.stage.matchId, { status: 'aborted', endedAt: this.o.clock.now(), result: { error: reason } });
    }
    this.finishRoundRow('canceled', [], 'ERROR');
    this.stage = { kind: 'waiting' };
    this.newRound();
  }

  private step(move: RoundMove): void {
    if (this.stage.kind !== 'playing') return;
    const stage = this.stage;
    this.timer?.cancel();
    this.timer = null;
    const seat = stage.state.current;
    const result = apply(stage.state, move);
    if (!result.ok) return;
    stage.state = result.value.state;
    if (stage.matchId) {
      const data = move.type === 'announce' ? formatDice(move.dice) : null;
      this.o.store?.addEvent(stage.matchId, { at: this.o.clock.now(), seat, type: move.type, data });
    }
    this.emit(result.value.events);
  }

  /** Sends the rules' events in wire order and arms the next timeout. */
  private emit(events: readonly RoundEvent[]): void {
    if (this.stage.kind !== 'playing') return;
    const stage = this.stage;
    const matchId = stage.matchId;
    const row = this.round;
    for (const e of events) {
      switch (e.type) {
        case 'yourTurn': {
          stage.token = this.tokens();
          const p = stage.participants.get(e.name) as Participant;
          if (row) {
            row.toAct = e.name;
            row.phase = 'turn';
          }
          this.sendTo(p.addr, { type: 'YOUR TURN', token: stage.token }, matchId);
          this.schedule(this.o.answerTimeoutMs, () => this.step({ type: 'timeout' }));
          break;
        }
        case 'playerRolls':
          this.broadcast({ type: 'PLAYER ROLLS', name: e.name }, true, matchId);
          break;
        case 'rolled': {
          stage.token = this.tokens();
          const p = stage.participants.get(e.name) as Participant;
          if (row) row.phase = 'announce';
          if (matchId) this.o.store?.addEvent(matchId, { at: this.o.clock.now(), type: 'rolled', data: formatDice(e.dice) });
          this.sendTo(p.addr, { type: 'ROLLED', dice: e.dice, token: stage.token }, matchId);
          this.schedule(this.o.answerTimeoutMs, () => this.step({ type: 'timeout' }));
          break;
        }
        case 'announced':
          row?.announcements.push({ name: e.name, dice: formatDice(e.dice) });
          this.broadcast({ type: 'ANNOUNCED', name: e.name, dice: e.dice }, true, matchId);
          break;
        case 'wantsToSee':
          this.broadcast({ type: 'PLAYER WANTS TO SEE', name: e.name }, true, matchId);
          break;
        case 'actualDice':
          if (row) row.actual = formatDice(e.dice);
          this.broadcast({ type: 'ACTUAL DICE', dice: e.dice }, true, matchId);
          break;
        case 'lost':
          this.finishRound(e.names, e.reason);
          return;
      }
    }
  }

  private finishRound(losers: readonly string[], reason: LossReason): void {
    if (this.stage.kind !== 'playing') return;
    const { state, matchId, number } = this.stage;
    const sorted = [...losers].sort(byName);
    this.broadcast({ type: 'PLAYER LOST', names: sorted, reason }, true, matchId);
    const gained = roundPoints(state);
    for (const [name, points] of gained) this.scores.set(name, (this.scores.get(name) ?? 0) + points);
    this.broadcast({ type: 'SCORE', scores: this.scoreTable() }, true, matchId);
    const now = this.o.clock.now();
    this.o.store?.setScores(GAME, new Map(state.players.map((p) => [p, this.scores.get(p) ?? 0])), now);
    if (matchId) {
      this.o.store?.finishMatch(matchId, {
        status: 'finished',
        endedAt: now,
        result: { round: number, order: state.players, losers: sorted, reason, points: Object.fromEntries(gained) },
      });
    }
    matchesTotal.inc({ game: GAME, status: 'finished' });
    this.roundsPlayed++;
    this.rng = state.rng;
    this.finishRoundRow('over', sorted, reason);
    this.stage = { kind: 'waiting' };
    this.newRound();
  }

  private finishRoundRow(phase: 'over' | 'canceled', losers: string[], reason: string): void {
    const row = this.round;
    if (!row) return;
    row.phase = phase;
    row.toAct = null;
    row.losers = losers;
    row.reason = reason;
    this.recent.unshift(row);
    if (this.recent.length > RECENT_ROUNDS) this.recent.pop();
    this.round = null;
    this.o.publish?.('roundOver', row);
  }

  // ---- outgoing --------------------------------------------------------------------------------

  private sendTo(to: Address, message: ServerMessage, matchId: string | null): void {
    const line = formatServer(message);
    this.o.send([to], line);
    this.o.store?.addWire({ matchId, game: GAME, conn: addressKey(to), at: this.o.clock.now(), dir: 'out', data: line });
  }

  /** To every registered client, spectators included, in registration order. */
  private broadcast(message: ServerMessage, record: boolean, matchId: string | null = null): void {
    const line = formatServer(message);
    const to: Address[] = [];
    for (const c of this.clients.values()) to.push(c.addr);
    this.o.send(to, line);
    if (!record) return;
    this.round?.log.push(line);
    this.o.publish?.('line', { line });
    this.o.store?.addWire({ matchId, game: GAME, conn: '*', at: this.o.clock.now(), dir: 'out', data: line });
  }

  /** Records an incoming datagram in the wire log of the round in progress. */
  recordIncoming(from: Address, line: string): void {
    const matchId = this.stage.kind === 'joining' || this.stage.kind === 'playing' ? this.stage.matchId : null;
    this.o.store?.addWire({ matchId, game: GAME, conn: addressKey(from), at: this.o.clock.now(), dir: 'in', data: line });
  }

  nameAt(key: string): string | undefined {
    return this.clients.get(key)?.name;
  }

  snapshot(): MiaSnapshot {
    const registered = new Map([...this.clients.values()].filter((c) => c.kind === 'player').map((c) => [c.name, c]));
    return {
      game: 'mia',
      port: this.o.port,
      players: this.scoreTable().map(([name, points]) => ({
        name,
        points,
        registered: registered.has(name),
        address: registered.get(name)?.key ?? null,
      })),
      spectators: [...this.clients.values()].filter((c) => c.kind === 'spectator').map((c) => c.name),
      round: this.round ? { ...this.round, players: [...this.round.players], announcements: [...this.round.announcements], log: [...this.round.log] } : null,
      recent: this.recent.map((r) => ({ ...r })),
      roundsPlayed: this.roundsPlayed,
    };
  }
}

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
