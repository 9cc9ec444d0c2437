import { networkInterfaces } from 'node:os';
import { systemClock, type Clock } from '../../core/clock.js';
import { INTERNAL_ERROR } from '../../core/guard.js';
import { EventHub, type GameServer, type ServerInfo, type SpectatorEvent } from '../../core/game-server.js';
import { silentLogger, type Logger } from '../../core/log.js';
import { matchesTotal } from '../../core/metrics.js';
import type { Records } from '../../core/record-backend.js';
import { addressKey, type Address, type C4GameRecord, type PeerEvent, type PeerLimits } from './peer.js';
import type { Player } from './rules.js';
import { startUdpPeer, type UdpPeer, type UdpPeerOptions } from './transport.js';
import type { C4GameView, Connect4Snapshot, PeerRole } from './views.js';
import type { C4Engine } from './engine.js';
import type { Connect4LadderDoor } from './ladder-door.js';
import { LadderPort } from './ladder-port.js';
import { SolverGames } from './solver-games.js';

export type { C4GameView, Connect4Snapshot, PeerRole } from './views.js';

/** The hub's own bots: a game between two of them is a house game (retention takes it first). */
const BOT_ROLES: ReadonlySet<PeerRole> = new Set(['house', 'sparring']);

/** What records and the public lobby show instead of a ladder code used as a client name. */
export const LADDER_NAME_SHOWN = '(Liga-Code)';

/**
 * Connect Four has no server: people play peer to peer. What `spielhalle serve` runs for it is this
 * hub: it starts the peers of this process (the house bot, its sparring partner, the relays of
 * browser players), shows their lobby and games to spectators, and writes every game they play
 * to the record store. Games the dashboard plays against the solver in-process report here too.
 */

export interface Connect4HubOptions {
  /** Bind address of the peers (127.0.0.1, or 0.0.0.0 for a LAN). */
  host: string;
  /** The house bot's port (32442). */
  port: number;
  /** Where stage 1 is broadcast; null = only the peer ports on this machine. */
  broadcastAddress: string | null;
  peerPorts: readonly number[];
  log?: Logger;
  store: Records | null;
  clock?: Clock;
  /** Interval overrides for tests (specs §3 timings). */
  timing?: UdpPeerOptions['timing'];
  /** What one remote IP may send to and hold in each peer (datagram budget, lobby and invitation shares). */
  limits?: Partial<PeerLimits>;
  /** The solver for bots, games against the solver and analyses (closed when the hub stops). */
  engine: C4Engine;
  /** The Liga peer's port when the ladder is on (docs/connect4.md "Die Liga"); 0 = any free one. */
  ladderPort?: number;
}

/** One side of a ladder game as the record store shows it. */
export interface LadderRecordSide {
  name: string;
  kind: 'ladder' | 'house';
  /** The student's peer (address:port), or the house level's id. */
  address: string;
}

interface Attached {
  readonly name: string;
  readonly role: PeerRole;
  readonly udp: UdpPeer;
  off: () => void;
  /**
   * The key of the game it plays (its view in `live`), kept from its start to its end: by the
   * time an `aborted` event is delivered the peer has let go of the game already.
   */
  liveKey: string | null;
}

const RECENT_GAMES = 12;

export class Connect4Hub implements GameServer {
  readonly game = 'connect4';
  private readonly hub = new EventHub();
  private readonly peers = new Set<Attached>();
  private readonly live = new Map<string, C4GameView>();
  private recent: C4GameView[] = [];
  /** Games between two of our peers that one side ended with an internal error (by game key): recorded by that side. */
  private readonly internalAborts = new Map<string, number>();
  private readonly clock: Clock;
  private readonly log: Logger;
  private running = false;
  private liga: LadderPort | null = null;
  private ladderDoor: Connect4LadderDoor | null = null;
  readonly engine: C4Engine;
  /** Games people play in the dashboard against the solver. */
  readonly solverGames: SolverGames;

  constructor(private readonly o: Connect4HubOptions) {
    this.clock = o.clock ?? systemClock;
    this.log = (o.log ?? silentLogger).child({ game: 'connect4' });
    this.engine = o.engine;
    this.solverGames = new SolverGames({
      choose: (state, level, seed) => this.engine.choose(state, level, seed),
      store: o.store,
      clock: this.clock,
      log: this.log,
      onUpdate: (view) => this.updateGame(view),
    });
  }

  start(): Promise<void> {
    this.running = true;
    this.log.info({ host: this.o.host, port: this.o.port, lan: this.o.broadcastAddress !== null }, 'Connect Four hub ready');
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.closeLadder();
    await Promise.all([...this.peers].map((p) => this.closePeer(p)));
    this.solverGames.stop();
    await this.engine.close();
    await this.o.store?.drain();
  }

