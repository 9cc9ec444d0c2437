import { randomUUID } from 'node:crypto';
import type { Clock, Timer } from '../../core/clock.js';
import { guard } from '../../core/guard.js';
import { HostCounter, RateLimitedWarn } from '../../core/hosts.js';
import { houseLogger, type Logger } from '../../core/log.js';
import type { Records } from '../../core/record-backend.js';
import { Rng } from '../../core/rng.js';
import type { OstseeschachLadderDoor, OstseeschachLadderWaiter } from './ladder-door.js';
import { GAME_TYPE, LOBBY_ERROR, type DisconnectCause } from './messages.js';
import { requestText, type ClientPacket, type ServerPacket } from './protocol.js';
import { Room, type RoomPeer } from './room.js';
import type { State } from './rules.js';
import { createStart, layoutName, layoutOf } from './setup.js';
import type { OstseeschachResultRow, OstseeschachRoomRow } from './snapshot.js';

/**
 * The lobby: rooms, reservations and administrators, and the routing of every request a
 * connection sends (the official Lobby/GameRoomManager/ReservationManager, spec §3.2, §3.9,
 * §3.10). Lobby errors go back to the sender as an errorpacket and leave its connection open.
 */

export interface LobbyPeer extends RoomPeer {
  admin: boolean;
  /** The remote IP: rooms are counted per host (fair share). */
  readonly host: string;
  /** Marks it as one of the house games' connections: its routine lines are logged at debug. */
  quiet?(): void;
  /** Its reservation was admitted to the ladder: it waits for its game (no join timeout any more). */
  hold?(): void;
}

export interface LobbyOptions {
  readonly adminPassword: string;
  /**
   * The house games' own administrator password (random each start, never shown): it
   * authenticates like `adminPassword`, and the rooms it prepares, their players and it are
   * logged as house games (info at debug, core/log.ts `houseLogger`).
   */
  readonly housePassword?: string | undefined;
  readonly softTimeoutMs: number;
  readonly hardTimeoutMs: number;
  /** New rooms created by `join` start paused (server.properties `paused`). */
  readonly paused: boolean;
  readonly maxRooms: number;
  /** Open rooms one host may have created by join or prepare (0: no cap). */
  readonly maxRoomsPerHost?: number | undefined;
  /** A prepared room no player has joined within this is closed (0: never). */
  readonly preparedRoomTimeoutMs?: number | undefined;
  readonly seed: string;
  readonly clock: Clock;
  readonly log: Logger;
  readonly store: Records | null;
  readonly roomIds?: (() => string) | undefined;
  readonly reservationCodes?: (() => string) | undefined;
  /** Fixes the start position of the n-th room (0-based); undefined: drawn from the seeded RNG. */
  readonly startPosition?: ((roomIndex: number) => State | undefined) | undefined;
  readonly publish: (type: string, data: unknown) => void;
}

const RECENT = 20;

/** A room prepared by the server's own code (tournaments): what an admin `prepare` cannot say. */
export interface PrepareRoomOptions {
  /** One reserved slot per entry, ONE first: the display name and whether it has timeouts. */
  readonly slots: readonly { readonly displayName: string; readonly canTimeout: boolean }[];
  /** The start position (e.g. a seeded layout); default the lobby's next random one. */
  readonly start?: State | undefined;
  /** This room's timeouts; default the server's. */
  readonly softTimeoutMs?: number | undefined;
  readonly hardTimeoutMs?: number | undefined;
  /** The record's seed; default `<server seed>#<room number>`. */
  readonly seed?: string | undefined;
  readonly meta?: Readonly<Record<string, unknown>> | undefined;
}

type AdminPacket = Extract<ClientPacket, { type: 'prepare' | 'observe' | 'pause' | 'step' | 'cancel' }>;

