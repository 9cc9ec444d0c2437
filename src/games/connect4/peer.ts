import { randomUUID } from 'node:crypto';
import { systemClock, type Clock, type Timer } from '../../core/clock.js';
import { INTERNAL_ERROR } from '../../core/guard.js';
import { hostOf, RateLimitedWarn, TokenBuckets } from '../../core/hosts.js';
import { connectionLogger, logWire, silentLogger, type Logger } from '../../core/log.js';
import { err, ok, type Result } from '../../core/result.js';
import { Board, type BoardEnd, type BoardHost, type GameEnd } from './peer/board.js';
import { InvitationBox, LobbyList } from './peer/lobby.js';
import { EventQueue } from './peer/events.js';
import { Repeater } from './peer/repeater.js';
import { Trailing } from './peer/trailing.js';
import {
  addressKey,
  DEFAULT_LIMITS,
  DEFAULT_TIMING,
  type AbortReason,
  type Address,
  type CommandError,
  type DrivenPeer,
  type GameInfo,
  type PeerEvent,
  type PeerLimits,
  type PeerOptions,
  type PeerPhase,
  type PeerTiming,
  type RemotePeer,
  type WireEntry,
} from './peer/types.js';
import {
  displayName,
  formatMessage,
  isValidOwnName,
  parseDatagram,
  type OutgoingMessage,
  type PeerMessage,
} from './protocol.js';
import { status, type C4State, type Player } from './rules.js';

export * from './peer/types.js';
export {
  AutoPlayer,
  type Admission,
  type AutoPlayerOptions,
  type AutoPlayerStats,
  type MoveChooser,
} from './peer/auto-player.js';

/**
 * The Connect Four peer (specs §3.2–§3.7): lobby, invitations, the board and its timers, game end
 * and abort. It sees parsed datagrams and addresses, never a socket: the transport hands it bytes
 * through `receive` and gives it a `send` function, so whole games run on a virtual clock in tests.
 * Everything it does repeats, so every handler is idempotent: duplicates and stale packets never
 * move the state back.
 *
 * Every entry (a datagram, a timer) is an error boundary: an exception in our own code is logged
 * with its stack and ends at most the running game, which is aborted (99 to the opponent) and
 * recorded with reason `internal error`; the peer goes on in the lobby. Each remote IP has a
 * datagram budget and a share of the lobby and the invitations (`PeerLimits`).
 */

interface Pending {
  readonly to: RemotePeer;
  readonly sender: Repeater;
  readonly deadline: Timer;
}

const RECENT_WIRE = 64;
const SHOWN_BYTES = 512;

export class Peer implements DrivenPeer {
  readonly name: string;
  readonly clienttype: number;
  readonly timing: PeerTiming;
  readonly limits: PeerLimits;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly localAddresses: ReadonlySet<string>;
  private currentPhase: PeerPhase = 'stopped';
  private readonly lobbyList: LobbyList;
  private readonly invitationBox: InvitationBox;
  private announcer: Repeater | null = null;
  private inviting: Pending | null = null;
  private accepting: Pending | null = null;
  /** The running game, or the finished one while its result is shown. */
  private board: Board | null = null;
  private readonly trailing: Trailing;
  private readonly events: EventQueue<PeerEvent>;
  private recent: WireEntry[] = [];
  private readonly connLogs = new Map<string, Logger>();
  private readonly budget: TokenBuckets | null;
  private readonly floodWarn: RateLimitedWarn;

