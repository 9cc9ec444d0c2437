import { abortedOutcome, ArenaMatches, cutReason, DEFAULT_CONNECT_TIMEOUT_MS, EXIT_GRACE_MS, portOf, seatOwns } from '../../core/arena.js';
import type { SpectatorEvent } from '../../core/game-server.js';
import type { Logger } from '../../core/log.js';
import { startedOrStopped, withPortIn, type PortRange } from '../../core/ports.js';
import type { Records } from '../../core/record-backend.js';
import { Rng } from '../../core/rng.js';
import {
  describeExit,
  exitOrStop,
  type MatchSeat,
  type ProgramRun,
  type TournamentArena,
  type TournamentMatchOutcome,
  type TournamentMatchRequest,
  type TournamentSeatResult,
  type TournamentSupport,
} from '../../core/tournament-match.js';
import { createDameBot, DAME_BOTS, isDameBotName } from './bots/index.js';
import { DameClient, type DamePlayer } from './client.js';
import { DameEnginePool } from './engine-pool.js';
import { botPlayer } from './players.js';
import type { Seat } from './protocol.js';
import { apply, createState, initialState, legalMoves, type DameState } from './rules.js';
import { createDameServer, type DameServer } from './server.js';

/**
 * Dame tournament matches (issue 17, docs/dame.md "Tournaments"): one Dame server on 127.0.0.1
 * (an ephemeral port) for the whole tournament; per match the arena creates a game for exactly
 * these two seats (entrant names on the wire and in the record), starting from an opening that
 * the match's seed gives, and seats each entrant: our bots through DameClient over TCP, programs
 * with `{host} {port} {gameId} {player}` (player 1 = White = `PLAYER 0`, 2 = Black).
 */

/** Single moves of the seeded opening: two each, so White (seat 0) moves first from it. */
export const OPENING_PLIES = 4;
/** Auto mode's client silence before the MOTD: short, but a v2 client still answers before it. */
const MOTD_DELAY_MS = 100;

const BOT_INFO: Record<(typeof DAME_BOTS)[number], string> = {
  random: 'a random legal move',
  greedy: 'takes the most material now, else random',
  depth2: 'alpha-beta to a fixed depth of 2 single moves',
  depth4: 'alpha-beta to a fixed depth of 4 single moves',
  engine:
    'the full engine (iterative deepening, endgame rules) in a worker thread; option timeMs caps its think time',
};

/**
 * The opening of a seed: `OPENING_PLIES` random legal single moves from the start position, played
 * on to the end of a capture sequence if one is under way. The same seed always gives the same
 * position; it is returned as a fresh start (White to move, no history), as the record stores it.
 */
export function dameOpening(seed: number | string): DameState {
  const rng = Rng.seeded(`dame-opening:${seed}`);
  for (let attempt = 0; attempt < 16; attempt++) {
    let state = initialState();
    while (
      state.result === null &&
      (state.plies < OPENING_PLIES || state.mustContinue || state.toMove !== 'white')
    ) {
      const next = apply(state, rng.pick(legalMoves(state)));
      if (!next.ok) break;
      state = next.value;
    }
    const start = createState(state, 'white');
    if (start.result === null && state.toMove === 'white' && !state.mustContinue) return start;
  }
  return initialState();
}

function checkBot(bot: string, options: Readonly<Record<string, unknown>>): string[] {
  if (!isDameBotName(bot)) return [`unknown Dame bot "${bot}" (bots: ${DAME_BOTS.join(', ')})`];
  const problems: string[] = [];
  for (const [key, value] of Object.entries(options)) {
    if (key === 'seed') {
      if (typeof value !== 'string' && typeof value !== 'number')
        problems.push(`options.seed: must be a string or a number`);
    } else if (key === 'timeMs' && bot === 'engine') {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 600_000)
        problems.push(`options.timeMs: must be a whole number of ms from 1 to 600000`);
    } else
      problems.push(
        `options.${key}: unknown option for bot:${bot} (allowed: ${bot === 'engine' ? 'timeMs, seed' : 'seed'})`,
      );
  }
  return problems;
}

