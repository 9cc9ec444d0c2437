import { ArenaMatches, cutReason, DEFAULT_CONNECT_TIMEOUT_MS, EXIT_GRACE_MS, seatOwns, stopPrograms } from '../../core/arena.js';
import type { SpectatorEvent } from '../../core/game-server.js';
import type { Logger } from '../../core/log.js';
import { withPortIn, type PortRange } from '../../core/ports.js';
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
import { createBot, isMiaStrategy, MIA_STRATEGIES } from './bots/index.js';
import { MiaClient } from './client.js';
import { MAX_NAME_LENGTH } from './protocol.js';
import { MiaServer } from './server.js';
import type { MiaRoundRow } from './snapshot.js';

/**
 * Mia in a tournament: a table is one match. Each match gets its own MiaServer on 127.0.0.1 at
 * an ephemeral port, with dice from the request's seed, that lets exactly the table's seats
 * register (under their entrant names, no spectators, no takeover of a registered name), starts
 * its rounds once every seat has registered (or the connect time is up), plays `rounds` rounds
 * and then unregisters everyone. Placings by the table's score; a seat that crashed (its program
 * exited before the end, or it never registered) is placed behind every seat that did not.
 */

export const DEFAULT_ROUNDS = 20;
const POLL_MS = 20;
const TIMEOUT_REASONS = new Set(['DID_NOT_TAKE_TURN', 'DID_NOT_ANNOUNCE']);

const BOT_DESCRIPTIONS: Record<string, string> = {
  adaptive: 'learns how often each opponent bluffs and calls accordingly (strongest)',
  probabilistic: 'calls and bluffs by the odds of the dice',
  honest: 'always announces what it rolled, calls by a fixed threshold',
  random: 'random calls and bluffs (weakest)',
};

/** The name a seat registers under: the entrant's, or when longer than Mia allows, a shortened one. */
export function wireNames(names: readonly string[]): string[] {
  const clean = (name: string): string => name.replace(/[^\x21-\x7e]|[,;:]/g, '_');
  const out: string[] = [];
  names.forEach((name, i) => {
    let wire = clean(name).slice(0, MAX_NAME_LENGTH);
    if (wire !== name || out.includes(wire)) {
      const tail = `~${i}`;
      wire = `${clean(name).slice(0, MAX_NAME_LENGTH - tail.length)}${tail}`;
    }
    out.push(wire);
  });
  return out;
}

function checkBot(bot: string, options: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  if (!isMiaStrategy(bot)) problems.push(`unknown Mia bot "${bot}" (one of ${MIA_STRATEGIES.join(', ')})`);
  for (const [key, value] of Object.entries(options)) {
    if (key === 'seed') {
      if (typeof value !== 'string' && typeof value !== 'number')
        problems.push('option seed must be a string or a number');
    } else problems.push(`unknown option "${key}" for a Mia bot (Mia bots take only seed)`);
  }
  return problems;
}

const botSeed = (given: unknown, fallback: string): string | number =>
  typeof given === 'string' || typeof given === 'number' ? given : fallback;

interface SeatState {
  name: string;
  wire: string;
  client?: MiaClient;
  run?: ProgramRun;
  registered: boolean;
  crashed: boolean;
  note?: string;
  timeouts: number;
  roundsPlayed: number;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

class MiaTournamentArena implements TournamentArena {
  private readonly live = new Set<MiaServer>();
  private readonly matches = new ArenaMatches();

  constructor(
    private readonly store: Records,
    private readonly log: Logger,
    private readonly ports: PortRange | null = null,
  ) {}

  play(request: TournamentMatchRequest): Promise<TournamentMatchOutcome> {
    return this.matches.play(request, request.seats.map((s) => s.name), (signal) => this.playTable(request, signal));
  }