  constructor(private readonly o: PeerOptions) {
    if (!isValidOwnName(o.name))
      throw new RangeError(
        `a Connect Four name is 1–32 printable ASCII characters, got ${JSON.stringify(o.name)}`,
      );
    this.name = o.name;
    this.clienttype = o.clienttype ?? 0;
    this.timing = { ...DEFAULT_TIMING, ...o.timing };
    this.limits = { ...DEFAULT_LIMITS, ...o.limits };
    this.log = (o.log ?? silentLogger).child({ game: 'connect4' });
    // Every timer of the peer, its board, lobby and repeaters is an entry point: guarded.
    const base = o.clock ?? systemClock;
    this.clock = {
      now: () => base.now(),
      setTimeout: (fn, ms) => base.setTimeout(() => this.entry('timer', fn), ms),
      setInterval: (fn, ms) => base.setInterval(() => this.entry('timer', fn), ms),
    };
    const rate = this.limits.datagramsPerSecondPerHost;
    this.budget = rate > 0 ? new TokenBuckets(rate, 2 * rate, 10_000) : null;
    this.floodWarn = new RateLimitedWarn(this.log, 10_000, () => base.now());
    this.localAddresses = new Set(o.localAddresses ?? []);
    this.events = new EventQueue((error, event) =>
      this.log.error({ err: error, event: event.type }, 'peer event listener failed'),
    );
    this.trailing = new Trailing(this.clock, this.timing, (to, message) => this.send(to, message));
    this.lobbyList = new LobbyList(
      this.clock,
      this.timing.lobbyExpiryMs,
      () => this.run(() => this.emit({ type: 'lobby', peers: this.lobbyList.list() })),
      256,
      this.limits.lobbyEntriesPerHost,
    );
    this.invitationBox = new InvitationBox(
      this.clock,
      this.timing.invitationValidMs,
      (from) => this.run(() => this.emit({ type: 'invitation', from })),
      (from) => this.run(() => this.emit({ type: 'invitation-gone', from })),
      64,
      this.limits.invitationsPerHost,
    );
  }

  // ---- what a UI reads ----

  get phase(): PeerPhase {
    return this.currentPhase;
  }

  get localPort(): number {
    return this.o.localPort;
  }

  lobby(): RemotePeer[] {
    return this.lobbyList.list();
  }

  invitations(): RemotePeer[] {
    return this.invitationBox.active();
  }

  /** Whom we are inviting right now. */
  get invitee(): RemotePeer | null {
    return this.inviting?.to ?? null;
  }

  /** The running game, or the finished one while its result is shown. */
  get game(): (GameInfo & { state: C4State; opponentReady: boolean }) | null {
    const b = this.board;
    return b ? { ...b.info, state: b.state, opponentReady: b.opponentReady } : null;
  }

  on(listener: (event: PeerEvent) => void): () => void {
    return this.events.on(listener);
  }

  // ---- lifecycle ----

  start(): void {
    this.run(() => {
      if (this.currentPhase === 'stopped') this.enterLobby();
    });
  }

  /** Stops every timer. A running game gets one 99 (the process is going away, so no repeats). */
  stop(): void {
    this.run(() => {
      const b = this.board;
      if (b?.running) {
        b.stop();
        this.send(b.info.opponent, { kind: 'abort' });
        this.emit({ type: 'aborted', gameId: b.info.id, reason: 'stopped' });
        this.finishGame(b, { kind: 'aborted', reason: 'stopped' });
      }
      this.board = null;
      this.trailing.stop();
      this.announcer?.stop();
      this.announcer = null;
      this.cancelInvite();
      this.cancelAccepting();
      this.lobbyList.clear();
      this.invitationBox.clear();
      this.setPhase('stopped');
    });
  }

  // ---- commands ----

  /**
   * Invites a peer from the lobby list (by key) or any address. One invitation at a time: a new
   * one replaces the old.
   */
  invite(target: string | Address): Result<RemotePeer, CommandError> {
    return this.run(() => {
      if (this.currentPhase !== 'lobby')
        return err({ code: 'not-in-lobby', message: 'invitations are sent from the lobby' });
      const key = typeof target === 'string' ? target : addressKey(target);
      const to: RemotePeer | undefined =
        this.lobbyList.get(key) ??
        (typeof target === 'string'
          ? undefined
          : { key, address: target.address, port: target.port, name: null, clienttype: undefined });
      if (!to) return err({ code: 'unknown-peer', message: `no peer ${key} in the lobby` });
      this.cancelInvite();
      const sender = new Repeater(this.clock, this.timing.resendMs, () =>
        this.send(to, { kind: 'invitation', name: this.name }),
      );
      // Created before the sender's interval, so at the 10 s mark it fires first and no 6th copy goes.
      const deadline = this.clock.setTimeout(() => {
        this.run(() => {
          if (this.inviting?.sender !== sender) return;
          this.cancelInvite();
          this.emit({ type: 'invite-expired', to });
        });
      }, this.timing.inviteTimeoutMs);
      this.inviting = { to, sender, deadline };
      sender.start();
      return ok(to);
    });
  }

