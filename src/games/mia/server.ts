import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { systemClock, type Clock } from '../../core/clock.js';
import { EventHub, type GameServer, type ServerInfo, type ServerStatus, type SpectatorEvent } from '../../core/game-server.js';
import { guard } from '../../core/guard.js';
import { hostOf, RateLimitedWarn, TokenBuckets } from '../../core/hosts.js';
import { connectionLogger, logWire, type Logger } from '../../core/log.js';
import { badInputTotal, messagesTotal } from '../../core/metrics.js';
import { isRegistration, KernelDrops, miaDroppedTotal } from './flood.js';
import type { Records } from '../../core/record-backend.js';
import { parseClient } from './protocol.js';
import { addressKey, MiaTable, type Address, type TournamentTable } from './table.js';
import { MiaLadderPort, type MiaLadderDoor } from './ladder-port.js';
import type { MiaSnapshot } from './snapshot.js';

/** The Mia UDP server: one socket, one table. Bytes in, parsed messages to the table, lines out. */

export interface MiaServerOptions {
  host: string;
  port: number;
  answerTimeoutMs: number;
  heartbeatMs: number;
  minPlayers: number;
  waitRecheckMs: number;
  startEarly: boolean;
  maxClients: number;
  /** Registered clients one IP may hold (0: only maxClients). */
  maxClientsPerHost: number;
  /** A player invited to this many rounds in a row without joining is unregistered (0: never)… */
  maxMissedRounds: number;
  /** …once nothing at all came from its address for this long, and no flood is being dropped (issue 36). */
  expireSilenceMs: number;
  /** Datagrams one registered client may send per second before the rest are dropped (burst: twice that). */
  floodPerSecond: number;
  /** Datagrams per second from addresses not registered, per IP (all its ports together; burst: twice that). */
  unregisteredPerSecond: number;
  seed: string | number;
  log: Logger;
  store: Records | null;
  clock?: Clock;
  tokens?: () => string;
  /** The socket's receive queue asked of the kernel (capped at net.core.rmem_max; it doubles it); default 1 MiB. */
  receiveBufferBytes?: number;
  /** A tournament match's table (see TournamentTable in table.ts). */
  tournament?: TournamentTable;
  /** Registrations only until startRounds() is called (a tournament table waits for its seats). */
  holdRounds?: boolean;
}

export const MIA_DEFAULTS = {
  host: '127.0.0.1',
  port: 9000,
  answerTimeoutMs: 250,
  heartbeatMs: 2000,
  minPlayers: 2,
  waitRecheckMs: 500,
  startEarly: false,
  maxClients: 500,
  maxClientsPerHost: 50,
  maxMissedRounds: 10,
  expireSilenceMs: 60_000,
  floodPerSecond: 200,
  unregisteredPerSecond: 50,
} as const;

/**
 * What the socket asks for (the kernel doubles it: 2 MiB, room for ~2,700 small datagrams). Deep
 * enough that a burst is not lost, shallow enough that a good datagram behind a queued flood is
 * read within a join window: with 8 MiB, a server slowed by load read JOINs too late (issue 36).
 */
export const RECEIVE_BUFFER_BYTES = 1024 * 1024;

/** After the last datagram dropped as a flood (or lost in the kernel), this long counts as "under a flood". */
export const FLOOD_CALM_MS = 10_000;
/** How often the kernel's drop counter of our socket is read. */
const KERNEL_DROPS_EVERY_MS = 1000;

const inCounter = messagesTotal.labels({ game: 'mia', dir: 'in' });
const outCounter = messagesTotal.labels({ game: 'mia', dir: 'out' });

export class MiaServer implements GameServer {
  readonly game = 'mia';
  private socket: Socket | null = null;
  private status: ServerStatus = 'stopped';
  private error: string | undefined;
  private boundPort: number;
  private readonly hub = new EventHub();
  private readonly clock: Clock;
  private readonly table: MiaTable;
  /** Budget of each registered client, by name (a takeover keeps it). */
  private readonly clientBudget: TokenBuckets;
  /** Budget of everything else, by IP: a flood from any number of ports of one host shares one. */
  private readonly hostBudget: TokenBuckets;
  private readonly floodWarn: RateLimitedWarn;
  private readonly log: Logger;
  private readonly connLogs = new Map<string, Logger>();
  /** Until when the server counts as under a flood: no registration expires meanwhile. */
  private floodUntil = -Infinity;
  private kernelDrops = new KernelDrops();
  private kernelTimer: NodeJS.Timeout | null = null;
  private ladder: MiaLadderPort | null = null;

