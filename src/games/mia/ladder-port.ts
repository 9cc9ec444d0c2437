import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { systemClock, type Clock, type Timer } from '../../core/clock.js';
import { guard } from '../../core/guard.js';
import { HostCounter, hostOf, isLoopbackHost, RateLimitedWarn, TokenBuckets } from '../../core/hosts.js';
import { connectionLogger, logWire, type Logger } from '../../core/log.js';
import { badInputTotal } from '../../core/metrics.js';
import type { Records } from '../../core/record-backend.js';
import { isRegistration } from './flood.js';
import { formatServer, isValidName, parseClient, renameForRecipient, type ClientMessage, type ServerMessage } from './protocol.js';
import type { MiaRoundRow } from './snapshot.js';
import { addressKey, MiaTable, type Address } from './table.js';

/**
 * Mia's Liga port (issue 34, docs/mia.md "Die Liga"): one UDP socket (`games.mia.ladderPort`, 9010)
 * where a client registers with its ladder code as its name, unchanged (`REGISTER;<code>`). The
 * ladder groups the registered clients by rating; each group plays a game of `rounds` rounds at a
 * table of its own (a MiaTable behind this socket), then its players wait for the next game, still
 * registered. At a table everybody plays under a public name (the roster's, as a Mia name); each
 * client sees its own public name as the code it registered, so it finds itself in every message,
 * and no client ever sees another's code.
 */

/** A client registered at the Liga port: a student (by its code) or a house bot (by a one-time name). */
export interface MiaLigaClient {
  /** The name it registered (a ladder code, or a house bot's one-time name). */
  readonly name: string;
  readonly house: boolean;
  addr: Address;
  key: string;
  readonly host: string;
  /** Its seat while a game runs. */
  seat: { table: LigaTable; index: number } | null;
  /** Takes it out of the ladder's queue (while it waits). */
  leave: (() => void) | null;
}

/** How the ladder's side meets a registration (src/ladder/mia.ts). */
export interface MiaLadderDoor {
  /**
   * `REGISTER;<name>`: null when the name is no ladder code (`REJECTED;INVALID_NAME`); a refusal
   * in words (a revoked code, a frozen season: `REJECTED;INVALID_NAME` too, the words in the log:
   * the protocol has no others); else `enqueue`, which puts the client into the ladder's queue and
   * returns how to take it out.
   */
  admit(code: string, host: string): { ok: true; enqueue: (client: MiaLigaClient) => () => void } | { ok: false; text: string } | null;
  /** Whether `name` is a ladder code (a revoked one too): the public table refuses those. */
  knows(name: string): boolean;
}

export interface LigaTableSpec {
  /** A student's client, or the one-time name of a house bot already registered here. */
  seats: ({ client: MiaLigaClient } | { house: string })[];
  /** The public names of the seats (valid Mia names, each once, none of them a registered name). */
  names: string[];
  rounds: number;
  seed: string;
  meta: Record<string, unknown>;
}

/** What a Liga table's game came to, per seat. */
export interface LigaTableResult {
  points: number[];
  /** Rounds each seat joined (its JOIN taken in the join window). */
  joined: number[];
  /** Rounds each seat lost by not answering in time (DID_NOT_TAKE_TURN, DID_NOT_ANNOUNCE). */
  timeouts: number[];
  /** Seats that unregistered (or were taken over by nobody) before the end. */
  left: boolean[];
  /** The first round's record. */
  recordId: string | null;
  /** Why the game ended before its rounds (the server stopping), or null. */
  aborted: string | null;
}

export interface MiaLadderPortOptions {
  bindAddress: string;
  port: number;
  answerTimeoutMs: number;
  heartbeatMs: number;
  startEarly: boolean;
  maxClients: number;
  maxClientsPerHost: number;
  floodPerSecond: number;
  unregisteredPerSecond: number;
  door: MiaLadderDoor;
  store: Records | null;
  log: Logger;
  clock?: Clock;
}

