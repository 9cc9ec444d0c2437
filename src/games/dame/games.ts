import { randomBytes } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { RateLimitedWarn } from '../../core/hosts.js';
import { houseLogger, type Logger } from '../../core/log.js';
import type { Records } from '../../core/record-backend.js';
import { err, ok, type Result } from '../../core/result.js';
import type { DameMoveSource } from './engine-pool.js';
import { Match, type MatchTiming } from './match.js';
import { isGameId, type Seat } from './protocol.js';
import { initialState, type DameState } from './rules.js';
import type { DameGameRow } from './snapshot.js';

/**
 * The games a Dame server holds, by their 13-character id: created by the API or, on first use,
 * by a client's `ID` (auto-create). Ended games stay for a while so a late client still gets
 * their GAMEOVER; the oldest ended (then the oldest unoccupied) games make room for new ones.
 */

export interface CreateGameOptions {
  /** A fixed id (tests, replays); default a fresh lower-case `[a-z0-9]{13}`. */
  id?: string;
  /** Default `Game from YYYY-MM-DD HH:MM` (creation time, local). */
  name?: string;
  moveTimeMs?: number;
  /** A seat the built-in engine plays (it counts as connected). */
  engineSeat?: Seat | null;
  /** The engine seat's think time per single move (house games vary it); default the server's `engineTimeMs`. */
  engineTimeMs?: number;
  /** A start position other than the initial one (tests and analysis; the side to move moves first). */
  start?: DameState;
  /** The IP of the client whose `ID` creates the game: counted against its share (`maxGamesPerHost`). */
  host?: string;
  /** The seats' names on the wire and in the record (tournaments: the entrants); default `White Player`, `Black Player`. */
  seatNames?: readonly [string, string];
  /** The record's seed (tournaments: the opening's seed). */
  seed?: string | number;
  /** Added to the record's meta (tournaments: the tournament match id). */
  meta?: Readonly<Record<string, unknown>>;
  /**
   * Whether the connection from `address` (ip:port) may take `seat`: a tournament lets a seat be
   * taken only by its own entrant's connection (issue 30). Absent: anyone may.
   */
  seatOwner?: (seat: Seat, address: string) => boolean;
  /** A house game: its routine (created, seats, start, end) is logged at debug (core/log.ts `houseLogger`). */
  house?: boolean;
  /** The engine seat's move source instead of the server's engine (the ladder's weaker house levels). */
  engine?: DameMoveSource;
}

export interface GamesOptions {
  defaultMoveTimeMs: number;
  /** The engine's think time per single move; null or 0 = the game's move time. */
  engineTimeMs: number | null;
  timing: MatchTiming;
  maxGames: number;
  /** Waiting games one host may have created with its `ID`; 0: no cap. */
  maxGamesPerHost?: number;
  /** See `DameServerOptions.idleSeatTimeoutMs`; 0: never. */
  idleSeatTimeoutMs?: number;
  clock: Clock;
  log: Logger;
  store: Records | null;
  /** The engine seats' move source (created on first use). */
  engine: () => DameMoveSource;
  publish: (type: string, data: unknown) => void;
  idFactory?: () => string;
}

export type CreateGameError = 'invalid-id' | 'exists' | 'full' | 'invalid-move-time' | 'host-limit';

const RECENT = 20;
const ID_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A fresh lower-case game id of 13 characters, like the course server's `0sk8wc9exo1g1`. */
export function newGameId(): string {
  const bytes = randomBytes(13);
  let id = '';
  for (const b of bytes) id += ID_CHARS.charAt(b % ID_CHARS.length);
  return id;
}

const two = (n: number): string => String(n).padStart(2, '0');

