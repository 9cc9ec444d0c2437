import type { FastifyInstance } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import { z } from 'zod';
import type { Logger } from '../../core/log.js';
import type { C4Engine } from './engine.js';
import type { Connect4Hub } from './hub.js';
import type { Peer, PeerEvent } from './peer.js';
import { isValidOwnName } from './protocol.js';
import { fromMoves, legalMoves, status, toMove } from './rules.js';
import { LEVELS, type GameError, type SolverGame, type SolverGames } from './solver-games.js';
import type { Analysis, AnalyseProgress, AnalyseProgressView, RelayMessage, SolverGameView } from './views.js';

/**
 * The dashboard's Connect Four routes: games against the solver (`/api/connect4/games`), the
 * analysis of any position (`/api/connect4/analyse`), and a browser's seat on the network
 * (`/ws/connect4/peer`): a relay peer of clienttype 1 that the browser drives, since a browser
 * cannot speak UDP. The browser never computes a rule: it shows what these answers say.
 */

export interface Connect4RouteDeps {
  hub: Connect4Hub;
  games: SolverGames;
  engine: Pick<C4Engine, 'analyse'>;
  log: Logger;
  maxBrowserPeers: number;
  /** How long an analysis may search before it answers 503 (default 10 s: the bots share the solver). */
  analyseTimeoutMs?: number;
}

const newGame = z.strictObject({
  level: z.enum(LEVELS as [string, ...string[]]).default('perfect'),
  first: z.enum(['human', 'bot']).default('human'),
  name: z.string().trim().min(1).max(32).default('guest'),
});
const moveBody = z.strictObject({ column: z.number().int() });

const STATUS_OF: Record<GameError['code'], number> = {
  'unknown-game': 404,
  'not-your-turn': 409,
  'game-over': 409,
  busy: 409,
  'too-many-games': 503,
  'column-out-of-range': 400,
  'column-full': 400,
};

export function gameView(game: SolverGame): SolverGameView {
  return { ...game, yourTurn: game.status.kind === 'running' && toMove({ moves: game.moves }) === game.human };
}