/** Single-thread engine pools, one per engine seat of a running match, kept warm for the next. */
class EnginePools {
  private readonly idle: DameEnginePool[] = [];
  private readonly all = new Set<DameEnginePool>();
  private closed = false;

  constructor(private readonly log: Logger) {}

  async take(): Promise<DameEnginePool> {
    const pool = this.idle.pop();
    if (pool) return pool;
    const fresh = new DameEnginePool({ threads: 1, log: this.log });
    this.all.add(fresh);
    await fresh.warm();
    return fresh;
  }

  /** Back for the next match; a pool that may still be thinking (a cut-off match) is closed instead. */
  give(pool: DameEnginePool, busy: boolean): void {
    if (this.closed || busy) {
      this.all.delete(pool);
      void pool.close();
    } else this.idle.push(pool);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.idle.length = 0;
    await Promise.all([...this.all].map((p) => p.close()));
  }
}

interface SeatPlay {
  index: Seat;
  seat: MatchSeat;
  program: ProgramRun | null;
  client: DameClient | null;
  /** Gives its engine back (`busy`: it may still be thinking). */
  release: ((busy: boolean) => void) | null;
  seated: boolean;
  everSeated: boolean;
  /** Why it failed before the game started (crashed), if it did. */
  failure: string | null;
}

/**
 * Whether the connection from `address` is the seat's own: a bot's client connection, or one that
 * came through the box of the seat's program. A program without a box cannot be told (isolation:
 * none; docs/tournaments.md): its seat is open to any connection, as before.
 */
function ownsSeat(s: SeatPlay | undefined, address: string): boolean {
  if (s === undefined) return false;
  return seatOwns(s.seat.player.kind === 'bot' ? { bot: true, localPort: s.client?.localPort } : { bot: false, run: s.program }, portOf(address));
}

type End =
  | { kind: 'over'; winner: Seat | null; reason: string }
  | { kind: 'no-start' }
  | { kind: 'aborted'; reason: string };


class DameArena implements TournamentArena {
  private readonly matches = new ArenaMatches();

  constructor(
    private readonly server: DameServer,
    private readonly pools: EnginePools,
    private readonly log: Logger,
  ) {}

  async close(): Promise<void> {
    const closing = this.matches.close();
    await this.server.stop();
    await closing;
    await this.pools.close();
  }

  async play(request: TournamentMatchRequest): Promise<TournamentMatchOutcome> {
    const [white, black] = request.seats;
    if (request.seats.length !== 2 || !white || !black)
      throw new Error(`a Dame match has 2 seats, got ${request.seats.length}`);
    const names = [white.name, black.name] as const;
    return this.matches.play(request, names, (signal) => this.playGame(request, names, signal));
  }

