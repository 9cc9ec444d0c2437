import type { FastifyInstance } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import { z } from 'zod';
import { guard } from '../../core/guard.js';
import type { Logger } from '../../core/log.js';
import type { Records } from '../../core/record-backend.js';
import { DameClient, type DameClientResult } from './client.js';
import { boardLines, formatMove, squareName } from './notation.js';
import { replayDameMatch } from './replay.js';
import { isErrorLine, isGameId, parseMoveRequest, parseYou, SERVER_LINES, type Seat } from './protocol.js';
import { apply, legalMoves, type DameState, type SingleMove } from './rules.js';
import { DameGameError, type DameServer } from './server.js';
import type { DameGameRow } from './snapshot.js';
import type { DameBrowserPlayer, DameLegalMove, DamePlayMessage, DamePlayPhase, DamePlayResult, DamePlayState } from './web-views.js';

/**
 * The dashboard's Dame routes: creating and listing games (`/api/dame/games`), and a person's
 * seat in a game (`/ws/dame/play`). The seat is a real `DameClient` on loopback TCP whose player
 * waits for the browser, so a person is exactly another network client: the server has no special
 * case for it, its timeouts and its disconnect rule apply as to anyone. The browser is sent the
 * legal moves of each request and offers only those.
 */

export interface DameWebDeps {
  log: Logger;
  /** The host the Dame server listens on; a wildcard address is reached over loopback. */
  host: string;
  /** Browser players at once (each one is a TCP client of the Dame server). */
  maxBrowserPlayers?: number;
}

export const PLAY_CLOSE = { badRequest: 4400, unknownGame: 4404, gameOver: 4409, tooMany: 4429 } as const;

const DEFAULT_MAX_BROWSER_PLAYERS = 32;
const OPEN = 1;
const MAX_BUFFERED = 1 << 20;

const playQuery = z.object({
  game: z.string().refine(isGameId, 'game: a 13-character game id'),
  seat: z.enum(['0', '1']).optional(),
  name: z
    .string()
    .trim()
    .regex(/^[\x20-\x7e]{1,32}$/, 'name: 1–32 printable ASCII characters')
    .default('guest'),
});

const moveCommand = z.strictObject({ type: z.literal('move'), from: z.string().max(8), to: z.string().max(8) });

const connectHost = (host: string): string => (host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host);

export function registerDameWebRoutes(app: FastifyInstance, server: DameServer, deps: DameWebDeps): void {
  const sessions = new Set<BrowserSeat>();
  const maxPlayers = deps.maxBrowserPlayers ?? DEFAULT_MAX_BROWSER_PLAYERS;

  app.get('/api/dame/games', () => server.listGames());

  app.get<{ Params: { id: string } }>('/api/dame/games/:id', (request, reply) => {
    const row = server.getGame(request.params.id);
    if (!row) return reply.code(404).send({ error: `no game ${request.params.id}` });
    return reply.send(row);
  });

  app.post<{ Body: { name?: unknown; moveTimeMs?: unknown; engineSeat?: unknown } | null }>('/api/dame/games', (request, reply) => {
    const b = request.body ?? {};
    if (b.name !== undefined && (typeof b.name !== 'string' || b.name.length === 0 || b.name.length > 100 || /[\r\n]/.test(b.name)))
      return reply.code(400).send({ error: 'name: 1–100 characters on one line' });
    if (b.moveTimeMs !== undefined && typeof b.moveTimeMs !== 'number') return reply.code(400).send({ error: 'moveTimeMs: a number of ms' });
    if (b.engineSeat !== undefined && b.engineSeat !== null && b.engineSeat !== 0 && b.engineSeat !== 1) return reply.code(400).send({ error: 'engineSeat: 0, 1 or null' });
    try {
      const id = server.createGame({
        ...(typeof b.name === 'string' ? { name: b.name } : {}),
        ...(typeof b.moveTimeMs === 'number' ? { moveTimeMs: b.moveTimeMs } : {}),
        engineSeat: b.engineSeat ?? null,
      });
      return reply.code(201).send(server.getGame(id));
    } catch (err) {
      if (err instanceof DameGameError) return reply.code(err.code === 'full' ? 503 : 400).send({ error: err.message, code: err.code });
      throw err;
    }
  });

  app.get('/api/dame/players', (): DameBrowserPlayer[] => [...sessions].flatMap((s) => s.listing()));

  app.route<{ Querystring: Record<string, string | undefined> }>({
    method: 'GET',
    url: '/ws/dame/play',
    handler: (_request, reply) => reply.code(426).send({ error: 'this endpoint needs a WebSocket upgrade' }),
    wsHandler: (socket, request) => {
      const query = playQuery.safeParse(request.query);
      if (!query.success) {
        socket.close(PLAY_CLOSE.badRequest, query.error.issues[0]?.message ?? 'bad query');
        return;
      }
      const { game, seat, name } = query.data;
      const row = server.getGame(game);
      if (!row) {
        socket.close(PLAY_CLOSE.unknownGame, `no game ${game}`);
        return;
      }
      if (row.status === 'over') {
        socket.close(PLAY_CLOSE.gameOver, 'this game is over');
        return;
      }
      if (sessions.size >= maxPlayers) {
        socket.close(PLAY_CLOSE.tooMany, `at most ${maxPlayers} browser players at once`);
        return;
      }
      const session = new BrowserSeat(socket, server, {
        gameId: game,
        seat: seat === undefined ? null : seat === '0' ? 0 : 1,
        name,
        host: connectHost(deps.host),
        moveTimeMs: row.moveTimeMs,
        log: deps.log.child({ game: 'dame', part: 'browser-player', player: name }),
      });
      sessions.add(session);
      session
        .run()
        .catch((err: unknown) => {
          // A bug in this browser's seat ends that seat (its client disconnects), nothing more.
          deps.log.error({ err, game: 'dame', gameId: game }, 'browser seat failed: internal error');
          session.abort();
        })
        .finally(() => sessions.delete(session));
    },
  });
}

