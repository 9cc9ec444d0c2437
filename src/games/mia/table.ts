import { randomUUID } from 'node:crypto';
import type { Clock, Timer } from '../../core/clock.js';
import { guard, INTERNAL_ERROR, SERVER_STOPPED } from '../../core/guard.js';
import { HostCounter, hostOf, RateLimitedWarn } from '../../core/hosts.js';
import type { Logger } from '../../core/log.js';
import type { Records } from '../../core/record-backend.js';
import { Rng, type RngState } from '../../core/rng.js';
import { matchesTotal } from '../../core/metrics.js';
import { formatDice, type Dice } from './dice.js';
import { byName, formatServer, isValidName, MAX_UDP_PAYLOAD, type CancelReason, type ClientMessage, type ServerMessage } from './protocol.js';
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
  /** Registered clients (players and spectators) one IP may hold; 0 or absent: only maxClients. */
  maxClientsPerHost?: number;
  /**
   * A player invited to this many rounds in a row without joining is unregistered, once there is
   * evidence that it is gone (decision 13, issue 36): nothing at all from its address for
   * `expireSilenceMs` (absent: at once), and no flood being dropped (`flooding`). 0 or absent: never.
   */
  maxMissedRounds?: number;
  expireSilenceMs?: number;
  /** Whether the server is dropping a flood right now: then nobody expires (their datagrams may be lost in it). */
  flooding?: () => boolean;
  /** Longest SCORE line in bytes (tests make it small); default and most MAX_UDP_PAYLOAD. */
  maxScoreBytes?: number;
  seed: string | number;
  port: number;
  clock: Clock;
  log: Logger;
  store: Records | null;
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
  /** A tournament table (src/games/mia/tournament.ts): see TournamentTable. */
  tournament?: TournamentTable;
}

/**
 * A table of a tournament match: only `names` may register (as players, each name held by the
 * address that registered it first: no takeover, no spectators), scores start at 0 and stay out of
 * the store's score table, every record carries `meta`, and after `rounds` rounds (finished or
 * canceled) no other starts: every player gets UNREGISTERED and `onDone` is called.
 */
export interface TournamentTable {
  names: readonly string[];
  /** Whether the address `from` may register `name`: a seat's name is its entrant's alone (issue 30). */
  nameOwner?: (name: string, from: Address) => boolean;
  rounds: number;
  meta: Record<string, unknown>;
  onDone: () => void;
}

interface Client {
  readonly name: string;
  readonly kind: 'player' | 'spectator';
  readonly addr: Address;
  readonly key: string;
  readonly host: string;
  /** Rounds in a row this player was invited to and did not join. */
  missed: number;
  /** When its address last sent anything (clock ms), dropped datagrams included. */
  heardAt: number;
  /** Invitations let pass since its address last sent anything: DORMANT_AFTER of them make it dormant. */
  unanswered: number;
}

interface WireEntry {
  at: number;
  conn: string;
  dir: 'in' | 'out';
  data: string;
}