const TIMEOUT_REASONS = new Set(['DID_NOT_TAKE_TURN', 'DID_NOT_ANNOUNCE']);
/** Lines of a table that the port says itself (or not at all) to a Liga client. */
const PORT_LINES = new Set(['REGISTERED', 'UNREGISTERED', 'HEARTBEAT']);
/** A table's own heartbeat is not sent (the port's reaches every client): as seldom as a timer allows. */
const NO_HEARTBEAT_MS = 1_000_000_000;

export class LigaTable {
  readonly table: MiaTable;
  readonly seats: (MiaLigaClient | null)[];
  private readonly joined: number[];
  private readonly timeouts: number[];
  private readonly left: boolean[];
  private recordId: string | null = null;
  private done = false;
  readonly result: Promise<LigaTableResult>;
  private resolve!: (r: LigaTableResult) => void;

  constructor(
    readonly spec: LigaTableSpec,
    clients: (MiaLigaClient | null)[],
    private readonly port: MiaLadderPort,
    o: MiaLadderPortOptions,
    clock: Clock,
  ) {
    this.seats = clients;
    const n = spec.names.length;
    this.joined = new Array<number>(n).fill(0);
    this.timeouts = new Array<number>(n).fill(0);
    this.left = new Array<boolean>(n).fill(false);
    this.result = new Promise((resolve) => (this.resolve = resolve));
    this.table = new MiaTable({
      answerTimeoutMs: o.answerTimeoutMs,
      heartbeatMs: NO_HEARTBEAT_MS,
      minPlayers: 2,
      waitRecheckMs: 100,
      startEarly: o.startEarly,
      maxClients: n,
      seed: spec.seed,
      port: o.port,
      clock,
      log: o.log,
      store: o.store,
      send: (to, line) => this.send(to, line),
      publish: (type, data) => {
        if (type === 'roundOver') this.tally(data as MiaRoundRow);
      },
      tournament: { names: spec.names, rounds: spec.rounds, meta: spec.meta, onDone: () => this.finish(null) },
    });
    spec.names.forEach((name, index) => this.table.receive({ type: 'REGISTER', name }, seatAddress(index)));
  }

  start(): void {
    this.table.start();
  }

  private tally(row: MiaRoundRow): void {
    if (this.recordId === null) this.recordId = row.matchId;
    // A seat that left during a round stays in it (decision 8); with fewer than two left no round could start again.
    if (this.seats.filter((c) => c !== null).length < 2) setImmediate(() => this.finish(null));
    if (row.phase !== 'over') return;
    for (const name of row.players) {
      const i = this.spec.names.indexOf(name);
      if (i < 0) continue;
      if (row.losers.includes(name) && row.reason !== null && TIMEOUT_REASONS.has(row.reason)) this.timeouts[i]!++;
    }
  }

  /** One line of the table to the seats in `to`, each seeing its own public name as its registered name. */
  private send(to: readonly Address[], line: string): void {
    if (PORT_LINES.has(line)) return;
    for (const a of to) {
      const i = a.port;
      const client = this.seats[i];
      if (client === null || client === undefined) continue;
      this.port.sendLine(client, renameForRecipient(line, this.spec.names[i]!, client.name));
    }
  }

  /** A datagram of seat `index`. */
  receive(index: number, message: ClientMessage, raw: string): string | null {
    const why = this.table.receive(message, seatAddress(index), raw);
    // A JOIN the table took: the seat came to a round (one that was called off for want of others too).
    if (why === null && message.type === 'JOIN') this.joined[index]!++;
    return why;
  }

  /** Seat `index` unregistered: it stays in a round in play (decision 8), then plays no more. */
  leave(index: number): void {
    this.left[index] = true;
    this.seats[index] = null;
    this.table.receive({ type: 'UNREGISTER' }, seatAddress(index));
    // Fewer than two seats left: no round could start again; the game ends with what it has.
    if (this.seats.filter((s, i) => s !== null && !this.left[i]).length < 2 && !this.table.isRoundLive) this.finish(null);
  }

