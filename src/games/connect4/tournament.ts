import { abortedOutcome, ArenaMatches, cutReason, DEFAULT_CONNECT_TIMEOUT_MS, MATCH_ABORTED, stopPrograms } from '../../core/arena.js';
import type { Logger } from '../../core/log.js';
import { freeUdpPortInRange, withPortIn, type PortRange } from '../../core/ports.js';
import { matchesTotal } from '../../core/metrics.js';
import type { Records } from '../../core/record-backend.js';
import {
  describeExit,
  type ProgramRun,
  type TournamentArena,
  type TournamentMatchOutcome,
  type TournamentMatchRequest,
  type TournamentSeatResult,
  type TournamentSupport,
} from '../../core/tournament-match.js';
import { BOT_LEVELS, type BotLevel } from './bots/index.js';
import { Connect4Engine } from './engine.js';
import {
  AutoPlayer,
  type AbortReason,
  type C4GameRecord,
  type PeerEvent,
  type PeerTiming,
  type WireEntry,
} from './peer.js';
import { initialState, status, type C4State } from './rules.js';
import { startUdpPeer, type UdpPeer } from './transport.js';

/**
 * Connect Four in a tournament: there is no server, so the arena is a REFEREE. For a match it runs
 * one referee peer per seat (our own Peer over real UDP on 127.0.0.1) and relays: the moves seat 0
 * makes on its board the referee plays on seat 1's board, and the other way round, each one checked
 * by the peers' rules on the way (both boards hold the same game, with the same player numbers).
 *
 * The protocol decides who moves first: the inviter. Seat 1's board is therefore started by the
 * referee inviting seat 1 (the referee moves first there, with seat 0's moves); seat 0's board by
 * seat 0 inviting its referee peer (`{invite}`, host:port) so that seat 0 moves first. Our bots do
 * both in-process through their own peers; a program gets `{port}` (where it listens and
 * auto-accepts) and `{invite}` (whom to invite when it is seat 0).
 */

/** The move time limit is the tournament's move time plus this (UDP round trips, a program's own timers). */
export const MOVE_GRACE_MS = 1000;
/** Referee peers repeat faster than the protocol's 2 s, so a program that binds late is invited at once. */
const REFEREE_RESEND_MS = 250;
/** After the end, how long the referee keeps its boards (stage 5 and the final move repeat) and programs may exit by themselves. */
const END_LINGER_MS = 300;
const EXIT_GRACE_MS = 1500;

const BOT_DESCRIPTIONS: Record<BotLevel, string> = {
  perfect: 'the solver: perfect play (opening book and exact search within the move time)',
  strong: 'a fixed-depth search with a good evaluation',
  easy: 'wins and blocks in one, otherwise random',
};

function checkBot(bot: string, options: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  if (!(BOT_LEVELS as readonly string[]).includes(bot))
    problems.push(`unknown Connect Four bot "${bot}" (one of ${BOT_LEVELS.join(', ')})`);
  for (const [key, value] of Object.entries(options)) {
    if (key === 'seed') {
      if (typeof value !== 'string' && typeof value !== 'number')
        problems.push('option seed must be a string or a number');
    } else
      problems.push(
        `unknown option "${key}" for a Connect Four bot (they take only seed; the time per move is the tournament's moveTime)`,
      );
  }
  return problems;
}

interface Seat {
  readonly index: 0 | 1;
  readonly name: string;
  /** Where the entrant's peer listens. */
  port: number;
  /** Our referee peer for this seat's board. */
  referee: UdpPeer;
  bot?: { udp: UdpPeer; player: AutoPlayer };
  run?: ProgramRun;
  started: boolean;
  /** The referee may move on this board now (the entrant is ready and it is the referee's turn). */
  canMove: boolean;
  queue: number[];
  record?: C4GameRecord;
  lost?: { why: string; crashed?: boolean; timedOut?: boolean };
}

type Verdict =
  | { kind: 'result'; winner: 0 | 1 | null; line: readonly (readonly [number, number])[] }
  | { kind: 'forfeit' }
  | { kind: 'aborted' };

function abortText(
  reason: AbortReason,
  moveLimitMs: number,
): { why: string; timedOut?: boolean; crashed?: boolean } {
  switch (reason) {
    case 'move-timeout':
      return { why: `no move within ${moveLimitMs} ms`, timedOut: true };
    case 'silence':
      return { why: 'went silent', timedOut: true };
    case 'opponent-aborted':
      return { why: 'aborted the game (stage 99)' };
    case 'no-final-move':
      return { why: 'sent stage 5 without a final move' };
    default:
      return { why: `game ended: ${reason}` };
  }
}