  private async playTable(
    request: TournamentMatchRequest,
    signal: AbortSignal,
  ): Promise<TournamentMatchOutcome> {
    const rounds = request.rounds ?? DEFAULT_ROUNDS;
    const connectTimeoutMs = request.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const log = this.log.child({ match: request.id });
    const wires = wireNames(request.seats.map((s) => s.name));
    const seats: SeatState[] = request.seats.map((s, i) => ({
      name: s.name,
      wire: wires[i] as string,
      registered: false,
      crashed: false,
      timeouts: 0,
      roundsPlayed: 0,
    }));
    const byWire = new Map(seats.map((s) => [s.wire, s]));
    const entrants = Object.fromEntries(seats.filter((s) => s.wire !== s.name).map((s) => [s.wire, s.name]));
    const table = { done: false };
    let finished!: () => void;
    const tableDone = new Promise<void>((resolve) => (finished = resolve));
    // Each table's server listens at a port of the tournament's range (or one the system picks).
    const makeServer = (port: number): MiaServer => new MiaServer({
      host: '127.0.0.1',
      port,
      answerTimeoutMs: Math.max(1, request.moveTimeMs),
      heartbeatMs: 1000,
      // Rounds run with whoever is registered; the table never waits for missing seats.
      minPlayers: 0,
      waitRecheckMs: 50,
      startEarly: true,
      maxClients: seats.length,
      maxClientsPerHost: 0,
      maxMissedRounds: 0,
      expireSilenceMs: 0,
      floodPerSecond: 200,
      unregisteredPerSecond: 50,
      seed: request.seed,
      log,
      store: this.store,
      holdRounds: true,
      tournament: {
        names: wires,
        // A seat's name is its entrant's alone (issue 30): our bot's socket, a boxed program's.
        nameOwner: (name, from) => {
          const seat = seats.find((x) => x.wire === name);
          if (seat === undefined) return false;
          return seatOwns(seat.client !== undefined ? { bot: true, localPort: seat.client.localPort } : { bot: false, run: seat.run }, from.port);
        },
        rounds,
        meta: { tournamentMatch: request.id, ...(Object.keys(entrants).length > 0 ? { entrants } : {}) },
        onDone: () => {
          table.done = true;
          finished();
        },
      },
    });
    const server = await withPortIn(this.ports, async (port) => {
      const candidate = makeServer(port);
      try {
        await candidate.start();
      } catch (err) {
        await candidate.stop().catch(() => undefined);
        throw err;
      }
      return candidate;
    });
    const records: string[] = [];
    const unsubscribe = server.subscribe((event: SpectatorEvent) => {
      if (event.type !== 'roundOver') return;
      const row = event.data as MiaRoundRow;
      if (row.matchId !== null) records.push(row.matchId);
      for (const name of row.players) {
        const seat = byWire.get(name);
        if (seat) seat.roundsPlayed++;
      }
      if (TIMEOUT_REASONS.has(row.reason ?? ''))
        for (const name of row.losers) (byWire.get(name) ?? { timeouts: 0 }).timeouts++;
    });
    this.live.add(server);
    let reason = '';
    try {
      const port = server.port;
      const starts: Promise<void>[] = [];
      request.seats.forEach((seat, i) => {
        const state = seats[i] as SeatState;
        if (seat.player.kind === 'bot') {
          const client = new MiaClient({
            host: '127.0.0.1',
            port,
            name: state.wire,
            bot: createBot(
              isMiaStrategy(seat.player.bot) ? seat.player.bot : 'random',
              botSeed(seat.player.options.seed, `${request.seed}:${seat.name}`),
            ),
            log: log.child({ bot: seat.name }),
          });
          state.client = client;
          starts.push(
            client.start().catch((error: unknown) => {
              state.crashed = true;
              state.note = `bot could not register: ${error instanceof Error ? error.message : String(error)}`;
            }),
          );
        } else {
          state.run = seat.player.launch({ host: '127.0.0.1', port: String(port), name: state.wire }, { tcp: [], udp: [port] });
        }
      });
      // Registration: every seat, or until the connect time is up (programs that exit give up at once).
      const deadline = Date.now() + connectTimeoutMs;
      const registeredNow = () =>
        new Set(
          server
            .snapshot()
            .players.filter((p) => p.registered)
            .map((p) => p.name),
        );
      for (;;) {
        const reg = registeredNow();
        for (const s of seats) if (reg.has(s.wire)) s.registered = true;
        const waiting = seats.filter((s) => !s.registered && !s.crashed && !(s.run?.done ?? false));
        if (waiting.length === 0 || Date.now() >= deadline || signal.aborted) break;
        await sleep(POLL_MS, signal);
      }
      await Promise.all(starts);
      for (const s of seats) {
        if (s.registered || s.crashed) continue;
        s.crashed = true;
        s.note =
          s.run?.done === true
            ? `${describeExit(await s.run.exited)} before registering`
            : `never registered within ${connectTimeoutMs / 1000} s`;
      }
      const present = seats.filter((s) => s.registered);
      if (signal.aborted) reason = 'aborted';
      else if (present.length < 2) {
        reason =
          present.length === 0
            ? 'no seat registered'
            : `only ${present[0]?.name ?? ''} registered: no round can be played`;
      } else {
        server.startRounds();
        // Programs that exit mid-table have crashed; the table plays on without them.
        for (const s of seats)
          void s.run?.exited.then((e) => {
            if (table.done || s.crashed) return;
            s.crashed = true;
            s.note = `${describeExit(e)} after ${s.roundsPlayed} of ${rounds} rounds`;
          });
        await Promise.race([
          tableDone,
          new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })),
        ]);
        reason = table.done ? `${rounds} rounds played` : 'aborted';
      }
    } catch (error) {
      log.error({ err: error }, 'mia tournament table failed');
      reason = `table failed: ${error instanceof Error ? error.message : String(error)}`;
      if (!signal.aborted) throw error;
    } finally {
      unsubscribe();
      await this.finishSeats(seats, table.done);
      await server.stop();
      this.live.delete(server);
    }
    const aborted = signal.aborted && !table.done;
    const results = this.placings(seats, server, rounds);
    const scores = results.map((r) => `${r.name} ${r.points}`).join(', ');
    return {
      seats: results,
      reason: aborted ? cutReason(signal) : `${reason}${table.done ? `: ${scores}` : ''}`,
      records,
      ...(aborted ? { aborted: true } : {}),
    };
  }

  /** Lets programs exit by themselves after the end (they were unregistered), then stops what is left. */
  private async finishSeats(seats: readonly SeatState[], done: boolean): Promise<void> {
    await Promise.all(
      seats.map((s) => (s.client ? s.client.stop().catch(() => undefined) : Promise.resolve())),
    );
    await stopPrograms(seats.map((s) => s.run), done ? EXIT_GRACE_MS : 0);
  }

  private placings(seats: readonly SeatState[], server: MiaServer, rounds: number): TournamentSeatResult[] {
    const points = seats.map((s) => server.state.scoreOf(s.wire) ?? 0);
    // Crashed seats come after all others; within each group, by score (equal scores share a place).
    const key = (i: number) => ((seats[i] as SeatState).crashed ? 0 : 1_000_000) + (points[i] as number);
    return seats.map((s, i) => {
      const better = seats.filter((_, j) => key(j) > key(i)).length;
      const result: TournamentSeatResult = { name: s.name, placing: better + 1, points: points[i] as number };
      if (s.crashed) result.crashed = true;
      if (s.timeouts > 0) result.timedOut = true;
      const notes: string[] = [];
      if (s.note !== undefined) notes.push(s.note);
      if (s.timeouts > 0) notes.push(`lost ${s.timeouts} of ${rounds} rounds by the answer time limit`);
      if (notes.length > 0) result.note = notes.join('; ');
      return result;
    });
  }

  async close(): Promise<void> {
    const closing = this.matches.close();
    await Promise.all([...this.live].map((s) => s.stop()));
    await closing;
  }
}

export const miaTournament: TournamentSupport = {
  smoke: 'udp',
  bots: MIA_STRATEGIES.map((name) => ({ name, description: BOT_DESCRIPTIONS[name] ?? name })),
  checkBot,
  open: ({ store, log, ports }) => Promise.resolve(new MiaTournamentArena(store, log, ports ?? null)),
};
