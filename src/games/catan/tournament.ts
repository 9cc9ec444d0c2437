import { abortedOutcome, ArenaMatches, DEFAULT_CONNECT_TIMEOUT_MS, portOf, seatOwns } from '../../core/arena.js';
import type { Logger } from '../../core/log.js';
import { startedOrStopped, withPortIn, type PortRange } from '../../core/ports.js';
import { Rng } from '../../core/rng.js';
import {
  describeExit,
  exitOrStop,
  type MatchSeat,
  type ProgramExit,
  type ProgramRun,
  type TournamentArena,
  type TournamentMatchOutcome,
  type TournamentMatchRequest,
  type TournamentSeatResult,
  type TournamentSupport,
} from '../../core/tournament-match.js';
import type { SearchOptions } from './bots/search.js';
import { CATAN_STRATEGIES, CatanClient, createCatanBot, type CatanStrategy } from './client.js';
import type { Match } from './match.js';
import { TEXT } from './messages.js';
import { CatanServer, type ReservedGame } from './server.js';
import type { CatanResultRow } from './snapshot.js';

/**
 * Tournament matches of Catan (docs/catan.md, "Tournaments"): one server for the whole
 * tournament, and per match a prepared game (`CatanServer.reserve`) with a listener of its own, so
 * that exactly the request's seats, in its order, play together however many matches run at once.
 * Every seat connects over loopback TCP and speaks protocol 0.3 like any client: our bots through
 * `CatanClient` in this process, programs started with `{host} {port} {name}`.
 */

/** Added to `moveTimeMs` for the server's per-decision timeout (D10): start-up, loopback, GC. */
export const CATAN_TOURNAMENT_GRACE_MS = 1000;
/** Turns after which a game ends without a winner (placings by victory points). */
export const CATAN_TOURNAMENT_TURN_LIMIT = 1000;
/** Decisions in a row the server may take for a player (D10) before that player is out. */
export const CATAN_TOURNAMENT_TIMEOUT_STREAK = 3;
/** How long a program may take to exit by itself after its game ended, before it is stopped. */
const PROGRAM_EXIT_GRACE_MS = 2000;

const BOT_INFO: Record<CatanStrategy, string> = {
  random: 'Baseline R: uniformly random legal actions, never trades',
  builder: 'Random builder: builds whenever it can, trades a little',
  weighted: 'Rule-based planner with weighted goals and trades',
  search: 'Search bot: expectimax over its own turn on sampled states (strongest)',
};

/** Positive whole-number options of the search bot an entrant may set. */
const SEARCH_KEYS = ['samples', 'depth', 'beam', 'width', 'nextDepth'] as const;
const COMMON_KEYS = ['seed', 'thinkMs', 'trades'] as const;

function checkCatanBot(bot: string, options: Readonly<Record<string, unknown>>): string[] {
  if (!(CATAN_STRATEGIES as readonly string[]).includes(bot))
    return [`unknown Catan bot "${bot}" (one of ${CATAN_STRATEGIES.join(', ')})`];
  const problems: string[] = [];
  const known: readonly string[] = bot === 'search' ? [...COMMON_KEYS, ...SEARCH_KEYS] : COMMON_KEYS;
  for (const [key, value] of Object.entries(options)) {
    if (!known.includes(key)) {
      problems.push(`bot:${bot} has no option "${key}" (it takes ${known.join(', ')})`);
      continue;
    }
    const whole = (min: number, max: number): void => {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
        problems.push(
          `bot:${bot} option ${key} must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`,
        );
    };
    switch (key) {
      case 'seed':
        if (typeof value !== 'string' && typeof value !== 'number')
          problems.push(`bot:${bot} option seed must be a string or a number, got ${JSON.stringify(value)}`);
        break;
      case 'thinkMs':
        whole(0, 60_000);
        break;
      case 'trades':
        if (typeof value !== 'boolean')
          problems.push(`bot:${bot} option trades must be true or false, got ${JSON.stringify(value)}`);
        break;
      case 'nextDepth':
        whole(0, 4);
        break;
      default:
        whole(1, 64);
    }
  }
  return problems;
}

