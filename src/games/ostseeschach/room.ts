import type { Clock, Timer } from '../../core/clock.js';
import { INTERNAL_ERROR } from '../../core/guard.js';
import type { Logger } from '../../core/log.js';
import { matchesTotal } from '../../core/metrics.js';
import type { Records } from '../../core/record-backend.js';
import { moveName, squareName, type Team } from './board.js';
import {
  invalidMoveMessage,
  notRequestedMessage,
  notYourTurnMessage,
  violationReason,
  type DisconnectCause,
} from './messages.js';
import type { ClientMove, GameResult, RoomMessage, ServerPacket, SlotDescriptor } from './protocol.js';
import { RoomRecord } from './room-record.js';
import { apply, isOver, mementoOrder, round, toMove, type State } from './rules.js';
import { scoreGame } from './score.js';
import type { OstseeschachResultRow, OstseeschachRoomRow } from './snapshot.js';

/**
 * One game room: the Match of the architecture. It owns the game state, the two seats (slots),
 * the observers and the move timer, and it follows the official GameRoom/AbstractGame flow
 * (spec §3.3–§3.10) step by step, including the shapes clients depend on. It never sees a socket:
 * a peer is anything that takes a packet.
 */

export interface RoomPeer {
  /** The connection's name in logs and wire records (`address:port`). */
  readonly id: string;
  readonly open: boolean;
  /** Formats and writes one packet; `matchId` files it under this room's record. */
  send(packet: ServerPacket, matchId: string | null): void;
}

export interface RoomOptions {
  readonly id: string;
  readonly start: State;
  readonly layout: string;
  readonly prepared: boolean;
  readonly paused: boolean;
  readonly softTimeoutMs: number;
  readonly hardTimeoutMs: number;
  readonly seed: string;
  readonly clock: Clock;
  readonly log: Logger;
  readonly store: Records | null;
  /** The room is over: forget it and its reservations. */
  readonly onClosed: (room: Room, row: OstseeschachResultRow) => void;
  readonly publish: (type: string, data: unknown) => void;
  /** Added to the record's meta (tournaments: the tournament match id). */
  readonly meta?: Readonly<Record<string, unknown>> | undefined;
  /** Prepared by the house games' own admin connection: its record is a house game's (retention takes it first). */
  readonly house?: boolean | undefined;
}

interface Slot {
  readonly team: Team;
  name: string;
  canTimeout: boolean;
  reserved: boolean;
  peer: RoomPeer | null;
  left: DisconnectCause | null;
  violation: string | null;
  softTimeout: boolean;
  hardTimeout: boolean;
}

interface Pending {
  readonly team: Team;
  readonly startedAt: number;
  readonly canTimeout: boolean;
  readonly timer: Timer | null;
}

const TEAMS: readonly Team[] = ['ONE', 'TWO'];
const GAME = 'ostseeschach';
/** A move's name in the record's events (`01-12`; `null-12` when `<from>` was missing). */
const recordedName = (m: ClientMove): string =>
  m.from === null ? `null-${squareName(m.to)}` : moveName({ from: m.from, to: m.to });

export class Room {
  readonly id: string;
  readonly createdAt: number;
  private readonly slots: Slot[] = [];
  private readonly observers: RoomPeer[] = [];
  private state: State;
  private status: 'created' | 'active' | 'over' = 'created';
  private paused: boolean;
  private pending: Pending | null = null;
  private readonly record: RoomRecord;
  private publishedTurn = -1;
  private closedReported = false;

  constructor(private readonly o: RoomOptions) {
    this.id = o.id;
    this.state = o.start;
    this.paused = o.paused;
    this.createdAt = o.clock.now();
    this.record = new RoomRecord(o.store, o.clock);
  }

  get matchId(): string | null {
    return this.record.matchId;
  }

  get isOver(): boolean {
    return this.status === 'over';
  }

