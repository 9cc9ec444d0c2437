import type { Clock, Timer } from '../../core/clock.js';
import { INTERNAL_ERROR } from '../../core/guard.js';
import type { Logger } from '../../core/log.js';
import { matchesTotal } from '../../core/metrics.js';
import type { Records } from '../../core/record-backend.js';
import type { DameMoveSource } from './engine-pool.js';
import { boardLines, formatMove, interpretPlay, squareName } from './notation.js';
import type { ClientLine, ProtocolFault, Seat } from './protocol.js';
import { apply, forfeit, legalMoves, type DameState, type ForfeitReason, type SingleMove } from './rules.js';
import { cancelTimers, gameOverGroup, newSeat, openSeat, playersGroup, seatRow, type SeatPeer, type SeatState } from './seat.js';
import type { DameGameRow, DameGameStatus, DameResultRow } from './snapshot.js';

export type { SeatPeer } from './seat.js';

/**
 * One Dame game: its state, its two seats and their timers (spec §2.3). It never sees a socket:
 * a seated connection is a `SeatPeer` that sends groups and errors, and hands parsed lines back.
 * Strict request/response: a seat is only ever sent a new group when it owes no answer, except an
 * error line, and the GAMEOVER block once the game is over.
 */

export interface MatchTiming {
  /** Idle time before `+ WAIT`, and between OKWAIT and the next WAIT. */
  waitIdleMs: number;
  okwaitTimeoutMs: number;
  /** Added to the MOVE time for THINKING and PLAY to arrive. */
  graceMs: number;
}

export interface MatchOptions {
  id: string;
  name: string;
  moveTimeMs: number;
  /** Think time of an engine seat per single move. */
  engineTimeMs: number;
  engineSeat: Seat | null;
  start: DameState;
  timing: MatchTiming;
  clock: Clock;
  log: Logger;
  store: Records | null;
  engine: DameMoveSource | null;
  publish: (type: string, data: unknown) => void;
  onEnded?: (match: Match) => void;
  /** The IP whose `ID` created this game (auto-create); null for games created by the API. */
  creatorHost?: string | null;
  /** A game not started this long after a client's seat (or its creation by `ID`) is closed; 0: never. */
  idleSeatTimeoutMs?: number;
  /** The game was closed for want of an opponent (see `idleSeatTimeoutMs`). */
  onIdleClosed?: (match: Match) => void;
  /** The seats' names (default `White Player`, `Black Player`). */
  seatNames?: readonly [string, string];
  /** The record's seed and extra meta (tournaments). */
  seed?: string | number;
  meta?: Readonly<Record<string, unknown>>;
  /** Whether the connection from `address` may take `seat` (CreateGameOptions.seatOwner). */
  seatOwner?: (seat: Seat, address: string) => boolean;
}

const GAME = 'dame';
const SHOWN = 200;

const seatOfSide = (state: DameState): Seat => (state.toMove === 'white' ? 0 : 1);
const sideOfSeat = (seat: Seat): 'white' | 'black' => (seat === 0 ? 'white' : 'black');
const shorten = (text: string): string => (text.length > SHOWN ? text.slice(0, SHOWN) + '…' : text);

export class Match {
  readonly id: string;
  readonly name: string;
  readonly createdAt: number;
  readonly moveTimeMs: number;
  private state: DameState;
  private phase: DameGameStatus = 'waiting';
  private readonly seats: [SeatState, SeatState];
  private recordId: string | null = null;
  /** Seat claims refused before the record began (written into it at the start). */
  private readonly refusedClaims: { at: number; seat: Seat; address: string }[] = [];
  private startedAt: number | null = null;
  private endedAt: number | null = null;
  private result: DameResultRow | null = null;
  private readonly log: Logger;
  /** Fires when the game has waited too long for its seats (`idleSeatTimeoutMs`). */
  private idle: Timer | null = null;
  /** Closed before it started (no opponent came, or dropped from the table): takes nobody. */
  private discarded = false;
  readonly creatorHost: string | null;

