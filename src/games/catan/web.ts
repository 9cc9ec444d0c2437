import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import { z } from 'zod';
import { guard } from '../../core/guard.js';
import type { Logger } from '../../core/log.js';
import type { Records } from '../../core/record-backend.js';
import { codePoints } from './commands.js';
import { JsonObjectReader } from './json-reader.js';
import { MAX_MESSAGE_BYTES } from './protocol.js';
import { finalView, replayCatanMatch } from './replay.js';
import { COLOURS } from './rules/index.js';
import type { CatanServer } from './server.js';
import { BrowserSeat, type SeatBook } from './web-seat.js';
import type { CatanBrowserPlayer, CatanRecordView } from './web-views.js';

/**
 * The dashboard's Catan routes:
 * - `GET /api/catan/lobbies`, `POST /api/catan/lobbies/fill` (our AI takes the empty seats),
 *   `POST /api/catan/games` (a game of house bots), `GET /api/catan/players` (people playing here),
 *   `GET /api/catan/records/:id` (a recorded game replayed: final board, public log, the check).
 * - `/ws/catan/play`: a person's seat, a protocol 0.3 TCP client in the gateway (web-seat.ts);
 *   `/ws/catan/play?seat=<token>`: the same seat again after a reload, within `reconnectMs`.
 * - `/ws/catan/relay`: D15 exactly, for browser clients of others: each text frame is one JSON
 *   object passed unchanged to its own TCP connection, and each object from it comes back as one frame.
 * Seats and relays connect through `CatanServer.connectGateway`: `maxBrowserPlayers` bounds them, the
 * server's per-host caps do not count them (they all come from loopback). An exception in one of
 * them closes that one.
 */

export interface CatanWebDeps {
  log: Logger;
  store: Records;
  /** People playing (or relayed) at once; each is a TCP client of the Catan server. */
  maxBrowserPlayers?: number;
  /** How long a seat whose browser went (a reload) waits for it to come back with its token. */
  reconnectMs?: number;
}

/** A seat waits this long for its browser by default: a reload, or a short loss of the network. */
export const RECONNECT_MS = 60_000;

/** Close codes of `/ws/catan/play`: a bad query, too many seats, a token of no (longer a) seat. */
export const PLAY_CLOSE = { badRequest: 4400, noSeat: 4404, tooMany: 4429 } as const;

/** A seat token as the gateway makes them (24 random bytes, base64url). */
const SEAT_TOKEN = /^[A-Za-z0-9_-]{32}$/;
const digest = (token: string): string => createHash('sha256').update(token).digest('hex');

/** The gateway's seats, found by (a digest of) their token; who is away, told to whom it concerns. */
class Seats implements SeatBook {
  private readonly byToken = new Map<string, BrowserSeat>();

  get size(): number {
    return this.byToken.size;
  }

  all(): BrowserSeat[] {
    return [...this.byToken.values()];
  }

  add(seat: BrowserSeat): void {
    this.byToken.set(digest(seat.token), seat);
  }

  delete(seat: BrowserSeat): void {
    this.byToken.delete(digest(seat.token));
  }

  /** The seat this token belongs to; a lookup by digest, so no comparison leaks a prefix. */
  find(token: string): BrowserSeat | undefined {
    return this.byToken.get(digest(token));
  }

  away(ids: readonly number[]): number[] {
    const wanted = new Set(ids);
    return this.all()
      .filter((s) => s.away && s.me !== null && wanted.has(s.me))
      .map((s) => s.me!)
      .sort((a, b) => a - b);
  }

  changed(seat: BrowserSeat): void {
    if (seat.me === null) return;
    for (const other of this.byToken.values())
      if (other !== seat && other.players().includes(seat.me)) other.refresh();
  }
}

const OPEN = 1;
const rejoinQuery = z.object({ seat: z.string().regex(SEAT_TOKEN, 'seat: not a seat token') });
const playQuery = z.object({
  name: z
    .string()
    .trim()
    .min(1, 'name: 1–40 characters')
    .refine((n) => codePoints(n) <= 40, 'name: 1–40 characters'),
  colour: z.enum(COLOURS).optional(),
});
const fillBody = z.strictObject({
  lobby: z.string().max(64).optional(),
  size: z.union([z.literal(3), z.literal(4)]).optional(),
});
const gameBody = z.strictObject({ players: z.union([z.literal(3), z.literal(4)]).optional() });

const connectHost = (host: string): string =>
  host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;