  /**
   * The house bot's port: where it is bound once it runs (the configured port may be 0, any free
   * one), else the configured one. The start banner, `listening` line and lobby page show this.
   */
  get port(): number {
    const house = [...this.peers].find((p) => p.role === 'house');
    return house?.udp.address.port ?? this.o.port;
  }

  /**
   * Starts a peer of this process on `port` (0 = any free one), announcing itself to the
   * configured peer ports (and the broadcast address on a LAN), with its games recorded.
   */
  async startPeer(options: { name: string; role: PeerRole; port: number; clienttype?: number }): Promise<UdpPeer> {
    if (!this.running) throw new Error('the Connect Four hub is not running');
    let attached: Attached | null = null;
    const udp = await startUdpPeer({
      name: options.name,
      clienttype: options.clienttype ?? 0,
      bindAddress: this.o.host,
      port: options.port,
      broadcastAddress: this.o.broadcastAddress,
      peerPorts: this.o.peerPorts,
      log: this.log,
      clock: this.clock,
      ...(this.o.timing ? { timing: this.o.timing } : {}),
      ...(this.o.limits ? { limits: this.o.limits } : {}),
      onGameFinished: (record) => {
        if (attached) this.recordGame(attached, record);
      },
    });
    const entry: Attached = { name: options.name, role: options.role, udp, off: () => undefined, liveKey: null };
    entry.off = udp.peer.on((event) => this.onPeerEvent(entry, event));
    attached = entry;
    this.peers.add(entry);
    this.publish('peers', { peers: this.peerList() });
    return udp;
  }

  /**
   * Opens the Liga peer on the ladder port (issue 34): its games belong to the ladder's table,
   * which records them (`recordLadderGame`); the house peer's lobby is shown to the door too, since
   * on a LAN the students' stage 1 is broadcast to 32442 only.
   */
  async openLadder(door: Connect4LadderDoor): Promise<LadderPort> {
    if (!this.running) throw new Error('the Connect Four hub is not running');
    await this.closeLadder();
    this.ladderDoor = door;
    this.liga = await LadderPort.open({
      bindAddress: this.o.host,
      port: this.o.ladderPort ?? 32450,
      broadcastAddress: this.o.broadcastAddress,
      peerPorts: this.o.peerPorts,
      door,
      moreLobby: () => [...this.peers].find((p) => p.role === 'house')?.udp.peer.lobby() ?? [],
      log: this.log,
      clock: this.clock,
      ...(this.o.timing ? { timing: this.o.timing } : {}),
      ...(this.o.limits ? { limits: this.o.limits } : {}),
    });
    this.log.info({ port: this.liga.address.port }, 'Connect Four: the Liga peer is ready');
    return this.liga;
  }

  async closeLadder(): Promise<void> {
    const port = this.liga;
    this.liga = null;
    this.ladderDoor = null;
    await port?.close();
  }

