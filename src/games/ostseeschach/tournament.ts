import { Worker } from 'node:worker_threads';
import { abortedOutcome, ArenaMatches, cutReason, DEFAULT_CONNECT_TIMEOUT_MS, EXIT_GRACE_MS } from '../../core/arena.js';
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
import { workerUrl } from '../../core/worker-url.js';
import { BOT_NAMES, createBot, isBotName } from './bots/index.js';
import { OstseeschachClient, type ClientOutcome } from './client.js';
import type { State } from './rules.js';
import { createOstseeschachServer, type OstseeschachServer } from './server.js';
import { createStart } from './setup.js';
import type { OstseeschachResultRow } from './snapshot.js';
import type { SeatPlayRequest, SeatWorkerMessage } from './tournament-worker.js';

/**
 * Ostseeschach tournament matches (issue 17, docs/ostseeschach.md "Tournaments"): one server on
 * 127.0.0.1 (an ephemeral port) for the whole tournament; per match the server prepares a room
 * with two reserved slots (the entrants' names as display names), the start layout drawn from the
 * match's seed and the tournament's move time as the soft timeout, and each entrant joins with its
 * reservation code: our bots through OstseeschachClient over TCP (the engine in a worker thread),
 * programs with `{host} {port} {reservation}` (the official player's `-h -p -r`).
 */

/** The official server allows 2000 ms (soft) and 10 000 ms (hard): the hard limit is 5 move times. */
export const HARD_TIMEOUT_FACTOR = 5;
/** A bot seat that does not finish this long after it was told to stop is left behind (its thread ended). */
const BOT_STOP_MS = 3000;
/** How often a match with a failed seat looks whether the other seat has joined yet. */
const JOIN_POLL_MS = 50;

const BOT_INFO: Record<(typeof BOT_NAMES)[number], string> = {
  random: 'a random legal move',
  depth2: 'a 2-ply search on a simple evaluation',
  engine: 'the full engine (iterative deepening) in a worker thread; option timeMs caps its think time',
};

/** What our bots think per move within a move time (the official client's 1700 of 2000 ms). */
export function botBudgetMs(moveTimeMs: number): number {
  return Math.max(10, moveTimeMs - Math.min(300, Math.floor(moveTimeMs / 4)));
}

/** The start position of a seed: the official uniform layout draw with `ostseeschach-layout:<seed>`. */
export function ostseeschachStart(seed: number | string): State {
  return createStart(Rng.seeded(`ostseeschach-layout:${seed}`));
}

function checkBot(bot: string, options: Readonly<Record<string, unknown>>): string[] {
  if (!isBotName(bot)) return [`unknown Ostseeschach bot "${bot}" (bots: ${BOT_NAMES.join(', ')})`];
  const problems: string[] = [];
  for (const [key, value] of Object.entries(options)) {
    if (key === 'seed') {
      if (typeof value !== 'string' && typeof value !== 'number')
        problems.push('options.seed: must be a string or a number');
    } else if (key === 'timeMs' && bot === 'engine') {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 10 || value > 600_000)
        problems.push('options.timeMs: must be a whole number of ms from 10 to 600000');
    } else
      problems.push(
        `options.${key}: unknown option for bot:${bot} (allowed: ${bot === 'engine' ? 'timeMs, seed' : 'seed'})`,
      );
  }
  return problems;
}

/** Worker threads for engine seats, one seat at a time each, reused from match to match. */
class SeatWorkers {
  private readonly idle: Worker[] = [];
  private readonly all = new Set<Worker>();
  private closed = false;

  constructor(private readonly log: Logger) {}

  async take(): Promise<Worker> {
    const worker = this.idle.pop();
    if (worker) return worker;
    const fresh = new Worker(await workerUrl(import.meta.url, 'tournament-worker'));
    this.all.add(fresh);
    fresh.on('error', (err) => this.log.error({ err }, 'tournament seat thread failed'));
    fresh.once('exit', () => {
      this.all.delete(fresh);
      const i = this.idle.indexOf(fresh);
      if (i >= 0) this.idle.splice(i, 1);
    });
    return fresh;
  }