/** What the record store gets of the round in play, written when it ends. */
interface RoundRecord {
  readonly matchId: string;
  readonly wire: WireEntry[];
  /** Datagrams recorded per client this round (capped: see MAX_IN_PER_CLIENT). */
  readonly inPerClient: Map<string, number>;
  unrecorded: number;
  readonly joined: string[];
  /** [seat, 'roll', dice] | [seat, 'announce', dice] | [seat, 'see'] | [seat, 'timeout'] */
  readonly moves: (number | string)[][];
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
/** Invitations in a row without a JOIN (nor any datagram since) after which a player is dormant. */
const DORMANT_AFTER = 3;
/** A dormant player is invited to every this-many-th round only. */
const DORMANT_EVERY = 4;
/** A client's datagrams recorded per round at most (more is garbage or a flood: counted only). */
const MAX_IN_PER_CLIENT = 40;
/** A round's wire log is written in batches of at most this many messages. */
const WIRE_BATCH = 1000;
/** SCORE lines are recorded up to this length (the scores themselves are in the store). */
const MAX_RECORDED_SCORE = 1024;

export class MiaTable {
  /** Registered clients by address, in registration order (the order of broadcasts). */
  private readonly clients = new Map<string, Client>();
  private readonly byName = new Map<string, Client>();
  /** Points of every player ever registered (kept across restarts through the record store). */
  private readonly scores = new Map<string, number>();
  /** When each name was last registered or joined a round (a counter; names from the store: none). */
  private readonly lastSeen = new Map<string, number>();
  private seen = 0;
  /** Names of `scores` sorted (decision 1), or null after a name was added. */
  private sortedNames: string[] | null = null;
  private readonly perHost: HostCounter;
  private readonly warn: RateLimitedWarn;
  private record: RoundRecord | null = null;
  private stage: Stage = { kind: 'stopped' };
  private roundNumber = 0;
  private rng: RngState;
  private timer: Timer | null = null;
  private heartbeat: Timer | null = null;
  private readonly tokens: () => string;
  private round: MiaRoundRow | null = null;
  private readonly recent: MiaRoundRow[] = [];
  private roundsPlayed = 0;
  /** A tournament table after its last round. */
  private tableDone = false;
  /**
   * Names this table refuses (`REJECTED;INVALID_NAME`): Die Liga's codes on the public table, where
   * every other client would read them (a student who mistook the port: docs/mia.md "Die Liga").
   */
  refuseName: ((name: string) => boolean) | null = null;
  /**
   * The names of the serving process's house bots (they register from loopback): a round of
   * theirs alone is a house game, which retention takes first (issue 37).
   */
  houseNames: ReadonlySet<string> = new Set();

  constructor(private readonly o: TableOptions) {
    this.rng = Rng.seeded(o.seed).state();
    this.tokens = o.tokens ?? randomUUID;
    this.perHost = new HostCounter(o.maxClientsPerHost ?? 0);
    this.warn = new RateLimitedWarn(o.log, 10_000, () => o.clock.now());
    if (o.tournament) for (const name of o.tournament.names) this.scores.set(name, 0);
    else if (o.store) {
      const saved = o.store.getScores(GAME);
      if (saved instanceof Map) this.restoreScores(saved);
      else this.ready = saved.then((m) => this.restoreScores(m));
    }
  }

  /** Resolves when the saved scores are in (a store that answers over the network); the server starts after it. */
  readonly ready: Promise<void> = Promise.resolve();

  /** Adds the scores saved by earlier runs. */
  private restoreScores(saved: ReadonlyMap<string, number>): void {
    for (const [name, points] of saved) this.scores.set(name, (this.scores.get(name) ?? 0) + points);
    this.sortedNames = null;
  }

  start(): void {
    if (this.stage.kind !== 'stopped') return;
    this.stage = { kind: 'waiting' };
    this.heartbeat = this.o.clock.setInterval(
      guard(this.o.log, 'mia heartbeat', () => this.broadcast({ type: 'HEARTBEAT' }, false)),
      this.o.heartbeatMs,
    );
    this.newRound();
  }