export class Lobby {
  private readonly rooms = new Map<string, Room>();
  private readonly reservations = new Map<string, { room: Room; slot: number }>();
  private readonly admins = new Set<LobbyPeer>();
  /** The house games' connections and rooms (see `housePassword`). */
  private readonly housePeers = new WeakSet<LobbyPeer>();
  private readonly houseRooms = new WeakSet<Room>();
  /** Who created each open room (by join or prepare), and how many each host holds. */
  private readonly creators = new Map<Room, string>();
  private readonly hostRooms: HostCounter;
  /** The expiry timer of each prepared room that no player has joined yet. */
  private readonly expiries = new Map<Room, Timer>();
  private readonly warn: RateLimitedWarn;
  private readonly rng: Rng;
  private roomsCreated = 0;
  private finished = 0;
  private readonly recent: OstseeschachResultRow[] = [];
  /** The rated ladder's door (issue 34), and the connections it admitted that wait for their game. */
  private ladder: OstseeschachLadderDoor | null = null;
  private readonly waiters = new Set<LadderWaiter>();

  constructor(private readonly o: LobbyOptions) {
    this.rng = Rng.seeded(o.seed);
    this.hostRooms = new HostCounter(o.maxRoomsPerHost ?? 0);
    this.warn = new RateLimitedWarn(o.log, 10_000, () => o.clock.now());
  }

  /** One request of `peer`. Never throws: a failing room is ended, the lobby goes on. */
  handle(peer: LobbyPeer, packet: ClientPacket): void {
    try {
      this.route(peer, packet);
    } catch (error) {
      this.o.log.error({ err: error, conn: peer.id, packet: packet.type }, 'request failed');
      // The client (a house loop's prepare, say) must not wait for an answer that never comes.
      try {
        peer.send({ type: 'errorpacket', message: LOBBY_ERROR.internalError(requestText(packet)), original: packet }, null);
      } catch (err2) {
        this.o.log.error({ err: err2, conn: peer.id }, 'could not report a failed request');
      }
    }
  }

  private route(peer: LobbyPeer, packet: ClientPacket): void {
    const fail = (message: string): void =>
      peer.send({ type: 'errorpacket', message, original: packet }, null);
    switch (packet.type) {
      case 'room': {
        const room = packet.roomId === null ? undefined : this.rooms.get(packet.roomId);
        if (!room) return fail(LOBBY_ERROR.roomNotFound(packet.roomId));
        if (packet.data?.class !== 'move') return fail(LOBBY_ERROR.nonMove(requestText(packet)));
        const move = packet.data.move;
        if (room.guard(() => room.onMove(peer, move), null) === 'not-member')
          fail(LOBBY_ERROR.notMember(room.id));
        return;
      }
      case 'joinPrepared': {
        const reservation =
          packet.reservationCode === null ? undefined : this.reservations.get(packet.reservationCode);
        if (!reservation) {
          if (packet.reservationCode !== null && this.enterLadder(peer, packet.reservationCode, fail)) return;
          return fail(LOBBY_ERROR.unknownReservation());
        }
        this.reservations.delete(packet.reservationCode as string);
        const { room, slot } = reservation;
        if (this.houseRooms.has(room)) {
          this.housePeers.add(peer);
          peer.quiet?.();
        }
        room.guard(() => room.fillSlot(slot, peer), undefined);
        return;
      }
      case 'joinRoom': {
        const room = packet.roomId === null ? undefined : this.rooms.get(packet.roomId);
        if (!room) return fail(LOBBY_ERROR.roomNotFound(packet.roomId));
        if (!room.guard(() => room.join(peer), false) && !room.isOver)
          fail(LOBBY_ERROR.roomFull(packet.roomId));
        return;
      }
      case 'join':
        return this.join(peer, packet.gameType, fail);
      case 'authenticate':
        if (packet.password !== null && packet.password !== '' && packet.password === this.o.housePassword) {
          this.housePeers.add(peer);
          peer.quiet?.();
        }
        if (packet.password !== null && (packet.password === this.o.adminPassword || this.housePeers.has(peer))) {
          if (!peer.admin) this.logFor(peer).info({ conn: peer.id }, 'administrator authenticated');
          peer.admin = true;
          this.admins.add(peer);
          return;
        }
        this.o.log.warn({ conn: peer.id }, 'wrong administrator password');
        return fail(LOBBY_ERROR.authenticationFailed());
      case 'prepare':
      case 'observe':
      case 'pause':
      case 'step':
      case 'cancel':
        if (!peer.admin) return fail(LOBBY_ERROR.unauthenticated(requestText(packet)));
        return this.admin(peer, packet, fail);
      case 'closeConnection':
        // The connection handles it; it never reaches the lobby.
        return;
    }
  }