  cancelInvite(): void {
    const i = this.inviting;
    if (!i) return;
    i.sender.stop();
    i.deadline.cancel();
    this.inviting = null;
  }

  /** Accepts the invitation from `key` (default: the most recent one) and leaves the lobby. */
  accept(key?: string): Result<RemotePeer, CommandError> {
    return this.run(() => {
      if (this.currentPhase !== 'lobby')
        return err({ code: 'not-in-lobby', message: 'invitations are accepted in the lobby' });
      const from = key === undefined ? this.invitationBox.active()[0] : this.invitationBox.get(key);
      if (!from)
        return err({
          code: 'no-invitation',
          message: key === undefined ? 'no invitation to accept' : `no valid invitation from ${key}`,
        });
      this.leaveLobby();
      const sender = new Repeater(this.clock, this.timing.resendMs, () =>
        this.send(from, { kind: 'acceptance' }),
      );
      const deadline = this.clock.setTimeout(() => {
        this.run(() => {
          if (this.accepting?.sender !== sender) return;
          this.cancelAccepting();
          this.enterLobby();
          this.emit({ type: 'accept-expired', to: from });
        });
      }, this.timing.acceptTimeoutMs);
      this.accepting = { to: from, sender, deadline };
      this.setPhase('accepting');
      sender.start();
      return ok(from);
    });
  }

  /** Ignores an invitation (the protocol has no "no"; the inviter gives up after 10 s). */
  decline(key?: string): Result<RemotePeer, CommandError> {
    return this.run(() => {
      const from = key === undefined ? this.invitationBox.active()[0] : this.invitationBox.get(key);
      if (!from) return err({ code: 'no-invitation', message: 'no invitation to decline' });
      this.invitationBox.decline(from.key);
      return ok(from);
    });
  }

  /** Drops a column (1–7) on the board. */
  move(column: number): Result<C4State, CommandError> {
    return this.run(() => {
      const b = this.board;
      if (!b || this.currentPhase !== 'playing')
        return err({ code: 'not-playing', message: 'no game is running' });
      return b.move(column);
    });
  }

  /** Leaves what we are doing: aborts a running game (99), withdraws an acceptance or invitation, or leaves a result. */
  quit(): void {
    this.run(() => {
      switch (this.currentPhase) {
        case 'playing':
          if (this.board) this.abortGame(this.board, 'quit');
          break;
        case 'accepting':
          this.cancelAccepting();
          this.enterLobby();
          break;
        case 'ended':
          this.backToLobby();
          break;
        case 'lobby':
          this.cancelInvite();
          break;
        case 'stopped':
          break;
      }
    });
  }

  /** From the result back to stage 1 (a human chooses when; the AutoPlayer after the end window). */
  backToLobby(): void {
    this.run(() => {
      if (this.currentPhase !== 'ended') return;
      this.board = null;
      this.enterLobby();
    });
  }

  // ---- datagrams ----

  /** One datagram from the transport. Never throws. */
  receive(data: Buffer | string, from: Address): void {
    this.entry('datagram', () => this.handleDatagram(data, from));
  }

