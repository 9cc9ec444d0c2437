import type { Logger } from './log.js';
import type { PortRange } from './ports.js';
import type { Records } from './record-backend.js';

/**
 * What a game offers the tournament runner: how to play one scheduled match between entrants
 * through the game's real server (or, for Connect Four, a refereeing peer) over loopback. Types
 * only; each game implements them in its own `tournament.ts`, and src/tournament drives them.
 * A game never sees how an external program is sandboxed: it gets a launcher per program seat.
 */

/** How an external program ended. */
export interface ProgramExit {
  /** Exit code, or null when a signal ended it (or it never started). */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The limit that ended it, when one did. */
  limit?: 'cpu' | 'memory' | 'wall';
  /** Why it never ran (spawn failed: no such file, not executable, …). */
  error?: string;
}

/**
 * What a program may reach of its match (a boxed program reaches nothing else): TCP ports it
 * connects to, UDP ports of the services it sends to, UDP ports where it listens and the game
 * sends first (Connect Four's referee), all on 127.0.0.1.
 */
export interface ProgramEndpoints {
  tcp: readonly number[];
  udp: readonly number[];
  udpListen?: readonly number[];
}

/** One external program started for one match. */
export interface ProgramRun {
  readonly pid: number | undefined;
  /**
   * Whether a TCP connection (or UDP socket) at the game from `localPort` (its remote port as the
   * server sees it) is this program's; absent, or always true, where that cannot be known (no box).
   */
  ownsConnection?(localPort: number): boolean;
  /** Resolves once the program has exited (never rejects; a failed spawn resolves with `error`). */
  readonly exited: Promise<ProgramExit>;
  /** Whether it has exited already. */
  readonly done: boolean;
  /** Kills its whole process group (SIGTERM, SIGKILL after a grace period); resolves when gone. */
  stop(): Promise<ProgramExit>;
}

/**
 * Starts the entrant's program with its command line's placeholders filled from `values`
 * (`host`, `port`, `gameId`, `player`, `reservation`, `name` — whatever the game's clients take).
 */
export type ProgramLauncher = (values: Readonly<Record<string, string>>, endpoints?: ProgramEndpoints) => ProgramRun;

export type SeatPlayer =
  /** One of our bots, played in this process through the game's own client over loopback. */
  | { kind: 'bot'; bot: string; options: Readonly<Record<string, unknown>> }
  /** A student's program: started by the launcher, it connects like any client. */
  | { kind: 'program'; launch: ProgramLauncher };

export interface MatchSeat {
  /** The entrant's name (the name it plays under where the protocol carries one). */
  name: string;
  player: SeatPlayer;
}

export interface TournamentMatchRequest {
  /** Unique across tournaments (`<tournament>/<schedule id>`); goes into the match record. */
  id: string;
  /** Board, dice, start layout or opening: the same seed gives the same game conditions. */
  seed: number;
  /** Thinking time per move in ms, handed to bots; the server's own time limit is based on it. */
  moveTimeMs: number;
  /** Seat 0 moves first (white, red, first Catan colour …). */
  seats: readonly MatchSeat[];
  /** Mia: how many rounds the table plays (placings by the score after them). */
  rounds?: number;
  /**
   * How long a program seat may take from its start until it has connected (joined, registered),
   * default 10 000 ms; a seat that has not by then has crashed ("never connected") and loses.
   */
  connectTimeoutMs?: number;
  /** Aborting ends the match at once (programs stopped; the outcome says `aborted`). */
  signal?: AbortSignal;
}

export interface TournamentSeatResult {
  name: string;
  /** 2-player games. */
  outcome?: 'win' | 'draw' | 'loss';
  /** Multiplayer games: 1 = winner; equal placings tie. */
  placing?: number;
  /** The game's own points (victory points, Mia score), 0 where there are none. */
  points: number;
  /** Its program exited, never connected, or its connection broke before the end. */
  crashed?: boolean;
  /** It lost by the game's time limit. */
  timedOut?: boolean;
  /** What happened to this seat, in one line (e.g. "exited with code 1 before connecting"). */
  note?: string;
}

export interface TournamentMatchOutcome {
  /** In the order of the request's seats. */
  seats: TournamentSeatResult[];
  /** Why it ended, in the game's words (e.g. "Weiß hat keine Züge mehr", "timeout: anna"). */
  reason: string;
  /** Record-store ids of what the server recorded (Mia: one per round). */
  records: string[];
  /** True when it was cut off (abort signal, server stop) and must be played again. */
  aborted?: boolean;
}

/** A game's server (or referee) kept open for the whole tournament; plays matches in parallel. */
export interface TournamentArena {
  play(request: TournamentMatchRequest): Promise<TournamentMatchOutcome>;
  close(): Promise<void>;
}

export interface TournamentBotInfo {
  name: string;
  /** One line for the dashboard's entrant picker. */
  description: string;
}

export interface TournamentSupport {
  /** The bots an entrant may name as `bot:` (with free-form `options`). */
  bots: readonly TournamentBotInfo[];
  /** Problems with a bot entrant's name or options, one line each (empty when fine). */
  checkBot(bot: string, options: Readonly<Record<string, unknown>>): string[];
  /**
   * How a program reaches this game, for the preflight's smoke start (src/tournament/preflight.ts):
   * it connects over TCP to `{port}`, sends datagrams to `{port}` (UDP), or is a Connect Four peer
   * (listens on `{port}`, may invite `{invite}`). Absent: no smoke start, only the static checks.
   */
  readonly smoke?: 'tcp' | 'udp' | 'peer';
  /**
   * Starts the game's server (on 127.0.0.1, an ephemeral port, or one of `ports`: every socket the
   * arena listens on is in that range) recording into `store`.
   */
  open(context: { store: Records; log: Logger; ports?: PortRange | null }): Promise<TournamentArena>;
}

/** How a program ended, as a seat's note says it ("exited with code 1", "was stopped by its cpu limit"). */
export function describeExit(exit: ProgramExit): string {
  if (exit.error !== undefined) return `could not start: ${exit.error}`;
  if (exit.limit !== undefined) return `was stopped by its ${exit.limit} limit`;
  if (exit.signal !== null) return `was killed by ${exit.signal}`;
  return `exited with code ${String(exit.code)}`;
}

/**
 * After its game ended: gives the program up to `graceMs` to exit by itself (a client that ends
 * cleanly keeps its own exit code), then stops whatever is left of its process group.
 */
export async function exitOrStop(run: ProgramRun, graceMs: number): Promise<ProgramExit> {
  if (!run.done && graceMs > 0)
    await Promise.race([run.exited, new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
  return run.stop();
}