class Connect4Referee implements TournamentArena {
  private readonly matches = new ArenaMatches();

  constructor(
    private readonly store: Records,
    private readonly log: Logger,
    private readonly ports: PortRange | null = null,
  ) {}

  async play(request: TournamentMatchRequest): Promise<TournamentMatchOutcome> {
    if (request.seats.length !== 2)
      throw new RangeError(`a Connect Four match has 2 seats, got ${request.seats.length}`);
    return this.matches.play(request, request.seats.map((s) => s.name), (signal) => this.referee(request, signal));
  }

  async close(): Promise<void> {
    await this.matches.close();
  }

  private async referee(
    request: TournamentMatchRequest,
    signal: AbortSignal,
  ): Promise<TournamentMatchOutcome> {
    const log = this.log.child({ match: request.id });
    const moveLimitMs = request.moveTimeMs + MOVE_GRACE_MS;
    const connectTimeoutMs = request.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const timing: Partial<PeerTiming> = {
      resendMs: REFEREE_RESEND_MS,
      moveTimeoutMs: moveLimitMs,
      inviteTimeoutMs: connectTimeoutMs,
      invitationValidMs: connectTimeoutMs,
      acceptTimeoutMs: connectTimeoutMs,
    };
    let engine: Connect4Engine | null = null;
    const seats: Seat[] = [];
    const unsubscribe: (() => void)[] = [];
    let verdict: Verdict | null = null;
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const calledAt = Date.now();
    /** When the game began: both boards started (the record's start; before it, seats were set up). */
    const game: { startedAt: number | null } = { startedAt: null };
    let moves: number[] = [];
    const other = (s: Seat): Seat => seats[1 - s.index] as Seat;

    const forfeit = (loser: Seat, lost: NonNullable<Seat['lost']>): void => {
      if (verdict !== null) return;
      loser.lost = lost;
      verdict = { kind: 'forfeit' };
      // The other entrant's game ends too: the referee leaves it (stage 99).
      for (const s of seats) s.referee.peer.quit();
      finish();
    };

    const relay = (to: Seat): void => {
      if (!to.canMove || to.queue.length === 0 || verdict !== null) return;
      const column = to.queue.shift() as number;
      to.canMove = false;
      const r = to.referee.peer.move(column);
      if (!r.ok) log.error({ error: r.error, column }, 'the referee could not relay a move');
    };

    const onEvent = (seat: Seat, e: PeerEvent): void => {
      switch (e.type) {
        case 'game-started':
          seat.started = true;
          if (seats.length === 2 && seats.every((s) => s.started)) game.startedAt ??= Date.now();
          break;
        case 'your-turn':
          seat.canMove = true;
          relay(seat);
          break;
        case 'moved':
          if (e.by === 'remote') {
            moves = [...e.state.moves];
            other(seat).queue.push(e.column);
            relay(other(seat));
          }
          break;
        case 'bad-move':
          forfeit(seat, { why: `illegal move: column ${e.column} at turn ${e.turn} (${e.reason})` });
          break;
        case 'game-over':
          if (verdict === null) {
            verdict = {
              kind: 'result',
              winner: e.winner === null ? null : e.winner === 0 ? 0 : 1,
              line: e.line,
            };
            moves = [...e.state.moves];
          }
          // Done once both boards hold the final position (the last move is relayed by then).
          if (seats.every((s) => s.referee.peer.phase !== 'playing')) finish();
          break;
        case 'aborted':
          if (verdict === null) forfeit(seat, abortText(e.reason, moveLimitMs));
          else if (verdict.kind === 'result') finish();
          break;
        default:
          break;
      }
    };

    try {
      for (const index of [0, 1] as const) {
        const seatReq = request.seats[index];
        if (seatReq === undefined) throw new RangeError('missing seat');
        // Every socket the referee listens on is in the tournament's port range (if it has one).
        const referee = await withPortIn(this.ports, (port) => startUdpPeer({
          name: 'referee',
          port,
          log,
          timing,
          limits: { datagramsPerSecondPerHost: 0 },
          onGameFinished: (record) => {
            seat.record = record;
          },
        }));
        const seat: Seat = {
          index,
          name: seatReq.name,
          port: 0,
          referee,
          started: false,
          canMove: false,
          queue: [],
        };
        seats.push(seat);
        unsubscribe.push(referee.peer.on((e) => onEvent(seat, e)));
      }
      for (const seat of seats) {
        const player = (request.seats[seat.index] as (typeof request.seats)[number]).player;
        const refereeAt = `127.0.0.1:${seat.referee.address.port}`;
        if (player.kind === 'bot') {
          if (engine === null) {
            engine = new Connect4Engine({ log, perfectBudgetMs: Math.max(50, request.moveTimeMs) });
            // Its worker thread and solver start now, before the game: not on the bot's first move's clock.
            await engine.choose(initialState(), 'easy', 'warm-up');
          }
          const level: BotLevel = (BOT_LEVELS as readonly string[]).includes(player.bot)
            ? (player.bot as BotLevel)
            : 'easy';
          const seed =
            typeof player.options.seed === 'string' || typeof player.options.seed === 'number'
              ? String(player.options.seed)
              : `${request.seed}:${seat.name}`;
          const eng = engine;
          const udp = await withPortIn(this.ports, (port) => startUdpPeer({ name: 'spielhalle-bot', port, log }));
          const auto = new AutoPlayer(
            udp.peer,
            (state: C4State) => eng.choose(state, level, `${seed}:${state.moves.join('')}`),
            { log, acceptInvitations: seat.index === 1 },
          );
          seat.bot = { udp, player: auto };
          seat.port = udp.address.port;
          if (seat.index === 0) udp.peer.invite({ address: '127.0.0.1', port: seat.referee.address.port });
        } else {
          seat.port = await freeUdpPortInRange('127.0.0.1', this.ports);
          // A boxed program hears its referee only at its own port, and reaches nothing but the referee.
          seat.run = player.launch({ port: String(seat.port), invite: refereeAt, host: '127.0.0.1' }, { tcp: [], udp: [seat.referee.address.port], udpListen: [seat.port] });
          void seat.run.exited.then((exit) => {
            if (verdict !== null) return;
            forfeit(seat, {
              why: `${describeExit(exit)}${seat.started ? ' during the game' : ' before its game started'}`,
              crashed: true,
            });
          });
        }
      }
      const entrant = (s: Seat): string => `127.0.0.1:${s.port}`;
      // Seat 1's board: the referee invites (and so moves first, with seat 0's moves).
      const seat1 = seats[1] as Seat;
      const invite = () => {
        if (!seat1.started && verdict === null)
          seat1.referee.peer.invite({ address: '127.0.0.1', port: seat1.port });
      };
      unsubscribe.push(
        seat1.referee.peer.on((e) => {
          if (e.type === 'invite-expired') invite();
        }),
      );
      invite();
      // Seat 0's board: the referee accepts seat 0's invitation, and no one else's.
      const seat0 = seats[0] as Seat;
      const acceptSeat0 = () => {
        if (seat0.started || seat0.referee.peer.phase !== 'lobby') return;
        if (seat0.referee.peer.invitations().some((i) => i.key === entrant(seat0)))
          seat0.referee.peer.accept(entrant(seat0));
      };
      unsubscribe.push(
        seat0.referee.peer.on((e) => {
          if (e.type === 'invitation') acceptSeat0();
        }),
      );
      acceptSeat0();

      const connectTimer = setTimeout(() => {
        if (verdict !== null) return;
        const missing = seats.filter((s) => !s.started);
        if (missing.length === 0) return;
        for (const s of missing)
          s.lost = {
            why:
              s.index === 0
                ? `never invited the referee within ${connectTimeoutMs / 1000} s`
                : `never accepted the invitation within ${connectTimeoutMs / 1000} s`,
            crashed: true,
          };
        verdict = { kind: 'forfeit' };
        for (const s of seats) s.referee.peer.quit();
        finish();
      }, connectTimeoutMs);
      const onAbort = () => {
        if (verdict === null) verdict = { kind: 'aborted' };
        for (const s of seats) s.referee.peer.quit();
        finish();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) onAbort();
      await finished;
      clearTimeout(connectTimer);
      signal.removeEventListener('abort', onAbort);
      if ((verdict as Verdict | null)?.kind === 'result')
        await new Promise((r) => setTimeout(r, END_LINGER_MS));
    } finally {
      for (const u of unsubscribe) u();
      await this.stopAll(seats, (verdict as Verdict | null)?.kind === 'result', engine);
    }
    const v = (verdict as Verdict | null) ?? { kind: 'aborted' };
    const names = seats.map((s) => s.name);
    if (v.kind === 'aborted') return abortedOutcome(names, signal.aborted ? cutReason(signal) : MATCH_ABORTED);
    const results: TournamentSeatResult[] = seats.map((s) => {
      let outcome: 'win' | 'draw' | 'loss';
      if (v.kind === 'result') outcome = v.winner === null ? 'draw' : v.winner === s.index ? 'win' : 'loss';
      else outcome = s.lost ? 'loss' : 'win';
      const r: TournamentSeatResult = {
        name: s.name,
        outcome,
        points: outcome === 'win' ? 1 : outcome === 'draw' ? 0.5 : 0,
      };
      if (s.lost?.crashed === true) r.crashed = true;
      if (s.lost?.timedOut === true) r.timedOut = true;
      if (s.lost) r.note = s.lost.why;
      return r;
    });
    let reason: string;
    if (v.kind === 'result')
      reason = v.winner === null ? 'draw: the board is full' : `four in a row: ${names[v.winner] ?? ''}`;
    else
      reason = seats
        .filter((s) => s.lost)
        .map((s) => `${s.name} ${s.lost?.why ?? ''}`)
        .join('; ');
    const id = this.record(request, seats, moves, v, reason, game.startedAt ?? calledAt);
    return { seats: results, reason, records: [id] };
  }