  /**
   * A client's message as the record store keeps it: a ladder code, the student's secret, as
   * `(Liga-Code)` (records are public in the dashboard; the debug log keeps what was sent).
   */
  redact(text: string): string {
    const door = this.ladder;
    if (door === null || !text.includes('reservationCode')) return text;
    return text.replace(/reservationCode=(["'])([^"']*)\1/g, (all: string, quote: string, code: string) => (door.isCode(code) ? `reservationCode=${quote}(Liga-Code)${quote}` : all));
  }

  /** Opens (or with null closes) the rated ladder's door: a reservation code of the ladder's roster. */
  setLadder(door: OstseeschachLadderDoor | null): void {
    this.ladder = door;
  }

  /**
   * A code that is no prepared room's, at the ladder's door: false when it is no ladder code (the
   * caller answers as for any unknown code). A refusal is the errorpacket of an unknown
   * reservation with the ladder's words (the connection stays, as after any refused join); an
   * admitted connection gets nothing until its game is made.
   */
  private enterLadder(peer: LobbyPeer, code: string, fail: (message: string) => void): boolean {
    const door = this.ladder;
    if (door === null) return false;
    const waiter = new LadderWaiter(peer, (w) => this.waiters.delete(w), (text) => {
      this.o.log.info({ conn: peer.id, host: peer.host, text }, 'ladder: join refused');
      if (peer.open) fail(LOBBY_ERROR.ladderRefused(text));
    });
    const admission = door.admit(code, waiter);
    if (admission === null) return false;
    if (!admission.ok) {
      waiter.refuse(admission.text);
      return true;
    }
    waiter.admitted(admission.leave);
    // A door may refuse before it returns; then the errorpacket has gone out already.
    if (waiter.waiting) {
      this.waiters.add(waiter);
      peer.hold?.();
      this.o.log.info({ conn: peer.id, host: peer.host }, 'ladder: waiting for a game');
    }
    return true;
  }

  /** `join` fills the first open seat of any room, whatever its game type (spec §4 #4). */
  private join(peer: LobbyPeer, gameType: string | null, fail: (message: string) => void): void {
    for (const room of this.rooms.values()) {
      if (room.guard(() => room.join(peer), false)) return this.notifyAdmins(room);
    }
    if (gameType !== null && gameType !== GAME_TYPE) return fail(LOBBY_ERROR.unknownGameType(gameType));
    if (!this.mayCreateRoom(peer, fail)) return;
    const room = this.createRoom(false, this.o.paused, peer.host);
    room.guard(() => room.join(peer), false);
    this.notifyAdmins(room);
  }

  private notifyAdmins(room: Room): void {
    const packet: ServerPacket = { type: 'joinedGameRoom', roomId: room.id, playerCount: room.playerCount };
    for (const admin of this.admins) if (admin.open) admin.send(packet, null);
  }

  private admin(peer: LobbyPeer, packet: AdminPacket, fail: (message: string) => void): void {
    if (packet.type === 'prepare') {
      if (packet.gameType !== null && packet.gameType !== GAME_TYPE)
        return fail(LOBBY_ERROR.unknownGameType(packet.gameType));
      if (packet.slots.length > 2) return fail(LOBBY_ERROR.tooManySlots());
      if (!this.mayCreateRoom(peer, fail)) return;
      const room = this.createRoom(true, packet.pause, peer.host, undefined, this.housePeers.has(peer));
      this.expireLater(room, peer);
      const reservations: string[] = [];
      for (const slot of room.prepareSlots(packet.slots)) {
        const code = this.newReservationCode();
        this.reservations.set(code, { room, slot });
        reservations.push(code);
      }
      this.logFor(peer).info({ room: room.id, slots: packet.slots.length, paused: packet.pause }, 'room prepared');
      peer.send({ type: 'prepared', roomId: room.id, reservations }, null);
      return;
    }
    const room = packet.roomId === null ? undefined : this.rooms.get(packet.roomId);
    if (!room) return fail(LOBBY_ERROR.roomNotFound(packet.roomId));
    switch (packet.type) {
      case 'observe':
        return room.guard(() => room.addObserver(peer), undefined);
      case 'pause':
        return room.guard(() => room.pause(packet.pause), undefined);
      case 'step':
        return room.guard(() => room.step(packet.forced), undefined);
      case 'cancel':
        this.o.log.info({ room: room.id, conn: peer.id }, 'room cancelled by an administrator');
        return room.guard(() => room.cancel(), undefined);
    }
  }

  /** The server's room limit, then the creator's host's fair share (both answered with a GameRoomException). */
  private mayCreateRoom(peer: LobbyPeer, fail: (message: string) => void): boolean {
    if (this.rooms.size >= this.o.maxRooms) {
      fail(LOBBY_ERROR.tooManyRooms(this.o.maxRooms));
      return false;
    }
    if (this.hostRooms.limit > 0 && this.hostRooms.count(peer.host) >= this.hostRooms.limit) {
      this.warn.warn(
        `rooms:${peer.host}`,
        { host: peer.host, conn: peer.id, limit: this.hostRooms.limit },
        'room refused: this host already holds its share of the rooms',
      );
      fail(LOBBY_ERROR.tooManyRoomsForHost(this.hostRooms.limit));
      return false;
    }
    return true;
  }

  /**
   * A prepared room that no player has joined within `preparedRoomTimeoutMs` is closed like a
   * `cancel`; the administrator that prepared it gets `<left roomId="R"/>` (its observers get the
   * result and `left`, as for a cancel), so an idle prepare cannot hold a room forever.
   */
  private expireLater(room: Room, preparer: LobbyPeer): void {
    const ms = this.o.preparedRoomTimeoutMs ?? 0;
    if (ms <= 0) return;
    const expire = guard(this.o.log, 'ostseeschach prepared room expiry', () => this.expire(room, preparer), () => room.fail());
    this.expiries.set(room, this.o.clock.setTimeout(expire, ms));
  }

  private expire(room: Room, preparer: LobbyPeer): void {
    this.expiries.delete(room);
    if (this.rooms.get(room.id) !== room || !room.isWaiting || room.playerCount > 0) return;
    this.o.log.info({ room: room.id, admin: preparer.id }, 'prepared room expired: no player joined it in time');
    const observing = room.hasObserver(preparer);
    room.guard(() => room.cancel(), undefined);
    if (!observing && preparer.open) preparer.send({ type: 'left', roomId: room.id }, null);
  }

  /**
   * Prepares a room like an admin `prepare` with every slot reserved, but with its own start
   * position, timeouts, seed and record meta (tournaments). Bypasses the room limits and the
   * prepared-room expiry: the caller cancels a room nobody joined. Returns the reservation codes
   * in slot order.
   */
  prepareRoom(options: PrepareRoomOptions): { roomId: string; reservations: string[] } {
    const room = this.createRoom(true, false, 'server', options);
    const reservations: string[] = [];
    for (const slot of room.prepareSlots(options.slots.map((s) => ({ displayName: s.displayName, canTimeout: s.canTimeout, reserved: true })))) {
      const code = this.newReservationCode();
      this.reservations.set(code, { room, slot });
      reservations.push(code);
    }
    this.o.log.info({ room: room.id, slots: options.slots.length }, 'room prepared by the server');
    return { roomId: room.id, reservations };
  }

  /**
   * A room the server makes for two peers it already holds (the ladder: two admitted connections,
   * or one and a bot seat): both slots reserved for them, ONE first, and filled at once, so nobody
   * else can take them. Each gets `<joined roomId="R"/>`, then the game starts. Like `prepareRoom`
   * it bypasses the room limits. Returns the room's id.
   */
  openRoomFor(options: PrepareRoomOptions, peers: readonly [RoomPeer, RoomPeer]): string {
    const room = this.createRoom(true, false, 'server', options);
    const slots = room.prepareSlots(options.slots.map((s) => ({ displayName: s.displayName, canTimeout: s.canTimeout, reserved: true })));
    this.o.log.info({ room: room.id, conns: peers.map((p) => p.id) }, 'room opened by the server for two players');
    room.guard(() => {
      slots.forEach((slot, i) => room.fillSlot(slot, peers[i] as RoomPeer));
    }, undefined);
    return room.id;
  }

  /** The log for what a peer does: a house game's connection logs its routine at debug. */
  private logFor(peer: LobbyPeer): Logger {
    return this.housePeers.has(peer) ? houseLogger(this.o.log) : this.o.log;
  }

  private createRoom(prepared: boolean, paused: boolean, host: string, own?: PrepareRoomOptions, house = false): Room {
    const index = this.roomsCreated++;
    const start = own?.start ?? this.o.startPosition?.(index) ?? createStart(this.rng);
    const layout = layoutOf(start);
    const room = new Room({
      id: this.newRoomId(),
      start,
      layout: layout ? layoutName(layout) : '',
      prepared,
      paused,
      softTimeoutMs: own?.softTimeoutMs ?? this.o.softTimeoutMs,
      hardTimeoutMs: own?.hardTimeoutMs ?? this.o.hardTimeoutMs,
      seed: own?.seed ?? `${this.o.seed}#${index}`,
      meta: own?.meta,
      clock: this.o.clock,
      log: house ? houseLogger(this.o.log) : this.o.log,
      house,
      store: this.o.store,
      onClosed: (r, row) => this.closed(r, row),
      publish: this.o.publish,
    });
    this.rooms.set(room.id, room);
    if (house) this.houseRooms.add(room);
    this.creators.set(room, host);
    this.hostRooms.tryAdd(host);
    this.o.publish('roomCreated', { roomId: room.id, prepared });
    return room;
  }

  private closed(room: Room, row: OstseeschachResultRow): void {
    if (this.rooms.get(room.id) !== room) return;
    this.rooms.delete(room.id);
    const host = this.creators.get(room);
    if (host !== undefined) {
      this.creators.delete(room);
      this.hostRooms.remove(host);
    }
    this.expiries.get(room)?.cancel();
    this.expiries.delete(room);
    // Codes of a closed room are void (the official server keeps them and lets a late player
    // join a dead room).
    for (const [code, r] of this.reservations) if (r.room === room) this.reservations.delete(code);
    if (row.scores.length > 0) {
      this.finished++;
      this.recent.unshift(row);
      if (this.recent.length > RECENT) this.recent.pop();
    }
    this.o.publish('roomClosed', row);
  }

  private newRoomId(): string {
    for (;;) {
      const id = (this.o.roomIds ?? randomUUID)();
      if (!this.rooms.has(id)) return id;
    }
  }

  private newReservationCode(): string {
    for (;;) {
      const code = (this.o.reservationCodes ?? randomUUID)();
      if (!this.reservations.has(code)) return code;
    }
  }

  /** A connection is gone: its seats are left with `cause`. */
  disconnected(peer: LobbyPeer, cause: DisconnectCause): void {
    this.admins.delete(peer);
    this.leaveLadder(peer);
    for (const room of [...this.rooms.values()]) room.guard(() => room.disconnected(peer, cause), undefined);
  }

  /**
   * A connection failed in our own code: the games it plays end as aborted (internal error), it
   * stops observing, and the other rooms go on.
   */
  failed(peer: LobbyPeer): void {
    this.admins.delete(peer);
    this.leaveLadder(peer);
    for (const room of [...this.rooms.values()]) {
      if (room.hasPlayer(peer)) room.guard(() => room.fail(), undefined);
      else if (room.hasObserver(peer)) room.guard(() => room.disconnected(peer, 'UNKNOWN'), undefined);
    }
  }

  /** A connection that waited for a ladder game is gone: it leaves the ladder's queue. */
  private leaveLadder(peer: LobbyPeer): void {
    for (const w of [...this.waiters]) if (w.peer === peer) w.gone();
  }

  /** Rooms created by `host` that are still open. */
  roomsOf(host: string): number {
    return this.hostRooms.count(host);
  }

  /** The record a packet for `roomId` belongs to (wire logs). */
  matchIdFor(roomId: string | null): string | null {
    return roomId === null ? null : (this.rooms.get(roomId)?.matchId ?? null);
  }

  /** The record of the first running game `peer` plays in. */
  matchIdOf(peer: RoomPeer): string | null {
    for (const room of this.rooms.values())
      if (room.matchId !== null && room.hasPlayer(peer)) return room.matchId;
    return null;
  }

  /** Server stop: every room ends without a result. */
  stop(): void {
    for (const room of [...this.rooms.values()]) room.guard(() => room.abort('server stopped'), undefined);
    for (const timer of this.expiries.values()) timer.cancel();
    this.expiries.clear();
    this.reservations.clear();
    for (const w of [...this.waiters]) w.gone();
  }

  get liveMatches(): number {
    let n = 0;
    for (const room of this.rooms.values()) if (room.isRunning) n++;
    return n;
  }

  roomRows(): OstseeschachRoomRow[] {
    return [...this.rooms.values()].map((r) => r.snapshot());
  }

  recentResults(): OstseeschachResultRow[] {
    return this.recent.map((r) => ({ ...r, scores: [...r.scores] }));
  }

  get gamesPlayed(): number {
    return this.finished;
  }

  room(id: string): Room | undefined {
    return this.rooms.get(id);
  }
}

/**
 * A connection the ladder admitted, from its joinPrepared until it is seated, refused or gone
 * (each at most once).
 */
class LadderWaiter implements OstseeschachLadderWaiter {
  private state: 'waiting' | 'taken' | 'refused' | 'gone' = 'waiting';
  private leave: (() => void) | null = null;

  constructor(
    readonly peer: LobbyPeer,
    private readonly forget: (w: LadderWaiter) => void,
    private readonly answer: (text: string) => void,
  ) {}

  get host(): string {
    return this.peer.host;
  }

  get waiting(): boolean {
    return this.state === 'waiting' && this.peer.open;
  }

  admitted(leave: () => void): void {
    this.leave = leave;
    if (this.state !== 'waiting') leave();
  }

  take(): LobbyPeer | null {
    if (!this.waiting) return null;
    this.state = 'taken';
    this.forget(this);
    return this.peer;
  }

  /** Also after `take` when the room could not be opened: the connection is in no game then. */
  refuse(text: string): void {
    if (this.state !== 'waiting' && this.state !== 'taken') return;
    this.state = 'refused';
    this.forget(this);
    this.leave?.();
    this.answer(text);
  }

  /** The connection closed (or the server stops): out of the ladder's queue, without a word. */
  gone(): void {
    if (this.state !== 'waiting') return;
    this.state = 'gone';
    this.forget(this);
    this.leave?.();
  }
}