interface SeatOptions {
  gameId: string;
  seat: Seat | null;
  name: string;
  host: string;
  moveTimeMs: number;
  log: Logger;
}

interface Pending {
  state: DameState;
  legal: SingleMove[];
  deadline: number;
  resolve: (move: SingleMove) => void;
}

const legalView = (m: SingleMove): DameLegalMove => ({
  from: squareName(m.from),
  to: squareName(m.to),
  captured: m.captured === null ? null : squareName(m.captured),
  promotes: m.promotes,
});

/** One browser's seat: the protocol client, and what the browser is told about it. */
class BrowserSeat {
  private readonly client: DameClient;
  private seat: Seat | null = null;
  private seated = false;
  private address: string | null = null;
  private turn = 0;
  private moveMs: number | null = null;
  private followUp = false;
  private pending: Pending | null = null;
  /** The board after our own move, shown until the server's public board has it too. */
  private played: { rows: string[]; move: string; plies: number } | null = null;
  private result: DamePlayResult | null = null;
  private readonly since = Date.now();

  constructor(
    private readonly socket: WebSocket,
    private readonly server: DameServer,
    private readonly o: SeatOptions,
  ) {
    this.client = new DameClient({
      host: o.host,
      port: server.info().port,
      gameId: o.gameId,
      seat: o.seat,
      player: (state, budgetMs) => this.ask(state, budgetMs),
      // The person gets the whole MOVE time; the server's grace covers the way back.
      marginMs: 0,
      // While the person thinks the server is silent for up to the move time.
      silenceTimeoutMs: o.moveTimeMs + 60_000,
      log: o.log,
      onLine: (dir, line) => this.line(dir, line),
    });
  }

  listing(): DameBrowserPlayer[] {
    if (this.seat === null || !this.seated || this.result !== null) return [];
    return [{ gameId: this.o.gameId, seat: this.seat, name: this.o.name, address: this.address, since: this.since }];
  }

  /** After an internal error: the protocol client goes (a disconnect for the server), the browser is told. */
  abort(): void {
    this.client.stop();
    if (this.socket.readyState === OPEN) this.socket.close(1011, 'internal error');
  }

  async run(): Promise<void> {
    // Every entry from the browser or the server's events is guarded: a bug ends this seat only.
    const fail = (): void => this.abort();
    const off = this.server.subscribe(
      guard(this.o.log, 'browser seat event', (event: { data: unknown }) => {
        const data = event.data as { gameId?: unknown } | null;
        if (data?.gameId === this.o.gameId && this.result === null) this.push();
      }, fail),
    );
    this.socket.on('message', guard(this.o.log, 'browser seat message', (data: RawData) => this.command(data), fail));
    this.socket.on('close', guard(this.o.log, 'browser seat close', () => this.client.stop()));
    this.socket.on('error', guard(this.o.log, 'browser seat error', () => this.client.stop()));
    this.push();
    try {
      const result = await this.client.run();
      this.finish(result);
    } finally {
      off();
    }
  }

  private ask(state: DameState, budgetMs: number): Promise<SingleMove> {
    return new Promise<SingleMove>((resolve) => {
      this.turn++;
      this.followUp = state.mustContinue;
      this.played = null;
      this.pending = { state, legal: legalMoves(state), deadline: Date.now() + budgetMs, resolve };
      this.push();
    });
  }

  private line(dir: 'in' | 'out', line: string): void {
    this.send({ type: 'line', dir, line });
    if (dir === 'out') return;
    if (isErrorLine(line)) {
      this.send({ type: 'errorLine', line });
      return;
    }
    const you = parseYou(line);
    if (you && (you.seat === 0 || you.seat === 1)) this.seat = you.seat;
    else if (line === SERVER_LINES.endPlayers) {
      this.seated = true;
      if (this.seat !== null) this.address = this.row()?.seats[this.seat].address ?? null;
      this.push();
    } else {
      const ms = parseMoveRequest(line);
      if (ms !== null) this.moveMs = ms;
    }
  }

