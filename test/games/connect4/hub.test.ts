import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { DEFAULT_SETTINGS, type Settings } from '../../../src/config.js';
import type { SpectatorEvent } from '../../../src/core/game-server.js';
import { silentLogger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import { startBanner, type Running } from '../../../src/serve.js';
import { Rng } from '../../../src/core/rng.js';
import { chooseMove } from '../../../src/games/connect4/bots/index.js';
import type { C4Engine } from '../../../src/games/connect4/engine.js';
import { Connect4Hub } from '../../../src/games/connect4/hub.js';
import { connect4 } from '../../../src/games/connect4/index.js';
import { AutoPlayer, type PeerTiming } from '../../../src/games/connect4/peer.js';
import { fromMoves, legalMoves, status, type C4State } from '../../../src/games/connect4/rules.js';
import { defaultSolver, Position } from '../../../src/games/connect4/solver/index.js';
import type { RelayMessage, SolverGameView } from '../../../src/games/connect4/views.js';
import { startUdpPeer, type UdpPeer } from '../../../src/games/connect4/transport.js';
import { createWebServer, type WebServer } from '../../../src/web/server.js';

/**
 * The Connect Four hub as `spielhalle serve` runs it: house bots playing each other over real
 * UDP on 127.0.0.1, games recorded once, spectators fed; and the dashboard's routes: games
 * against the solver, analysis, and a browser's relay peer playing a real UDP peer.
 */

const FAST: Partial<PeerTiming> = {
  resendMs: 100,
  lobbyExpiryMs: 1000,
  inviteTimeoutMs: 1000,
  invitationValidMs: 1000,
  acceptTimeoutMs: 1000,
  silenceMs: 4000,
  moveTimeoutMs: 8000,
  finalMoveWaitMs: 500,
};

/** The engine's surface without the worker: the easy bot for every level (fast), the real solver for analyses. */
class InProcessEngine implements C4Engine {
  chooses = 0;
  delayMs = 0;
  /** The level of every move asked for, with its seed. */
  readonly asked: { level: string; seed: string }[] = [];
  choose(state: C4State, level: string, seed: string): Promise<number> {
    this.chooses++;
    this.asked.push({ level, seed });
    const column = chooseMove(state, 'easy', Rng.seeded(seed));
    return new Promise((resolve) => setTimeout(() => resolve(column), this.delayMs));
  }
  analyse(moves: readonly number[]): Promise<(number | null)[]> {
    return Promise.resolve(defaultSolver().analyse(Position.ofMoves(moves)));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

async function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function settings(overrides: Partial<Settings['games']['connect4']>): Settings {
  return { ...DEFAULT_SETTINGS, games: { ...DEFAULT_SETTINGS.games, connect4: { ...DEFAULT_SETTINGS.games.connect4, port: 0, peerPorts: [], sparringPauseMs: 50, ...overrides } } };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function startHub(store: RecordStore | null, engine: C4Engine = new InProcessEngine()): Connect4Hub {
  const hub = new Connect4Hub({ host: '127.0.0.1', port: 0, broadcastAddress: null, peerPorts: [], store, log: silentLogger, timing: FAST, engine });
  cleanups.push(() => hub.stop());
  return hub;
}

describe('Connect Four hub', () => {
  it('lets the house bots play each other and records every game once, replayable', async () => {
    const store = new RecordStore(':memory:');
    cleanups.push(() => store.close());
    const hub = startHub(store);
    await hub.start();
    const events: SpectatorEvent[] = [];
    cleanups.push(hub.subscribe((e) => events.push(e)));
    const s = settings({ houseBots: 2 });
    const parts = await connect4.startHouseBots!({ settings: s, log: silentLogger, store }, hub);
    cleanups.push(async () => {
      for (const p of parts) await p.stop();
    });
    expect(hub.info()).toMatchObject({ game: 'connect4', status: 'running', clients: 2 });

    await until(() => store.listMatches({ game: 'connect4', status: 'finished' }).length >= 2, 'two finished house games', 30_000);
    const finished = store.listMatches({ game: 'connect4', status: 'finished' });
    // One record per game, although both sides of each game are our own peers.
    const gameOvers = events.filter((e) => e.type === 'game-over');
    expect(finished.length).toBeLessThanOrEqual(gameOvers.length);
    expect(new Set(finished.map((m) => m.id)).size).toBe(finished.length);

    for (const m of finished.slice(0, 2)) {
      const detail = store.getMatch(m.id)!;
      expect(detail.seats.map((x) => x.name).sort()).toEqual(['house-perfect', 'house-strong']);
      const result = detail.result as { moves: string; outcome: string; winner: number | null; winnerName: string | null };
      const replayed = fromMoves(result.moves);
      expect(replayed.ok).toBe(true);
      const st = status(replayed.ok ? replayed.value : { moves: [] });
      if (result.outcome === 'won') expect(st).toMatchObject({ kind: 'won', winner: result.winner });
      else expect(st.kind).toBe('drawn');
      expect(detail.events.filter((e) => e.type === 'move')).toHaveLength(result.moves.length);
      // The wire log holds the real datagrams: the first player's moves with the game-wide turn index.
      const moveDatagrams = detail.wire.filter((w) => w.data.includes('"stage":4'));
      expect(moveDatagrams.length).toBeGreaterThanOrEqual(result.moves.length);
      expect(detail.wire.some((w) => w.data === `{"version":2,"clienttype":0,"stage":4,"turn":0,"column":${result.moves.charAt(0)}}`)).toBe(true);
      expect(connect4.verify!(detail)).toEqual({ checked: true, problems: [] });
    }
    // The two bots take turns inviting, so each moves first in some game.
    await until(() => new Set(store.listMatches({ game: 'connect4', status: 'finished' }).map((m) => m.seats[0]!.name)).size === 2, 'both bots having moved first', 30_000);

    const snap = hub.snapshot();
    expect(snap.peers.map((p) => p.role).sort()).toEqual(['house', 'sparring']);
    expect(snap.games.some((g) => g.status === 'won' || g.status === 'drawn')).toBe(true);
    expect(events.some((e) => e.type === 'moved')).toBe(true);
  }, 60_000);

  it('alternates the first player from house game to house game and rotates the sparring level', async () => {
    const store = new RecordStore(':memory:');
    cleanups.push(() => store.close());
    const engine = new InProcessEngine();
    const hub = startHub(store, engine);
    await hub.start();
    const parts = await connect4.startHouseBots!({ settings: settings({ houseBots: 2 }), log: silentLogger, store }, hub);
    cleanups.push(async () => {
      for (const p of parts) await p.stop();
    });
    await until(() => store.listMatches({ game: 'connect4', status: 'finished' }).length >= 4, 'four finished house games', 45_000);
    const games = store.listMatches({ game: 'connect4', status: 'finished' }).sort((x, y) => x.startedAt - y.startedAt);
    expect(games.slice(0, 4).map((m) => m.seats[0]!.name)).toEqual(['house-strong', 'house-perfect', 'house-strong', 'house-perfect']);
    const sparringLevels = engine.asked.filter((a) => a.seed.includes(':sparring:')).map((a) => a.level);
    expect(new Set(sparringLevels)).toEqual(new Set(['strong', 'easy']));
    expect(engine.asked.filter((a) => a.seed.includes(':house:')).every((a) => a.level === 'perfect')).toBe(true);
  }, 60_000);

  it('reports where its house bot is bound, not the configured port 0, in info(), the lobby and the start banner', async () => {
    const store = new RecordStore(':memory:');
    cleanups.push(() => store.close());
    const hub = startHub(store);
    await hub.start();
    const s = settings({ houseBots: 1 });
    const parts = await connect4.startHouseBots!({ settings: s, log: silentLogger, store }, hub);
    cleanups.push(async () => {
      for (const p of parts) await p.stop();
    });
    const house = hub.snapshot().peers.find((p) => p.role === 'house');
    const bound = Number(house?.address.split(':')[1]);
    expect(bound).toBeGreaterThan(0);
    expect(hub.info().port).toBe(bound);
    expect(hub.snapshot().port).toBe(bound);
    const banner = startBanner({ servers: [hub], webPort: null, webToken: null } as unknown as Running, s, false);
    expect(banner).toContain(`udp 127.0.0.1:${bound}\n`);
    expect(banner).not.toContain(':0\n');
  });

  it('finds a record that does not replay', () => {
    const bad = {
      id: 'x', game: 'connect4', seed: null, status: 'finished' as const, startedAt: 0, endedAt: 1, meta: null,
      seats: [], wire: [],
      events: [1, 1, 1, 1, 1, 1, 1].map((column, seq) => ({ seq, at: 0, seat: seq % 2, type: 'move', data: { column } })),
      result: { outcome: 'won', winner: 0, reason: 'four', moves: '1111111' },
    };
    const check = connect4.verify!(bad);
    expect(check.checked).toBe(true);
    expect(check.problems[0]).toMatch(/not a game: column 1 is already full at position 7/);
    const wrongWinner = { ...bad, events: [], result: { outcome: 'won', winner: 1, reason: 'four', moves: '1212121' } };
    expect(connect4.verify!(wrongWinner).problems.join(' ')).toMatch(/player 1 made a four/);
  });
});

describe('Connect Four dashboard routes', () => {
  async function startWeb(): Promise<{ base: string; hub: Connect4Hub; store: RecordStore; engine: InProcessEngine }> {
    const store = new RecordStore(':memory:');
    const engine = new InProcessEngine();
    const hub = startHub(store, engine);
    await hub.start();
    const s = settings({ maxBrowserPeers: 1 });
    const web: WebServer = createWebServer({
      servers: [hub],
      store,
      log: silentLogger,
      host: '127.0.0.1',
      port: 0,
      routes: [(app) => connect4.registerRoutes!(app, hub, { settings: s, log: silentLogger, store })],
    });
    const { port } = await web.start();
    cleanups.push(() => store.close());
    cleanups.push(() => web.stop());
    return { base: `http://127.0.0.1:${port}`, hub, store, engine };
  }

  const post = async (url: string, body: unknown = {}) => {
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: r.status, body: (await r.json()) as SolverGameView & { error?: string; code?: string } };
  };

  it('plays a whole game against the solver, with every mistake answered', async () => {
    const { base, store } = await startWeb();
    const created = await post(`${base}/api/connect4/games`, { level: 'easy', first: 'human', name: 'ada' });
    expect(created.status).toBe(201);
    let game = created.body;
    expect(game).toMatchObject({ human: 0, moves: [], yourTurn: true, level: 'easy' });

    expect((await post(`${base}/api/connect4/games/${game.id}/moves`, { column: 8 })).body.code).toBe('column-out-of-range');
    expect((await post(`${base}/api/connect4/games/${game.id}/moves`, { column: 'x' })).status).toBe(400);
    expect((await post(`${base}/api/connect4/games/nope/moves`, { column: 1 })).status).toBe(404);
    expect((await post(`${base}/api/connect4/games`, { level: 'godlike' })).status).toBe(400);

    while (game.status.kind === 'running') {
      const column = legalMoves({ moves: game.moves })[0]!;
      const r = await post(`${base}/api/connect4/games/${game.id}/moves`, { column });
      expect(r.status).toBe(200);
      // The bot answered in the same request, unless the person's move ended the game.
      expect(r.body.moves.length === game.moves.length + 2 || r.body.status.kind !== 'running').toBe(true);
      game = r.body;
    }
    const again = await post(`${base}/api/connect4/games/${game.id}/moves`, { column: 1 });
    expect(again).toMatchObject({ status: 409, body: { code: 'game-over' } });

    const records = store.listMatches({ game: 'connect4', status: 'finished' });
    expect(records).toHaveLength(1);
    const detail = store.getMatch(records[0]!.id)!;
    expect(detail.seats.map((s) => [s.name, s.kind])).toEqual([['ada', 'human'], ['solver (easy)', 'bot']]);
    expect((detail.result as { moves: string }).moves).toBe(game.moves.join(''));
    expect(connect4.verify!(detail)).toEqual({ checked: true, problems: [] });
  });

  it('lets the bot open, refuses a move while it thinks, and records a resignation', async () => {
    const { base, store, engine } = await startWeb();
    const created = await post(`${base}/api/connect4/games`, { level: 'perfect', first: 'bot' });
    expect(created.body).toMatchObject({ human: 1, yourTurn: true });
    expect(created.body.moves).toHaveLength(1);
    const id = created.body.id;
    engine.delayMs = 300;
    const slow = post(`${base}/api/connect4/games/${id}/moves`, { column: 1 });
    await new Promise((r) => setTimeout(r, 100));
    const meanwhile = await post(`${base}/api/connect4/games/${id}/moves`, { column: 2 });
    expect(meanwhile).toMatchObject({ status: 409, body: { code: 'busy' } });
    expect((await slow).body.moves).toHaveLength(3);
    const resigned = await post(`${base}/api/connect4/games/${id}/resign`);
    expect(resigned.body).toMatchObject({ resigned: true, status: { kind: 'won', winner: 0 } });
    const [record] = store.listMatches({ game: 'connect4' });
    expect(record?.result).toMatchObject({ outcome: 'won', reason: 'resigned', winnerName: 'solver (perfect)' });
  });

  it('analyses a position and rejects a bad one', async () => {
    const { base } = await startWeb();
    const a = (await (await fetch(`${base}/api/connect4/analyse?moves=44455554221`)).json()) as { score: number; scores: (number | null)[]; best: number[] };
    // Pons' example: the side to move loses with the opponent's 7th stone.
    expect(a.score).toBe(-15);
    expect(a.best.every((c) => a.scores[c - 1] === -15)).toBe(true);
    const won = (await (await fetch(`${base}/api/connect4/analyse?moves=4343434`)).json()) as { status: { kind: string }; score: null };
    expect(won).toMatchObject({ status: { kind: 'won' }, score: null });
    const bad = await fetch(`${base}/api/connect4/analyse?moves=4441111111`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/column 1 is already full at position 10/);
  });

  it("gives a browser a relay peer that plays a real UDP peer to the end", async () => {
    const { base, hub } = await startWeb();
    // A peer on this machine that the relay will invite, found through its own announcements.
    const other: UdpPeer = await startUdpPeer({ name: 'udp-bob', port: 0, timing: FAST, peerPorts: [] });
    cleanups.push(() => other.close());
    const bob = new AutoPlayer(other.peer, (s) => legalMoves(s)[legalMoves(s).length - 1]!);
    cleanups.push(() => bob.stop());

    const ws = new WebSocket(`${base.replace('http', 'ws')}/ws/connect4/peer?name=ada`);
    const messages: RelayMessage[] = [];
    ws.on('message', (d) => messages.push(JSON.parse((d as Buffer).toString('utf8')) as RelayMessage));
    cleanups.push(() => ws.close());
    await until(() => messages.some((m) => m.type === 'hello'), 'hello');
    const hello = messages.find((m) => m.type === 'hello') as Extract<RelayMessage, { type: 'hello' }>;
    expect(hub.snapshot().peers).toEqual([expect.objectContaining({ name: 'ada', role: 'browser', address: hello.address })]);

    // A second browser is refused: this hub allows one.
    const second = new WebSocket(`${base.replace('http', 'ws')}/ws/connect4/peer?name=eve`);
    const refused = await new Promise<number>((resolve) => second.on('close', (code) => resolve(code)));
    expect(refused).toBe(4429);

    const send = (c: unknown) => ws.send(JSON.stringify(c));
    send({ type: 'dance' });
    await until(() => messages.some((m) => m.type === 'notice' && m.level === 'error'), 'error notice');
    send({ type: 'invite', key: `127.0.0.1:${other.address.port}` });
    const latest = () => [...messages].reverse().find((m): m is Extract<RelayMessage, { type: 'state' }> => m.type === 'state');
    await until(() => latest()?.phase === 'playing' && latest()?.game?.yourTurn === true, 'game started with our move');
    expect(latest()?.game?.localPlayer).toBe(0);
    // The browser plays column 1 until the game ends (the relay refuses what the rules refuse).
    while (latest()?.game?.status.kind === 'running') {
      const g = latest()!.game!;
      if (g.yourTurn) {
        const column = legalMoves({ moves: g.moves })[0]!;
        send({ type: 'move', column });
        await until(() => (latest()?.game?.moves.length ?? 0) > g.moves.length, 'our move applied');
      } else await new Promise((r) => setTimeout(r, 20));
    }
    const end = latest()!.game!;
    expect(end.status.kind === 'won' || end.status.kind === 'drawn').toBe(true);
    // Bob never announced himself to the relay and an acceptance carries no name: he shows as his address.
    expect(hub.snapshot().games[0]).toMatchObject({ players: ['ada', `127.0.0.1:${other.address.port}`], moves: end.moves });
  }, 30_000);
});