  /** Started and not over. */
  get isRunning(): boolean {
    return this.status === 'active';
  }

  /** Not started yet (seats still open). */
  get isWaiting(): boolean {
    return this.status === 'created';
  }

  /** Connected players (the `playerCount` of joinedGameRoom). */
  get playerCount(): number {
    return this.slots.filter((s) => s.peer !== null).length;
  }

  hasPlayer(peer: RoomPeer): boolean {
    return this.slots.some((s) => s.peer === peer);
  }

  hasObserver(peer: RoomPeer): boolean {
    return this.observers.includes(peer);
  }

  // ---- seats ----------------------------------------------------------------------------------

  private openSlot(): number {
    const team = TEAMS[this.slots.length] as Team;
    this.slots.push({
      team,
      name: '',
      canTimeout: false,
      reserved: false,
      peer: null,
      left: null,
      violation: null,
      softTimeout: false,
      hardTimeout: false,
    });
    return this.slots.length - 1;
  }

  /** Admin `prepare`: one slot per descriptor; returns the reserved slot indexes in order. */
  prepareSlots(descriptors: readonly SlotDescriptor[]): number[] {
    const reserved: number[] = [];
    for (const d of descriptors) {
      const i = this.openSlot();
      const slot = this.slots[i] as Slot;
      // A missing displayName makes the official server throw; we read it as unnamed.
      slot.name = d.displayName ?? '';
      slot.canTimeout = d.canTimeout;
      if (d.reserved) {
        slot.reserved = true;
        reserved.push(i);
      }
    }
    return reserved;
  }

  /** `join`/`joinRoom`: the first free, non-reserved slot, or a new one; false when full. */
  join(peer: RoomPeer): boolean {
    if (this.status === 'over') return false;
    let i = this.slots.findIndex((s) => s.peer === null && !s.reserved);
    if (i < 0) {
      if (this.slots.length >= 2) return false;
      i = this.openSlot();
    }
    this.fillSlot(i, peer);
    return true;
  }

  fillSlot(index: number, peer: RoomPeer): void {
    const slot = this.slots[index];
    if (!slot || slot.peer !== null || this.status === 'over') return;
    slot.peer = peer;
    peer.send({ type: 'joined', roomId: this.id }, this.record.matchId);
    this.o.log.info({ room: this.id, team: slot.team, conn: peer.id }, 'player joined');
    if (this.slots.length === 2 && this.slots.every((s) => s.peer !== null)) this.start();
  }

  addObserver(peer: RoomPeer): void {
    if (!this.observers.includes(peer)) this.observers.push(peer);
    peer.send({ type: 'observed', roomId: this.id }, this.record.matchId);
  }

  // ---- the game flow ----------------------------------------------------------------------------

  private start(): void {
    this.status = 'active';
    this.startRecord();
    this.event(null, 'start', { layout: this.o.layout, paused: this.paused });
    this.o.publish('started', { roomId: this.id, matchId: this.record.matchId });
    for (const slot of this.slots) this.toSlot(slot, { class: 'welcomeMessage', color: slot.team });
    this.next();
  }

  /** After the start and after each move: the memento, then the end or the next request. */
  private next(): void {
    this.sendState(this.paused);
    if (isOver(this.state)) this.stop();
    else if (!this.paused) this.requestMove();
  }

  /** Observers first, then ONE and TWO (spec §3.1); only observers while paused. */
  private sendState(observersOnly: boolean): void {
    const data: RoomMessage = { class: 'memento', state: this.state };
    for (const peer of this.observers) this.toPeer(peer, data);
    if (!observersOnly) for (const slot of this.slots) this.toSlot(slot, data);
    if (this.publishedTurn !== this.state.turn) {
      this.publishedTurn = this.state.turn;
      this.o.publish('memento', { roomId: this.id, board: this.board() });
    }
  }