  /** The game ended (its rounds played, too few seats left, or the port stopping). */
  finish(aborted: string | null): void {
    if (this.done) return;
    this.done = true;
    this.table.stop();
    this.resolve({
      points: this.spec.names.map((name) => this.table.scoreOf(name) ?? 0),
      joined: [...this.joined],
      timeouts: [...this.timeouts],
      left: [...this.left],
      recordId: this.recordId,
      aborted,
    });
    this.port.tableDone(this);
  }

  get isDone(): boolean {
    return this.done;
  }
}

/** A seat's address at its table: not an address of the network, only an index the table can key by. */
const seatAddress = (index: number): Address => ({ address: 'seat', port: index });

export class MiaLadderPort {
  private socket: Socket | null = null;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly clients = new Map<string, MiaLigaClient>();
  private readonly byName = new Map<string, MiaLigaClient>();
  /** One-time names of house bots that may register (from a loopback address). */
  private readonly houseNames = new Set<string>();
  private readonly tables = new Set<LigaTable>();
  private readonly perHost: HostCounter;
  private readonly clientBudget: TokenBuckets;
  private readonly hostBudget: TokenBuckets;
  private readonly warn: RateLimitedWarn;
  private heartbeat: Timer | null = null;
  private boundPort = 0;

  constructor(private readonly o: MiaLadderPortOptions) {
    this.clock = o.clock ?? systemClock;
    this.log = o.log.child({ component: 'ladder-port' });
    this.perHost = new HostCounter(o.maxClientsPerHost);
    this.clientBudget = new TokenBuckets(o.floodPerSecond, o.floodPerSecond * 2, 100_000);
    this.hostBudget = new TokenBuckets(o.unregisteredPerSecond, o.unregisteredPerSecond * 2, 100_000);
    this.warn = new RateLimitedWarn(this.log, 10_000, () => this.clock.now());
  }

