import type { Clock, Timer } from '../../core/clock.js';
import { LineFramer } from '../../core/framing.js';
import { connectionLogger, logWire, type Logger } from '../../core/log.js';
import { badInputTotal, messagesTotal } from '../../core/metrics.js';
import type { Records } from '../../core/record-backend.js';
import type { DameGames } from './games.js';
import type { DameLadderDoor, DameLadderPeer, DameLadderTicket } from './ladder-door.js';
import type { Match, SeatPeer } from './match.js';
import {
  ACCEPTED_MAJORS,
  encodeGroup,
  formatFault,
  formatGroup,
  isGameId,
  MAX_LINE_BYTES,
  parseClientLine,
  SERVER_VERSION,
  type ClientLine,
  type ProtocolFault,
  type ProtocolMode,
  type Seat,
  type ServerGroup,
} from './protocol.js';

/**
 * One client connection: bytes → lines → the prolog (spec §2.2) → its match's seat. It owns the
 * prolog timers, the write pacing of §2.6 and the wire log; the game itself is the Match's.
 */

/** The byte side: a TCP socket, or a pipe in tests. */
export interface Transport {
  /** One write() per call. */
  write(data: string): void;
  /** Flushes what was written, then closes. */
  end(): void;
}

export interface ConnectionSettings {
  mode: ProtocolMode;
  motd: string;
  /** Auto mode: client silence after the greeting before the MOTD is sent. */
  motdDelayMs: number;
  /** Each prolog line must arrive within this time of the server's prompt. */
  prologTimeoutMs: number;
  /** Least time between two groups with no client line between them. */
  groupGapMs: number;
  autoCreate: boolean;
  /** The rated ladder's door (issue 34): a Game-ID that is a ladder code enters the ladder. */
  ladder?: DameLadderDoor | null;
}

export interface ConnectionOptions extends ConnectionSettings {
  id: string;
  address: string;
  /** The client's IP, what per-host limits count by. */
  host: string;
  games: DameGames;
  transport: Transport;
  clock: Clock;
  log: Logger;
  store: Records | null;
  onClosed?: (connection: Connection) => void;
}

/** `ladder`: after `PLAYER`, until the ladder has found the game (the client expects nothing to send). */
type Phase = 'greeting' | 'version' | 'id' | 'player' | 'ladder' | 'seated' | 'closed';

interface Queued {
  group: ServerGroup;
  onWritten: (() => void) | undefined;
}

interface WireEntry {
  at: number;
  dir: 'in' | 'out';
  data: string;
}

const GAME = 'dame';
const inCounter = messagesTotal.labels({ game: GAME, dir: 'in' });
const outCounter = messagesTotal.labels({ game: GAME, dir: 'out' });
/** How much of a garbage line goes into logs and records. */
const SHOWN = 300;
/** What a record shows instead of a ladder code (`ID <code>`). */
export const LADDER_CODE_SHOWN = '<Liga-Code>';
/** Wire lines kept for a connection before it belongs to a record: the prolog, then the latest. */
const BUFFER_HEAD = 100;
const BUFFER_MAX = 600;

export class Connection implements SeatPeer, DameLadderPeer {
  readonly conn: string;
  readonly address: string;
  readonly host: string;
  private phase: Phase = 'greeting';
  private readonly framer = new LineFramer(MAX_LINE_BYTES);
  private readonly log: Logger;
  private timer: Timer | null = null;
  private match: Match | null = null;
  private seat: Seat | null = null;
  private ticket: DameLadderTicket | null = null;
  private readonly queue: Queued[] = [];
  private pacing: Timer | null = null;
  private lastWriteAt = -Infinity;
  private lineSinceWrite = true;
  private closing = false;
  private recordId: string | null = null;
  private wire: WireEntry[] = [];

  constructor(private readonly o: ConnectionOptions) {
    this.conn = o.id;
    this.address = o.address;
    this.host = o.host;
    this.log = connectionLogger(o.log, { game: GAME, conn: o.id });
    this.log.debug({ address: o.address }, 'connected');
  }

  get open(): boolean {
    return this.isOpen();
  }

  /** A method, not a getter: handlers can close the connection between two checks. */
  private isOpen(): boolean {
    return this.phase !== 'closed' && !this.closing;
  }

  /** Sends the greeting (and in v3 mode the MOTD) and starts the prolog clock. */
  start(): void {
    this.send({ type: 'greeting', version: SERVER_VERSION[this.o.mode] });
    if (this.o.mode === 'v3') this.sendMotd();
    else if (this.o.mode === 'v2') this.prompt('version');
    else this.arm(this.o.motdDelayMs, () => this.sendMotd());
  }

  private sendMotd(): void {
    this.send({ type: 'motd', text: this.o.motd });
    this.prompt('version');
  }

  /** Waits for the next prolog line. */
  private prompt(phase: Phase): void {
    this.phase = phase;
    this.arm(this.o.prologTimeoutMs, () => this.fail({ code: 'timeout' }));
  }