export function registerConnect4Routes(app: FastifyInstance, deps: Connect4RouteDeps): void {
  const { games, engine, hub, log } = deps;
  const analyseTimeoutMs = deps.analyseTimeoutMs ?? 10_000;
  let browserPeers = 0;

  // The analyses running now, by position, for the progress route (the newest request's, when
  // two ask for the same position).
  const analysing = new Map<string, AnalyseProgress & { moves: string }>();

  app.get<{ Querystring: { moves?: string } }>('/api/connect4/analyse', async (request, reply) => {
    const text = (request.query.moves ?? '').trim();
    if (text.length > 42) return reply.code(400).send({ error: 'a position has at most 42 moves' });
    const parsed = fromMoves(text);
    if (!parsed.ok) return reply.code(400).send({ error: parsed.error.message, code: parsed.error.code });
    const state = parsed.value;
    const s = status(state);
    const base = { moves: text, toMove: toMove(state), status: s };
    if (s.kind !== 'running' || legalMoves(state).length === 0) return reply.send({ ...base, scores: Array<null>(7).fill(null), score: null, best: [] } satisfies Analysis);
    // A browser that moves on aborts its request: the solver drops the analysis nobody awaits.
    const gone = new AbortController();
    const onClose = (): void => {
      if (!reply.raw.writableEnded) gone.abort();
    };
    reply.raw.on('close', onClose);
    const progress = { moves: text, nodes: 0, column: null, columnsDone: 0, columns: 0, elapsedMs: 0 };
    analysing.set(text, progress);
    let scores: (number | null)[] | null = null;
    try {
      scores = await engine.analyse(state.moves, analyseTimeoutMs, { signal: gone.signal, onProgress: (p) => Object.assign(progress, p) });
    } catch (err) {
      log.debug({ err, moves: text }, gone.signal.aborted ? 'analysis cancelled: the client went away' : 'analysis gave up');
    } finally {
      reply.raw.off('close', onClose);
      if (analysing.get(text) === progress) analysing.delete(text);
    }
    // 499: nobody reads it, but the log says what happened.
    if (gone.signal.aborted) return reply.code(499).send({ error: 'the request was cancelled' });
    if (scores === null) return reply.code(503).send({ error: `this position is too deep to solve within ${analyseTimeoutMs / 1000} s; play a few more moves` });
    const score = Math.max(...scores.filter((v): v is number => v !== null));
    const best = scores.flatMap((v, i) => (v === score ? [i + 1] : []));
    return reply.send({ ...base, scores, score, best } satisfies Analysis);
  });

  app.get<{ Querystring: { moves?: string } }>('/api/connect4/analyse/progress', (request, reply) => {
    const text = (request.query.moves ?? '').trim();
    const running = analysing.get(text);
    return reply.send((running ? { ...running, solving: true } : { moves: text, solving: false }) satisfies AnalyseProgressView);
  });

  app.post('/api/connect4/games', async (request, reply) => {
    const body = newGame.safeParse(request.body ?? {});
    if (!body.success) return reply.code(400).send({ error: body.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ') });
    const created = await games.create({ level: body.data.level as SolverGame['level'], humanName: body.data.name, humanFirst: body.data.first === 'human' });
    if (!created.ok) return reply.code(STATUS_OF[created.error.code]).send({ error: created.error.message, code: created.error.code });
    return reply.code(201).send(gameView(created.value));
  });

  app.get<{ Params: { id: string } }>('/api/connect4/games/:id', (request, reply) => {
    const game = games.get(request.params.id);
    if (!game) return reply.code(404).send({ error: `no game ${request.params.id}`, code: 'unknown-game' });
    return reply.send(gameView(game));
  });

  app.post<{ Params: { id: string } }>('/api/connect4/games/:id/moves', async (request, reply) => {
    const body = moveBody.safeParse(request.body ?? {});
    if (!body.success) return reply.code(400).send({ error: 'expected {"column": 1–7}', code: 'column-out-of-range' });
    const moved = await games.move(request.params.id, body.data.column);
    if (!moved.ok) return reply.code(STATUS_OF[moved.error.code]).send({ error: moved.error.message, code: moved.error.code });
    return reply.send(gameView(moved.value));
  });

  app.post<{ Params: { id: string } }>('/api/connect4/games/:id/resign', (request, reply) => {
    const resigned = games.resign(request.params.id);
    if (!resigned.ok) return reply.code(404).send({ error: resigned.error.message, code: resigned.error.code });
    return reply.send(gameView(resigned.value));
  });

  app.route<{ Querystring: { name?: string } }>({
    method: 'GET',
    url: '/ws/connect4/peer',
    handler: (_request, reply) => reply.code(426).send({ error: 'this endpoint needs a WebSocket upgrade' }),
    wsHandler: (socket, request) => {
      const name = (request.query.name ?? '').trim();
      if (!isValidOwnName(name)) {
        socket.close(4400, 'a name is 1–32 printable ASCII characters');
        return;
      }
      if (browserPeers >= deps.maxBrowserPeers) {
        socket.close(4429, `at most ${deps.maxBrowserPeers} browser players at once`);
        return;
      }
      browserPeers++;
      relay(socket, name, hub, log)
        .catch((err: unknown) => log.error({ err }, 'Connect Four browser relay failed'))
        .finally(() => browserPeers--);
    },
  });
}

const command = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('invite'), key: z.string().max(64) }),
  z.strictObject({ type: z.literal('accept'), key: z.string().max(64).optional() }),
  z.strictObject({ type: z.literal('decline'), key: z.string().max(64).optional() }),
  z.strictObject({ type: z.literal('cancel') }),
  z.strictObject({ type: z.literal('move'), column: z.number().int() }),
  z.strictObject({ type: z.literal('quit') }),
  z.strictObject({ type: z.literal('lobby') }),
]);

/** `host:port` as an address, so a peer can be invited before it is heard in the lobby. */
function asAddress(key: string): { address: string; port: number } | null {
  const m = /^(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})$/.exec(key.trim());
  const port = Number(m?.[2]);
  return m?.[1] && port > 0 && port < 65536 ? { address: m[1], port } : null;
}