  constructor(private readonly o: MatchOptions) {
    this.id = o.id;
    this.name = o.name;
    this.moveTimeMs = o.moveTimeMs;
    this.createdAt = o.clock.now();
    this.state = o.start;
    this.log = o.log.child({ gameId: o.id });
    this.seats = [newSeat(0, o.engineSeat === 0, o.seatNames?.[0]), newSeat(1, o.engineSeat === 1, o.seatNames?.[1])];
    this.creatorHost = o.creatorHost ?? null;
    if (this.creatorHost !== null) this.armIdle();
  }

  get status(): DameGameStatus {
    return this.phase;
  }

  get matchId(): string | null {
    return this.recordId;
  }

  /** True while nobody (no client) sits in it: a waiting game that may be dropped. */
  get empty(): boolean {
    return this.seats.every((s) => s.kind !== 'client');
  }

  /**
   * A waiting game that `host` created with its `ID`: what counts against its share. (Seats do not
   * count: the house games' and the dashboard players' clients all sit in games from loopback.)
   */
  heldBy(host: string): boolean {
    return this.creatorHost === host && this.phase === 'waiting' && !this.discarded;
  }

  /** The game leaves the table before it started: its timer stops and nobody can join it any more. */
  discard(): void {
    this.discarded = true;
    this.idle?.cancel();
    this.idle = null;
  }

  /**
   * A bug outside the match's own handlers (e.g. in a seated connection) ends this game: every
   * seat gets the internal-error line, a started game is recorded aborted with `internal error`.
   */
  abort(err: unknown): void {
    this.guard(undefined, () => {
      throw err;
    });
  }

  // ---- from connections ------------------------------------------------------------------------

  /**
   * `PLAYER [n]`: the seat taken, or null for `- No free player`. A game that has ended answers
   * any seat 0 or 1 with the player list and the GAMEOVER block, then closes.
   */
  join(peer: SeatPeer, request: number | null): Seat | null {
    return this.guard(null, () => {
      if (this.discarded) return null;
      if (this.phase === 'over') {
        const seat = request ?? 0;
        if (seat !== 0 && seat !== 1) return null;
        peer.send(playersGroup(this.seats, seat));
        if (this.recordId !== null) peer.attachRecord(this.recordId);
        peer.send(gameOverGroup(this.state));
        peer.close();
        return seat;
      }
      const free = (n: number): n is Seat => (n === 0 || n === 1) && this.seats[n].kind === 'open';
      const owner = this.o.seatOwner;
      const mine = (n: Seat): boolean => owner === undefined || owner(n, peer.address);
      const seat = request === null ? ([0, 1] as const).find((n) => free(n) && mine(n)) : free(request) ? request : undefined;
      if (seat === undefined) return null;
      if (!mine(seat)) {
        // Somebody else's seat (an entrant that learnt its opponent's player number): refused,
        // as a taken seat is, and kept for the record.
        this.refuseClaim(seat, peer.address);
        return null;
      }
      const s = this.take(peer, seat);
      peer.send(playersGroup(this.seats, seat));
      if (this.seats.every((x) => x.kind !== 'open')) this.start();
      else {
        this.armIdle();
        this.goIdle(s);
      }
      return seat;
    });
  }

  /**
   * Both seats' connections at once (the ladder made the game for them): each player list shows
   * the other as connected, and the game starts. The seats must be open and theirs (seatOwner).
   * False when one is not (nobody is seated then).
   */
  joinTogether(peers: readonly { peer: SeatPeer; seat: Seat }[]): boolean {
    return this.guard(false, () => {
      if (this.discarded || this.phase !== 'waiting') return false;
      const owner = this.o.seatOwner;
      if (peers.some(({ peer, seat }) => this.seats[seat].kind !== 'open' || (owner !== undefined && !owner(seat, peer.address)))) return false;
      for (const { peer, seat } of peers) this.take(peer, seat);
      for (const { peer, seat } of peers) peer.send(playersGroup(this.seats, seat));
      if (this.seats.every((x) => x.kind !== 'open')) this.start();
      return true;
    });
  }

