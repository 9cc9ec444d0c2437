import { randomUUID } from 'node:crypto';
import { systemClock, type Clock } from '../../core/clock.js';
import { silentLogger, type Logger } from '../../core/log.js';
import { matchesTotal } from '../../core/metrics.js';
import type { Records } from '../../core/record-backend.js';
import { err, ok, type Result } from '../../core/result.js';
import type { C4GameView, Level } from './views.js';

export type { Level } from './views.js';
import { apply, status, toMove, type C4State, type C4Status, type Player } from './rules.js';

/**
 * Games a person plays in the dashboard against our solver, in-process (no UDP): the browser
 * sends a column, the server applies it, asks the engine for the reply and answers with the new
 * position. Each game is shown live through the hub and recorded when it ends.
 */

export const LEVELS: readonly Level[] = ['perfect', 'strong', 'easy'];

/** Chooses the bot's column; may run elsewhere (a worker thread), so it is asynchronous. */
export type Chooser = (state: C4State, level: Level, seed: string) => Promise<number>;

export interface SolverGame {
  id: string;
  level: Level;
  humanName: string;
  /** The seat the person plays: 0 moves first. */
  human: Player;
  moves: number[];
  status: C4Status;
  startedAt: number;
  endedAt: number | null;
  /** The person resigned (or left). */
  resigned: boolean;
}

export interface GameError {
  code: 'unknown-game' | 'not-your-turn' | 'game-over' | 'busy' | 'too-many-games' | 'column-out-of-range' | 'column-full';
  message: string;
}

interface Entry {
  game: SolverGame;
  matchId: string | null;
  lastUsed: number;
  /** A bot move is being computed; a second request waits for nothing and is refused. */
  busy: boolean;
}

export interface SolverGamesOptions {
  choose: Chooser;
  store: Records | null;
  clock?: Clock;
  log?: Logger;
  /** Shown to spectators. */
  onUpdate?: (view: C4GameView) => void;
  maxGames?: number;
  /** An untouched game is ended after this long. */
  idleMs?: number;
}

export class SolverGames {
  private readonly games = new Map<string, Entry>();
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly maxGames: number;
  private readonly idleMs: number;

  constructor(private readonly o: SolverGamesOptions) {
    this.clock = o.clock ?? systemClock;
    this.log = (o.log ?? silentLogger).child({ game: 'connect4', part: 'solver-games' });
    this.maxGames = o.maxGames ?? 200;
    this.idleMs = o.idleMs ?? 30 * 60_000;
  }

  get size(): number {
    return this.games.size;
  }

  get(id: string): SolverGame | undefined {
    return this.games.get(id)?.game;
  }

  /** A new game; when the bot moves first, its first move is made before this resolves. */
  async create(options: { level: Level; humanName: string; humanFirst: boolean }): Promise<Result<SolverGame, GameError>> {
    this.expire();
    if (this.games.size >= this.maxGames) return err({ code: 'too-many-games', message: `at most ${this.maxGames} games at once; try again later` });
    const now = this.clock.now();
    const game: SolverGame = {
      id: `c4-${randomUUID().slice(0, 13)}`,
      level: options.level,
      humanName: options.humanName,
      human: options.humanFirst ? 0 : 1,
      moves: [],
      status: { kind: 'running', toMove: 0 },
      startedAt: now,
      endedAt: null,
      resigned: false,
    };
    const entry: Entry = { game, matchId: null, lastUsed: now, busy: false };
    this.games.set(game.id, entry);
    entry.matchId = this.startRecord(game);
    this.publish(game);
    if (!options.humanFirst) await this.botMove(entry);
    return ok(game);
  }

  /** The person's column, then the bot's answer. */
  async move(id: string, column: number): Promise<Result<SolverGame, GameError>> {
    const entry = this.games.get(id);
    if (!entry) return err({ code: 'unknown-game', message: `no game ${id} (games end after 30 minutes without a move)` });
    const { game } = entry;
    entry.lastUsed = this.clock.now();
    if (game.status.kind !== 'running') return err({ code: 'game-over', message: 'the game is over' });
    if (entry.busy) return err({ code: 'busy', message: 'the bot is still thinking' });
    if (toMove({ moves: game.moves }) !== game.human) return err({ code: 'not-your-turn', message: 'it is the bot\'s turn' });
    const next = apply({ moves: game.moves }, column);
    if (!next.ok) {
      const code = next.error.code === 'column-full' ? 'column-full' : next.error.code === 'game-over' ? 'game-over' : 'column-out-of-range';
      return err({ code, message: next.error.message });
    }
    this.played(entry, game.human, column, next.value);
    // `played` may have ended the game; TypeScript cannot see the mutation.
    if ((game.status as C4Status).kind === 'running') await this.botMove(entry);
    return ok(game);
  }