  private requestMove(): void {
    const team = toMove(this.state);
    const slot = this.slotOf(team);
    if (!slot) return;
    // A step while a request is open replaces it; the official server leaves the old hard
    // timer running, which can end the game on a request that was already answered.
    this.pending?.timer?.cancel();
    const timer = slot.canTimeout
      ? this.o.clock.setTimeout(
          () => this.guard(() => this.onHardTimeout(team), undefined),
          this.o.hardTimeoutMs,
        )
      : null;
    this.pending = { team, startedAt: this.o.clock.now(), canTimeout: slot.canTimeout, timer };
    this.toSlot(slot, { class: 'moveRequest' });
  }

  private onHardTimeout(team: Team): void {
    if (this.pending?.team !== team || this.status === 'over') return;
    const slot = this.slotOf(team) as Slot;
    slot.hardTimeout = true;
    this.event(team, 'hardTimeout', { limitMs: this.o.hardTimeoutMs });
    this.o.log.info({ room: this.id, team }, 'hard timeout');
    this.stop();
  }

  /** A move from a peer. Returns 'not-member' when the peer holds no seat here (a lobby error). */
  onMove(peer: RoomPeer, move: ClientMove): 'not-member' | null {
    const slot = this.slots.find((s) => s.peer === peer);
    if (!slot) return 'not-member';
    if (this.status === 'over') return null;
    const expected = toMove(this.state);
    if (slot.team !== expected) {
      const active = this.slotOf(expected);
      const message = notYourTurnMessage(
        { team: expected, name: active?.name ?? '' },
        { team: slot.team, name: slot.name },
        move,
      );
      this.violate(slot, message, message, move, false);
      return null;
    }
    const pending = this.pending;
    if (!pending) {
      const message = notRequestedMessage(slot.team, slot.name);
      this.violate(slot, message, message, move, false);
      return null;
    }
    this.pending = null;
    pending.timer?.cancel();
    const elapsed = this.o.clock.now() - pending.startedAt;
    if (pending.canTimeout && elapsed > this.o.softTimeoutMs) {
      // The late move is dropped without an error message (spec §3.7, §4 #9).
      slot.softTimeout = true;
      this.event(slot.team, 'softTimeout', { elapsedMs: elapsed, move: recordedName(move) });
      this.stop();
      return null;
    }
    const from = move.from;
    // Without <from> the official rules find no own piece to move (issue #16).
    const applied = from === null ? null : apply(this.state, { from, to: move.to });
    if (applied === null || !applied.ok) {
      const code = applied === null ? 'WRONG_COLOR' : applied.error.code;
      this.violate(slot, invalidMoveMessage(slot.name, code, move), violationReason(code, move), move, true);
      return null;
    }
    this.state = applied.value;
    this.event(slot.team, 'move', { turn: this.state.turn, move: recordedName(move), elapsedMs: elapsed });
    this.next();
    return null;
  }

  /** A rule violation: the room error (to observers too for invalid moves), then the end. */
  private violate(slot: Slot, message: string, reason: string, move: ClientMove, observersToo: boolean): void {
    slot.violation = reason;
    this.event(slot.team, 'violation', { move: recordedName(move), reason });
    this.o.log.info({ room: this.id, team: slot.team, reason }, 'rule violation');
    const data: RoomMessage = { class: 'error', message, original: move };
    this.toSlot(slot, data);
    if (observersToo) for (const peer of this.observers) this.toPeer(peer, data);
    this.cancel();
  }

  /** A connection closed: each of its seats is left with `cause`, and the game ends. */
  disconnected(peer: RoomPeer, cause: DisconnectCause): void {
    const index = this.observers.indexOf(peer);
    if (index >= 0) this.observers.splice(index, 1);
    // Seat by seat, as the official slot listeners fire: a client in both seats of one room has
    // ended the game with its first seat already.
    for (const slot of this.slots.filter((s) => s.peer === peer)) {
      if (this.status === 'over') return;
      slot.left = cause;
      this.event(slot.team, 'left', { cause });
      this.cancel();
    }
  }

