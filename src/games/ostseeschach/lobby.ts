import { randomUUID } from 'node:crypto';
import type { Clock, Timer } from '../../core/clock.js';
import { guard } from '../../core/guard.js';
import { HostCounter, RateLimitedWarn } from '../../core/hosts.js';
import type { Logger } from '../../core/log.js';
import type { Records } from '../../core/record-backend.js';
import { Rng } from '../../core/rng.js';
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
}

export interface LobbyOptions {
  readonly adminPassword: string;
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
        if (!reservation) return fail(LOBBY_ERROR.unknownReservation());
        this.reservations.delete(packet.reservationCode as string);
        const { room, slot } = reservation;
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
        if (packet.password !== null && packet.password === this.o.adminPassword) {
          if (!peer.admin) this.o.log.info({ conn: peer.id }, 'administrator authenticated');
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
      const room = this.createRoom(true, packet.pause, peer.host);
      this.expireLater(room, peer);
      const reservations: string[] = [];
      for (const slot of room.prepareSlots(packet.slots)) {
        const code = this.newReservationCode();
        this.reservations.set(code, { room, slot });
        reservations.push(code);
      }
      this.o.log.info({ room: room.id, slots: packet.slots.length, paused: packet.pause }, 'room prepared');
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

  private createRoom(prepared: boolean, paused: boolean, host: string, own?: PrepareRoomOptions): Room {
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
      log: this.o.log,
      store: this.o.store,
      onClosed: (r, row) => this.closed(r, row),
      publish: this.o.publish,
    });
    this.rooms.set(room.id, room);
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
    for (const room of [...this.rooms.values()]) room.guard(() => room.disconnected(peer, cause), undefined);
  }

  /**
   * A connection failed in our own code: the games it plays end as aborted (internal error), it
   * stops observing, and the other rooms go on.
   */
  failed(peer: LobbyPeer): void {
    this.admins.delete(peer);
    for (const room of [...this.rooms.values()]) {
      if (room.hasPlayer(peer)) room.guard(() => room.fail(), undefined);
      else if (room.hasObserver(peer)) room.guard(() => room.disconnected(peer, 'UNKNOWN'), undefined);
    }
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