  private command(data: RawData): void {
    let text: string;
    let parsed: z.infer<typeof moveCommand>;
    try {
      text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : data instanceof ArrayBuffer ? Buffer.from(data).toString('utf8') : data.toString('utf8');
      const c = moveCommand.safeParse(JSON.parse(text));
      if (!c.success) throw new Error('expected {"type":"move","from":"C3","to":"D4"}');
      parsed = c.data;
    } catch (err) {
      this.send({ type: 'notice', text: `not a command: ${(err as Error).message}` });
      return;
    }
    const { from, to } = parsed;
    const pending = this.pending;
    if (!pending) {
      this.send({ type: 'refused', from, to, reason: this.result ? 'the game is over' : 'it is not your turn' });
      this.push();
      return;
    }
    const move = pending.legal.find((m) => squareName(m.from) === from.toUpperCase() && squareName(m.to) === to.toUpperCase());
    if (!move) {
      this.send({ type: 'refused', from, to, reason: `${from}:${to} is not a legal move here` });
      // The browser dropped its moves when it sent this one: it gets them back.
      this.push();
      return;
    }
    this.pending = null;
    const after = apply(pending.state, move);
    const plies = this.row()?.plies ?? 0;
    if (after.ok) this.played = { rows: boardLines(after.value), move: formatMove(move), plies: plies + 1 };
    pending.resolve(move);
    this.push();
  }

  private finish(r: DameClientResult): void {
    this.pending = null;
    const row = this.row();
    const ended = this.seat !== null && row?.status === 'over' && row.result !== null ? row.result : null;
    let outcome = r.outcome;
    // A timeout or an error line still ends the game with a winner: say who.
    if (outcome === 'error' && ended && ended.winner !== null) outcome = ended.winner === this.seat ? 'won' : 'lost';
    this.result = { outcome, winners: r.winners, reason: ended?.reason ?? null, error: r.error };
    this.push(r.board);
    if (this.socket.readyState === OPEN) this.socket.close(1000, 'game over');
  }

  private row(): DameGameRow | undefined {
    return this.server.getGame(this.o.gameId);
  }

  private phase(row: DameGameRow | undefined): DamePlayPhase {
    if (this.result) return 'over';
    if (this.pending) return 'your-turn';
    if (!this.seated) return 'connecting';
    return row?.status === 'waiting' ? 'waiting' : 'their-turn';
  }

  private push(finalBoard: string[] | null = null): void {
    const row = this.row();
    const pending = this.pending;
    const played = this.played && row && row.plies < this.played.plies ? this.played : null;
    const other = this.seat === null ? null : row?.seats[this.seat === 0 ? 1 : 0];
    const state: DamePlayState = {
      type: 'state',
      gameId: this.o.gameId,
      gameName: row?.name ?? null,
      name: this.o.name,
      seat: this.seat,
      phase: this.phase(row),
      board: finalBoard ?? (pending ? boardLines(pending.state) : (played?.rows ?? row?.board ?? [])),
      lastMove: played?.move ?? row?.lastMove ?? null,
      toMove: row?.toMove ?? null,
      plies: played?.plies ?? row?.plies ?? 0,
      turn: this.turn,
      followUp: pending ? this.followUp : false,
      moveTimeMs: pending ? this.moveMs : null,
      remainingMs: pending ? Math.max(0, pending.deadline - Date.now()) : null,
      legal: pending ? pending.legal.map(legalView) : [],
      opponent: other ? { kind: other.kind, connected: other.connected, address: other.address } : null,
      result: this.result,
      matchId: row?.matchId ?? null,
    };
    this.send(state);
  }

  private send(message: DamePlayMessage): void {
    if (this.socket.readyState !== OPEN || this.socket.bufferedAmount > MAX_BUFFERED) return;
    try {
      this.socket.send(JSON.stringify(message));
    } catch (err) {
      this.o.log.debug({ err }, 'browser send failed');
    }
  }
}

/**
 * A recorded Dame game as one board per single move (`/api/dame/replay/<match-id>`), replayed by
 * the rules core so the browser only draws (the board replay of the match page). A record that
 * makes the replay fail is a 500 for that request (logged with its stack), never more.
 */
export function registerDameReplayRoute(app: FastifyInstance, store: Records): void {
  app.get<{ Params: { id: string } }>('/api/dame/replay/:id', async (request, reply) => {
    try {
      const match = await store.getMatch(request.params.id);
      if (match?.game !== 'dame') return await reply.code(404).send({ error: `no Dame match with id ${request.params.id}` });
      const replay = replayDameMatch(match);
      if (!replay) return await reply.code(422).send({ error: 'this record has no start position and cannot be replayed' });
      return await reply.send(replay);
    } catch (err) {
      request.log.error({ err, match: request.params.id }, 'dame replay: internal error');
      return reply.code(500).send({ error: 'internal error' });
    }
  });
}