/** A seat while its match runs. */
interface SeatRun {
  readonly seat: MatchSeat;
  readonly index: number;
  program: ProgramRun | null;
  client: CatanClient | null;
  /** The bot's client could not connect (its error), or its connection ended before the game did. */
  botFailure: string | null;
  ready: boolean;
  /** How its program had ended, if it ended before the match was over. */
  exitedEarly: ProgramExit | null;
}

/**
 * Placings: the winner 1, every other seat that did not fail by its victory points (equal points
 * share a placing), the failed seats after all of them (sharing the last placing).
 */
function placings(points: readonly number[], failed: readonly boolean[], winner: number | null): number[] {
  const ok = points.map((_, i) => i).filter((i) => !failed[i]);
  return points.map((p, i) => {
    if (failed[i]) return ok.length + 1;
    if (i === winner) return 1;
    const base = winner !== null && !failed[winner] ? 2 : 1;
    return base + ok.filter((j) => j !== winner && (points[j] as number) > p).length;
  });
}

class CatanArena implements TournamentArena {
  private readonly matches = new ArenaMatches();

  constructor(
    private readonly server: CatanServer,
    private readonly log: Logger,
    private readonly ports: PortRange | null = null,
  ) {}

  async play(request: TournamentMatchRequest): Promise<TournamentMatchOutcome> {
    const names = request.seats.map((s) => s.name);
    if (names.length < 3 || names.length > 4)
      throw new Error(`a Catan match seats 3 or 4 players, not ${names.length}`);
    if (new Set(names).size !== names.length)
      throw new Error(`a Catan match needs different names, got ${names.join(', ')}`);
    return this.matches.play(request, names, (signal) => this.run(request, signal));
  }