/** What the browser shows of its relay peer, sent after every change. */
export function relayState(peer: Peer): Extract<RelayMessage, { type: 'state' }> {
  const game = peer.game;
  return {
    type: 'state',
    name: peer.name,
    phase: peer.phase,
    lobby: peer.lobby(),
    invitations: peer.invitations(),
    invitee: peer.invitee,
    game: game && {
      id: game.id,
      opponent: game.opponent,
      localPlayer: game.localPlayer,
      moves: [...game.state.moves],
      status: status(game.state),
      yourTurn: peer.phase === 'playing' && status(game.state).kind === 'running' && toMove(game.state) === game.localPlayer && game.opponentReady,
    },
  };
}

const NOTICES: Partial<Record<PeerEvent['type'], (e: never) => string>> = {
  'invite-expired': (e: Extract<PeerEvent, { type: 'invite-expired' }>) => `${e.to.name ?? e.to.key} did not accept within 10 s`,
  'accept-expired': (e: Extract<PeerEvent, { type: 'accept-expired' }>) => `${e.to.name ?? e.to.key} did not start the game; back in the lobby`,
  'bad-move': (e: Extract<PeerEvent, { type: 'bad-move' }>) => `the opponent sent an invalid move (column ${e.column}, turn ${e.turn}: ${e.reason}); the game goes on`,
  aborted: (e: Extract<PeerEvent, { type: 'aborted' }>) => `the game was aborted (${e.reason})`,
};

async function relay(socket: WebSocket, name: string, hub: Connect4Hub, log: Logger): Promise<void> {
  const send = (message: RelayMessage): void => {
    if (socket.readyState === 1) socket.send(JSON.stringify(message));
  };
  let udp;
  try {
    udp = await hub.startPeer({ name, role: 'browser', port: 0, clienttype: 1 });
  } catch (err) {
    log.warn({ err }, 'could not start a browser peer');
    socket.close(1011, 'could not start a peer');
    return;
  }
  const { peer } = udp;
  const off = peer.on((event) => {
    const notice = NOTICES[event.type] as ((e: PeerEvent) => string) | undefined;
    if (notice) send({ type: 'notice', level: event.type === 'bad-move' || event.type === 'aborted' ? 'error' : 'info', text: notice(event) });
    send(relayState(peer));
  });
  send({ type: 'hello', name, address: `${udp.address.address}:${udp.address.port}` });
  send(relayState(peer));
  socket.on('message', (data: RawData) => {
    let parsed: z.infer<typeof command>;
    try {
      const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : data instanceof ArrayBuffer ? Buffer.from(data).toString('utf8') : data.toString('utf8');
      const c = command.safeParse(JSON.parse(text));
      if (!c.success) throw new Error(c.error.issues[0]?.message ?? 'bad command');
      parsed = c.data;
    } catch (err) {
      send({ type: 'notice', level: 'error', text: `not a command: ${(err as Error).message}` });
      return;
    }
    // An error boundary: an exception in a command ends at most the relay peer's running game.
    try {
      const result =
        parsed.type === 'invite' ? peer.invite(asAddress(parsed.key) ?? parsed.key)
        : parsed.type === 'accept' ? peer.accept(parsed.key)
        : parsed.type === 'decline' ? peer.decline(parsed.key)
        : parsed.type === 'move' ? peer.move(parsed.column)
        : null;
      if (parsed.type === 'cancel') peer.cancelInvite();
      if (parsed.type === 'quit') peer.quit();
      if (parsed.type === 'lobby') peer.backToLobby();
      if (result && !result.ok) send({ type: 'notice', level: 'error', text: result.error.message });
      send(relayState(peer));
    } catch (err) {
      peer.internalError(err, 'browser command');
      send({ type: 'notice', level: 'error', text: 'internal error' });
    }
  });
  await new Promise<void>((resolve) => {
    socket.on('close', () => resolve());
    socket.on('error', () => resolve());
  });
  off();
  await hub.stopPeer(udp);
}