  private take(peer: SeatPeer, seat: Seat): SeatState {
    const s = this.seats[seat];
    s.kind = 'client';
    s.peer = peer;
    s.address = peer.address;
    s.expecting = 'nothing';
    s.failed = false;
    this.log.info({ seat, conn: peer.conn }, 'seat taken');
    this.o.publish('seatTaken', { gameId: this.id, seat, name: s.name, address: peer.address });
    return s;
  }

  /** A line from the client on `seat` (already parsed; `raw` for the record). */
  receive(seat: Seat, peer: SeatPeer, line: ClientLine, raw: string): void {
    this.guard(undefined, () => {
      const s = this.seats[seat];
      if (s.peer !== peer || s.failed) return;
      if (this.phase === 'over') {
        // The game ended while this seat owed an OKWAIT: the OKWAIT releases the GAMEOVER block.
        if (s.gameOverOwed && line.type === 'OKWAIT') this.sendGameOver(s);
        return;
      }
      switch (s.expecting) {
        case 'OKWAIT':
          if (line.type === 'OKWAIT') this.onOkWait(s);
          else this.protocolError(s, { code: 'expected', command: 'OKWAIT' }, raw);
          return;
        case 'THINKING':
          if (line.type === 'THINKING') {
            s.expecting = 'PLAY';
            peer.send({ type: 'okThink' });
          } else this.protocolError(s, { code: 'expected', command: 'THINKING' }, raw);
          return;
        case 'PLAY':
          if (line.type === 'PLAY') this.onPlay(s, peer, line.command);
          else this.protocolError(s, { code: 'expected', command: 'PLAY' }, raw);
          return;
        case 'nothing':
          this.protocolError(s, { code: 'unexpected' }, raw);
          return;
      }
    });
  }

  /** The client's connection is gone (closed by either side). */
  disconnected(seat: Seat, peer: SeatPeer): void {
    this.guard(undefined, () => {
      const s = this.seats[seat];
      if (s.peer !== peer) return;
      s.peer = null;
      cancelTimers(s);
      if (s.failed || this.phase === 'over') return;
      this.log.info({ seat, conn: peer.conn }, 'client disconnected');
      if (this.phase === 'waiting') this.freeSeat(s);
      else this.forfeitBy(s, 'disconnect', 'disconnect');
    });
  }

  /**
   * Ends the game from outside (a tournament's match that nobody joined or that was cut off): a
   * running game is recorded aborted with `reason`; a waiting one takes nobody any more. Seated
   * clients are disconnected without a line (the protocol has none for it).
   */
  close(reason: string): void {
    this.guard(undefined, () => {
      const peers = this.seats.map((s) => s.peer);
      if (this.phase === 'running') this.end(null, reason, 'aborted');
      else if (this.phase === 'waiting') {
        this.discard();
        this.phase = 'over';
        for (const s of this.seats) cancelTimers(s);
      }
      for (const peer of peers) peer?.close();
    });
  }

  /** Server stop: a running game is recorded as aborted; connections are closed by the server. */
  stop(): void {
    this.idle?.cancel();
    this.idle = null;
    for (const s of this.seats) cancelTimers(s);
    if (this.phase === 'over') return;
    if (this.phase === 'running') this.end(null, 'server stopped', 'aborted');
    else this.phase = 'over';
  }

  // ---- the game cycle ---------------------------------------------------------------------------

  private start(): void {
    this.idle?.cancel();
    this.idle = null;
    const now = this.o.clock.now();
    this.phase = 'running';
    this.startedAt = now;
    this.recordId =
      this.o.store?.startMatch({
        game: GAME,
        startedAt: now,
        ...(this.o.seed !== undefined ? { seed: this.o.seed } : {}),
        seats: this.seats.map((s) => ({ seat: s.seat, name: s.name, kind: s.kind, address: s.address ?? undefined })),
        // A house table's game (house.ts): retention takes it first (issue 37).
        house: typeof (this.o.meta as { house?: unknown } | undefined)?.house === 'object',
        meta: { ...this.o.meta, gameId: this.id, gameName: this.name, moveTimeMs: this.moveTimeMs, board: boardLines(this.state), toMove: this.state.toMove },
      }) ?? null;
    for (const s of this.seats) if (this.recordId !== null) s.peer?.attachRecord(this.recordId);
    for (const claim of this.refusedClaims.splice(0)) this.recordRefusal(claim);
    this.log.info({ matchId: this.recordId }, 'game started');
    this.o.publish('gameStarted', { gameId: this.id, matchId: this.recordId });
    if (this.state.result !== null) {
      this.end(this.state, this.state.result.reason, 'finished');
      return;
    }
    const mover = seatOfSide(this.state);
    for (const s of this.seats) if (s.kind === 'client' && s.seat !== mover && s.expecting === 'nothing' && s.idle === null) this.goIdle(s);
    this.nextTurn();
  }

