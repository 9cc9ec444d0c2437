import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { systemClock, type Clock } from '../../core/clock.js';
import { EventHub, type GameServer, type ServerInfo, type ServerStatus, type SpectatorEvent } from '../../core/game-server.js';
import { connectionLogger, logWire, type Logger } from '../../core/log.js';
import { badInputTotal, messagesTotal } from '../../core/metrics.js';
import type { RecordStore } from '../../core/records.js';
import { parseClient } from './protocol.js';
import { addressKey, MiaTable, type Address } from './table.js';
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
  /** Datagrams one address may send per second before the rest are dropped (burst: twice that). */
  floodPerSecond: number;
  seed: string | number;
  log: Logger;
  store: RecordStore | null;
  clock?: Clock;
  tokens?: () => string;
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
  floodPerSecond: 200,
} as const;

const inCounter = messagesTotal.labels({ game: 'mia', dir: 'in' });
const outCounter = messagesTotal.labels({ game: 'mia', dir: 'out' });

interface Bucket {
  tokens: number;
  at: number;
  dropped: number;
}

export class MiaServer implements GameServer {
  readonly game = 'mia';
  private socket: Socket | null = null;
  private status: ServerStatus = 'stopped';
  private error: string | undefined;
  private boundPort: number;
  private readonly hub = new EventHub();
  private readonly clock: Clock;
  private readonly table: MiaTable;
  private readonly buckets = new Map<string, Bucket>();
  private readonly log: Logger;
  private readonly connLogs = new Map<string, Logger>();

  constructor(private readonly o: MiaServerOptions) {
    this.clock = o.clock ?? systemClock;
    this.boundPort = o.port;
    this.log = o.log.child({ game: 'mia' });
    this.table = new MiaTable({
      answerTimeoutMs: o.answerTimeoutMs,
      heartbeatMs: o.heartbeatMs,
      minPlayers: o.minPlayers,
      waitRecheckMs: o.waitRecheckMs,
      startEarly: o.startEarly,
      maxClients: o.maxClients,
      seed: o.seed,
      port: o.port,
      clock: this.clock,
      log: this.log,
      store: o.store,
      send: (to, line) => this.send(to, line),
      ...(o.tokens ? { tokens: o.tokens } : {}),
      publish: (type, data) => this.hub.publish({ game: 'mia', type, at: this.clock.now(), data }),
    });
  }

  async start(): Promise<void> {
    if (this.socket) return;
    this.status = 'starting';
    const socket = createSocket({ type: 'udp4', reuseAddr: false });
    socket.on('message', (msg, rinfo) => this.onDatagram(msg, rinfo));
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
    this.table.start();
    this.log.info({ host: this.o.host, port: this.boundPort }, 'Mia server listening');
  }

  async stop(): Promise<void> {
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

  /** Token bucket per address: a flood from one address is dropped, never queued. */
  private admit(key: string): boolean {
    const now = this.clock.now();
    const rate = this.o.floodPerSecond;
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size > 50_000) this.pruneBuckets(now);
      b = { tokens: rate * 2, at: now, dropped: 0 };
      this.buckets.set(key, b);
    }
    b.tokens = Math.min(rate * 2, b.tokens + ((now - b.at) * rate) / 1000);
    b.at = now;
    if (b.tokens < 1) {
      b.dropped++;
      return false;
    }
    b.tokens -= 1;
    return true;
  }

  private pruneBuckets(now: number): void {
    for (const [key, b] of this.buckets) if (now - b.at > 10_000) this.buckets.delete(key);
  }

  private onDatagram(msg: Buffer, rinfo: RemoteInfo): void {
    const from: Address = { address: rinfo.address, port: rinfo.port };
    const key = addressKey(from);
    try {
      if (!this.admit(key)) {
        badInputTotal.inc({ game: 'mia', reason: 'flood' });
        const b = this.buckets.get(key);
        if (b && (b.dropped & (b.dropped - 1)) === 0) this.log.warn({ from: key, dropped: b.dropped }, 'flood: dropping datagrams');
        return;
      }
      inCounter.inc();
      const log = this.connLog(key);
      const parsed = parseClient(msg);
      const shown = msg.length > 200 ? msg.subarray(0, 200).toString('utf8') + '…' : msg.toString('utf8');
      if (log.isLevelEnabled('debug')) logWire(log, 'in', shown);
      if (!parsed.ok) {
        badInputTotal.inc({ game: 'mia', reason: parsed.error.code });
        log.debug({ error: parsed.error }, 'dropped datagram');
        if (this.table.nameAt(key) !== undefined) this.table.recordIncoming(from, shown);
        return;
      }
      if (parsed.message.type !== 'ECHO' || this.table.nameAt(key) !== undefined) this.table.recordIncoming(from, shown);
      const dropped = this.table.receive(parsed.message, from);
      if (dropped !== null) {
        badInputTotal.inc({ game: 'mia', reason: 'ignored' });
        log.debug({ why: dropped }, 'ignored message');
      }
    } catch (err) {
      // Never let one datagram take the server down.
      this.log.error({ err, from: key }, 'failed to handle datagram');
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
      socket.send(data, a.port, a.address);
    }
  }
}