export function defaultGameName(at: number): string {
  const d = new Date(at);
  return `Game from ${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

export class DameGames {
  private readonly games = new Map<string, Match>();
  /** Ended games, newest first, for the dashboard. */
  private readonly recent: DameGameRow[] = [];
  private played = 0;
  private readonly warn: RateLimitedWarn;

  constructor(private readonly o: GamesOptions) {
    this.warn = new RateLimitedWarn(o.log, 10_000, () => o.clock.now());
  }

  get size(): number {
    return this.games.size;
  }

  get gamesPlayed(): number {
    return this.played;
  }

  get(id: string): Match | undefined {
    return this.games.get(id);
  }

  create(options: CreateGameOptions = {}): Result<Match, CreateGameError> {
    const moveTimeMs = options.moveTimeMs ?? this.o.defaultMoveTimeMs;
    if (!Number.isInteger(moveTimeMs) || moveTimeMs < 1 || moveTimeMs > 3_600_000) return err('invalid-move-time');
    const engineTimeMs = options.engineTimeMs ?? (this.o.engineTimeMs !== null && this.o.engineTimeMs > 0 ? this.o.engineTimeMs : moveTimeMs);
    if (!Number.isInteger(engineTimeMs) || engineTimeMs < 1 || engineTimeMs > 3_600_000) return err('invalid-move-time');
    let id = options.id;
    if (id !== undefined) {
      if (!isGameId(id)) return err('invalid-id');
      if (this.games.has(id)) return err('exists');
    } else {
      const factory = this.o.idFactory ?? newGameId;
      do id = factory();
      while (this.games.has(id));
    }
    const host = options.host;
    if (host !== undefined && !this.hasShare(host)) {
      this.warn.warn(`games:${host}`, { host, limit: this.o.maxGamesPerHost }, 'game refused: this host holds as many waiting games as it may');
      return err('host-limit');
    }
    if (!this.makeRoom()) {
      this.warn.warn('full', { maxGames: this.o.maxGames }, 'game refused: the table is full');
      return err('full');
    }
    const engineSeat = options.engineSeat ?? null;
    const log = options.house ? houseLogger(this.o.log) : this.o.log;
    const match = new Match({
      id,
      name: options.name ?? defaultGameName(this.o.clock.now()),
      moveTimeMs,
      engineTimeMs,
      engineSeat,
      start: options.start ?? initialState(),
      timing: this.o.timing,
      clock: this.o.clock,
      log,
      store: this.o.store,
      engine: engineSeat === null ? null : (options.engine ?? this.o.engine()),
      publish: this.o.publish,
      onEnded: (m) => this.ended(m),
      creatorHost: host ?? null,
      ...(options.seatNames ? { seatNames: options.seatNames } : {}),
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      ...(options.meta ? { meta: options.meta } : {}),
      ...(options.seatOwner ? { seatOwner: options.seatOwner } : {}),
      idleSeatTimeoutMs: this.o.idleSeatTimeoutMs ?? 0,
      onIdleClosed: (m) => this.remove(m),
    });
    this.games.set(id, match);
    log.info({ gameId: id, moveTimeMs, engineSeat }, 'game created');
    this.o.publish('gameCreated', match.row());
    return ok(match);
  }

  /** Waiting games that `host` created with its `ID`: what counts against its share. */
  heldBy(host: string): number {
    let n = 0;
    for (const m of this.games.values()) if (m.heldBy(host)) n++;
    return n;
  }

  private hasShare(host: string): boolean {
    const limit = this.o.maxGamesPerHost ?? 0;
    return limit <= 0 || this.heldBy(host) < limit;
  }

  /** A game that was closed before it started leaves the table. */
  private remove(match: Match): void {
    if (this.games.get(match.id) !== match) return;
    this.games.delete(match.id);
    this.o.log.info({ gameId: match.id }, 'game removed');
  }

  /**
   * Ends a game at once (tournaments: nobody came, or the match was cut off): a waiting game leaves
   * the table and its seated clients are disconnected; a running one is recorded aborted with
   * `reason` and its clients are disconnected. False when there is no such game.
   */
  close(id: string, reason: string): boolean {
    const match = this.games.get(id);
    if (!match) return false;
    const wasWaiting = match.status === 'waiting';
    match.close(reason);
    if (wasWaiting) this.remove(match);
    return true;
  }

  /** Every game in memory, oldest first. */
  all(): Match[] {
    return [...this.games.values()];
  }

  rows(): { games: DameGameRow[]; recent: DameGameRow[] } {
    const games: DameGameRow[] = [];
    for (const m of this.games.values()) if (m.status !== 'over') games.push(m.row());
    return { games, recent: this.recent.map((r) => ({ ...r })) };
  }

  stop(): void {
    for (const m of this.games.values()) m.stop();
  }

  private ended(match: Match): void {
    this.played++;
    this.recent.unshift(match.row());
    if (this.recent.length > RECENT) this.recent.pop();
  }

  /** Drops ended games, then unoccupied waiting games, oldest first, until one more fits. */
  private makeRoom(): boolean {
    if (this.games.size < this.o.maxGames) return true;
    for (const pass of ['over', 'empty'] as const) {
      for (const [id, m] of this.games) {
        if (this.games.size < this.o.maxGames) return true;
        if (pass === 'over' ? m.status === 'over' : m.status === 'waiting' && m.empty) {
          this.games.delete(id);
          m.discard();
        }
      }
    }
    return this.games.size < this.o.maxGames;
  }
}