  /**
   * A datagram as the record keeps it: a ladder code sent as the client name, the student's
   * secret, becomes `(Liga-Code)` (records are public in the dashboard).
   */
  private redactCodes(data: string): string {
    if (this.ladderDoor === null || !data.includes('clientname')) return data;
    return data.replace(/("clientname"\s*:\s*")([^"]*)"/g, (all: string, head: string, name: string) => (this.isLadderCode(name) ? `${head}${LADDER_NAME_SHOWN}"` : all));
  }

  /** Whether `name` is a ladder code (the house bots leave those to the Liga peer). */
  isLadderCode(name: string | null): boolean {
    return name !== null && this.ladderDoor !== null && this.ladderDoor.knows(name);
  }

  /**
   * Records one ladder game: the two sides' names and the games the Liga peer played for it (one
   * against a house level, two for a relayed game; the first is seat 0's and gives the moves).
   */
  recordLadderGame(o: { sides: [LadderRecordSide, LadderRecordSide]; games: C4GameRecord[]; meta: Record<string, unknown>; outcome: { outcome: 'won' | 'drawn' | 'aborted'; winner: Player | null; reason: string } }): string | null {
    const store = this.o.store;
    const main = o.games[0];
    if (!store || main === undefined) return null;
    try {
      const startedAt = Math.min(...o.games.map((g) => g.startedAt));
      const endedAt = Math.max(...o.games.map((g) => g.endedAt));
      const id = store.startMatch({
        game: 'connect4',
        startedAt,
        seats: o.sides.map((s, seat) => ({ seat, ...s })),
        meta: { ...o.meta, recordedBy: 'Liga' },
      });
      const moves = o.games.reduce((a, g) => (g.moves.length > a.moves.length ? g : a), main);
      moves.moves.forEach((column, turn) => {
        store.addEvent(id, { at: moves.moveTimes[turn] ?? endedAt, seat: turn % 2, type: 'move', data: { turn, column } });
      });
      for (const g of o.games) for (const w of g.wire) store.addWire({ matchId: id, game: 'connect4', conn: w.conn, at: w.at, dir: w.dir, data: this.redactCodes(w.data) });
      const r = o.outcome;
      store.finishMatch(id, {
        status: r.outcome === 'aborted' ? 'aborted' : 'finished',
        endedAt,
        result: {
          outcome: r.outcome,
          winner: r.winner,
          winnerName: r.winner === null ? null : o.sides[r.winner].name,
          reason: r.reason,
          moves: moves.moves.join(''),
          line: moves.line,
        },
      });
      matchesTotal.inc({ game: 'connect4', status: r.outcome === 'aborted' ? 'aborted' : 'finished' });
      return id;
    } catch (err) {
      this.log.error({ err }, 'could not record a ladder game');
      return null;
    }
  }

  /** Stops a peer started with `startPeer` (a running game gets its 99). */
  async stopPeer(udp: UdpPeer): Promise<void> {
    for (const p of this.peers) if (p.udp === udp) await this.closePeer(p);
  }

  /** A game played in-process (the dashboard against the solver): shown live, recorded by its owner. */
  updateGame(view: C4GameView): void {
    if (view.status === 'running') {
      const fresh = !this.live.has(view.id);
      this.live.set(view.id, view);
      this.publish(fresh ? 'game-started' : 'moved', view);
    } else this.endGame(view);
  }

  info(): ServerInfo {
    const liga = this.liga === null ? {} : { ladderPort: this.liga.address.port };
    return {
      ...liga,
      game: 'connect4',
      title: '4 Gewinnt (Connect Four)',
      protocol: '4 Gewinnt UDP broadcast, peer to peer',
      transport: 'udp',
      host: this.o.host,
      port: this.port,
      status: this.running ? 'running' : 'stopped',
      clients: this.peers.size,
      liveMatches: this.live.size,
    };
  }

  snapshot(): Connect4Snapshot {
    const house = [...this.peers].find((p) => p.role === 'house') ?? [...this.peers][0];
    return {
      port: this.port,
      lan: this.o.broadcastAddress !== null,
      peers: this.peerList(),
      // A ladder code is a student's secret: the lobby (public) shows that a Liga player is there.
      lobby: (house?.udp.peer.lobby() ?? []).map((r) => ({ name: this.isLadderCode(r.name) ? LADDER_NAME_SHOWN : r.name, address: r.key, clienttype: r.clienttype })),
      games: [...this.live.values(), ...this.recent],
    };
  }

  subscribe(listener: (event: SpectatorEvent) => void): () => void {
    return this.hub.subscribe(listener);
  }

  /**
   * Whether `remote` is one of this process's peers, judged strictly (same port and the very
   * address it binds, or an address of this machine when it binds all): another host cannot pass
   * for our sparring partner to get round the house bots' per-host caps.
   */
  isOwnPeer(remote: Address): boolean {
    for (const p of this.peers) {
      const bound = p.udp.address;
      if (bound.port !== remote.port) continue;
      if (bound.address === remote.address) return true;
      if (bound.address === '0.0.0.0' && ownAddresses().has(remote.address)) return true;
    }
    return false;
  }

  /** The peers of this process that are `remote`, if any (a game between two of our own peers). */
  private localPeerAt(remote: { address: string; port: number }): Attached | undefined {
    for (const p of this.peers) {
      const bound = p.udp.address;
      if (bound.port !== remote.port) continue;
      if (bound.address === remote.address || bound.address === '0.0.0.0' || remote.address.startsWith('127.')) return p;
    }
    return undefined;
  }

  /** A game between two of our own peers is seen twice; it is keyed by its first player's side. */
  private gameKey(p: Attached, localPlayer: Player, opponent: { readonly key: string }): string {
    const me = addressKey(p.udp.address);
    return localPlayer === 0 ? `${me}|${opponent.key}` : `${opponent.key}|${me}`;
  }

  private onPeerEvent(p: Attached, event: PeerEvent): void {
    switch (event.type) {
      case 'phase':
        this.publish('peers', { peers: this.peerList() });
        return;
      case 'game-started': {
        const g = event.game;
        const opponentName = g.opponent.name ?? this.localPeerAt(g.opponent)?.name ?? g.opponent.key;
        const key = this.gameKey(p, g.localPlayer, g.opponent);
        p.liveKey = key;
        if (this.live.has(key)) return;
        const players: [string, string] = g.localPlayer === 0 ? [p.name, opponentName] : [opponentName, p.name];
        this.updateGame({ id: key, kind: 'network', players, moves: [], startedAt: g.startedAt, status: 'running', winner: null, line: [], reason: null, endedAt: null });
        return;
      }
      case 'moved': {
        const view = p.liveKey === null ? undefined : this.live.get(p.liveKey);
        if (view && view.moves.length < event.state.moves.length) this.updateGame({ ...view, moves: [...event.state.moves] });
        return;
      }
      case 'game-over':
      case 'aborted': {
        const key = p.liveKey;
        p.liveKey = null;
        const view = key === null ? undefined : this.live.get(key);
        if (!view) return;
        const now = this.clock.now();
        if (event.type === 'aborted') this.endGame({ ...view, status: 'aborted', reason: event.reason, endedAt: now });
        else
          this.endGame({
            ...view,
            moves: [...event.state.moves],
            status: event.winner === null ? 'drawn' : 'won',
            winner: event.winner,
            line: event.line.map(([c, r]) => [c, r]),
            reason: event.winner === null ? 'board-full' : 'four',
            endedAt: now,
          });
        return;
      }
      default:
        return;
    }
  }

  private endGame(view: C4GameView): void {
    if (!this.live.delete(view.id) && view.kind === 'network') return;
    this.recent = [view, ...this.recent.filter((g) => g.id !== view.id)].slice(0, RECENT_GAMES);
    this.publish(view.status === 'aborted' ? 'aborted' : 'game-over', view);
  }

  private recordGame(p: Attached, record: C4GameRecord): void {
    const store = this.o.store;
    if (!store) return;
    // Between two of our own peers, the inviter (the first player) writes the record; unless one
    // side ended the game with an internal error: then that side's record is the one kept.
    const ownOpponent = this.localPeerAt(record.opponent);
    if (ownOpponent) {
      const key = this.gameKey(p, record.local.player, { key: addressKey(record.opponent) });
      if (record.reason === INTERNAL_ERROR) {
        if (this.internalAborts.size > 100) this.internalAborts.clear();
        this.internalAborts.set(key, record.endedAt);
      } else if (this.internalAborts.delete(key) && record.reason === 'opponent-aborted') return;
      else if (record.local.player === 1) return;
    }
    try {
      const local = { name: record.local.name, kind: p.role, address: addressKey(p.udp.address) };
      const other = this.localPeerAt(record.opponent);
      const remote = {
        name: record.opponent.name ?? other?.name ?? `${record.opponent.address}:${record.opponent.port}`,
        kind: other ? other.role : 'peer',
        address: `${record.opponent.address}:${record.opponent.port}`,
      };
      const [first, second] = record.firstPlayer === 'local' ? [local, remote] : [remote, local];
      const id = store.startMatch({
        game: 'connect4',
        startedAt: record.startedAt,
        seats: [
          { seat: 0, ...first },
          { seat: 1, ...second },
        ],
        meta: { recordedBy: local.name, clienttype: { local: record.local.clienttype, opponent: record.opponent.clienttype } },
        // Between two of the hub's own bots (house and sparring, not a browser or terminal peer): retention takes it first (issue 37).
        house: other !== undefined && BOT_ROLES.has(p.role) && BOT_ROLES.has(other.role),
      });
      record.moves.forEach((column, turn) => {
        store.addEvent(id, { at: record.moveTimes[turn] ?? record.endedAt, seat: turn % 2, type: 'move', data: { turn, column } });
      });
      for (const w of record.wire) store.addWire({ matchId: id, game: 'connect4', conn: w.conn, at: w.at, dir: w.dir, data: w.data });
      const aborted = record.outcome === 'aborted';
      store.finishMatch(id, {
        status: aborted ? 'aborted' : 'finished',
        endedAt: record.endedAt,
        result: {
          outcome: aborted ? 'aborted' : record.winner === null ? 'drawn' : 'won',
          winner: record.winner,
          winnerName: record.winner === null ? null : record.winner === 0 ? first.name : second.name,
          reason: record.reason,
          moves: record.moves.join(''),
          line: record.line,
        },
      });
      matchesTotal.inc({ game: 'connect4', status: aborted ? 'aborted' : 'finished' });
    } catch (err) {
      this.log.error({ err }, 'could not record a game');
    }
  }

  private async closePeer(p: Attached): Promise<void> {
    if (!this.peers.delete(p)) return;
    p.off();
    try {
      await p.udp.close();
    } catch (err) {
      this.log.warn({ err, peer: p.name }, 'closing a peer failed');
    }
    this.publish('peers', { peers: this.peerList() });
  }

  private peerList(): Connect4Snapshot['peers'] {
    return [...this.peers].map((p) => ({ name: p.name, role: p.role, address: addressKey(p.udp.address), phase: p.udp.peer.phase }));
  }

  private publish(type: string, data: unknown): void {
    this.hub.publish({ game: 'connect4', type, at: this.clock.now(), data });
  }
}

function ownAddresses(): Set<string> {
  const out = new Set<string>(['127.0.0.1']);
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4') out.add(a.address);
  return out;
}