  private arm(ms: number, fn: () => void): void {
    this.timer?.cancel();
    this.timer = this.o.clock.setTimeout(() => {
      this.timer = null;
      this.guarded(fn);
    }, ms);
  }

  /** Runs a timer's work: an exception in it ends this connection (and its game), nothing more. */
  private guarded(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.crash(err);
    }
  }

  /**
   * A bug while handling this connection: logged with its stack; a seated client's game is
   * aborted (`internal error`, every seat gets the internal-error line), otherwise only this
   * connection gets it and is closed.
   */
  crash(err: unknown): void {
    this.log.error({ err, phase: this.phase }, 'internal error: dropping the connection');
    try {
      if (this.phase === 'seated' && this.match && this.isOpen()) this.match.abort(err);
    } finally {
      this.fail({ code: 'internal' });
    }
  }

  // ---- bytes in -------------------------------------------------------------------------------

  receive(chunk: Buffer): void {
    if (!this.isOpen() || chunk.length === 0) return;
    // Auto mode: a client that speaks first is a v2 client and must not get the MOTD.
    if (this.phase === 'greeting') this.prompt('version');
    for (const item of this.framer.push(chunk)) {
      if (!this.isOpen()) return;
      if (item.kind === 'line') this.line(item.line);
      else this.overlong(item.bytes);
    }
    // A line that is already too long is answered now, not when its end arrives.
    if (this.isOpen() && this.framer.overflowing) this.overlong(MAX_LINE_BYTES + 1);
  }

  private overlong(bytes: number): void {
    badInputTotal.inc({ game: GAME, reason: 'overlong' });
    const shown = `<a line of more than ${MAX_LINE_BYTES} bytes (${bytes})>`;
    this.record('in', shown);
    this.handle({ type: 'other', text: '' }, shown);
  }

  private line(raw: string): void {
    inCounter.inc();
    const shown = raw.length > SHOWN ? raw.slice(0, SHOWN) + '…' : raw;
    this.record('in', shown);
    const parsed = parseClientLine(raw);
    if (parsed === null) return; // empty lines are ignored
    this.handle(parsed, shown);
  }

  private handle(line: ClientLine, shown: string): void {
    this.lineSinceWrite = true;
    if (this.pacing !== null) {
      this.pacing.cancel();
      this.pacing = null;
      this.pump();
    }
    if (line.type === 'other') badInputTotal.inc({ game: GAME, reason: 'unknown-command' });
    switch (this.phase) {
      case 'greeting':
      case 'version':
        this.onVersion(line);
        return;
      case 'id':
        this.onId(line);
        return;
      case 'player':
        this.onPlayer(line);
        return;
      case 'ladder':
        // Nothing is asked of the client while the ladder finds its game.
        this.fail({ code: 'unexpected' });
        return;
      case 'seated':
        if (this.match && this.seat !== null) this.match.receive(this.seat, this, line, shown);
        return;
      case 'closed':
        return;
    }
  }

  private onVersion(line: ClientLine): void {
    if (line.type !== 'VERSION') return this.fail({ code: 'expected', command: 'VERSION' });
    if (line.major === null || !ACCEPTED_MAJORS[this.o.mode].includes(line.major)) return this.fail({ code: 'version-mismatch' });
    this.log.debug({ version: line.version }, 'client version');
    this.send({ type: 'versionAccepted' });
    this.prompt('id');
  }

  private onId(line: ClientLine): void {
    if (line.type !== 'ID') return this.fail({ code: 'expected', command: 'ID' });
    if (!isGameId(line.gameId)) return this.fail({ code: 'invalid-game-id' });
    const door = this.o.ladder?.admit(line.gameId, this.host) ?? null;
    if (door !== null) {
      // The code is the student's secret: the record (public in the dashboard, its opponent sees
      // it) keeps the line without it. The debug log, staff's only, has it as sent.
      this.redactLast(line.gameId, LADDER_CODE_SHOWN);
      if (!door.ok) return this.fail({ code: 'refused', text: door.text });
      this.ticket = door.ticket;
      this.send({ type: 'playing', gameName: door.gameName });
      this.prompt('player');
      return;
    }
    let match = this.o.games.get(line.gameId);
    if (!match) {
      if (!this.o.autoCreate) return this.fail({ code: 'game-not-found' });
      const created = this.o.games.create({ id: line.gameId, host: this.host });
      if (!created.ok) {
        // A full table and a host over its share are logged (rate-limited) by the games.
        if (created.error !== 'full' && created.error !== 'host-limit') this.log.warn({ gameId: line.gameId, error: created.error }, 'cannot create the game');
        return this.fail({ code: 'game-not-found' });
      }
      match = created.value;
    }
    this.match = match;
    this.send({ type: 'playing', gameName: match.name });
    this.prompt('player');
  }

  private onPlayer(line: ClientLine): void {
    if (line.type !== 'PLAYER') return this.fail({ code: 'expected', command: 'PLAYER' });
    if (this.ticket !== null) {
      if (line.invalid || (line.seat !== null && line.seat !== 0 && line.seat !== 1)) return this.fail({ code: 'no-free-player' });
      this.timer?.cancel();
      this.timer = null;
      this.phase = 'ladder';
      this.ticket.wait(line.seat, this);
      return;
    }
    const match = this.match;
    if (!match) return this.fail({ code: 'internal' });
    this.timer?.cancel();
    this.timer = null;
    const seat = line.invalid ? null : match.join(this, line.seat);
    if (seat === null) return this.fail({ code: 'no-free-player' });
    if (!this.isOpen()) return;
    this.seat = seat;
    this.phase = 'seated';
  }

  // ---- the ladder's side: DameLadderPeer -------------------------------------------------------

  enter(match: Match, seat: Seat): boolean {
    if (!this.isOpen() || this.phase !== 'ladder') return false;
    this.ticket = null;
    this.match = match;
    this.seat = seat;
    this.phase = 'seated';
    return true;
  }

  refuse(text: string): void {
    this.ticket = null;
    this.fail({ code: 'refused', text });
  }

  // ---- bytes out: SeatPeer --------------------------------------------------------------------

  send(group: ServerGroup, onWritten?: () => void): void {
    if (!this.isOpen()) return;
    this.queue.push({ group, onWritten });
    if (this.pacing === null) this.pump();
  }

  /** Writes queued groups, keeping `groupGapMs` between two with no client line between them. */
  private pump(): void {
    while (this.queue.length > 0 && this.pacing === null) {
      const now = this.o.clock.now();
      const wait = this.lineSinceWrite ? 0 : this.lastWriteAt + this.o.groupGapMs - now;
      if (wait > 0) {
        this.pacing = this.o.clock.setTimeout(() => {
          this.pacing = null;
          this.guarded(() => this.pump());
        }, wait);
        return;
      }
      const item = this.queue.shift()!;
      this.write(encodeGroup(item.group), formatGroup(item.group));
      this.lastWriteAt = this.o.clock.now();
      this.lineSinceWrite = false;
      item.onWritten?.();
    }
    if (this.queue.length === 0 && this.closing && this.phase !== 'closed') this.o.transport.end();
  }

  private write(data: string, lines: readonly string[]): void {
    outCounter.inc(lines.length);
    for (const line of lines) this.record('out', line);
    this.o.transport.write(data);
  }

  fail(fault: ProtocolFault): void {
    if (!this.isOpen()) return;
    const ticket = this.ticket;
    this.ticket = null;
    ticket?.leave();
    badInputTotal.inc({ game: GAME, reason: fault.code });
    this.timer?.cancel();
    this.timer = null;
    this.pacing?.cancel();
    this.pacing = null;
    // Whatever was still waiting for its gap goes out first, so the error line is the last one.
    for (const item of this.queue.splice(0)) this.write(encodeGroup(item.group), formatGroup(item.group));
    const line = formatFault(fault);
    this.write(line + '\n', [line]);
    this.log.info({ error: line, phase: this.phase }, 'dropping the client');
    this.closing = true;
    this.o.transport.end();
  }

  close(): void {
    if (!this.isOpen()) return;
    this.closing = true;
    this.timer?.cancel();
    this.timer = null;
    if (this.queue.length === 0 && this.pacing === null) this.o.transport.end();
  }

  attachRecord(matchId: string): void {
    this.recordId = matchId;
    this.flushWire();
  }

  /** The socket is gone (either side closed it, or it broke). */
  closed(): void {
    if (this.phase === 'closed') return;
    const wasSeated = this.phase === 'seated';
    this.phase = 'closed';
    this.timer?.cancel();
    this.pacing?.cancel();
    this.timer = this.pacing = null;
    this.queue.length = 0;
    this.log.debug('closed');
    if (wasSeated && this.match && this.seat !== null) this.match.disconnected(this.seat, this);
    const ticket = this.ticket;
    this.ticket = null;
    ticket?.leave();
    this.flushWire();
    this.o.onClosed?.(this);
  }

  // ---- wire log -------------------------------------------------------------------------------

  private record(dir: 'in' | 'out', data: string): void {
    logWire(this.log, dir, data);
    const store = this.o.store;
    if (!store) return;
    const at = this.o.clock.now();
    if (this.recordId !== null) {
      store.addWire({ matchId: this.recordId, game: GAME, conn: this.conn, at, dir, data });
      return;
    }
    // Until the game starts, lines wait here so that the record holds the whole conversation.
    this.wire.push({ at, dir, data });
    if (this.wire.length > BUFFER_MAX) this.wire.splice(BUFFER_HEAD, 1);
  }

  /** In the last line kept for the record, `secret` becomes `shown`. */
  private redactLast(secret: string, shown: string): void {
    const last = this.wire.at(-1);
    if (last !== undefined && last.dir === 'in') last.data = last.data.split(secret).join(shown);
  }

  private flushWire(): void {
    const store = this.o.store;
    if (!store) return;
    for (const e of this.wire) store.addWire({ matchId: this.recordId, game: GAME, conn: this.conn, ...e });
    this.wire = [];
  }
}