  private nextTurn(): void {
    const s = this.seats[seatOfSide(this.state)];
    if (s.kind === 'engine') this.engineMove();
    else this.requestMove(s);
  }

  /** (Re)starts the wait for the game to start: each client that takes a seat gets the full time. */
  private armIdle(): void {
    const ms = this.o.idleSeatTimeoutMs ?? 0;
    if (ms <= 0 || this.phase !== 'waiting') return;
    this.idle?.cancel();
    this.idle = this.o.clock.setTimeout(() => this.guard(undefined, () => this.closeIdle()), ms);
  }

  /**
   * Nobody came to play: the seated clients are disconnected (the protocol has no line for this,
   * so the connection just ends after what was already queued), their seats are freed, and a game
   * created by a client's `ID` leaves the table. Nothing is recorded: the game never started.
   */
  private closeIdle(): void {
    this.idle = null;
    if (this.phase !== 'waiting' || this.discarded) return;
    const waiting = this.seats.filter((s) => s.kind === 'client');
    this.log.info({ seats: waiting.map((s) => ({ seat: s.seat, conn: s.peer?.conn ?? null })), idleMs: this.o.idleSeatTimeoutMs }, 'no opponent came: closing the game');
    for (const s of waiting) {
      const peer = s.peer;
      this.freeSeat(s);
      peer?.close();
    }
    if (this.creatorHost !== null) {
      this.discard();
      this.o.publish('gameClosed', { gameId: this.id, reason: 'idle' });
      this.o.onIdleClosed?.(this);
    }
  }

  private goIdle(s: SeatState): void {
    cancelTimers(s);
    s.expecting = 'nothing';
    s.idle = this.o.clock.setTimeout(() => this.guard(undefined, () => this.sendWait(s)), this.o.timing.waitIdleMs);
  }

  private sendWait(s: SeatState): void {
    s.idle = null;
    const peer = s.peer;
    if (!peer || this.phase === 'over') return;
    s.expecting = 'OKWAIT';
    peer.send({ type: 'wait' }, () => this.armAnswer(s, this.o.timing.okwaitTimeoutMs));
  }

  private onOkWait(s: SeatState): void {
    cancelTimers(s);
    s.expecting = 'nothing';
    if (s.moveOwed) this.requestMove(s);
    else this.goIdle(s);
  }

  private requestMove(s: SeatState): void {
    const peer = s.peer;
    if (!peer) return;
    if (s.expecting === 'OKWAIT') {
      s.moveOwed = true;
      return;
    }
    cancelTimers(s);
    s.moveOwed = false;
    s.expecting = 'THINKING';
    peer.send({ type: 'move', timeMs: this.moveTimeMs, board: this.state }, () =>
      this.armAnswer(s, this.moveTimeMs + this.o.timing.graceMs),
    );
  }

  private armAnswer(s: SeatState, ms: number): void {
    s.answer?.cancel();
    s.answer = this.o.clock.setTimeout(() => this.guard(undefined, () => this.onTimeout(s)), ms);
  }

  private onTimeout(s: SeatState): void {
    s.answer = null;
    if (this.phase === 'over') {
      // The game ended while this seat owed an OKWAIT that never came: the result still goes out.
      if (s.gameOverOwed) this.sendGameOver(s);
      return;
    }
    const peer = s.peer;
    if (!peer) return;
    this.log.info({ seat: s.seat, expecting: s.expecting }, 'timeout');
    s.failed = true;
    peer.fail({ code: 'timeout' });
    if (this.phase === 'waiting') this.freeSeat(s);
    else this.forfeitBy(s, 'timeout', 'timeout');
  }