  constructor(private readonly o: MiaServerOptions) {
    this.clock = o.clock ?? systemClock;
    this.boundPort = o.port;
    this.log = o.log.child({ game: 'mia' });
    this.clientBudget = new TokenBuckets(o.floodPerSecond, o.floodPerSecond * 2, 100_000);
    this.hostBudget = new TokenBuckets(o.unregisteredPerSecond, o.unregisteredPerSecond * 2, 100_000);
    this.floodWarn = new RateLimitedWarn(this.log, 10_000, () => this.clock.now());
    this.table = new MiaTable({
      answerTimeoutMs: o.answerTimeoutMs,
      heartbeatMs: o.heartbeatMs,
      minPlayers: o.minPlayers,
      waitRecheckMs: o.waitRecheckMs,
      startEarly: o.startEarly,
      maxClients: o.maxClients,
      maxClientsPerHost: o.maxClientsPerHost,
      maxMissedRounds: o.maxMissedRounds,
      expireSilenceMs: o.expireSilenceMs,
      flooding: () => this.flooding,
      seed: o.seed,
      port: o.port,
      clock: this.clock,
      log: this.log,
      store: o.store,
      send: (to, line) => this.send(to, line),
      ...(o.tokens ? { tokens: o.tokens } : {}),
      ...(o.tournament ? { tournament: o.tournament } : {}),
      publish: (type, data) => this.hub.publish({ game: 'mia', type, at: this.clock.now(), data }),
    });
  }