  private async run(request: TournamentMatchRequest, signal: AbortSignal): Promise<TournamentMatchOutcome> {
    const names = request.seats.map((s) => s.name);
    const log = this.log.child({ tournamentMatch: request.id });
    const seats: SeatRun[] = request.seats.map((seat, index) => ({
      seat,
      index,
      program: null,
      client: null,
      botFailure: null,
      ready: false,
      exitedEarly: null,
    }));
    const abortedBeforeStart = (): TournamentMatchOutcome => abortedOutcome(names, 'aborted before the game started');

    // Wakes the waiting below whenever something happens (a seat ready or gone, the end, the abort).
    let wake: () => void = () => undefined;
    const poke = (): void => wake();
    const next = (): Promise<void> => new Promise<void>((resolve) => (wake = resolve));

    // Set by the server's callbacks (an object, so that the checks below are not narrowed away).
    // `decided`: the seats' fate is settled (the game over, called off or aborted); what happens to
    // their programs and connections after that is no failure of theirs.
    const live: { match: Match | null; result: CatanResultRow | null; lobbyGone: boolean; decided: boolean } =
      {
        match: null,
        result: null,
        lobbyGone: false,
        decided: false,
      };
    const dice = Rng.seeded(`${request.seed}/dice`);
    const timeoutMs = request.moveTimeMs + CATAN_TOURNAMENT_GRACE_MS;
    // Each prepared game listens at a port of the tournament's range (or one the system picks).
    const reserved: ReservedGame | null = await withPortIn(this.ports, (port) => this.server.reserve({
      names,
      seed: String(request.seed),
      dice: () => [dice.int(1, 6), dice.int(1, 6)],
      timeoutMs,
      turnLimit: CATAN_TOURNAMENT_TURN_LIMIT,
      timeoutStreak: CATAN_TOURNAMENT_TIMEOUT_STREAK,
      meta: { tournamentMatch: request.id, moveTimeMs: request.moveTimeMs },
      // A name is its entrant's alone (issue 30): a boxed program's own connections, our bot's.
      nameOwner: (name, address) => {
        const s = seats.find((x) => x.seat.name === name);
        if (s === undefined) return false;
        return seatOwns(s.seat.player.kind === 'bot' ? { bot: true, localPort: s.client?.localPort } : { bot: false, run: s.program }, portOf(address));
      },
      onReady: (name) => {
        const s = seats.find((x) => x.seat.name === name);
        if (s) s.ready = true;
        poke();
      },
      onStart: (m) => {
        live.match = m;
        poke();
      },
      onEnd: (_m, r) => {
        live.result = r;
        live.decided = true;
        poke();
      },
    }, port));
    if (!reserved) throw new Error('the Catan server is full or stopping');
    void reserved.started.then((id) => {
      if (id === null) live.lobbyGone = true;
      poke();
    });
    const onAbort = (): void => poke();
    signal.addEventListener('abort', onAbort);

    const connectMs = request.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const connectTimer = setTimeout(poke, connectMs + 5);
    let connectExpired = false;
    const connectDeadline = Date.now() + connectMs;
    const failedEarly = (s: SeatRun): boolean => s.exitedEarly !== null || s.botFailure !== null;
    let aborted = false;
    try {
      const host = '127.0.0.1';
      const port = reserved.port;
      for (const s of seats) {
        const player = s.seat.player;
        if (player.kind === 'program') {
          const run = player.launch({ host, port: String(port), name: s.seat.name }, { tcp: [port], udp: [] });
          s.program = run;
          void run.exited.then((exit) => {
            if (!live.decided) s.exitedEarly = exit;
            poke();
          });
        } else {
          const options = player.options;
          const search: SearchOptions = Object.fromEntries(
            SEARCH_KEYS.filter((k) => typeof options[k] === 'number').map((k) => [k, options[k] as number]),
          );
          const seed = options.seed;
          const botSeed = `${typeof seed === 'string' || typeof seed === 'number' ? seed : 'spielhalle'}/${request.seed}`;
          const client = new CatanClient({
            host,
            port,
            name: s.seat.name,
            bot: createCatanBot(player.bot as CatanStrategy, botSeed, {
              search,
              ...(typeof options.trades === 'boolean' ? { trades: options.trades } : {}),
            }),
            thinkMs: typeof options.thinkMs === 'number' ? options.thinkMs : 0,
            log,
          });
          s.client = client;
          client.start().then(
            () =>
              void client.done.then(() => {
                if (!live.decided) s.botFailure = 'its connection ended before the game did';
                poke();
              }),
            (err: unknown) => {
              s.botFailure = `could not connect (${(err as Error).message})`;
              poke();
            },
          );
        }
      }

      // Until the game starts: every seat joins and sends `Spiel starten`, or one cannot.
      for (;;) {
        if (signal.aborted) {
          aborted = true;
          break;
        }
        if (live.match !== null || live.lobbyGone) break;
        if (Date.now() >= connectDeadline) connectExpired = true;
        if (connectExpired || seats.some(failedEarly)) break;
        await next();
      }
      clearTimeout(connectTimer);
      if (live.match === null) {
        live.decided = true;
        await reserved.close(aborted ? TEXT.tournamentStopped : TEXT.calledOff);
        if (aborted || this.matches.closed) return abortedBeforeStart();
      }
      const started = live.match;
      if (started === null) return this.calledOff(seats, connectMs);
      // The game runs: to its end (a win, the turn limit, a lost connection, a player out), or the abort.
      while (live.result === null) {
        if (signal.aborted && !aborted) {
          aborted = true;
          live.decided = true;
          started.stop(TEXT.tournamentStopped, 'tournament stopped');
          continue;
        }
        await next();
      }
      const end = live.result;
      if (aborted || end.reason === 'server stopped' || end.reason === 'tournament stopped')
        return {
          seats: started
            .tally()
            .map((t) => ({ name: t.name, points: t.points }))
            .sort((a, b) => names.indexOf(a.name) - names.indexOf(b.name)),
          reason: end.message,
          records: [started.id],
          aborted: true,
        };
      // A program whose connection broke has usually exited too: its exit goes into the note.
      const gone = new Set(
        started
          .tally()
          .filter((t) => t.lost)
          .map((t) => t.name),
      );
      await Promise.all(
        seats.map(async (s) => {
          const run = s.program;
          if (!run || !gone.has(s.seat.name) || s.exitedEarly) return;
          await Promise.race([run.exited, new Promise((r) => setTimeout(r, 500).unref())]);
          if (run.done) s.exitedEarly = await run.exited;
        }),
      );
      return this.outcome(seats, started, end, timeoutMs);
    } finally {
      live.decided = true;
      clearTimeout(connectTimer);
      signal.removeEventListener('abort', onAbort);
      await reserved.close();
      // After a game that ended (the server closed every connection), a program gets a moment to
      // exit by itself; then it is stopped with its whole process group, like every other one.
      const ended = live.result !== null && !aborted;
      await Promise.all(
        seats.map(async (s) => {
          await s.client?.stop();
          const run = s.program;
          if (!run) return;
          await exitOrStop(run, ended ? PROGRAM_EXIT_GRACE_MS : 0);
        }),
      );
    }
  }