  /** Stops the cycle; a round in progress is recorded as aborted. */
  stop(): void {
    this.timer?.cancel();
    this.heartbeat?.cancel();
    this.timer = this.heartbeat = null;
    if (this.stage.kind === 'joining' || this.stage.kind === 'playing') {
      const order = this.stage.kind === 'playing' ? { order: this.stage.state.players } : {};
      this.endRecord('aborted', { round: this.stage.number, reason: SERVER_STOPPED, ...order });
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
    if (this.sortedNames === null) this.sortedNames = [...this.scores.keys()].sort(byName);
    return this.sortedNames.map((name) => [name, this.scores.get(name) ?? 0]);
  }

  /**
   * The SCORE message: every player ever registered, sorted by name, as long as the datagram fits
   * into `maxScoreBytes` (decision 12). Beyond that the players registered now come first, then
   * the others by how recently they registered or played, as many as fit.
   */
  private scoreMessage(): ServerMessage {
    const all = this.scoreTable();
    const limit = this.scoreLimit;
    let bytes = 'SCORE;'.length - 1;
    for (const entry of all) bytes += entryBytes(entry);
    if (bytes <= limit) return { type: 'SCORE', scores: all };
    const registered = new Set(this.players().map((c) => c.name));
    const ranked = all
      .map((entry) => ({ entry, key: registered.has(entry[0]) ? Infinity : (this.lastSeen.get(entry[0]) ?? -1) }))
      .sort((a, b) => b.key - a.key || b.entry[1] - a.entry[1] || byName(a.entry[0], b.entry[0]));
    const chosen: [string, number][] = [];
    bytes = 'SCORE;'.length - 1;
    for (const { entry } of ranked) {
      const more = entryBytes(entry);
      if (bytes + more > limit) continue;
      bytes += more;
      chosen.push(entry);
    }
    chosen.sort(([a], [b]) => byName(a, b));
    this.warn.warn('score', { players: all.length, listed: chosen.length, limit }, 'SCORE would not fit into one datagram: it lists only some players');
    return { type: 'SCORE', scores: chosen };
  }

  private get scoreLimit(): number {
    return Math.min(this.o.maxScoreBytes ?? MAX_UDP_PAYLOAD, MAX_UDP_PAYLOAD);
  }

  /** Whether the registered players' SCORE entries, with `name` added, still fit into one SCORE. */
  private scoreFits(name: string, without: readonly Client[]): boolean {
    let bytes = 'SCORE;'.length - 1 + entryBytes([name, this.scores.get(name) ?? 0]);
    for (const c of this.clients.values()) if (c.kind === 'player' && c.name !== name && !without.includes(c)) bytes += entryBytes([c.name, this.scores.get(c.name) ?? 0]);
    return bytes <= this.scoreLimit;
  }

  // ---- incoming -------------------------------------------------------------------------------

  /**
   * One parsed message from `from` (`raw`: the datagram as it is recorded). Returns why it was
   * dropped, or null when it was taken. An exception in here ends at most the round in play.
   */
  receive(message: ClientMessage, from: Address, raw = ''): string | null {
    try {
      return this.handle(message, from, raw);
    } catch (err) {
      this.fail(err, 'mia message');
      return INTERNAL_ERROR;
    }
  }

  private handle(message: ClientMessage, from: Address, raw: string): string | null {
    const key = addressKey(from);
    const client = this.clients.get(key);
    // Whatever it sent, a registered player is alive (issue 36): its expiry waits.
    if (client) this.alive(client, this.o.clock.now());
    switch (message.type) {
      case 'ECHO':
        this.sendTo(from, { type: 'ECHOING', text: message.text }, false);
        return null;
      case 'REGISTER':
      case 'REGISTER_SPECTATOR':
        return this.register(message.name, from, key, message.type === 'REGISTER' ? 'player' : 'spectator', raw);
      case 'UNREGISTER':
        return this.unregister(key, from, raw);
      default:
        break;
    }
    if (client) this.recordWire(key, 'in', raw);
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

  private register(name: string | undefined, from: Address, key: string, kind: Client['kind'], raw: string): string | null {
    if (!isValidName(name)) {
      this.sendTo(from, { type: 'REJECTED', reason: 'INVALID_NAME' }, false);
      return null;
    }
    if (this.refuseName?.(name) === true) {
      this.o.log.info({ from: key }, 'registration refused: a Liga code on the public table (it belongs on the Liga port)');
      this.sendTo(from, { type: 'REJECTED', reason: 'INVALID_NAME' }, false);
      return null;
    }
    const holder = this.byName.get(name);
    const table = this.o.tournament;
    // A tournament table takes its own names, and none once its last round is over…
    if (table && (kind !== 'player' || !table.names.includes(name) || this.tableDone)) {
      this.sendTo(from, { type: 'REJECTED', reason: 'INVALID_NAME' }, false);
      return null;
    }
    // …each from its own entrant only: to anyone else it is taken (issue 30).
    if (table?.nameOwner?.(name, from) === false) {
      this.o.log.warn({ name, from: key }, 'registration refused: not this entrant\'s own address');
      this.sendTo(from, { type: 'REJECTED', reason: 'NAME_ALREADY_TAKEN' }, false);
      return null;
    }
    // At a tournament table a name stays with the address that registered it, and an address with its name.
    const moved = this.clients.get(key);
    const taken = holder !== undefined && (holder.addr.address !== from.address || (table !== undefined && holder.key !== key));
    if (taken || (table !== undefined && moved !== undefined && moved.name !== name)) {
      this.sendTo(from, { type: 'REJECTED', reason: 'NAME_ALREADY_TAKEN' }, false);
      return null;
    }
    const previous = this.clients.get(key);
    const host = hostOf(from.address);
    // Neither a takeover nor a new name for a registered address: one more registration.
    if (!holder && !previous) {
      if (this.clients.size >= this.o.maxClients) return this.full(host, 'server full', { clients: this.clients.size });
      if (this.perHost.limit > 0 && this.perHost.count(host) >= this.perHost.limit) return this.full(host, 'host holds its share', { host, clients: this.perHost.count(host) });
    }
    const replaced = [holder, previous].filter((c): c is Client => c !== undefined);
    if (kind === 'player' && !this.scoreFits(name, replaced)) return this.full(host, 'SCORE would not fit', { players: this.players().length });
    // One registration per address and per name: drop whatever either held before.
    for (const c of replaced) this.forget(c);
    const now = this.o.clock.now();
    const client: Client = { name, kind, addr: { ...from }, key, host, missed: 0, heardAt: now, unanswered: 0 };
    this.clients.set(key, client);
    this.byName.set(name, client);
    this.perHost.tryAdd(host);
    this.recordLife(key, 'in', raw);
    if (kind === 'player') {
      this.lastSeen.set(name, ++this.seen);
      if (!this.scores.has(name) && !table) {
        this.scores.set(name, 0);
        this.sortedNames = null;
        // Decision 10: SCORE lists every player registered since the store was created.
        this.o.store?.setScores(GAME, new Map([[name, 0]]), this.o.clock.now());
      }
      const spectators = [...this.clients.values()].filter((c) => c.kind === 'spectator');
      if (spectators.length > 0) {
        const score = this.scoreMessage();
        for (const c of spectators) this.sendTo(c.addr, score, false);
      }
    }
    this.reply(from, { type: 'REGISTERED' });
    this.o.log.info({ name, kind, from: key, takeover: holder !== undefined && holder.key !== key }, 'registered');
    return null;
  }

  /** A registration the table has no room for: dropped (the protocol has no answer for it), warned about. */
  private full(host: string, why: string, fields: Record<string, unknown>): string {
    this.warn.warn(`${why} ${host}`, { ...fields, from: host }, `registration dropped: ${why}`);
    return why;
  }

  private forget(client: Client): void {
    if (this.clients.get(client.key) !== client) return;
    this.clients.delete(client.key);
    this.perHost.remove(client.host);
    if (this.byName.get(client.name) === client) this.byName.delete(client.name);
  }

  private unregister(key: string, from: Address, raw: string): string | null {
    const client = this.clients.get(key);
    if (!client) return 'not registered';
    this.recordLife(key, 'in', raw);
    this.leave(client);
    this.reply(from, { type: 'UNREGISTERED' });
    this.o.log.info({ name: client.name, from: key }, 'unregistered');
    return null;
  }

  /** Forgets a client; a participant stays in the round in play but its answers are ignored (decision 8). */
  private leave(client: Client): void {
    this.forget(client);
    if (this.stage.kind === 'playing') {
      const p = this.stage.participants.get(client.name);
      if (p && addressKey(p.addr) === client.key) p.active = false;
    }
  }

  /**
   * Evidence that a player that keeps missing its rounds is gone, not only cut off by somebody
   * else's flood (issue 36): its address has been silent for `expireSilenceMs`, and the server is
   * not dropping a flood, in which its JOINs may have been lost.
   */
  private gone(client: Client): boolean {
    if (this.o.flooding?.() === true) return false;
    return this.o.clock.now() - client.heardAt >= (this.o.expireSilenceMs ?? 0);
  }

  /**
   * A player that let DORMANT_AFTER invitations pass without sending anything is dormant: it is
   * invited to every DORMANT_EVERY-th round only, until it shows life again, so that registrations
   * nobody answers for cost no round its start-early nor a datagram each.
   */
  private dormant(client: Client): boolean {
    // A tournament table invites every seat to every round, as its records promise.
    if (this.o.tournament) return false;
    return client.unanswered >= DORMANT_AFTER;
  }

  private alive(client: Client, now: number): void {
    client.heardAt = now;
    client.unanswered = 0;
  }

  /** Anything came from `key` (even a datagram dropped as a flood): its name, if registered. */
  heard(key: string, now: number): string | undefined {
    const client = this.clients.get(key);
    if (client === undefined) return undefined;
    this.alive(client, now);
    return client.name;
  }

  /** Decision 13: a player that did not join `maxMissedRounds` rounds in a row is unregistered. */
  private expire(client: Client): void {
    this.leave(client);
    this.reply(client.addr, { type: 'UNREGISTERED' });
    this.o.log.info({ name: client.name, from: client.key, missed: client.missed }, 'unregistered: did not join for too many rounds');
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
      this.record?.joined.push(name);
      const client = this.clients.get(key);
      if (client?.name === name) client.missed = 0;
      this.lastSeen.set(name, ++this.seen);
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

  /** Arms the one timer of the cycle; an exception in `fn` ends at most the round in play. */
  private schedule(ms: number, fn: () => void): void {
    this.timer?.cancel();
    this.timer = this.o.clock.setTimeout(
      guard(
        this.o.log,
        'mia round timer',
        () => {
          this.timer = null;
          fn();
        },
        () => this.abortRound(),
      ),
      ms,
    );
  }

  /** An exception in table code: logged with its stack, and the round in play ends (decision 14). */
  private fail(err: unknown, where: string): void {
    this.o.log.error({ err, where }, `${where}: internal error`);
    try {
      this.abortRound();
    } catch (err2) {
      this.o.log.error({ err: err2, where }, `${where}: failed to end the round after an internal error`);
    }
  }

  private newRound(): void {
    if (this.stage.kind === 'stopped') return;
    const table = this.o.tournament;
    if (table && this.roundNumber >= table.rounds) {
      this.timer?.cancel();
      this.stage = { kind: 'waiting' };
      this.tableDone = true;
      for (const c of [...this.clients.values()]) {
        this.leave(c);
        this.reply(c.addr, { type: 'UNREGISTERED' });
      }
      table.onDone();
      return;
    }
    const players = this.players();
    if (players.length < this.o.minPlayers) {
      this.stage = { kind: 'waiting' };
      this.schedule(this.o.waitRecheckMs, () => this.newRound());
      return;
    }
    const number = ++this.roundNumber;
    const now = this.o.clock.now();
    const guests = players.filter((p) => number % DORMANT_EVERY === 0 || !this.dormant(p));
    const matchId =
      this.o.store?.startMatch({
        game: GAME,
        seed: this.o.seed,
        startedAt: now,
        seats: guests.map((p, i) => ({ seat: i, name: p.name, kind: 'player', address: p.key })),
        house: this.o.tournament === undefined && guests.every((p) => this.houseNames.has(p.name) && p.key.startsWith('127.')),
        meta: { ...this.o.tournament?.meta, round: number, rng: this.rng },
      }) ?? null;
    this.record = matchId === null ? null : { matchId, wire: [], inPerClient: new Map(), unrecorded: 0, joined: [], moves: [] };
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
    for (const p of guests) {
      const token = this.tokens();
      invited.set(p.name, { addr: p.addr, token });
      this.sendTo(p.addr, { type: 'ROUND STARTING', token }, true);
    }
    this.schedule(this.o.answerTimeoutMs, () => this.closeJoinWindow());
  }

  private closeJoinWindow(): void {
    if (this.stage.kind !== 'joining') return;
    const { number, matchId, joined, invited } = this.stage;
    this.expireMissing(invited, joined);
    if (joined.length === 0) {
      this.cancel('NO_PLAYERS', number);
      return;
    }
    if (joined.length === 1) {
      this.broadcast({ type: 'ROUND STARTED', round: number, players: joined }, true);
      this.cancel('ONLY_ONE_PLAYER', number);
      return;
    }
    // A tournament table shuffles the joined in name order, not in the order their JOINs arrived:
    // the same seed deals the same rounds however the machine's load orders the packets (issue #19).
    const shuffled = this.o.tournament ? [...joined].sort() : joined;
    const { state, events } = startRound(number, shuffled, this.rng, this.o.deal?.order?.(number, joined));
    const participants = new Map<string, Participant>();
    for (const name of state.players) participants.set(name, { addr: (invited.get(name) as { addr: Address }).addr, active: true });
    this.stage = { kind: 'playing', number, matchId, state, participants, token: '' };
    if (this.round) {
      this.round.players = [...state.players];
      this.round.phase = 'turn';
    }
    this.broadcast({ type: 'ROUND STARTED', round: number, players: state.players }, true);
    this.emit(events);
  }

  /** Counts the rounds each invited player let pass, and unregisters those over the limit. */
  private expireMissing(invited: ReadonlyMap<string, { addr: Address }>, joined: readonly string[]): void {
    const max = this.o.maxMissedRounds ?? 0;
    const came = new Set(joined);
    for (const [name, invite] of invited) {
      if (came.has(name)) continue;
      const client = this.clients.get(addressKey(invite.addr));
      if (client?.name !== name) continue; // gone, or the name moved to another address
      client.unanswered++;
      if (++client.missed >= max && max > 0 && this.gone(client)) this.expire(client);
    }
  }

  private cancel(reason: CancelReason, number: number): void {
    this.broadcast({ type: 'ROUND CANCELED', reason }, true);
    this.broadcast(this.scoreMessage(), true);
    this.endRecord('aborted', { round: number, canceled: reason });
    matchesTotal.inc({ game: GAME, status: 'canceled' });
    this.finishRoundRow('canceled', [], reason);
    this.newRound();
  }

  /** Ends the round in play after an internal error: recorded as aborted, the next round follows. */
  private abortRound(): void {
    const stage = this.stage;
    if (stage.kind === 'stopped') return;
    this.stage = { kind: 'waiting' };
    // Whatever else fails here, the cycle goes on.
    this.schedule(this.o.waitRecheckMs, () => this.newRound());
    if (stage.kind === 'joining' || stage.kind === 'playing') {
      this.endRecord('aborted', { round: stage.number, reason: INTERNAL_ERROR, ...(stage.kind === 'playing' ? { order: stage.state.players } : {}) });
      matchesTotal.inc({ game: GAME, status: 'aborted' });
      this.finishRoundRow('canceled', [], 'ERROR');
    }
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
    this.record?.moves.push(move.type === 'announce' ? [seat, move.type, formatDice(move.dice)] : [seat, move.type]);
    this.emit(result.value.events);
  }

  /** Sends the rules' events in wire order and arms the next timeout. */
  private emit(events: readonly RoundEvent[]): void {
    if (this.stage.kind !== 'playing') return;
    const stage = this.stage;
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
          this.sendTo(p.addr, { type: 'YOUR TURN', token: stage.token }, true);
          this.schedule(this.o.answerTimeoutMs, () => this.step({ type: 'timeout' }));
          break;
        }
        case 'playerRolls':
          this.broadcast({ type: 'PLAYER ROLLS', name: e.name }, true);
          break;
        case 'rolled': {
          stage.token = this.tokens();
          const p = stage.participants.get(e.name) as Participant;
          if (row) row.phase = 'announce';
          // The dice go with the roll they belong to: [seat, 'roll', dice].
          const roll = this.record?.moves.at(-1);
          if (roll?.[1] === 'roll') roll.push(formatDice(e.dice));
          this.sendTo(p.addr, { type: 'ROLLED', dice: e.dice, token: stage.token }, true);
          this.schedule(this.o.answerTimeoutMs, () => this.step({ type: 'timeout' }));
          break;
        }
        case 'announced':
          row?.announcements.push({ name: e.name, dice: formatDice(e.dice) });
          this.broadcast({ type: 'ANNOUNCED', name: e.name, dice: e.dice }, true);
          break;
        case 'wantsToSee':
          this.broadcast({ type: 'PLAYER WANTS TO SEE', name: e.name }, true);
          break;
        case 'actualDice':
          if (row) row.actual = formatDice(e.dice);
          this.broadcast({ type: 'ACTUAL DICE', dice: e.dice }, true);
          break;
        case 'lost':
          this.finishRound(e.names, e.reason);
          return;
      }
    }
  }