  /** Admin `pause`: takes effect after the pending move (spec §3.10). */
  pause(paused: boolean): void {
    if (this.status === 'over' || paused === this.paused) return;
    for (const peer of this.observers) this.toPeer(peer, { class: 'paused', paused });
    this.event(null, 'pause', { paused });
    // Unpausing with no move pending acts like a step. Before the start there is nothing to
    // step: the official server "steps" anyway and cancels the room; we only clear the flag.
    if (!paused && this.pending === null && this.status === 'active') this.stepActive();
    this.paused = paused;
    this.o.publish('paused', { roomId: this.id, paused });
  }

  /** Admin `step` (spec §3.10). */
  step(forced: boolean): void {
    if (this.status === 'created') {
      if (!forced) return;
      this.event(null, 'forcedStep', { players: this.playerCount });
      if (this.playerCount < 2) this.cancel();
      else this.start();
      return;
    }
    if (this.status === 'over' || !this.paused) return;
    this.stepActive();
  }

  private stepActive(): void {
    this.sendState(false);
    this.requestMove();
  }

  /** Admin `cancel`, and every early end: empty seats count as NOT_CONNECTED. */
  cancel(): void {
    if (this.status === 'over') return;
    for (const slot of this.slots) if (slot.peer === null) slot.left = 'NOT_CONNECTED';
    this.stop();
  }

  private stop(): void {
    this.pending?.timer?.cancel();
    this.pending = null;
    this.gameOver();
  }

  private gameOver(): void {
    if (this.status === 'over') return;
    this.status = 'over';
    if (this.slots.length < 2) {
      // Spec §4 #7: the official server cannot score a one-player room, so the room stays and
      // hangs the next player. We close it and tell whoever is still there.
      this.destroy(null);
      return;
    }
    const [one, two] = this.slots as [Slot, Slot];
    const result = scoreGame(this.state, [one, two], this.o);
    const data: RoomMessage = { class: 'result', result };
    for (const slot of this.slots) this.toSlot(slot, data);
    for (const peer of this.observers) this.toPeer(peer, data);
    this.destroy(result);
  }

  /** `<left>` to everyone, then the room is gone (its connections stay open, spec §3.5). */
  private destroy(result: GameResult | null): void {
    for (const slot of this.slots) if (slot.peer) this.toPeer(slot.peer, null);
    for (const peer of this.observers) this.toPeer(peer, null);
    const winner = result?.winner ?? null;
    const scores = result ? [...result.scores] : [];
    if (result && this.slots.some((s) => s.peer !== null)) this.startRecord();
    const { turn, ambers } = this.state;
    this.record.finish(result ? 'finished' : 'aborted', { roomId: this.id, turn, ambers, winner, scores });
    matchesTotal.inc({ game: GAME, status: result ? 'finished' : 'aborted' });
    this.o.log.info({ room: this.id, winner, turn, scores }, 'room closed');
    this.closeWith(result);
  }

  /** Server stop or an internal error: the room ends without a result. */
  abort(reason: string): void {
    if (this.status === 'over') return;
    this.status = 'over';
    this.endAborted(reason);
  }

  private endAborted(reason: string): void {
    this.pending?.timer?.cancel();
    this.pending = null;
    const { turn, ambers } = this.state;
    // A record already finished (a room that failed after that) keeps its first end.
    const ended = this.record.finish('aborted', { roomId: this.id, turn, ambers, winner: null, scores: [], reason });
    if (ended || this.record.matchId === null) matchesTotal.inc({ game: GAME, status: 'aborted' });
    this.closeWith(null);
  }