  private async playGame(request: TournamentMatchRequest, names: readonly [string, string], signal: AbortSignal): Promise<TournamentMatchOutcome> {
    const gameId = this.server.createGame({
      name: `Tournament ${request.id}`,
      moveTimeMs: request.moveTimeMs,
      start: dameOpening(request.seed),
      seatNames: names,
      seed: request.seed,
      meta: { tournamentMatch: request.id },
      // A seat is its entrant's alone (issue 30): a boxed program's own connections, our bot's.
      seatOwner: (seat, address) => ownsSeat(seats[seat], address),
    });
    const log = this.log.child({ gameId, tournamentMatch: request.id });
    const seats: SeatPlay[] = request.seats.map((seat, i) => ({
      index: i as Seat,
      seat,
      program: null,
      client: null,
      release: null,
      seated: false,
      everSeated: false,
      failure: null,
    }));

    let settle: (end: End) => void = () => undefined;
    const ended = new Promise<End>((resolve) => (settle = resolve));
    let over = false;
    const end = (e: End): void => {
      if (over) return;
      over = true;
      settle(e);
    };
    const status = (): string | undefined => this.server.getGame(gameId)?.status;
    /**
     * A seat failed before the game started: once every other seat has joined (or failed too), the
     * game is not played. Checked after the server's own handling of the event (a seat taken last
     * starts the game right after its event).
     */
    const checkNoStart = (): void => {
      setImmediate(() => {
        if (over || status() !== 'waiting') return;
        if (seats.some((s) => s.failure !== null) && seats.every((s) => s.seated || s.failure !== null))
          end({ kind: 'no-start' });
      });
    };
    const failedBeforeStart = (s: SeatPlay, why: string): void => {
      if (over || status() !== 'waiting') return;
      s.failure ??= why;
      checkNoStart();
    };

    const unsubscribe = this.server.subscribe((event: SpectatorEvent) => {
      const data = event.data as {
        gameId?: string;
        seat?: number;
        winner?: Seat | null;
        reason?: string;
      } | null;
      if (data?.gameId !== gameId) return;
      const s = data.seat === 0 || data.seat === 1 ? seats[data.seat] : undefined;
      if (event.type === 'seatTaken' && s) {
        s.seated = s.everSeated = true;
        checkNoStart();
      } else if (event.type === 'seatFreed' && s) s.seated = false;
      else if (event.type === 'gameOver') {
        const reason = data.reason ?? 'unknown';
        if (reason === 'server stopped' || reason === 'internal error') end({ kind: 'aborted', reason });
        else end({ kind: 'over', winner: data.winner ?? null, reason });
      }
    });
    const onCut = (): void => end({ kind: 'aborted', reason: cutReason(signal) });
    signal.addEventListener('abort', onCut, { once: true });
    const connectMs = request.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const deadline = setTimeout(() => {
      if (status() !== 'waiting') return;
      for (const s of seats)
        if (!s.seated)
          s.failure ??= s.everSeated
            ? 'left its seat before the game started'
            : `never connected within ${connectMs} ms`;
      end({ kind: 'no-start' });
    }, connectMs);
    deadline.unref();

    try {
      try {
        await Promise.all(seats.map((s) => this.startSeat(s, request, gameId, log, failedBeforeStart)));
      } catch (err) {
        this.server.closeGame(gameId, 'internal error');
        await this.stopSeats(seats, 0, true);
        throw err;
      }
      const result = await ended;
      clearTimeout(deadline);
      const records = [this.server.getGame(gameId)?.matchId].filter(
        (id): id is string => typeof id === 'string',
      );
      if (result.kind === 'aborted') {
        this.server.closeGame(gameId, result.reason);
        await this.stopSeats(seats, 0, true);
        return abortedOutcome(names, result.reason, records);
      }
      if (result.kind === 'no-start') {
        this.server.closeGame(gameId, 'a seat never joined');
        await this.stopSeats(seats, 0);
        return noStartOutcome(seats, connectMs);
      }
      await this.stopSeats(seats, EXIT_GRACE_MS);
      return overOutcome(seats, result.winner, result.reason, records);
    } finally {
      clearTimeout(deadline);
      unsubscribe();
      signal.removeEventListener('abort', onCut);
    }
  }

  /** Starts one seat: our bot over TCP in this process, or the entrant's program. */
  private async startSeat(
    s: SeatPlay,
    request: TournamentMatchRequest,
    gameId: string,
    log: Logger,
    failed: (s: SeatPlay, why: string) => void,
  ): Promise<void> {
    const port = this.server.port;
    const player = s.seat.player;
    if (player.kind === 'program') {
      const run = player.launch(
        {
          host: '127.0.0.1',
          port: String(port),
          gameId,
          player: String(s.index + 1),
        },
        { tcp: [port], udp: [] },
      );
      s.program = run;
      void run.exited.then((exit) => failed(s, `${describeExit(exit)} before the game started`));
      return;
    }
    const options = player.options;
    const seed = `${typeof options.seed === 'string' || typeof options.seed === 'number' ? options.seed : 'tournament'}:${request.seed}:${s.index}`;
    let move: DamePlayer;
    if (player.bot === 'engine') {
      const pool = await this.pools.take();
      s.release = (busy) => this.pools.give(pool, busy);
      const cap = typeof options.timeMs === 'number' ? options.timeMs : Infinity;
      let n = 0;
      move = (state, budgetMs) =>
        pool.choose(state, Math.max(1, Math.min(budgetMs, cap)), `${seed}:${n++}`, 0);
    } else {
      if (!isDameBotName(player.bot)) throw new Error(`unknown Dame bot "${player.bot}"`);
      move = botPlayer(createDameBot(player.bot), seed);
    }
    const client = new DameClient({
      host: '127.0.0.1',
      port,
      gameId,
      seat: s.index,
      player: move,
      log: log.child({ seat: s.index, bot: player.bot }),
    });
    s.client = client;
    void client.run().then((r) => {
      if (r.outcome === 'error')
        failed(s, `our bot gave up before the game started: ${r.error ?? 'unknown'}`);
    });
  }

