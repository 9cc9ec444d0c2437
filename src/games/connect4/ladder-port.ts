import { createSocket, type Socket } from 'node:dgram';
import { systemClock, type Clock, type Timer } from '../../core/clock.js';
import { silentLogger, type Logger } from '../../core/log.js';
import type { Connect4LadderDoor, LadderSession } from './ladder-door.js';
import { addressKey, DEFAULT_TIMING, Peer, type Address, type C4GameRecord, type PeerLimits, type PeerTiming, type RemotePeer } from './peer.js';
import { parseDatagram } from './protocol.js';

/**
 * The Liga peer (issue 34): one UDP socket on the ladder port, many protocol peers behind it. The
 * peers of this file's `Peer` class play one game at a time, so the socket hands each remote
 * address:port its own `Peer` (a session) once it has a game here; everything else goes to the
 * lobby peer, which announces "Liga" and keeps the lobby list. A session is made when a ladder
 * code invites the Liga peer (and the door takes it) or when the ladder invites an announcing code.
 */

export const LIGA_NAME = 'Liga';

export interface LadderPortOptions {
  bindAddress: string;
  port: number;
  broadcastAddress: string | null;
  broadcastPort?: number;
  peerPorts: readonly number[];
  door: Connect4LadderDoor;
  /** Other lobby lists to show the door (the house peer's: a LAN broadcast reaches only 32442). */
  moreLobby?: () => readonly RemotePeer[];
  onGameFinished?: (record: C4GameRecord) => void;
  log?: Logger;
  clock?: Clock;
  timing?: Partial<PeerTiming>;
  limits?: Partial<PeerLimits>;
}

class Session implements LadderSession {
  record: C4GameRecord | null = null;
  done = false;
  private dropTimer: Timer | null = null;

  constructor(
    readonly remote: RemotePeer,
    readonly peer: Peer,
    private readonly drop: (s: Session) => void,
    private readonly clock: Clock,
    private readonly trailMs: number,
  ) {
    peer.on((event) => {
      if (event.type === 'aborted' || event.type === 'invite-expired' || event.type === 'accept-expired') this.finish();
      if (event.type === 'end-window-closed') this.close();
    });
  }

  /** The game is over: datagrams of this remote go to the door again (only its 99s come here). */
  finish(): void {
    if (this.done) return;
    this.done = true;
    this.dropTimer = this.clock.setTimeout(() => this.close(), this.trailMs);
  }

  close(): void {
    this.done = true;
    this.dropTimer?.cancel();
    this.peer.stop();
    this.drop(this);
  }
}

export class LadderPort {
  private readonly sessions = new Map<string, Session>();
  private readonly lobbyPeer: Peer;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly timing: Partial<PeerTiming>;
  private scan: Timer | null = null;
  private pending = 0;
  private closed = false;

  private constructor(
    private readonly o: LadderPortOptions,
    private readonly socket: Socket,
    readonly address: Address,
  ) {
    this.clock = o.clock ?? systemClock;
    this.log = (o.log ?? silentLogger).child({ component: 'liga-peer' });
    this.timing = o.timing ?? {};
    const announceTo: Address[] = [];
    if (o.broadcastAddress !== null) announceTo.push({ address: o.broadcastAddress, port: o.broadcastPort ?? 32442 });
    for (const p of o.peerPorts) if (p !== address.port) announceTo.push({ address: '127.0.0.1', port: p });
    this.lobbyPeer = this.makePeer(announceTo);
    socket.on('message', (msg, rinfo) => this.receive(msg, { address: rinfo.address, port: rinfo.port }));
    this.lobbyPeer.start();
    const every = this.lobbyPeer.timing.resendMs;
    this.scan = this.clock.setInterval(() => {
      try {
        this.o.door.present(this.lobby());
      } catch (err) {
        this.log.error({ err }, 'Liga: the door failed');
      }
    }, every);
  }