  /** The person gives up; the game is recorded as won by the bot. */
  resign(id: string): Result<SolverGame, GameError> {
    const entry = this.games.get(id);
    if (!entry) return err({ code: 'unknown-game', message: `no game ${id}` });
    if (entry.game.status.kind === 'running') {
      entry.game.resigned = true;
      entry.game.status = { kind: 'won', winner: (1 - entry.game.human) as Player, line: [] };
      this.finish(entry);
    }
    return ok(entry.game);
  }

  /** Ends every game (server shutdown): running ones are recorded as aborted. */
  stop(): void {
    for (const entry of this.games.values()) if (entry.game.status.kind === 'running') this.finish(entry, true);
    this.games.clear();
  }

  private async botMove(entry: Entry): Promise<void> {
    const { game } = entry;
    entry.busy = true;
    try {
      const state: C4State = { moves: game.moves };
      const column = await this.o.choose(state, game.level, `${game.id}:${game.moves.length}`);
      // The game may have been resigned or stopped while the bot thought.
      if (game.status.kind !== 'running' || !this.games.has(game.id)) return;
      const next = apply(state, column);
      if (!next.ok) throw new Error(`the ${game.level} bot chose column ${column}: ${next.error.message}`);
      this.played(entry, (1 - game.human) as Player, column, next.value);
    } finally {
      entry.busy = false;
    }
  }

  private played(entry: Entry, seat: Player, column: number, state: C4State): void {
    const { game } = entry;
    game.moves = [...state.moves];
    game.status = status(state);
    if (entry.matchId) this.o.store?.addEvent(entry.matchId, { at: this.clock.now(), seat, type: 'move', data: { turn: game.moves.length - 1, column } });
    if (game.status.kind !== 'running') this.finish(entry);
    else this.publish(game);
  }

  private finish(entry: Entry, aborted = false): void {
    const { game } = entry;
    game.endedAt = this.clock.now();
    this.publish(game, aborted);
    const s = game.status;
    const winner = s.kind === 'won' ? s.winner : null;
    const names = this.names(game);
    if (entry.matchId && this.o.store) {
      this.o.store.finishMatch(entry.matchId, {
        status: aborted ? 'aborted' : 'finished',
        endedAt: game.endedAt,
        result: {
          outcome: aborted ? 'aborted' : winner === null ? 'drawn' : 'won',
          winner: aborted ? null : winner,
          winnerName: aborted || winner === null ? null : names[winner],
          reason: aborted ? 'stopped' : game.resigned ? 'resigned' : winner === null ? 'board-full' : 'four',
          moves: game.moves.join(''),
          line: s.kind === 'won' ? s.line : [],
        },
      });
      matchesTotal.inc({ game: 'connect4', status: aborted ? 'aborted' : 'finished' });
    }
    this.log.debug({ id: game.id, level: game.level, moves: game.moves.join(''), winner }, 'solver game over');
  }

  private names(game: SolverGame): [string, string] {
    const bot = `solver (${game.level})`;
    return game.human === 0 ? [game.humanName, bot] : [bot, game.humanName];
  }

  private startRecord(game: SolverGame): string | null {
    const store = this.o.store;
    if (!store) return null;
    const names = this.names(game);
    return store.startMatch({
      game: 'connect4',
      startedAt: game.startedAt,
      seats: names.map((name, seat) => ({ seat, name, kind: seat === game.human ? 'human' : 'bot' })),
      meta: { kind: 'solver', level: game.level },
    });
  }

  private publish(game: SolverGame, aborted = false): void {
    const s = game.status;
    this.o.onUpdate?.({
      id: game.id,
      kind: 'solver',
      players: this.names(game),
      moves: [...game.moves],
      startedAt: game.startedAt,
      status: aborted ? 'aborted' : s.kind === 'running' ? 'running' : s.kind,
      winner: s.kind === 'won' ? s.winner : null,
      line: s.kind === 'won' ? s.line : [],
      reason: aborted ? 'stopped' : game.resigned ? 'resigned' : null,
      endedAt: game.endedAt,
    });
  }

  private expire(): void {
    const now = this.clock.now();
    for (const [id, entry] of this.games) {
      const idle = now - entry.lastUsed > this.idleMs;
      const over = entry.game.status.kind !== 'running' && now - (entry.game.endedAt ?? now) > 60_000;
      if (!idle && !over) continue;
      if (entry.game.status.kind === 'running') this.finish(entry, true);
      this.games.delete(id);
    }
  }
}
