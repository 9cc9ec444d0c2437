import type { Clock, Timer } from '../../../core/clock.js';
import { err, ok, type Result } from '../../../core/result.js';
import type { OutgoingMessage, PeerMessage } from '../protocol.js';
import { apply, initialState, status, type C4State, type Player } from '../rules.js';
import { Repeater } from './repeater.js';
import type {
  AbortReason,
  BadMoveReason,
  C4GameRecord,
  CommandError,
  GameInfo,
  PeerEvent,
  PeerTiming,
  WireEntry,
} from './types.js';

/**
 * One game on the board (specs §3.4–§3.6), from board start until the game is decided or must be
 * aborted: readiness, our moves and their keepalive, the rules for a new move from the opponent,
 * and the silence, move and final-move timers. It decides nothing about the lobby or what goes out
 * after the game; it tells its host how the game ended and the host takes it from there.
 */

export type BoardEnd =
  /** A four or a full board; `finalMove` is our repeating final move if we made it (the end window keeps it). */
  | { kind: 'result'; finalMove: Repeater | null }
  | { kind: 'timeout'; reason: 'silence' | 'move-timeout' }
  | { kind: 'opponent-aborted' }
  | { kind: 'no-final-move' };

export interface BoardHost {
  readonly clock: Clock;
  readonly timing: PeerTiming;
  /** Sends to the opponent. */
  send(message: OutgoingMessage): void;
  emit(event: PeerEvent): void;
  /** Called once: the board is over. The board has stopped its own timers already. */
  ended(board: Board, how: BoardEnd): void;
}

export type GameEnd =
  | { kind: 'won' | 'lost' | 'drawn'; winner: Player | null; line: readonly (readonly [number, number])[] }
  | { kind: 'aborted'; reason: AbortReason };

const MAX_WIRE = 5000;
const MAX_REPORTED = 256;

export class Board {
  private current: C4State = initialState();
  private ready: boolean;
  /** The opponent's last accepted `turn` (−1 before its first move). */
  private lastAcceptedTurn = -1;
  /** The move count at which we last said "your turn", so it is said once per move. */
  private turnAnnouncedAt = -1;
  private readySender: Repeater | null = null;
  private keepalive: Repeater | null = null;
  private silence: Timer | null = null;
  private moveTimer: Timer | null = null;
  private finalMoveWait: Timer | null = null;
  private over = false;
  private readonly reported = new Set<string>();
  private readonly moveTimes: number[] = [];
  readonly wire: WireEntry[];

  constructor(
    private readonly host: BoardHost,
    readonly info: GameInfo,
    opponentReady: boolean,
    wire: readonly WireEntry[],
  ) {
    this.ready = opponentReady;
    this.wire = [...wire];
  }

  get state(): C4State {
    return this.current;
  }

  get opponentReady(): boolean {
    return this.ready;
  }

  get key(): string {
    return this.info.opponent.key;
  }

  get running(): boolean {
    return !this.over;
  }

  /** Board start: stage 3 until our first move, the silence timer, and for the second player the move timer. */
  start(): void {
    this.readySender = new Repeater(this.host.clock, this.host.timing.resendMs, () =>
      this.host.send({ kind: 'ready' }),
    ).start();
    this.alive();
    if (this.info.localPlayer === 1) this.restartMoveTimer();
    this.announceTurn();
  }

  addWire(entry: WireEntry): void {
    if (this.wire.length < MAX_WIRE) this.wire.push(entry);
  }

  /** Any packet from the opponent: the 10 s silence timer starts again. */
  alive(): void {
    if (this.over || this.finalMoveWait !== null) return;
    this.silence?.cancel();
    this.silence = this.host.clock.setTimeout(
      () => this.end({ kind: 'timeout', reason: 'silence' }),
      this.host.timing.silenceMs,
    );
  }

  /** A parsed message from the opponent. */
  receive(m: PeerMessage): void {
    if (this.over) return;
    this.alive();
    switch (m.kind) {
      case 'ready':
      case 'keepalive':
        this.markReady();
        break;
      case 'move':
        this.markReady();
        this.opponentMove(m.turn, m.column);
        break;
      case 'game-over':
        // Its board says the game is over, ours does not: its final move was lost on the way.
        if (this.finalMoveWait === null) {
          this.silence?.cancel();
          this.moveTimer?.cancel();
          this.finalMoveWait = this.host.clock.setTimeout(
            () => this.end({ kind: 'no-final-move' }),
            this.host.timing.finalMoveWaitMs,
          );
        }
        break;
      case 'abort':
        this.end({ kind: 'opponent-aborted' });
        break;
      default:
        break;
    }
  }