  static async open(o: LadderPortOptions): Promise<LadderPort> {
    const socket = createSocket({ type: 'udp4', reuseAddr: false });
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(o.port, o.bindAddress, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    const log = (o.log ?? silentLogger).child({ component: 'liga-peer' });
    socket.on('error', (err) => log.warn({ err }, 'Liga: socket error'));
    if (o.broadcastAddress !== null) socket.setBroadcast(true);
    const bound = socket.address();
    return new LadderPort(o, socket, { address: bound.address, port: bound.port });
  }

  /** How long a student's peer rests after a ladder game: its lobby entry from before is gone by then. */
  get restMs(): number {
    const t = this.lobbyPeer.timing;
    return t.lobbyExpiryMs + t.resendMs;
  }

  /** The peers announcing themselves to the Liga peer (and to the house peer). */
  lobby(): RemotePeer[] {
    const byKey = new Map<string, RemotePeer>();
    for (const p of [...this.lobbyPeer.lobby(), ...(this.o.moreLobby?.() ?? [])]) if (p.name !== null) byKey.set(p.key, p);
    return [...byKey.values()];
  }

  /** The ladder made a game with `remote` in seat 1: a session invites it (it moves second). */
  invite(remote: RemotePeer): LadderSession {
    const s = this.session(remote);
    const invited = s.peer.invite({ address: remote.address, port: remote.port });
    if (!invited.ok) s.finish();
    return s;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.scan?.cancel();
    for (const s of [...this.sessions.values()]) s.close();
    this.lobbyPeer.stop();
    if (this.pending > 0) await new Promise((r) => setTimeout(r, 100));
    await new Promise<void>((resolve) => this.socket.close(() => resolve()));
  }

  private session(remote: RemotePeer): Session {
    this.sessions.get(remote.key)?.close();
    const peer = this.makePeer([], true);
    const s = new Session(remote, peer, (x) => {
      if (this.sessions.get(x.remote.key) === x) this.sessions.delete(x.remote.key);
    }, this.clock, peer.timing.resendMs * peer.timing.ackSends);
    this.sessions.set(remote.key, s);
    peer.start();
    return s;
  }

  /**
   * A peer of the Liga socket. A session's move timeout is 5/6 of the protocol's: in a relayed game
   * a student who is slow is caught by us before the other student's peer gives up on our move.
   */
  private makePeer(announceTo: readonly Address[], forGame = false): Peer {
    let session: Session | null = null;
    const base = { ...DEFAULT_TIMING, ...this.timing };
    const timing = forGame ? { ...base, moveTimeoutMs: Math.floor((base.moveTimeoutMs * 5) / 6) } : base;
    const peer = new Peer({
      name: LIGA_NAME,
      clienttype: 0,
      announceTo,
      localPort: this.address.port,
      localAddresses: [this.address.address],
      send: (to, line) => this.send(to, line),
      clock: this.clock,
      log: this.o.log ?? silentLogger,
      timing,
      ...(this.o.limits ? { limits: this.o.limits } : {}),
      onGameFinished: (record) => {
        session ??= this.sessions.get(addressKey(record.opponent)) ?? null;
        if (session) session.record = record;
        this.o.onGameFinished?.(record);
      },
    });
    return peer;
  }

  private receive(data: Buffer, from: Address): void {
    if (this.closed) return;
    const key = addressKey(from);
    const s = this.sessions.get(key);
    if (s !== undefined && !s.done) return s.peer.receive(data, from);
    const parsed = parseDatagram(data);
    if (parsed.ok && s !== undefined && parsed.value.kind === 'abort') return s.peer.receive(data, from);
    if (parsed.ok && parsed.value.kind === 'invitation') {
      const name = parsed.value.name;
      const remote: RemotePeer = { key, address: from.address, port: from.port, name, clienttype: parsed.value.clienttype };
      const taken: { session: Session | null } = { session: null };
      try {
        this.o.door.invited(remote, () => {
          const s2 = this.session(remote);
          taken.session = s2;
          s2.peer.receive(data, from);
          if (!s2.peer.accept(key).ok) s2.finish();
          return s2;
        });
      } catch (err) {
        this.log.error({ err }, 'Liga: the door failed');
      }
      if (taken.session !== null) return;
    }
    this.lobbyPeer.receive(data, from);
  }

  private send(to: Address, line: string): void {
    this.pending++;
    this.socket.send(line, to.port, to.address, (err) => {
      this.pending--;
      if (err) this.log.debug({ err, to: addressKey(to) }, 'Liga: send failed');
    });
  }
}