  private onPlay(s: SeatState, peer: SeatPeer, command: string): void {
    cancelTimers(s);
    const outcome = interpretPlay(this.state, command);
    if (!outcome.ok) {
      const reason = outcome.error.reason;
      this.log.info({ seat: s.seat, command: shorten(command), reason }, 'invalid move');
      s.failed = true;
      peer.fail({ code: 'invalid-move', reason });
      this.forfeitBy(s, 'invalid-move', `invalid-move: ${reason}`);
      return;
    }
    for (const move of outcome.value.applied) this.recordMove(s.seat, move, command);
    this.state = outcome.value.state;
    this.publishMoves(s.seat, outcome.value.applied);
    s.expecting = 'nothing';
    peer.send({ type: 'moveOk' });
    if (this.state.result !== null) this.end(this.state, this.state.result.reason, 'finished');
    else if (outcome.value.followUpOwed) this.requestMove(s);
    else {
      this.goIdle(s);
      this.nextTurn();
    }
  }

  private engineMove(): void {
    const plies = this.state.plies;
    const engine = this.o.engine;
    const fallback = (why: unknown): void => {
      // A game the server stopped meanwhile needs no move (its engine is closed on purpose).
      if (this.phase !== 'running') return;
      this.log.error({ err: why }, 'engine failed: playing a legal move instead');
      const move = legalMoves(this.state)[0];
      if (move) this.engineMoved(plies, move);
    };
    if (!engine) {
      fallback(new Error('no engine configured'));
      return;
    }
    engine.choose(this.state, this.o.engineTimeMs, `${this.id}:${plies}`).then(
      (move) => this.guard(undefined, () => this.engineMoved(plies, move)),
      (error: unknown) => this.guard(undefined, () => fallback(error)),
    );
  }

  private engineMoved(plies: number, move: SingleMove): void {
    if (this.phase !== 'running' || this.state.plies !== plies) return;
    const seat = seatOfSide(this.state);
    let next = apply(this.state, move);
    if (!next.ok) {
      this.log.error({ move: formatMove(move), error: next.error }, 'engine move rejected: playing a legal move instead');
      next = apply(this.state, legalMoves(this.state)[0]!);
      if (!next.ok) throw new Error(`no legal move applies: ${next.error.message}`);
    }
    const played = next.value.lastMove ?? move;
    this.recordMove(seat, played, null);
    this.state = next.value;
    this.publishMoves(seat, [played]);
    if (this.state.result !== null) this.end(this.state, this.state.result.reason, 'finished');
    else this.nextTurn();
  }

  private protocolError(s: SeatState, fault: ProtocolFault, raw: string): void {
    const peer = s.peer;
    if (!peer) return;
    this.log.info({ seat: s.seat, line: shorten(raw), expecting: s.expecting }, 'protocol error');
    s.failed = true;
    peer.fail(fault);
    if (this.phase === 'waiting') this.freeSeat(s);
    else this.forfeitBy(s, 'protocol-error', `protocol-error: ${shorten(raw)}`);
  }

  private freeSeat(s: SeatState): void {
    openSeat(s);
    this.log.info({ seat: s.seat }, 'seat freed');
    this.o.publish('seatFreed', { gameId: this.id, seat: s.seat });
  }

  private forfeitBy(s: SeatState, code: ForfeitReason, reason: string): void {
    this.end(forfeit(this.state, sideOfSeat(s.seat), code), reason, 'finished');
  }