  /** Our move. */
  move(column: number): Result<C4State, CommandError> {
    const st = status(this.current);
    if (this.over || st.kind !== 'running') return err({ code: 'not-playing', message: 'the game is over' });
    if (st.toMove !== this.info.localPlayer)
      return err({ code: 'not-your-turn', message: 'it is not your turn' });
    if (this.current.moves.length === 0 && !this.ready)
      return err({ code: 'opponent-not-ready', message: 'the opponent has not shown that it is ready yet' });
    const next = apply(this.current, column);
    if (!next.ok) return next;
    const turn = this.current.moves.length;
    this.current = next.value;
    this.moveTimes.push(this.host.clock.now());
    this.readySender?.stop();
    this.readySender = null;
    this.keepalive?.stop();
    this.keepalive = new Repeater(this.host.clock, this.host.timing.resendMs, () =>
      this.host.send({ kind: 'move', turn, column }),
    ).start();
    this.host.emit({ type: 'moved', gameId: this.info.id, by: 'local', column, turn, state: this.current });
    if (!this.decided()) this.restartMoveTimer();
    return ok(this.current);
  }

  /** Stops every timer and repeat of the board (the final move, if we made it, is handed over first). */
  stop(): void {
    this.over = true;
    this.readySender?.stop();
    this.readySender = null;
    this.keepalive?.stop();
    this.keepalive = null;
    for (const t of [this.silence, this.moveTimer, this.finalMoveWait]) t?.cancel();
    this.silence = this.moveTimer = this.finalMoveWait = null;
  }

  /**
   * The repeating final move, if we made it: it goes on in the end window, at most `total` copies
   * in all (specs §3.6). The board no longer stops it.
   */
  private takeFinalMove(total: number): Repeater | null {
    const n = this.current.moves.length;
    if (n === 0 || ((n - 1) & 1) !== this.info.localPlayer || !this.keepalive) return null;
    const finalMove = this.keepalive;
    this.keepalive = null;
    finalMove.setLimit(total);
    return finalMove;
  }

  record(end: GameEnd, endedAt: number, local: C4GameRecord['local']): C4GameRecord {
    const { info } = this;
    return {
      id: info.id,
      startedAt: info.startedAt,
      endedAt,
      local,
      opponent: {
        name: info.opponent.name,
        address: info.opponent.address,
        port: info.opponent.port,
        clienttype: info.opponent.clienttype,
      },
      firstPlayer: info.firstPlayer,
      moves: [...this.current.moves],
      moveTimes: [...this.moveTimes],
      outcome: end.kind,
      winner: end.kind === 'aborted' ? null : end.winner,
      line: end.kind === 'aborted' ? [] : end.line.map(([c, r]) => [c, r]),
      reason: end.kind === 'aborted' ? end.reason : end.kind === 'drawn' ? 'board-full' : 'four',
      wire: [...this.wire],
    };
  }

  private opponentMove(turn: number, column: number): void {
    // A's pre-move keepalive (−1), repeats and stale packets count only as life.
    if (turn < 0 || turn <= this.lastAcceptedTurn) return;
    const st = status(this.current);
    let problem: BadMoveReason | null = null;
    if (st.kind !== 'running' || st.toMove === this.info.localPlayer) problem = 'out-of-turn';
    // Both conventions (game-wide index, own-move count) stay at or below the stones on the board.
    else if (turn > this.current.moves.length) problem = 'turn-too-high';
    const next = problem === null ? apply(this.current, column) : null;
    if (next && !next.ok) problem = next.error.code;
    if (problem !== null || !next?.ok) {
      const id = `${turn}:${column}`;
      // Each distinct bad move is reported once; a flood of distinct ones is not kept.
      if (!this.reported.has(id) && this.reported.size < MAX_REPORTED) {
        this.reported.add(id);
        this.host.emit({
          type: 'bad-move',
          gameId: this.info.id,
          reason: problem ?? 'out-of-turn',
          turn,
          column,
        });
      }
      return;
    }
    this.lastAcceptedTurn = turn;
    this.current = next.value;
    this.moveTimes.push(this.host.clock.now());
    this.moveTimer?.cancel();
    this.moveTimer = null;
    this.host.emit({ type: 'moved', gameId: this.info.id, by: 'remote', column, turn, state: this.current });
    if (this.finalMoveWait !== null) {
      // The missing move came; if the game goes on after all, the normal timers take over again.
      this.finalMoveWait.cancel();
      this.finalMoveWait = null;
      this.alive();
    }
    if (!this.decided()) this.announceTurn();
  }

  private markReady(): void {
    if (this.ready) return;
    this.ready = true;
    this.announceTurn();
  }

  private announceTurn(): void {
    const n = this.current.moves.length;
    if (this.over || this.turnAnnouncedAt === n || !this.ready || (n & 1) !== this.info.localPlayer) return;
    this.turnAnnouncedAt = n;
    this.host.emit({ type: 'your-turn', gameId: this.info.id, state: this.current });
  }

  private restartMoveTimer(): void {
    this.moveTimer?.cancel();
    this.moveTimer = this.host.clock.setTimeout(
      () => this.end({ kind: 'timeout', reason: 'move-timeout' }),
      this.host.timing.moveTimeoutMs,
    );
  }

  /** After a move: a four or a full board decides the game on our own board (decision 8). */
  private decided(): boolean {
    if (status(this.current).kind === 'running') return false;
    this.end({ kind: 'result', finalMove: this.takeFinalMove(this.host.timing.endRepeats) });
    return true;
  }

  private end(how: BoardEnd): void {
    if (this.over) return;
    this.stop();
    this.host.ended(this, how);
  }
}