  async start(): Promise<void> {
    if (this.socket) return;
    this.status = 'starting';
    await this.table.ready;
    // A deep receive queue: a flood arrives in bursts, and a datagram that finds the queue full is
    // dropped by the kernel before we can tell it from the flood (issue 36). The kernel caps it at
    // net.core.rmem_max; what we got is logged and in /metrics.
    const socket = createSocket({ type: 'udp4', reuseAddr: false, recvBufferSize: this.o.receiveBufferBytes ?? RECEIVE_BUFFER_BYTES });
    // The socket's entry into game code: whatever throws in there is logged, the server goes on.
    socket.on(
      'message',
      guard(this.log, 'mia datagram', (msg: Buffer, rinfo: RemoteInfo) => this.onDatagram(msg, rinfo)),
    );
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error) => {
        this.status = 'failed';
        this.error = err.message;
        reject(err);
      };
      socket.once('error', onError);
      socket.bind(this.o.port, this.o.host, () => {
        socket.off('error', onError);
        // A bind failure is reported once, by the caller; errors after that are only logged.
        socket.on('error', (err) => this.log.error({ err }, 'socket error'));
        resolve();
      });
    });
    this.socket = socket;
    this.boundPort = socket.address().port;
    this.status = 'running';
    this.log.info({ receiveBufferBytes: socket.getRecvBufferSize() }, 'receive queue');
    this.kernelDrops = new KernelDrops(this.boundPort);
    this.kernelTimer = setInterval(
      guard(this.log, 'mia kernel drops', () => this.readKernelDrops()),
      KERNEL_DROPS_EVERY_MS,
    );
    this.kernelTimer.unref();
    if (this.o.holdRounds !== true) this.table.start();
  }

  /** Starts the round cycle of a server started with `holdRounds`. */
  startRounds(): void {
    if (this.socket) this.table.start();
  }

  async stop(): Promise<void> {
    await this.closeLadderPort();
    if (this.kernelTimer) clearInterval(this.kernelTimer);
    this.kernelTimer = null;
    this.table.stop();
    const socket = this.socket;
    this.socket = null;
    if (this.status !== 'failed') this.status = 'stopped';
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
    await this.o.store?.drain();
  }

  get port(): number {
    return this.boundPort;
  }

  /**
   * Opens Die Liga's port (issue 34, ladder-port.ts) beside the table, with this server's timing,
   * limits and record store; resolves with the port it listens on.
   */
  async openLadderPort(door: MiaLadderDoor, port: number): Promise<MiaLadderPort> {
    if (this.ladder !== null) throw new Error('the Mia ladder port is open already');
    const o = this.o;
    const ladder = new MiaLadderPort({
      bindAddress: o.host,
      port,
      answerTimeoutMs: o.answerTimeoutMs,
      heartbeatMs: o.heartbeatMs,
      startEarly: o.startEarly,
      maxClients: o.maxClients,
      maxClientsPerHost: o.maxClientsPerHost,
      floodPerSecond: o.floodPerSecond,
      unregisteredPerSecond: o.unregisteredPerSecond,
      door,
      store: o.store,
      log: this.log,
      clock: this.clock,
    });
    await ladder.start();
    this.ladder = ladder;
    // A code registered on the public table would be read by everyone there.
    this.table.refuseName = (name) => door.knows(name);
    return ladder;
  }

  /** The names the house bots register under (their rounds alone are house games, see MiaTable.houseNames). */
  setHouseNames(names: Iterable<string>): void {
    this.table.houseNames = new Set(names);
  }

  /** Where Die Liga's port listens (null: not open). */
  get ladderPortNumber(): number | null {
    return this.ladder?.port ?? null;
  }

  async closeLadderPort(): Promise<void> {
    const ladder = this.ladder;
    this.ladder = null;
    this.table.refuseName = null;
    await ladder?.stop();
  }

  info(): ServerInfo {
    const info: ServerInfo = {
      game: 'mia',
      title: 'Mäxchen (Mia)',
      protocol: 'maexchen UDP',
      transport: 'udp',
      host: this.o.host,
      port: this.boundPort,
      status: this.status,
      clients: this.table.clientCount,
      liveMatches: this.table.isRoundLive ? 1 : 0,
    };
    if (this.error !== undefined) info.error = this.error;
    if (this.ladder !== null) info.ladderPort = this.ladder.port;
    return info;
  }

  snapshot(): MiaSnapshot {
    return { ...this.table.snapshot(), port: this.boundPort };
  }

  subscribe(listener: (event: SpectatorEvent) => void): () => void {
    return this.hub.subscribe(listener);
  }

  leaderboard(): { name: string; points: number }[] {
    return this.table
      .scoreTable()
      .map(([name, points]) => ({ name, points }))
      .sort((a, b) => b.points - a.points || (a.name < b.name ? -1 : 1));
  }

  /** The table, for tests that look at scores directly. */
  get state(): MiaTable {
    return this.table;
  }

  private connLog(key: string): Logger {
    let log = this.connLogs.get(key);
    if (!log) {
      if (this.connLogs.size > 10_000) this.connLogs.clear();
      log = connectionLogger(this.o.log, { game: 'mia', conn: key });
      this.connLogs.set(key, log);
    }
    return log;
  }

  /** Whether datagrams were dropped as a flood (by us or by the kernel) in the last FLOOD_CALM_MS. */
  get flooding(): boolean {
    return this.clock.now() < this.floodUntil;
  }

  private readKernelDrops(): void {
    const fresh = this.kernelDrops.read();
    if (fresh <= 0) return;
    miaDroppedTotal.inc({ reason: 'kernel' }, fresh);
    this.floodUntil = this.clock.now() + FLOOD_CALM_MS;
    this.floodWarn.warn('kernel', { dropped: fresh }, 'flood: the kernel dropped datagrams (receive queue full)');
  }

  /**
   * Flood control before a datagram is even read (decision 9): a registered client spends its own
   * budget, everything else the budget of its IP, so no number of ports of one host can starve the
   * registered players — not even those on the same host. A registration always spends its host's
   * budget: a registered address that registers new names is still one host making names (issue 36).
   * Anything from a registered address, even what is dropped, is a sign of life for its expiry.
   */
  private admit(key: string, address: string, msg: Buffer): boolean {
    const now = this.clock.now();
    const name = this.table.heard(key, now);
    const registration = isRegistration(msg);
    const byClient = name !== undefined && !registration;
    const budget = byClient ? this.clientBudget : this.hostBudget;
    const who = byClient ? name : hostOf(address);
    const dropped = budget.take(who, now);
    if (dropped === 0) return true;
    this.floodUntil = now + FLOOD_CALM_MS;
    const reason = byClient ? 'client' : registration ? 'registrations' : 'host';
    miaDroppedTotal.inc({ reason });
    badInputTotal.inc({ game: 'mia', reason: 'flood' });
    this.floodWarn.warn(
      byClient ? `client ${name}` : `${reason} ${who}`,
      byClient ? { name, from: key, dropped } : { host: who, from: key, dropped },
      byClient ? 'flood: dropping datagrams of a registered client' : registration ? 'flood: dropping registrations of a host' : 'flood: dropping datagrams of an unregistered host',
    );
    return false;
  }

  private onDatagram(msg: Buffer, rinfo: RemoteInfo): void {
    const key = `${rinfo.address}:${rinfo.port}`;
    if (!this.admit(key, rinfo.address, msg)) return;
    const from: Address = { address: rinfo.address, port: rinfo.port };
    inCounter.inc();
    const log = this.connLog(key);
    const parsed = parseClient(msg);
    const shown = msg.length > 200 ? msg.subarray(0, 200).toString('utf8') + '…' : msg.toString('utf8');
    if (log.isLevelEnabled('debug')) logWire(log, 'in', shown);
    if (!parsed.ok) {
      badInputTotal.inc({ game: 'mia', reason: parsed.error.code });
      log.debug({ error: parsed.error }, 'dropped datagram');
      this.table.recordIncoming(from, shown);
      return;
    }
    const dropped = this.table.receive(parsed.message, from, shown);
    if (dropped !== null) {
      badInputTotal.inc({ game: 'mia', reason: 'ignored' });
      log.debug({ why: dropped }, 'ignored message');
    }
  }

  /** Sends one line to every address in `to`: encoded once, no per-datagram callback. */
  private send(to: readonly Address[], line: string): void {
    const socket = this.socket;
    if (!socket || to.length === 0) return;
    outCounter.inc(to.length);
    const data = Buffer.from(line, 'utf8');
    const debug = this.o.log.isLevelEnabled('debug');
    for (const a of to) {
      if (debug) logWire(this.connLog(addressKey(a)), 'out', line);
      try {
        socket.send(data, a.port, a.address);
      } catch (err) {
        // One address that cannot be sent to (or a socket closing) must not end the round for all.
        this.floodWarn.warn(`send ${a.address}`, { err, to: addressKey(a) }, 'could not send a datagram');
      }
    }
  }
}