  async start(): Promise<number> {
    const socket = createSocket({ type: 'udp4', reuseAddr: false });
    socket.on(
      'message',
      guard(this.log, 'mia ladder datagram', (msg: Buffer, rinfo: RemoteInfo) => this.onDatagram(msg, rinfo)),
    );
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(this.o.port, this.o.bindAddress, () => {
        socket.off('error', reject);
        socket.on('error', (err) => this.log.error({ err }, 'socket error'));
        resolve();
      });
    });
    this.socket = socket;
    this.boundPort = socket.address().port;
    this.heartbeat = this.clock.setInterval(
      guard(this.log, 'mia ladder heartbeat', () => {
        for (const c of this.clients.values()) this.sendTo(c, { type: 'HEARTBEAT' });
      }),
      this.o.heartbeatMs,
    );
    return this.boundPort;
  }

  get port(): number {
    return this.boundPort;
  }

  /** Where the ladder's own house bots reach this port. */
  get houseHost(): string {
    return this.o.bindAddress === '0.0.0.0' ? '127.0.0.1' : this.o.bindAddress;
  }

  /** Clients registered now (students and house bots). */
  get clientCount(): number {
    return this.clients.size;
  }

  /** Games running now. */
  get tableCount(): number {
    return this.tables.size;
  }

  async stop(): Promise<void> {
    this.heartbeat?.cancel();
    this.heartbeat = null;
    for (const t of [...this.tables]) t.finish('server stopped');
    for (const c of [...this.clients.values()]) this.drop(c, null);
    const socket = this.socket;
    this.socket = null;
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
  }

  /** A house bot of the ladder may register under `name` (one time, from a loopback address). */
  expectHouse(name: string): void {
    this.houseNames.add(name);
  }

  /** Starts a game at a table of its own; resolves when it is over. */
  playTable(spec: LigaTableSpec): Promise<LigaTableResult> {
    const clients = spec.seats.map((s) => ('client' in s ? s.client : (this.byName.get(s.house) ?? null)));
    const table = new LigaTable(spec, clients, this, this.o, this.clock);
    this.tables.add(table);
    clients.forEach((c, index) => {
      if (c === null || !this.clients.has(c.key) || c.seat !== null) table.leave(index);
      else {
        c.seat = { table, index };
        // Out of the queue: the ladder made its game.
        c.leave = null;
      }
    });
    if (!table.isDone) table.start();
    return table.result;
  }

  /** Sends a line to a client or an address (logged at debug level with the address). */
  sendLine(to: MiaLigaClient | Address, line: string): void {
    const socket = this.socket;
    if (socket === null) return;
    const addr = 'addr' in to ? to.addr : to;
    const key = addressKey(addr);
    // A child logger per datagram only when its lines are written (a table sends many).
    if (this.log.isLevelEnabled('debug')) logWire(connectionLogger(this.log, { game: 'mia', conn: key }), 'out', line);
    try {
      socket.send(Buffer.from(line, 'utf8'), addr.port, addr.address);
    } catch (err) {
      this.warn.warn(`send ${addr.address}`, { err, to: key }, 'could not send a datagram');
    }
  }

  private sendTo(to: MiaLigaClient | Address, message: ServerMessage): void {
    this.sendLine(to, formatServer(message));
  }

  /**
   * A table's game is over: its students wait for the next one, still registered (asked at the
   * door again, after the ladder has let the finished game go); a student that joined no round of
   * it is gone and is unregistered.
   */
  tableDone(table: LigaTable): void {
    this.tables.delete(table);
    void table.result.then((result) => {
      const seated = table.seats
        .map((c, i) => ({ c, i }))
        .filter((s): s is { c: MiaLigaClient; i: number } => s.c !== null && s.c.seat?.table === table);
      for (const { c } of seated) c.seat = null;
      const students = seated.filter(({ c }) => !c.house);
      if (result.aborted !== null) {
        for (const { c } of students) this.drop(c, result.aborted);
        return;
      }
      const gone = students.filter(({ i }) => result.joined[i] === 0).map(({ c }) => c);
      for (const c of gone) this.drop(c, 'joined no round of its ladder game');
      this.release(students.map(({ c }) => c).filter((c) => !gone.includes(c)));
    });
  }

  /**
   * Students whose game is over (or was never played) wait for the next one: asked at the door
   * again once the ladder has let the game go (its promise chain runs first).
   */
  release(clients: readonly MiaLigaClient[]): void {
    setImmediate(() => {
      for (const c of clients) if (this.clients.get(c.key) === c && c.seat === null) this.enqueue(c);
    });
  }

  private enqueue(client: MiaLigaClient): boolean {
    client.leave = null;
    const answer = this.o.door.admit(client.name, client.host);
    if (answer === null || !answer.ok) {
      this.drop(client, answer === null ? 'no longer a ladder code' : answer.text);
      return false;
    }
    client.leave = answer.enqueue(client);
    return true;
  }

  /** Unregisters a client on the server's side (`why`: words for the log; null: quietly, the port stopping). */
  drop(client: MiaLigaClient, why: string | null): void {
    if (this.clients.get(client.key) !== client) return;
    this.forget(client);
    this.sendTo(client, { type: 'UNREGISTERED' });
    if (why !== null) this.log.info({ from: client.key, why }, 'ladder: unregistered');
  }

  private forget(client: MiaLigaClient): void {
    this.clients.delete(client.key);
    if (this.byName.get(client.name) === client) this.byName.delete(client.name);
    this.perHost.remove(client.host);
    client.leave?.();
    client.leave = null;
    const seat = client.seat;
    client.seat = null;
    if (seat !== null && seat.table.seats[seat.index] === client) seat.table.leave(seat.index);
  }

  /** Flood control before anything is read, as on the Mia table (a registered client's own budget, else its host's). */
  private admitDatagram(client: MiaLigaClient | undefined, address: string, msg: Buffer): boolean {
    const now = this.clock.now();
    const byClient = client !== undefined && !isRegistration(msg);
    const dropped = byClient ? this.clientBudget.take(client.name, now) : this.hostBudget.take(hostOf(address), now);
    if (dropped === 0) return true;
    badInputTotal.inc({ game: 'mia', reason: 'flood' });
    this.warn.warn(byClient ? `client ${client.name}` : `host ${hostOf(address)}`, { from: address }, 'ladder: flood: dropping datagrams');
    return false;
  }

  private onDatagram(msg: Buffer, rinfo: RemoteInfo): void {
    const key = `${rinfo.address}:${rinfo.port}`;
    const client = this.clients.get(key);
    if (!this.admitDatagram(client, rinfo.address, msg)) return;
    const from: Address = { address: rinfo.address, port: rinfo.port };
    const log = connectionLogger(this.log, { game: 'mia', conn: key });
    const shown = msg.length > 200 ? msg.subarray(0, 200).toString('utf8') + '…' : msg.toString('utf8');
    logWire(log, 'in', shown);
    const parsed = parseClient(msg);
    if (!parsed.ok) {
      badInputTotal.inc({ game: 'mia', reason: parsed.error.code });
      return;
    }
    const m = parsed.message;
    switch (m.type) {
      case 'ECHO':
        this.sendTo(from, { type: 'ECHOING', text: m.text });
        return;
      case 'REGISTER':
        this.register(m.name, from, key);
        return;
      case 'REGISTER_SPECTATOR':
        // The Liga's games are watched in their records; the port has players only.
        this.sendTo(from, { type: 'REJECTED', reason: 'INVALID_NAME' });
        return;
      case 'UNREGISTER':
        if (client === undefined) return;
        this.forget(client);
        this.sendTo(from, { type: 'UNREGISTERED' });
        log.info({ name: client.house ? client.name : '(Liga-Code)' }, 'ladder: unregistered');
        return;
      default: {
        const seat = client?.seat;
        if (seat === null || seat === undefined) return;
        const why = seat.table.receive(seat.index, m, shown);
        if (why !== null) log.debug({ why }, 'ignored message');
      }
    }
  }

  private register(name: string | undefined, from: Address, key: string): void {
    if (!isValidName(name)) return this.sendTo(from, { type: 'REJECTED', reason: 'INVALID_NAME' });
    const host = hostOf(from.address);
    const holder = this.byName.get(name);
    if (holder !== undefined) {
      // The same IP takes its name over on a new port (the reference's rule): its seat goes with it.
      if (holder.addr.address !== from.address) return this.sendTo(from, { type: 'REJECTED', reason: 'NAME_ALREADY_TAKEN' });
      const other = this.clients.get(key);
      if (other !== undefined && other !== holder) this.forget(other);
      this.clients.delete(holder.key);
      holder.addr = { ...from };
      holder.key = key;
      this.clients.set(key, holder);
      this.sendTo(holder, { type: 'REGISTERED' });
      return;
    }
    const house = this.houseNames.has(name) && (isLoopbackHost(from.address) || from.address === this.o.bindAddress);
    let enqueue: ((client: MiaLigaClient) => () => void) | null = null;
    if (!house) {
      const answer = this.o.door.admit(name, host);
      if (answer === null) return this.sendTo(from, { type: 'REJECTED', reason: 'INVALID_NAME' });
      if (!answer.ok) {
        this.log.info({ from: key, why: answer.text }, 'ladder: registration refused');
        return this.sendTo(from, { type: 'REJECTED', reason: 'INVALID_NAME' });
      }
      enqueue = answer.enqueue;
    }
    if (this.clients.size >= this.o.maxClients || (this.perHost.limit > 0 && this.perHost.count(host) >= this.perHost.limit)) {
      this.warn.warn(`full ${host}`, { host, clients: this.clients.size }, 'ladder: registration dropped: the port or the host is full');
      return;
    }
    const previous = this.clients.get(key);
    if (previous !== undefined) this.forget(previous);
    if (house) this.houseNames.delete(name);
    const client: MiaLigaClient = { name, house, addr: { ...from }, key, host, seat: null, leave: null };
    this.clients.set(key, client);
    this.byName.set(name, client);
    this.perHost.tryAdd(host);
    this.sendTo(client, { type: 'REGISTERED' });
    this.log.info({ from: key, house }, 'ladder: registered');
    if (enqueue !== null) client.leave = enqueue(client);
  }
}