  private finishRound(losers: readonly string[], reason: LossReason): void {
    if (this.stage.kind !== 'playing') return;
    const { state, number } = this.stage;
    const sorted = [...losers].sort(byName);
    this.broadcast({ type: 'PLAYER LOST', names: sorted, reason }, true);
    const gained = roundPoints(state);
    for (const [name, points] of gained) this.scores.set(name, (this.scores.get(name) ?? 0) + points);
    this.broadcast(this.scoreMessage(), true);
    if (!this.o.tournament) this.o.store?.setScores(GAME, new Map(state.players.map((p) => [p, this.scores.get(p) ?? 0])), this.o.clock.now());
    this.endRecord('finished', { round: number, order: state.players, losers: sorted, reason, points: Object.fromEntries(gained) });
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

  // ---- outgoing and the record -----------------------------------------------------------------

  /** One message to one address; `record`: it belongs to the round's wire log. */
  private sendTo(to: Address, message: ServerMessage, record: boolean): void {
    const line = formatServer(message);
    this.o.send([to], line);
    if (record) this.recordWire(addressKey(to), 'out', line);
  }

  /** A registration's answer (REGISTERED, UNREGISTERED): sent and recorded outside any round. */
  private reply(to: Address, message: ServerMessage): void {
    const line = formatServer(message);
    this.o.send([to], line);
    this.recordLife(addressKey(to), 'out', line);
  }

  /** To every registered client, spectators included, in registration order. */
  private broadcast(message: ServerMessage, record: boolean): void {
    const line = formatServer(message);
    const to: Address[] = [];
    for (const c of this.clients.values()) to.push(c.addr);
    this.o.send(to, line);
    if (!record) return;
    this.round?.log.push(line);
    this.o.publish?.('line', { line });
    this.recordWire('*', 'out', line);
  }

  /**
   * A datagram from `from` that could not be read: recorded in the round's wire log when it
   * comes from a registered client (what others send is only logged, at debug level).
   */
  recordIncoming(from: Address, line: string): void {
    const key = addressKey(from);
    if (this.clients.has(key)) this.recordWire(key, 'in', line);
  }

  /** Adds a message to the wire log of the round in play (decision 11); none is open: not recorded. */
  private recordWire(conn: string, dir: 'in' | 'out', data: string): void {
    const rec = this.record;
    if (!rec) return;
    if (dir === 'in') {
      const n = rec.inPerClient.get(conn) ?? 0;
      if (n >= MAX_IN_PER_CLIENT) {
        rec.unrecorded++;
        return;
      }
      rec.inPerClient.set(conn, n + 1);
    }
    if (data.length > MAX_RECORDED_SCORE && data.startsWith('SCORE;')) data = `${data.slice(0, MAX_RECORDED_SCORE)}… (${Buffer.byteLength(data)} bytes)`;
    rec.wire.push({ at: this.o.clock.now(), conn, dir, data });
    if (rec.wire.length >= WIRE_BATCH) this.o.store?.addWireBatch(rec.matchId, GAME, rec.wire.splice(0));
  }

  /** Registering and unregistering, one row each, outside the rounds. */
  private recordLife(conn: string, dir: 'in' | 'out', data: string): void {
    if (data === '') return;
    this.o.store?.addWire({ matchId: null, game: GAME, conn, at: this.o.clock.now(), dir, data });
  }

  /** Writes the round's record: its wire log in one batch, then how it ended (with joins and moves). */
  private endRecord(status: 'finished' | 'aborted', result: Record<string, unknown>): void {
    const rec = this.record;
    if (!rec) return;
    this.record = null;
    const store = this.o.store;
    if (!store) return;
    store.addWireBatch(rec.matchId, GAME, rec.wire);
    // Who joined is the turn order once a round started (the JOIN lines show who came when).
    const extra: Record<string, unknown> = result.order === undefined && rec.joined.length > 0 ? { joined: rec.joined } : {};
    if (rec.moves.length > 0) extra.moves = rec.moves;
    if (rec.unrecorded > 0) extra.unrecordedDatagrams = rec.unrecorded;
    store.finishMatch(rec.matchId, { status, endedAt: this.o.clock.now(), result: { ...result, ...extra } });
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


/** Bytes of `name:points` in a SCORE line, with its comma. */
const entryBytes = ([name, points]: readonly [string, number]): number => Buffer.byteLength(name) + 2 + String(points).length;