  /** The game never started: the seats that did not join (in time) lose, the others share first place. */
  private calledOff(seats: readonly SeatRun[], connectMs: number): TournamentMatchOutcome {
    const failed = seats.map((s) => !s.ready || s.exitedEarly !== null || s.botFailure !== null);
    const okCount = failed.filter((f) => !f).length;
    const results: TournamentSeatResult[] = seats.map((s, i) => {
      if (!failed[i]) return { name: s.seat.name, placing: 1, points: 0 };
      let note: string;
      if (s.exitedEarly) note = `its program ${describeExit(s.exitedEarly)} before the game started`;
      else if (s.botFailure) note = `the bot ${s.botFailure}`;
      else note = `did not join the game (Spieler with its name, Spiel starten) within ${connectMs} ms`;
      return { name: s.seat.name, placing: okCount + 1, points: 0, crashed: true, note };
    });
    const missing = seats.filter((_, i) => failed[i]).map((s) => s.seat.name);
    return { seats: results, reason: `no game: ${missing.join(', ')} did not join`, records: [] };
  }

  private outcome(
    seats: readonly SeatRun[],
    match: Match,
    end: CatanResultRow,
    timeoutMs: number,
  ): TournamentMatchOutcome {
    const tally = seats.map((s) => match.tally().find((t) => t.name === s.seat.name)!);
    const out = seats.map((s, i) => {
      const t = tally[i]!;
      const timedOut = match.timedOut === t.id;
      const crashed = t.lost;
      let note: string | undefined;
      if (timedOut)
        note = `did not answer ${CATAN_TOURNAMENT_TIMEOUT_STREAK} decisions in a row within ${timeoutMs} ms; the game was ended`;
      else if (crashed)
        note = s.exitedEarly
          ? `its program ${describeExit(s.exitedEarly)} during the game (connection lost; the game was ended)`
          : 'its connection was lost during the game (the game was ended)';
      else if (t.timeouts > 0)
        note = `the server acted for it ${t.timeouts} times (no answer within ${timeoutMs} ms)`;
      return { t, timedOut, crashed, note };
    });
    const winnerSeat = end.winner === null ? null : tally.findIndex((t) => t.id === end.winner);
    const places = placings(
      tally.map((t) => t.points),
      out.map((o) => o.timedOut || o.crashed),
      winnerSeat,
    );
    return {
      seats: out.map((o, i) => ({
        name: o.t.name,
        placing: places[i]!,
        points: o.t.points,
        ...(o.crashed ? { crashed: true } : {}),
        ...(o.timedOut ? { timedOut: true } : {}),
        ...(o.note === undefined ? {} : { note: o.note }),
      })),
      reason: end.message,
      records: [match.id],
    };
  }

  async close(): Promise<void> {
    const closing = this.matches.close();
    await this.server.stop();
    await closing;
  }
}

export const catanTournament: TournamentSupport = {
  smoke: 'tcp',
  bots: CATAN_STRATEGIES.map((name) => ({ name, description: BOT_INFO[name] })),
  checkBot: checkCatanBot,
  async open({ store, log, ports }) {
    const server = await withPortIn(ports, (port) => startedOrStopped(new CatanServer({
      host: '127.0.0.1',
      port,
      seed: 'tournament',
      log,
      store,
      // Every prepared game has its own timeout (moveTimeMs + grace); nothing else is played here.
      turnTimeoutMs: null,
      aiTurnTimeoutMs: null,
      botFillMs: null,
      maxGames: 10_000,
      maxConnections: 10_000,
      maxConnectionsPerHost: 0,
      maxLobbiesPerHost: 0,
      idleLobbyTimeoutMs: null,
    })));
    return new CatanArena(server, log.child({ game: 'catan', part: 'tournament' }), ports ?? null);
  },
};