  /** Ends the game: the record, the event, and GAMEOVER to every seat still in good standing. */
  private end(final: DameState | null, reason: string, status: 'finished' | 'aborted'): void {
    if (this.phase === 'over') return;
    this.phase = 'over';
    this.idle?.cancel();
    this.idle = null;
    const now = this.o.clock.now();
    this.endedAt = now;
    if (final) this.state = final;
    const r = final?.result;
    const winner: Seat | null = r?.kind === 'won' ? (r.winner === 'white' ? 0 : 1) : null;
    this.result = { winner, reason };
    if (this.recordId !== null) {
      this.o.store?.finishMatch(this.recordId, {
        status,
        endedAt: now,
        result: { winner, draw: r?.kind === 'drawn', reason, plies: this.state.plies, board: boardLines(this.state), gameId: this.id },
      });
    }
    matchesTotal.inc({ game: GAME, status });
    this.log.info({ winner, reason, plies: this.state.plies }, 'game over');
    this.o.publish('gameOver', { gameId: this.id, winner, reason, board: boardLines(this.state) });
    for (const s of this.seats) {
      s.idle?.cancel();
      s.idle = null;
      if (!s.peer || s.failed || status === 'aborted') {
        cancelTimers(s);
        continue;
      }
      if (s.expecting === 'OKWAIT' && s.answer !== null) s.gameOverOwed = true;
      else this.sendGameOver(s);
    }
    this.o.onEnded?.(this);
  }

  private sendGameOver(s: SeatState): void {
    cancelTimers(s);
    s.gameOverOwed = false;
    s.expecting = 'nothing';
    const peer = s.peer;
    if (!peer) return;
    peer.send(gameOverGroup(this.state));
    peer.close();
  }

  /** A claim of a seat by a connection that is not the seat's own (seatOwner). */
  private refuseClaim(seat: Seat, address: string): void {
    const claim = { at: this.o.clock.now(), seat, address };
    this.log.warn({ seat, conn: address }, 'seat claim refused: not this seat\'s own connection');
    this.o.publish('seatRefused', { gameId: this.id, seat, address });
    if (this.recordId === null) {
      if (this.refusedClaims.length < 20) this.refusedClaims.push(claim);
    } else this.recordRefusal(claim);
  }

  private recordRefusal(claim: { at: number; seat: Seat; address: string }): void {
    if (this.recordId === null) return;
    this.o.store?.addEvent(this.recordId, { at: claim.at, seat: claim.seat, type: 'seat-refused', data: { address: claim.address } });
  }

  /** One event per single move, so a replay sees exactly what the rules applied. */
  private recordMove(seat: Seat, move: SingleMove, command: string | null): void {
    if (this.recordId === null) return;
    this.o.store?.addEvent(this.recordId, {
      at: this.o.clock.now(),
      seat,
      type: 'move',
      data: {
        move: formatMove(move),
        captured: move.captured === null ? null : squareName(move.captured),
        promotes: move.promotes,
        ...(command === null ? { by: 'engine' } : { command: shorten(command) }),
      },
    });
  }

  private publishMoves(seat: Seat, moves: readonly SingleMove[]): void {
    this.o.publish('move', {
      gameId: this.id,
      seat,
      moves: moves.map(formatMove),
      board: boardLines(this.state),
      toMove: this.state.result === null ? seatOfSide(this.state) : null,
      mustContinue: this.state.mustContinue,
    });
  }

  /** A bug must end this game only: everybody gets the internal-error line, the record says why. */
  private guard<T>(fallback: T, fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      this.log.error({ err }, 'match failed: internal error');
      for (const s of this.seats) {
        cancelTimers(s);
        if (s.peer && !s.failed) {
          s.failed = true;
          s.peer.fail({ code: 'internal' });
        }
      }
      if (this.phase !== 'over') this.end(null, INTERNAL_ERROR, 'aborted');
      return fallback;
    }
  }

  // ---- groups and views -------------------------------------------------------------------------

  /** The public view of this game for the dashboard. */
  row(): DameGameRow {
    const last = this.state.lastMove;
    return {
      id: this.id,
      name: this.name,
      createdAt: this.createdAt,
      startedAt: this.startedAt,
      endedAt: this.endedAt,
      status: this.phase,
      moveTimeMs: this.moveTimeMs,
      seats: [seatRow(this.seats[0]), seatRow(this.seats[1])],
      toMove: this.phase === 'running' ? seatOfSide(this.state) : null,
      mustContinue: this.phase === 'running' && this.state.mustContinue,
      board: boardLines(this.state),
      plies: this.state.plies,
      lastMove: last ? formatMove(last) : null,
      result: this.result ? { ...this.result } : null,
      matchId: this.recordId,
    };
  }
}