  give(worker: Worker): void {
    if (this.closed || !this.all.has(worker)) void worker.terminate();
    else this.idle.push(worker);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.idle.length = 0;
    await Promise.all([...this.all].map((w) => w.terminate()));
  }
}

/** One of our bots playing a seat: in this thread, or in a worker. */
interface BotRun {
  readonly done: Promise<ClientOutcome | null>;
  stop(): void;
}

interface SeatPlay {
  index: 0 | 1;
  seat: MatchSeat;
  reservation: string;
  program: ProgramRun | null;
  bot: BotRun | null;
  /** Why it failed before the game started (crashed), if it did. */
  failure: string | null;
}

type End = { kind: 'closed'; row: OstseeschachResultRow } | { kind: 'aborted'; reason: string };

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());

class OstseeschachArena implements TournamentArena {
  private readonly matches = new ArenaMatches();

  constructor(
    private readonly server: OstseeschachServer,
    private readonly workers: SeatWorkers,
    private readonly log: Logger,
  ) {}

  async close(): Promise<void> {
    const closing = this.matches.close();
    await this.server.stop();
    await closing;
    await this.workers.close();
  }

  async play(request: TournamentMatchRequest): Promise<TournamentMatchOutcome> {
    const [one, two] = request.seats;
    if (request.seats.length !== 2 || !one || !two)
      throw new Error(`an Ostseeschach match has 2 seats, got ${request.seats.length}`);
    const names = [one.name, two.name] as const;
    return this.matches.play(request, names, (signal) => this.playRoom(request, names, signal));
  }