  /**
   * An exception in our own code (a datagram handler, a timer, a bot driving this peer): logged
   * with its stack; a running game is aborted (99 to the opponent, recorded with reason
   * `internal error`), an acceptance withdrawn, and the peer goes on in the lobby. With `gameId`,
   * the exception belongs to that game: if another one runs by now, it is left alone. Never throws.
   */
  internalError(error: unknown, where: string, gameId?: string): void {
    this.log.error({ err: error, where }, `Connect Four peer: internal error in ${where}`);
    if (gameId !== undefined && this.board?.info.id !== gameId) return;
    try {
      this.run(() => this.recover());
    } catch (error2) {
      this.log.error({ err: error2, where }, 'Connect Four peer: could not recover from an internal error');
      this.reset();
    }
  }

  private entry(where: string, fn: () => void): void {
    try {
      this.run(fn);
    } catch (error) {
      this.internalError(error, where);
    }
  }

  private recover(): void {
    const b = this.board;
    switch (this.currentPhase) {
      case 'playing':
        if (b?.running) this.abortGame(b, INTERNAL_ERROR);
        else {
          this.board = null;
          this.enterLobby();
        }
        break;
      case 'accepting':
        this.cancelAccepting();
        this.enterLobby();
        break;
      case 'ended':
      case 'lobby':
      case 'stopped':
        // The result stands (its end window goes on), or there is no game to end.
        break;
    }
  }

  /** The last resort when recovering failed too: every timer stopped, back to an empty lobby. */
  private reset(): void {
    const steps = [
      () => this.board?.stop(),
      () => {
        this.board = null;
      },
      () => this.trailing.stop(),
      () => this.cancelInvite(),
      () => this.cancelAccepting(),
      () => this.invitationBox.clear(),
      () => {
        if (this.currentPhase !== 'stopped') this.enterLobby();
      },
    ];
    for (const step of steps) {
      try {
        step();
      } catch (error) {
        this.log.error({ err: error }, 'Connect Four peer: reset step failed');
      }
    }
  }

  private handleDatagram(data: Buffer | string, from: Address): void {
    if (this.currentPhase === 'stopped' || this.isOwnEcho(from)) return;
    if (this.budget) {
      const host = hostOf(from.address);
      const dropped = this.budget.take(host, this.clock.now());
      if (dropped > 0) {
        this.floodWarn.warn(
          host,
          { host, limit: this.limits.datagramsPerSecondPerHost },
          'datagrams dropped: this host sends more than its budget',
        );
        return;
      }
    }
    const key = addressKey(from);
    const text = typeof data === 'string' ? data : data.subarray(0, SHOWN_BYTES).toString('utf8');
    const shown = text.length > SHOWN_BYTES ? text.slice(0, SHOWN_BYTES) + '…' : text;
    logWire(this.connLog(key), 'in', shown);
    const parsed = parseDatagram(data);
    if (!parsed.ok || parsed.value.kind !== 'announce') this.recordWire(key, 'in', shown);
    const b = this.board;
    const fromOpponent = b?.key === key && this.currentPhase === 'playing';
    if (!parsed.ok) {
      if (this.log.isLevelEnabled('debug'))
        this.connLog(key).debug({ error: parsed.error }, 'dropped datagram');
      // An unknown stage is still a version-2 message from the opponent: a sign of life.
      if (parsed.error.code === 'unknown-stage' && fromOpponent) b.alive();
      return;
    }
    const m = parsed.value;
    if (m.kind === 'announce') this.lobbyList.seen(this.remote(from, m.name, m.clienttype));
    switch (this.currentPhase) {
      case 'lobby':
        this.inLobby(m, from, key);
        break;
      case 'accepting':
        this.whileAccepting(m, key);
        break;
      case 'playing':
        // Only the opponent affects the game (specs §3.8); others' invitations go unanswered.
        if (fromOpponent) b.receive(m);
        break;
      case 'ended':
        // The former opponent's 4, 5 and 99 go unanswered; invitations are kept for later.
        if (m.kind === 'invitation') this.invitationBox.received(this.remote(from, m.name, m.clienttype));
        break;
    }
  }