  /**
   * A bug in our code while serving this room (or one of its connections): the room ends without
   * a result, recorded as aborted with reason `internal error`, and whoever is still there gets
   * `<left>`; the server and the other rooms go on. A room that failed half-way through its own
   * end is finished as far as it got: recorded and taken out of the lobby.
   */
  fail(): void {
    if (this.closedReported) return;
    const peers = [...this.slots.flatMap((s) => (s.peer ? [s.peer] : [])), ...this.observers];
    this.status = 'over';
    this.endAborted(INTERNAL_ERROR);
    for (const peer of peers) {
      try {
        this.toPeer(peer, null);
      } catch (error) {
        this.o.log.error({ err: error, room: this.id, conn: peer.id }, 'could not tell a peer that the room failed');
      }
    }
  }

  /** Tells the lobby (once) that this room is gone. */
  private closeWith(result: GameResult | null): void {
    if (this.closedReported) return;
    this.closedReported = true;
    this.o.onClosed(this, {
      roomId: this.id,
      matchId: this.record.matchId,
      endedAt: this.o.clock.now(),
      turn: this.state.turn,
      winner: result?.winner ?? null,
      scores: result ? [...result.scores] : [],
      layout: this.o.layout,
      board: this.board(),
    });
  }

  /** Runs a room operation; a bug ends this room (told with `<left>`), never the server. */
  guard<T>(fn: () => T, fallback: T): T {
    try {
      return fn();
    } catch (error) {
      this.o.log.error({ err: error, room: this.id }, 'room failed: internal error');
      try {
        this.fail();
      } catch (error2) {
        this.o.log.error({ err: error2, room: this.id }, 'room failed while ending after an internal error');
      }
      return fallback;
    }
  }

  // ---- helpers ----------------------------------------------------------------------------------

  private slotOf(team: Team): Slot | undefined {
    return this.slots[team === 'ONE' ? 0 : 1];
  }

  private toSlot(slot: Slot, data: RoomMessage): void {
    if (slot.peer) this.toPeer(slot.peer, data);
  }

  /** A room message, or `<left>` when `data` is null. */
  private toPeer(peer: RoomPeer, data: RoomMessage | null): void {
    if (!peer.open) return;
    const packet: ServerPacket = data
      ? { type: 'room', roomId: this.id, data }
      : { type: 'left', roomId: this.id };
    peer.send(packet, this.record.matchId);
  }

  private startRecord(): void {
    const seats = this.slots.map((s, i) => ({
      seat: i,
      name: s.name || s.team,
      kind: 'player',
      address: s.peer?.id,
    }));
    this.record.open(this.o.seed, seats, this.o.house === true, {
      ...this.o.meta,
      roomId: this.id,
      layout: this.o.layout,
      prepared: this.o.prepared,
      canTimeout: this.slots.map((s) => s.canTimeout),
      softTimeoutMs: this.o.softTimeoutMs,
      hardTimeoutMs: this.o.hardTimeoutMs,
    });
  }

  private event(team: Team | null, type: string, data: unknown): void {
    this.record.event(team, type, data);
  }

  private board(): OstseeschachRoomRow['board'] {
    const s = this.state;
    return {
      turn: s.turn,
      round: round(s),
      toMove: toMove(s),
      pieces: mementoOrder(s.pieces),
      ambers: { ...s.ambers },
      lastMove: s.lastMove,
    };
  }

  snapshot(): OstseeschachRoomRow {
    return {
      roomId: this.id,
      matchId: this.record.matchId,
      status:
        this.status === 'over'
          ? 'over'
          : this.status === 'created'
            ? 'waiting'
            : this.paused
              ? 'paused'
              : 'running',
      prepared: this.o.prepared,
      layout: this.o.layout,
      seats: this.slots.map((s) => ({
        team: s.team,
        name: s.name,
        address: s.peer?.id ?? null,
        reserved: s.reserved && s.peer === null,
        canTimeout: s.canTimeout,
        left: s.left,
      })),
      observers: this.observers.length,
      awaiting: this.pending?.team ?? null,
      board: this.board(),
      createdAt: this.createdAt,
    };
  }
}