export function registerCatanWebRoutes(app: FastifyInstance, server: CatanServer, deps: CatanWebDeps): void {
  const seats = new Seats();
  let relays = 0;
  const max = deps.maxBrowserPlayers ?? 32;
  const reconnectMs = deps.reconnectMs ?? RECONNECT_MS;
  const log = deps.log.child({ game: 'catan', part: 'web' });
  // The dashboard stops: no seat waits for its browser any more.
  app.addHook('onClose', (_app, done) => {
    for (const seat of seats.all()) seat.shutdown();
    done();
  });

  app.get('/api/catan/lobbies', () => server.hall.lobbyRows());

  app.post<{ Body: unknown }>('/api/catan/lobbies/fill', (request, reply) => {
    const body = fillBody.safeParse(request.body ?? {});
    if (!body.success) return reply.code(400).send({ error: body.error.issues[0]?.message ?? 'bad body' });
    const filled = server.fillLobbyWithBots(body.data.lobby, body.data.size ?? 4);
    if (!filled)
      return reply
        .code(404)
        .send({ error: body.data.lobby === undefined ? 'no open lobby' : `no lobby ${body.data.lobby}` });
    return reply.send(filled);
  });

  app.post<{ Body: unknown }>('/api/catan/games', async (request, reply) => {
    const body = gameBody.safeParse(request.body ?? {});
    if (!body.success) return reply.code(400).send({ error: body.error.issues[0]?.message ?? 'bad body' });
    try {
      const id = await server.startGameWithBots(body.data.players ?? 4);
      return await reply.code(201).send({ id });
    } catch (err) {
      return reply.code(503).send({ error: (err as Error).message });
    }
  });

  app.get('/api/catan/players', (): CatanBrowserPlayer[] => seats.all().map((s) => s.listing()));

  app.get<{ Params: { id: string } }>('/api/catan/records/:id', async (request, reply) => {
    const match = await deps.store.getMatch(request.params.id);
    if (!match || match.game !== 'catan')
      return reply.code(404).send({ error: `no Catan game ${request.params.id}` });
    const replayed = replayCatanMatch(match, { lines: true });
    const record: CatanRecordView = {
      id: match.id,
      status: match.status,
      startedAt: match.startedAt,
      endedAt: match.endedAt,
      seats: match.seats,
      result: match.result,
      checked: replayed.checked,
      problems: replayed.problems,
      final: finalView(replayed),
      lines: replayed.lines,
    };
    return reply.send(record);
  });

  const full = (socket: WebSocket): boolean => {
    if (seats.size + relays < max) return false;
    socket.close(PLAY_CLOSE.tooMany, `at most ${max} browser players at once`);
    return true;
  };

  app.route<{ Querystring: Record<string, string | undefined> }>({
    method: 'GET',
    url: '/ws/catan/play',
    handler: (_request, reply) => reply.code(426).send({ error: 'this endpoint needs a WebSocket upgrade' }),
    wsHandler: (socket, request) => {
      if (request.query.seat !== undefined) {
        // A browser back with its token (a reload): the seat, or nothing, never another one.
        const rejoin = rejoinQuery.safeParse(request.query);
        if (!rejoin.success) {
          socket.close(PLAY_CLOSE.badRequest, rejoin.error.issues[0]?.message ?? 'bad query');
          return;
        }
        const seat = seats.find(rejoin.data.seat);
        if (!seat) {
          socket.close(PLAY_CLOSE.noSeat, 'no such seat: its game is over or it waited too long');
          return;
        }
        seat.attach(socket);
        return;
      }
      const query = playQuery.safeParse(request.query);
      if (!query.success) {
        socket.close(PLAY_CLOSE.badRequest, query.error.issues[0]?.message ?? 'bad query');
        return;
      }
      if (full(socket)) return;
      const { name, colour } = query.data;
      const seat = new BrowserSeat({
        server,
        host: connectHost(server.info().host),
        name,
        colour: colour ?? null,
        log: log.child({ player: name }),
        reconnectMs,
        book: seats,
      });
      seats.add(seat);
      void seat
        .run(socket)
        .catch((err: unknown) => log.error({ err }, 'browser seat failed'))
        .finally(() => seats.delete(seat));
    },
  });

  app.route({
    method: 'GET',
    url: '/ws/catan/relay',
    handler: (_request, reply) => reply.code(426).send({ error: 'this endpoint needs a WebSocket upgrade' }),
    wsHandler: (socket) => {
      if (full(socket)) return;
      relays++;
      relay(socket, server, connectHost(server.info().host), log, () => relays--);
    },
  });
}

/** D15: one browser WebSocket ↔ one TCP connection, one JSON object per text frame, unchanged. */
function relay(ws: WebSocket, server: CatanServer, host: string, log: Logger, done: () => void): void {
  const tcp = server.connectGateway(host);
  const reader = new JsonObjectReader(MAX_MESSAGE_BYTES);
  let finished = false;
  const finish = (): void => {
    if (finished) return;
    finished = true;
    done();
    tcp.destroy();
    if (ws.readyState === OPEN) ws.close(1000, 'connection closed');
  };
  tcp.on(
    'data',
    guard(
      log,
      'relay input',
      (chunk: Buffer) => {
        for (const item of reader.push(chunk)) {
          if (item.kind === 'object' && ws.readyState === OPEN) ws.send(item.text);
        }
      },
      finish,
    ),
  );
  tcp.on('error', (err) => log.debug({ err: err.message }, 'relay socket error'));
  tcp.on('close', finish);
  ws.on(
    'message',
    guard(
      log,
      'relay command',
      (data: RawData, binary: boolean) => {
        if (binary) return;
        const text = Array.isArray(data)
          ? Buffer.concat(data).toString('utf8')
          : data instanceof ArrayBuffer
            ? Buffer.from(data).toString('utf8')
            : data.toString('utf8');
        tcp.write(text.endsWith('\n') ? text : text + '\n');
      },
      finish,
    ),
  );
  ws.on('close', finish);
  ws.on('error', finish);
}