  private inLobby(m: PeerMessage, from: Address, key: string): void {
    const invitee = this.inviting?.to;
    switch (m.kind) {
      case 'invitation':
        // Even from the peer we invite: a crossed invitation is not an acceptance (decision 2).
        this.invitationBox.received(this.remote(from, m.name, m.clienttype));
        break;
      case 'acceptance':
      case 'ready':
        // A stage 3 accepts too: A sends its acceptance only once (decision 3).
        if (invitee?.key === key) this.startGame(invitee, 0, m.kind === 'ready');
        break;
      case 'abort':
        this.trailing.acknowledged(key);
        break;
      default:
        break;
    }
  }

  private whileAccepting(m: PeerMessage, key: string): void {
    const inviter = this.accepting?.to;
    if (inviter?.key !== key) {
      if (m.kind === 'abort') this.trailing.acknowledged(key);
      return;
    }
    // A stage 4 with a high turn is a leftover of an earlier game with this peer, not a board start.
    const boardStart = m.kind === 'ready' || m.kind === 'keepalive' || (m.kind === 'move' && m.turn <= 0);
    if (!boardStart) return;
    const b = this.startGame(inviter, 1, true);
    if (m.kind === 'move') b.receive(m);
  }

  // ---- game life ----

  private startGame(opponent: RemotePeer, localPlayer: Player, opponentReady: boolean): Board {
    this.trailing.stop();
    this.leaveLobby();
    this.cancelAccepting();
    const now = this.clock.now();
    const since = now - this.timing.inviteTimeoutMs - this.timing.invitationValidMs;
    const info: GameInfo = {
      id: randomUUID(),
      opponent,
      localPlayer,
      firstPlayer: localPlayer === 0 ? 'local' : 'remote',
      startedAt: now,
    };
    const host: BoardHost = {
      clock: this.clock,
      timing: this.timing,
      send: (message) => this.send(opponent, message),
      emit: (event) => this.emit(event),
      ended: (board, how) => this.run(() => this.boardEnded(board, how)),
    };
    const wire = this.recent.filter((w) => w.conn === opponent.key && w.at >= since);
    const b = new Board(host, info, opponentReady, wire);
    this.board = b;
    this.setPhase('playing');
    this.emit({ type: 'game-started', game: info });
    b.start();
    return b;
  }

  private boardEnded(b: Board, how: BoardEnd): void {
    if (this.board !== b) return;
    switch (how.kind) {
      case 'result':
        this.startEndWindow(b, how.finalMove);
        break;
      case 'timeout':
        this.abortGame(b, how.reason);
        break;
      case 'opponent-aborted':
        this.acknowledgeAbort(b);
        break;
      case 'no-final-move':
        // The game ends without a result and without 99 (specs §3.6).
        this.board = null;
        this.enterLobby();
        this.emit({ type: 'aborted', gameId: b.info.id, reason: 'no-final-move' });
        this.finishGame(b, { kind: 'aborted', reason: 'no-final-move' });
        break;
    }
  }

  /** A four or a full board on our own board: stage 5 ≤ 5 times, our final move alongside (decision 8). */
  private startEndWindow(b: Board, finalMove: Repeater | null): void {
    const st = status(b.state);
    if (st.kind === 'running') return;
    this.setPhase('ended');
    this.trailing.startEndWindow(b.info.id, b.info.opponent, finalMove, () =>
      this.run(() => this.emit({ type: 'end-window-closed', gameId: b.info.id })),
    );
    const outcome = st.kind === 'drawn' ? 'drawn' : st.winner === b.info.localPlayer ? 'won' : 'lost';
    const winner = st.kind === 'won' ? st.winner : null;
    const line = st.kind === 'won' ? st.line : [];
    this.emit({ type: 'game-over', gameId: b.info.id, outcome, winner, line, state: b.state });
    this.finishGame(b, { kind: outcome, winner, line });
  }