  private async playRoom(request: TournamentMatchRequest, names: readonly [string, string], signal: AbortSignal): Promise<TournamentMatchOutcome> {
    const lobby = this.server.lobby;
    const { roomId, reservations } = lobby.prepareRoom({
      slots: names.map((displayName) => ({ displayName, canTimeout: true })),
      start: ostseeschachStart(request.seed),
      softTimeoutMs: request.moveTimeMs,
      hardTimeoutMs: request.moveTimeMs * HARD_TIMEOUT_FACTOR,
      seed: String(request.seed),
      meta: { tournamentMatch: request.id },
    });
    const log = this.log.child({ room: roomId, tournamentMatch: request.id });
    const seats: SeatPlay[] = request.seats.slice(0, 2).map((seat, i) => ({
      index: i as 0 | 1,
      seat,
      reservation: reservations[i] ?? '',
      program: null,
      bot: null,
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
    const room = () => lobby.room(roomId);
    const cancel = (): void => {
      const r = room();
      if (r?.isWaiting) r.guard(() => r.cancel(), undefined);
    };
    /** Whether the seat has redeemed its code (the room's own view). */
    const joined = (s: SeatPlay): boolean => {
      const row = room()?.snapshot().seats[s.index];
      return row !== undefined && (row.address !== null || row.left !== null);
    };
    /**
     * A seat failed before the start: once every other seat has joined (or failed too), the room
     * is cancelled. Until then this looks again every JOIN_POLL_MS (the deadline ends the wait).
     */
    const checkNoStart = (): void => {
      if (over || room()?.isWaiting !== true) return;
      if (seats.every((s) => s.failure !== null || joined(s))) cancel();
      else setTimeout(checkNoStart, JOIN_POLL_MS).unref();
    };
    const failedBeforeStart = (s: SeatPlay, why: string): void => {
      if (over || room()?.isWaiting !== true || joined(s)) return;
      if (s.failure === null) {
        s.failure = why;
        checkNoStart();
      }
    };

    const unsubscribe = this.server.subscribe((event: SpectatorEvent) => {
      const data = event.data as { roomId?: string } | null;
      if (data?.roomId === roomId && event.type === 'roomClosed')
        end({ kind: 'closed', row: event.data as OstseeschachResultRow });
    });
    const onCut = (): void => end({ kind: 'aborted', reason: cutReason(signal) });
    signal.addEventListener('abort', onCut, { once: true });
    const connectMs = request.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const deadline = setTimeout(() => {
      if (room()?.isWaiting !== true) return;
      for (const s of seats) if (!joined(s)) s.failure ??= `never connected within ${connectMs} ms`;
      cancel();
    }, connectMs);
    deadline.unref();

    try {
      try {
        await Promise.all(seats.map((s) => this.startSeat(s, request, log, failedBeforeStart)));
      } catch (err) {
        room()?.abort('internal error');
        await this.stopSeats(seats, 0);
        throw err;
      }
      const result = await ended;
      clearTimeout(deadline);
      if (result.kind === 'aborted') {
        const records = [room()?.matchId].filter((id): id is string => typeof id === 'string');
        room()?.abort(result.reason);
        await this.stopSeats(seats, 0);
        return abortedOutcome(names, result.reason, records);
      }
      const row = result.row;
      const records = row.matchId === null ? [] : [row.matchId];
      if (row.scores.length < 2) {
        await this.stopSeats(seats, 0);
        return abortedOutcome(names, 'the room closed without a result', records);
      }
      await this.stopSeats(seats, EXIT_GRACE_MS);
      return outcomeOf(seats, row, records);
    } finally {
      clearTimeout(deadline);
      unsubscribe();
      signal.removeEventListener('abort', onCut);
    }
  }

  /** Starts one seat: our bot over TCP (the engine in a worker thread), or the entrant's program. */
  private async startSeat(
    s: SeatPlay,
    request: TournamentMatchRequest,
    log: Logger,
    failed: (s: SeatPlay, why: string) => void,
  ): Promise<void> {
    const port = this.server.port;
    const player = s.seat.player;
    if (player.kind === 'program') {
      const run = player.launch({ host: '127.0.0.1', port: String(port), reservation: s.reservation }, { tcp: [port], udp: [] });
      s.program = run;
      void run.exited.then((exit) => failed(s, `${describeExit(exit)} before the game started`));
      return;
    }
    const options = player.options;
    const seed = `${typeof options.seed === 'string' || typeof options.seed === 'number' ? options.seed : 'tournament'}:${request.seed}:${s.index}`;
    const budget = botBudgetMs(request.moveTimeMs);
    if (player.bot === 'engine') {
      const worker = await this.workers.take();
      const budgetMs = typeof options.timeMs === 'number' ? Math.min(options.timeMs, budget) : budget;
      const message: SeatPlayRequest = {
        type: 'play',
        host: '127.0.0.1',
        port,
        reservation: s.reservation,
        budgetMs,
        seed,
      };
      const done = new Promise<ClientOutcome | null>((resolve) => {
        const settle = (outcome: ClientOutcome | null): void => {
          worker.off('message', onMessage);
          worker.off('exit', onExit);
          resolve(outcome);
        };
        const onMessage = (m: SeatWorkerMessage): void => settle(m.type === 'done' ? m.outcome : null);
        const onExit = (): void => settle(null);
        worker.on('message', onMessage);
        worker.once('exit', onExit);
      });
      void done.then(() => this.workers.give(worker));
      worker.postMessage(message);
      s.bot = { done, stop: () => worker.postMessage({ type: 'stop' }) };
    } else {
      if (!isBotName(player.bot)) throw new Error(`unknown Ostseeschach bot "${player.bot}"`);
      const client = new OstseeschachClient({
        host: '127.0.0.1',
        port,
        join: { kind: 'prepared', reservationCode: s.reservation },
        bot: createBot(player.bot),
        budgetMs: budget,
        seed,
        log: log.child({ seat: s.index, bot: player.bot }),
      });
      const done = client.start().then(
        () => client.finished,
        () => null,
      );
      s.bot = { done, stop: () => client.stop() };
    }
    void s.bot.done.then((outcome) => {
      if (outcome?.roomId == null)
        failed(s, `our bot could not join: ${outcome?.errors[0] ?? 'no connection'}`);
    });
  }

  /**
   * Stops every bot and program of the match. After a game (`graceMs` > 0) programs get that long
   * to exit by themselves, and bots to say goodbye; a cut-off match stops everything at once.
   */
  private async stopSeats(seats: readonly SeatPlay[], graceMs: number): Promise<void> {
    await Promise.all(
      seats.map(async (s) => {
        const bot = s.bot;
        if (bot) {
          bot.stop();
          // An engine still thinking reads the stop only after its search; a cut-off match does not wait for it.
          if (graceMs > 0) await Promise.race([bot.done, sleep(BOT_STOP_MS)]);
        }
        const run = s.program;
        if (!run) return;
        await exitOrStop(run, graceMs);
      }),
    );
  }
}

const LEFT_BY_RULES = /PROTOCOL_ERROR$/;

function outcomeOf(
  seats: readonly SeatPlay[],
  row: OstseeschachResultRow,
  records: string[],
): TournamentMatchOutcome {
  const [first, second] = row.scores;
  if (!first || !second) throw new Error('a result has two scores');
  const scores = [first, second] as const;
  const points = scores.map((s) => s.parts[0] ?? 0);
  const winnerIndex =
    row.winner === 'ONE'
      ? 0
      : row.winner === 'TWO'
        ? 1
        : points[0]! > points[1]!
          ? 0
          : points[1]! > points[0]!
            ? 1
            : null;
  const results: TournamentSeatResult[] = seats.map((s) => {
    const score = scores[s.index];
    const base: TournamentSeatResult = { name: s.seat.name, points: points[s.index] ?? 0 };
    if (s.failure !== null) return { ...base, outcome: 'loss', crashed: true, note: s.failure };
    const outcome = winnerIndex === null ? 'draw' : winnerIndex === s.index ? 'win' : 'loss';
    const result: TournamentSeatResult = { ...base, outcome };
    switch (score.cause) {
      case 'SOFT_TIMEOUT':
      case 'HARD_TIMEOUT':
        return { ...result, timedOut: true, note: score.reason };
      case 'LEFT':
        if (score.reason.endsWith('NOT_CONNECTED')) return { ...result, crashed: true, note: 'never joined' };
        return LEFT_BY_RULES.test(score.reason)
          ? { ...result, note: score.reason }
          : { ...result, crashed: true, note: score.reason };
      case 'RULE_VIOLATION':
      case 'UNKNOWN':
        return { ...result, note: score.reason };
      case 'REGULAR':
        return result;
    }
  });
  const offender = scores.find((s) => s.cause !== 'REGULAR');
  const reason = offender
    ? `${offender.cause}: ${offender.name || offender.team}${offender.reason ? ` (${offender.reason})` : ''}`
    : winnerIndex === null
      ? `REGULAR: draw ${points.join(':')}`
      : `REGULAR: ${seats[winnerIndex]?.seat.name ?? '?'} wins ${points.join(':')}`;
  return { seats: results, reason, records };
}

async function open(context: { store: Records; log: Logger; ports?: PortRange | null }): Promise<TournamentArena> {
  const log = context.log.child({ game: 'ostseeschach', part: 'tournament' });
  const server = await withPortIn(context.ports, (port) => startedOrStopped(createOstseeschachServer({
    host: '127.0.0.1',
    port,
    log,
    store: context.store,
    // Seeds come per room (the match's); this one only draws layouts for rooms made by a plain join.
    seed: 'tournament',
    // Every client comes from loopback: no per-host shares; the arena cancels rooms nobody joined.
    maxConnections: 10_000,
    maxConnectionsPerHost: 0,
    maxRooms: 10_000,
    maxRoomsPerHost: 0,
    preparedRoomTimeoutMs: 0,
  })));
  return new OstseeschachArena(server, new SeatWorkers(log), log);
}

export const ostseeschachTournament: TournamentSupport = {
  smoke: 'tcp',
  bots: BOT_NAMES.map((name) => ({ name, description: BOT_INFO[name] })),
  checkBot,
  open,
};