  /**
   * Stops every bot and program of the match; programs get `graceMs` to exit by themselves first.
   * After a cut-off match an engine may still be thinking: its worker is closed, not reused.
   */
  private async stopSeats(seats: readonly SeatPlay[], graceMs: number, cutOff = false): Promise<void> {
    await Promise.all(
      seats.map(async (s) => {
        s.client?.stop();
        s.release?.(cutOff);
        s.release = null;
        const run = s.program;
        if (!run) return;
        await exitOrStop(run, graceMs);
      }),
    );
  }
}

function noStartOutcome(seats: readonly SeatPlay[], connectMs: number): TournamentMatchOutcome {
  const failed = seats.filter((s) => s.failure !== null || !s.seated);
  const results: TournamentSeatResult[] = seats.map((s) => {
    const lost = failed.includes(s);
    const note = s.failure ?? (s.seated ? undefined : `never connected within ${connectMs} ms`);
    return {
      name: s.seat.name,
      outcome: lost ? 'loss' : 'win',
      points: lost ? 0 : 1,
      ...(lost ? { crashed: true } : {}),
      ...(lost && note ? { note } : {}),
    };
  });
  const reason = failed.map((s) => `${s.seat.name} ${s.failure ?? 'never connected'}`).join('; ');
  return { seats: results, reason: reason || 'a seat never joined', records: [] };
}

function overOutcome(
  seats: readonly SeatPlay[],
  winner: Seat | null,
  reason: string,
  records: string[],
): TournamentMatchOutcome {
  const loser = winner === null ? null : winner === 0 ? 1 : 0;
  const results: TournamentSeatResult[] = seats.map((s) => {
    // The game points of a Dame match: win 1, draw ½, loss 0 (docs/tournaments.md "Standings columns").
    const base = { name: s.seat.name, points: winner === null ? 0.5 : s.index === winner ? 1 : 0 };
    if (winner === null) return { ...base, outcome: 'draw' };
    if (s.index === winner) return { ...base, outcome: 'win' };
    if (reason === 'timeout')
      return { ...base, outcome: 'loss', timedOut: true, note: 'no answer within the move time' };
    if (reason === 'disconnect') {
      const exit = s.program?.done ? ' (its program ended)' : '';
      return {
        ...base,
        outcome: 'loss',
        crashed: true,
        note: `its connection closed during the game${exit}`,
      };
    }
    if (reason.startsWith('invalid-move') || reason.startsWith('protocol-error'))
      return { ...base, outcome: 'loss', note: reason };
    return { ...base, outcome: 'loss' };
  });
  const text = loser === null ? reason : `${reason}: ${seats[loser]?.seat.name ?? '?'} loses`;
  return { seats: results, reason: text, records };
}

async function open(context: { store: Records; log: Logger; ports?: PortRange | null }): Promise<TournamentArena> {
  const log = context.log.child({ game: 'dame', part: 'tournament' });
  const server = await withPortIn(context.ports, (port) => startedOrStopped(createDameServer({
    host: '127.0.0.1',
    port,
    log,
    store: context.store,
    mode: 'auto',
    motdDelayMs: MOTD_DELAY_MS,
    // Games exist only as the arena creates them: a client with a wrong id gets `- Game does not exist`.
    autoCreate: false,
    // Every client comes from loopback: no per-host shares, and the arena itself closes games nobody joined.
    maxConnectionsPerHost: 0,
    maxGamesPerHost: 0,
    idleSeatTimeoutMs: 0,
    maxGames: 10_000,
    maxConnections: 10_000,
  })));
  return new DameArena(server, new EnginePools(log), log);
}

export const dameTournament: TournamentSupport = {
  smoke: 'tcp',
  bots: DAME_BOTS.map((name) => ({ name, description: BOT_INFO[name] })),
  checkBot,
  open,
};