  /** Silence, move timeout or a local quit: back to stage 1, 99 every 2 s until acknowledged (≤ 30). */
  private abortGame(b: Board, reason: AbortReason): void {
    b.stop();
    this.board = null;
    this.enterLobby();
    this.trailing.startAbort(b.key, b.info.opponent);
    this.emit({ type: 'aborted', gameId: b.info.id, reason });
    this.finishGame(b, { kind: 'aborted', reason });
  }

  /** The opponent aborted: back to stage 1, and 99 back to it exactly 10 times. */
  private acknowledgeAbort(b: Board): void {
    this.board = null;
    this.enterLobby();
    this.trailing.startAcknowledgement(b.info.opponent);
    this.emit({ type: 'aborted', gameId: b.info.id, reason: 'opponent-aborted' });
    this.finishGame(b, { kind: 'aborted', reason: 'opponent-aborted' });
  }

  private finishGame(b: Board, end: GameEnd): void {
    const hook = this.o.onGameFinished;
    if (!hook) return;
    try {
      hook(
        b.record(end, this.clock.now(), {
          name: this.name,
          player: b.info.localPlayer,
          clienttype: this.clienttype,
        }),
      );
    } catch (error) {
      this.log.error({ err: error }, 'onGameFinished failed');
    }
  }

  // ---- lobby ----

  private enterLobby(): void {
    this.setPhase('lobby');
    this.announcer?.stop();
    this.announcer = new Repeater(this.clock, this.timing.resendMs, () => {
      for (const to of this.o.announceTo) this.send(to, { kind: 'announce', name: this.name });
    }).start();
  }

  /** On accepting or being accepted: stop stage 1 and drop the other invitations (specs §3.3). */
  private leaveLobby(): void {
    this.announcer?.stop();
    this.announcer = null;
    this.cancelInvite();
    this.invitationBox.clear();
  }

  private cancelAccepting(): void {
    const a = this.accepting;
    if (!a) return;
    a.sender.stop();
    a.deadline.cancel();
    this.accepting = null;
  }

  // ---- plumbing ----

  private remote(from: Address, rawName: string | null, clienttype: unknown): RemotePeer {
    return {
      key: addressKey(from),
      address: from.address,
      port: from.port,
      name: rawName === null ? null : displayName(rawName),
      clienttype,
    };
  }

  /** Our own broadcast comes back to our socket: same port, and an address of ours (never judged by name). */
  private isOwnEcho(from: Address): boolean {
    return (
      from.port === this.o.localPort &&
      (from.address.startsWith('127.') || this.localAddresses.has(from.address))
    );
  }

  private send(to: Address, message: OutgoingMessage): void {
    const line = formatMessage(message, this.clienttype);
    const key = addressKey(to);
    logWire(this.connLog(key), 'out', line);
    if (message.kind !== 'announce') this.recordWire(key, 'out', line);
    try {
      this.o.send(to, line);
    } catch (error) {
      this.log.warn({ err: error, to: key }, 'send failed');
    }
  }

  /** Keeps the recent exchanges (a game's log starts with its invitation) and the running game's log. */
  private recordWire(conn: string, dir: 'in' | 'out', data: string): void {
    const entry: WireEntry = { at: this.clock.now(), dir, conn, data };
    this.recent.push(entry);
    if (this.recent.length > RECENT_WIRE * 2) this.recent = this.recent.slice(-RECENT_WIRE);
    const b = this.board;
    if (b?.key === conn) b.addWire(entry);
  }

  private connLog(key: string): Logger {
    let log = this.connLogs.get(key);
    if (!log) {
      if (this.connLogs.size > 1000) this.connLogs.clear();
      log = connectionLogger(this.o.log ?? silentLogger, { game: 'connect4', conn: key });
      this.connLogs.set(key, log);
    }
    return log;
  }

  private setPhase(phase: PeerPhase): void {
    if (this.currentPhase === phase) return;
    this.currentPhase = phase;
    this.emit({ type: 'phase', phase });
  }

  private emit(event: PeerEvent): void {
    this.events.emit(event);
  }

  private run<T>(fn: () => T): T {
    return this.events.run(fn);
  }
}
