import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { silentLogger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import { randomBot } from '../../../src/games/dame/bots/random.js';
import { DameClient } from '../../../src/games/dame/client.js';
import { botPlayer } from '../../../src/games/dame/players.js';
import { verifyDameMatch } from '../../../src/games/dame/replay.js';
import { createDameServer, type DameServer } from '../../../src/games/dame/server.js';
import { PLAY_CLOSE, registerDameWebRoutes } from '../../../src/games/dame/web.js';
import type { DameBrowserPlayer, DamePlayMessage, DamePlayState } from '../../../src/games/dame/web-views.js';
import { createWebServer, type WebServer } from '../../../src/web/server.js';

/**
 * The browser's seat in a Dame game (`/ws/dame/play`) over a real WebSocket, against a real Dame
 * server on 127.0.0.1: the gateway's protocol client plays what a scripted "browser" chooses from
 * the legal moves it is sent, and the server treats it like any network client.
 */

const store = new RecordStore(':memory:');
let server: DameServer;
let web: WebServer;
let wsBase: string;
let httpBase: string;

beforeAll(async () => {
  server = createDameServer({ host: '127.0.0.1', port: 0, log: silentLogger, store, engineTimeMs: 20, motdDelayMs: 100 });
  await server.start();
  web = createWebServer({ servers: [server], store, log: silentLogger, host: '127.0.0.1', port: 0, routes: [(app) => registerDameWebRoutes(app, server, { log: silentLogger, host: '127.0.0.1' })] });
  const { port } = await web.start();
  httpBase = `http://127.0.0.1:${port}`;
  wsBase = `ws://127.0.0.1:${port}`;
});

afterAll(async () => {
  await web.stop();
  await server.stop();
  store.close();
});

/** A scripted browser: every message it got, and a way to wait for the one a test needs. */
class Browser {
  readonly socket: WebSocket;
  readonly messages: DamePlayMessage[] = [];
  closed: { code: number; reason: string } | null = null;
  private waiters: (() => void)[] = [];

  constructor(query: string) {
    this.socket = new WebSocket(`${wsBase}/ws/dame/play?${query}`);
    this.socket.on('message', (data) => {
      this.messages.push(JSON.parse((data as Buffer).toString('utf8')) as DamePlayMessage);
      this.wake();
    });
    this.socket.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.wake();
    });
  }

  get states(): DamePlayState[] {
    return this.messages.filter((m): m is DamePlayState => m.type === 'state');
  }

  get state(): DamePlayState | undefined {
    return this.states.at(-1);
  }

  of<T extends DamePlayMessage['type']>(type: T): Extract<DamePlayMessage, { type: T }>[] {
    return this.messages.filter((m): m is Extract<DamePlayMessage, { type: T }> => m.type === type);
  }

  send(command: unknown): void {
    this.socket.send(typeof command === 'string' ? command : JSON.stringify(command));
  }

  async until(check: (b: this) => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check(this)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; last state: ${JSON.stringify(this.state)}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** The next move request after `turn`, or the end. */
  async nextTurn(turn: number, timeoutMs = 10_000): Promise<DamePlayState> {
    await this.until((b) => b.state?.phase === 'over' || (b.state?.phase === 'your-turn' && b.state.turn > turn), `move request ${turn + 1}`, timeoutMs);
    return this.state!;
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the Dame play gateway', () => {
  it('plays a whole game against the engine seat, choosing from the legal moves it is sent', async () => {
    const id = server.createGame({ name: 'browser vs engine', moveTimeMs: 10_000, engineSeat: 1 });
    const b = new Browser(`game=${id}&seat=0&name=script`);
    const sent: string[] = [];
    let turn = 0;
    let lastWasCapture = false;
    for (;;) {
      const s = await b.nextTurn(turn);
      if (s.phase === 'over') break;
      turn = s.turn;
      expect(s.seat).toBe(0);
      expect(s.board).toHaveLength(8);
      expect(s.moveTimeMs).toBe(10_000);
      expect(s.remainingMs).toBeGreaterThan(5_000);
      expect(s.remainingMs).toBeLessThanOrEqual(10_000);
      expect(s.legal.length).toBeGreaterThan(0);
      // A follow-up request comes only right after a capture of ours.
      if (s.followUp) expect(lastWasCapture).toBe(true);
      // Prefer captures, else vary the choice so the game is not always the same line.
      const move = s.legal.find((m) => m.captured !== null) ?? s.legal[(turn * 7) % s.legal.length]!;
      lastWasCapture = move.captured !== null;
      sent.push(`${move.from}:${move.to}`);
      b.send({ type: 'move', from: move.from, to: move.to });
    }
    await b.until((x) => x.closed !== null, 'the socket to close');
    const end = b.state!;
    expect(end.result).not.toBeNull();
    expect(['won', 'lost', 'draw']).toContain(end.result!.outcome);
    expect(end.result!.winners).not.toBeNull();
    expect(['no-pieces', 'no-moves', 'repetition', 'fifty-moves']).toContain(end.result!.reason);
    expect(end.matchId).toMatch(/.+/);
    expect(b.closed?.code).toBe(1000);
    expect(b.of('refused')).toEqual([]);
    expect(b.of('errorLine')).toEqual([]);
    // The gateway's client sent exactly the browser's choices, one PLAY per single move.
    const plays = b.of('line').filter((l) => l.dir === 'out' && l.line.startsWith('PLAY ')).map((l) => l.line.slice(5));
    expect(plays).toEqual(sent);
    expect(b.of('line').some((l) => l.dir === 'in' && l.line === '+ GAMEOVER')).toBe(true);

    const detail = store.getMatch(end.matchId!)!;
    expect(detail.status).toBe('finished');
    expect(detail.seats.map((x) => x.kind)).toEqual(['client', 'engine']);
    const byBrowser = detail.events.filter((e) => e.type === 'move' && e.seat === 0).map((e) => (e.data as { move: string }).move);
    expect(byBrowser).toEqual(sent);
    expect(verifyDameMatch(detail)).toEqual({ checked: true, problems: [] });
    // The outcome the browser shows is the record's.
    const winner = (detail.result as { winner: 0 | 1 | null }).winner;
    expect(end.result!.outcome).toBe(winner === null ? 'draw' : winner === 0 ? 'won' : 'lost');
  }, 60_000);

  it('refuses an illegal move, a move out of turn and garbage without losing the game', async () => {
    const id = server.createGame({ moveTimeMs: 10_000, engineSeat: 1 });
    const b = new Browser(`game=${id}&seat=0&name=clumsy`);
    const first = await b.nextTurn(0);
    expect(first.phase).toBe('your-turn');
    expect(first.legal.map((m) => `${m.from}:${m.to}`).sort()).toEqual(['A3:B4', 'C3:B4', 'C3:D4', 'E3:D4', 'E3:F4', 'G3:F4', 'G3:H4']);

    b.send({ type: 'move', from: 'C3', to: 'C5' });
    b.send('PLAY C3:D4');
    b.send({ type: 'move', from: 'C3' });
    await b.until((x) => x.of('refused').length === 1 && x.of('notice').length === 2, 'the refusals');
    expect(b.of('refused')[0]).toMatchObject({ from: 'C3', to: 'C5', reason: 'C3:C5 is not a legal move here' });
    expect(b.state!.phase).toBe('your-turn');
    expect(server.getGame(id)).toMatchObject({ status: 'running', plies: 0 });

    // Lower case is fine; a second move right after it is out of turn.
    b.send({ type: 'move', from: 'c3', to: 'd4' });
    b.send({ type: 'move', from: 'E3', to: 'F4' });
    await b.until((x) => x.of('refused').length === 2, 'the out-of-turn refusal');
    expect(b.of('refused')[1]).toMatchObject({ from: 'E3', to: 'F4', reason: 'it is not your turn' });
    const second = await b.nextTurn(first.turn);
    expect(second.phase).toBe('your-turn');
    expect(second.plies).toBe(2);
    expect(server.getGame(id)).toMatchObject({ status: 'running' });
    expect(b.of('errorLine')).toEqual([]);
    expect(b.of('line').filter((l) => l.dir === 'out' && l.line.startsWith('PLAY '))).toEqual([{ type: 'line', dir: 'out', line: 'PLAY C3:D4' }]);
    b.socket.close();
    await waitFor(() => server.getGame(id)?.status === 'over', 'the game to end');
  });

  it('a person who does not move in time loses by the server\'s timeout', async () => {
    const id = server.createGame({ moveTimeMs: 600, engineSeat: 1 });
    const b = new Browser(`game=${id}&seat=0&name=slow`);
    const s = await b.nextTurn(0);
    // (A loaded machine may let the server's clock run out before the request reaches the browser.)
    if (s.phase === 'your-turn') expect(s.remainingMs).toBeLessThanOrEqual(600);
    await b.until((x) => x.state?.phase === 'over', 'the end');
    expect(b.of('errorLine')).toEqual([{ type: 'errorLine', line: '- TIMEOUT Be faster next time' }]);
    expect(b.state!.result).toEqual({ outcome: 'lost', winners: null, reason: 'timeout', error: '- TIMEOUT Be faster next time' });
    expect(server.getGame(id)!.result).toEqual({ winner: 1, reason: 'timeout' });
  });

  it('a vanished browser loses the game like a vanished client', async () => {
    const id = server.createGame({ moveTimeMs: 10_000, engineSeat: 1 });
    const b = new Browser(`game=${id}&seat=0&name=gone`);
    await b.nextTurn(0);
    const listed = (await (await fetch(`${httpBase}/api/dame/players`)).json()) as DameBrowserPlayer[];
    expect(listed.find((p) => p.gameId === id)).toMatchObject({ seat: 0, name: 'gone', address: server.getGame(id)!.seats[0].address });
    b.socket.terminate();
    await waitFor(() => server.getGame(id)?.status === 'over', 'the game to end');
    expect(server.getGame(id)!.result).toEqual({ winner: 1, reason: 'disconnect' });
    const record = store.getMatch(server.getGame(id)!.matchId!)!;
    expect(record.result).toMatchObject({ winner: 1, reason: 'disconnect' });
    const after = (await (await fetch(`${httpBase}/api/dame/players`)).json()) as DameBrowserPlayer[];
    expect(after.find((p) => p.gameId === id)).toBeUndefined();
  });

  it('waits for a network client in the other seat, then plays it', async () => {
    const id = server.createGame({ moveTimeMs: 10_000 });
    const b = new Browser(`game=${id}&seat=1&name=host`);
    await b.until((x) => x.state?.phase === 'waiting', 'the waiting phase');
    expect(b.state).toMatchObject({ seat: 1, opponent: { kind: 'open', connected: false } });
    const bot = new DameClient({ host: '127.0.0.1', port: server.port, gameId: id, seat: 0, player: botPlayer(randomBot, 'web-test'), log: silentLogger });
    const played = bot.run();
    let turn = 0;
    for (let i = 0; i < 3; i++) {
      const s = await b.nextTurn(turn);
      expect(s.phase).toBe('your-turn');
      expect(s.opponent).toMatchObject({ kind: 'client', connected: true });
      turn = s.turn;
      b.send({ type: 'move', from: s.legal[0]!.from, to: s.legal[0]!.to });
    }
    // Leaving mid-game (on our own turn, while the client idles) is a disconnect: the client wins.
    await b.nextTurn(turn);
    b.socket.close();
    const result = await played;
    expect(result, JSON.stringify(result)).toMatchObject({ outcome: 'won' });
    expect(server.getGame(id)!.result).toEqual({ winner: 0, reason: 'disconnect' });
  });

  it('wins when the network client leaves while the person is to move', async () => {
    const id = server.createGame({ moveTimeMs: 10_000 });
    const b = new Browser(`game=${id}&seat=0&name=stayer`);
    await b.until((x) => x.state?.phase === 'waiting', 'the waiting phase');
    const bot = new DameClient({ host: '127.0.0.1', port: server.port, gameId: id, seat: 1, player: botPlayer(randomBot, 'web-test-2'), log: silentLogger });
    const played = bot.run();
    const s = await b.nextTurn(0);
    expect(s.phase).toBe('your-turn');
    bot.stop();
    await played;
    await b.until((x) => x.state?.phase === 'over', 'the end');
    expect(b.state!.result).toMatchObject({ outcome: 'won', reason: 'disconnect' });
    expect(b.state!.legal).toEqual([]);
  });

  it('turns away bad requests with a close code', async () => {
    const over = server.createGame({ engineSeat: 1 });
    const gone = new Browser(`game=${over}&seat=0`);
    await gone.nextTurn(0);
    gone.socket.terminate();
    await waitFor(() => server.getGame(over)?.status === 'over', 'the game to end');
    const cases: [string, number][] = [
      ['game=short&seat=0', PLAY_CLOSE.badRequest],
      [`game=${over}&seat=2`, PLAY_CLOSE.badRequest],
      ['game=abcdefghijklm&seat=0', PLAY_CLOSE.unknownGame],
      [`game=${over}&seat=1`, PLAY_CLOSE.gameOver],
    ];
    for (const [query, code] of cases) {
      const b = new Browser(query);
      await b.until((x) => x.closed !== null, `close for ${query}`);
      expect(b.closed!.code, query).toBe(code);
    }
    // Unknown ids are not created by a browser (a typo must not start a game).
    expect(server.getGame('abcdefghijklm')).toBeUndefined();
    // A taken seat is the server's answer, verbatim.
    const taken = server.createGame({ engineSeat: 1 });
    const b = new Browser(`game=${taken}&seat=1&name=late`);
    await b.until((x) => x.closed !== null, 'the socket to close');
    expect(b.of('errorLine')).toEqual([{ type: 'errorLine', line: '- No free player' }]);
    expect(b.state!.result).toMatchObject({ outcome: 'error', error: '- No free player' });
    expect((await fetch(`${httpBase}/ws/dame/play`)).status).toBe(426);
  });
});