  private async stopAll(
    seats: readonly Seat[],
    finished: boolean,
    engine: Connect4Engine | null,
  ): Promise<void> {
    await stopPrograms(seats.map((s) => s.run), finished ? EXIT_GRACE_MS : 0);
    for (const s of seats) s.bot?.player.stop();
    await Promise.all(seats.flatMap((s) => [s.referee.close(), ...(s.bot ? [s.bot.udp.close()] : [])]));
    await engine?.close();
  }

  /** One record for the match: seats by entrant name, the moves, the wire of both boards. */
  private record(
    request: TournamentMatchRequest,
    seats: readonly Seat[],
    moves: readonly number[],
    v: Verdict,
    reason: string,
    startedAt: number,
  ): string {
    const store = this.store;
    const endedAt = Date.now();
    const id = store.startMatch({
      game: 'connect4',
      seed: request.seed,
      startedAt,
      seats: seats.map((s) => ({
        seat: s.index,
        name: s.name,
        kind: (request.seats[s.index] as (typeof request.seats)[number]).player.kind,
        address: `127.0.0.1:${s.port}`,
      })),
      meta: { tournamentMatch: request.id, referee: seats.map((s) => `127.0.0.1:${s.referee.address.port}`) },
    });
    const times = seats[1]?.record?.moveTimes ?? seats[0]?.record?.moveTimes ?? [];
    moves.forEach((column, turn) =>
      store.addEvent(id, {
        at: times[turn] ?? endedAt,
        seat: turn % 2,
        type: 'move',
        data: { turn, column },
      }),
    );
    const wire: WireEntry[] = seats.flatMap((s) => s.record?.wire ?? []).sort((a, b) => a.at - b.at);
    for (const w of wire)
      store.addWire({ matchId: id, game: 'connect4', conn: w.conn, at: w.at, dir: w.dir, data: w.data });
    const winner = v.kind === 'result' ? v.winner : (seats.find((s) => !s.lost)?.index ?? null);
    const forfeitBy = seats.filter((s) => s.lost).map((s) => s.name);
    const finalStatus = status({ moves });
    store.finishMatch(id, {
      status: 'finished',
      endedAt,
      result: {
        outcome: winner === null ? 'drawn' : 'won',
        winner,
        winnerName: winner === null ? null : (seats[winner]?.name ?? null),
        reason: v.kind === 'result' ? (finalStatus.kind === 'drawn' ? 'board-full' : 'four') : 'forfeit',
        moves: moves.join(''),
        line: v.kind === 'result' ? v.line : [],
        ...(v.kind === 'forfeit' ? { forfeit: forfeitBy, why: reason } : {}),
      },
    });
    matchesTotal.inc({ game: 'connect4', status: 'finished' });
    return id;
  }
}

export const connect4Tournament: TournamentSupport = {
  smoke: 'peer',
  bots: BOT_LEVELS.map((name) => ({ name, description: BOT_DESCRIPTIONS[name] })),
  checkBot,
  open: ({ store, log, ports }) => Promise.resolve(new Connect4Referee(store, log, ports ?? null)),
};
