import { spawn } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import { randomBot } from '../../../src/games/dame/bots/random.js';
import { DameClient, type DamePlayer } from '../../../src/games/dame/client.js';
import { ClientPosition } from '../../../src/games/dame/client-position.js';
import { playerFlag } from '../../../src/games/dame/commands.js';
import { DameEnginePool } from '../../../src/games/dame/engine-pool.js';
import { boardLines, formatMove, parsePieces, parseSquare } from '../../../src/games/dame/notation.js';
import { botPlayer, workerPlayer } from '../../../src/games/dame/players.js';
import { createState, legalMoves, type DameState, type SingleMove } from '../../../src/games/dame/rules.js';
import { createDameServer, type DameServer } from '../../../src/games/dame/server.js';
import type { Seat } from '../../../src/games/dame/protocol.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function board(pieces: string): { white: number; black: number; kings: number } {
  const b = parsePieces(pieces);
  if (!b.ok) throw new Error(b.error);
  return b.value;
}

const P6 = 'w A1 C1 E1 G1 B2 D2 F2 A3 C3 E3 G3 H4; b B8 D8 F8 H8 A7 C7 E7 G7 D6 F6 H6 D4';

/** A scripted server: one connection, lines in and groups out, checked by the script. */
class ScriptedServer {
  private server: Server | null = null;
  private socket: Socket | null = null;
  private buffer = '';
  private readonly lines: string[] = [];
  private waiter: (() => void) | null = null;
  readonly received: string[] = [];

  async start(): Promise<number> {
    const server = createServer((socket) => {
      this.socket = socket;
      socket.setNoDelay(true);
      socket.on('data', (d: Buffer) => {
        this.buffer += d.toString();
        const parts = this.buffer.split('\n');
        this.buffer = parts.pop() ?? '';
        this.lines.push(...parts);
        this.received.push(...parts);
        this.waiter?.();
      });
    });
    this.server = server;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => this.stop());
    const a = server.address();
    return typeof a === 'object' && a ? a.port : 0;
  }

  async connected(timeoutMs = 3000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.socket) {
      if (Date.now() > deadline) throw new Error('the client did not connect');
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  send(...lines: string[]): void {
    this.socket?.write(lines.map((l) => l + '\n').join(''));
  }

  async expect(line: string | RegExp, timeoutMs = 3000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (this.lines.length === 0) {
      if (Date.now() > deadline) throw new Error(`no client line; expected ${String(line)}; got ${this.received.join(' | ')}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, 20);
        this.waiter = () => {
          clearTimeout(t);
          r();
        };
      });
    }
    const got = this.lines.shift()!;
    if (typeof line === 'string' ? got !== line : !line.test(got)) throw new Error(`expected ${String(line)}, got ${got}`);
    return got;
  }

  /** True when no client line arrives within `ms`. */
  async silent(ms: number): Promise<boolean> {
    await new Promise((r) => setTimeout(r, ms));
    return this.lines.length === 0;
  }

  async stop(): Promise<void> {
    this.socket?.destroy();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

const boardBlock = (pieces: string): string[] => ['+ BOARD 8,8', ...boardLines(board(pieces)).map((r) => `+ ${r}`), '+ ENDBOARD'];

function move(text: string): SingleMove {
  const [from, to] = text.split(':').map((s) => parseSquare(s)!);
  return { from: from!, to: to!, captured: null, promotes: false };
}

describe('DameClient against a scripted server', () => {
  it('answers WAIT in any state, handles a follow-up MOVE after a capture, and reads GAMEOVER', async () => {
    const fake = new ScriptedServer();
    const port = await fake.start();
    const seen: DameState[] = [];
    const player: DamePlayer = (state) => {
      seen.push(state);
      return move(seen.length === 1 ? 'E3:C5' : 'C5:B6');
    };
    const client = new DameClient({ host: '127.0.0.1', port, gameId: 'k3x9q2m7a1b5c', seat: 0, player });
    const result = client.run();
    await fake.connected();
    fake.send('+ MNM Gameserver v2.3 accepting connections');
    await fake.expect('VERSION 2.3');
    fake.send('+ Client version accepted - please send Game-ID to join');
    await fake.expect('ID k3x9q2m7a1b5c');
    fake.send('+ WAIT');
    await fake.expect('OKWAIT');
    fake.send('+ PLAYING Checkers', '+ Game from 2024-01-15 10:00');
    await fake.expect('PLAYER 0');
    fake.send('+ YOU 0 White Player', '+ TOTAL 2', '+ 1 Black Player 1', '+ ENDPLAYERS');
    fake.send('+ WAIT');
    await fake.expect('OKWAIT');
    fake.send('+ MOVE 3000', ...boardBlock(P6));
    await fake.expect('THINKING');
    fake.send('+ WAIT');
    await fake.expect('OKWAIT');
    fake.send('+ OKTHINK');
    await fake.expect('PLAY E3:C5');
    fake.send('+ WAIT');
    await fake.expect('OKWAIT');
    fake.send('+ MOVEOK');
    expect(await fake.silent(100)).toBe(true);
    fake.send('+ MOVE 3000', ...boardBlock('w A1 C1 E1 G1 B2 D2 F2 A3 C3 C5 G3 H4; b B8 D8 F8 H8 A7 C7 E7 G7 D6 F6 H6'));
    await fake.expect('THINKING');
    fake.send('+ OKTHINK');
    await fake.expect('PLAY C5:B6');
    fake.send('+ MOVEOK', '+ GAMEOVER', ...boardBlock('w B6; b H8'), '+ PLAYER0WON Yes', '+ PLAYER1WON No', '+ QUIT');
    const r = await result;
    expect(r).toMatchObject({ outcome: 'won', seat: 0, gameName: 'Game from 2024-01-15 10:00', winners: [true, false], error: null, plays: 2 });
    expect(r.board?.[2]).toBe('6 * w * * * * * *');
    expect(seen[0]).toMatchObject({ toMove: 'white', mustContinue: false });
    expect(seen[1]).toMatchObject({ toMove: 'white', mustContinue: true });
    expect(legalMoves(seen[1]!).map(formatMove)).toContain('C5:B6');
  });

  it('reads the MOTD of a v3 greeting before VERSION, and sends VERSION anyway when none comes', async () => {
    const fake = new ScriptedServer();
    const port = await fake.start();
    const client = new DameClient({ host: '127.0.0.1', port, gameId: 'abcdefghijklm', player: botPlayer(randomBot, 1), motdWaitMs: 300 });
    const result = client.run();
    await fake.connected();
    fake.send('+ MNM Gameserver v3.1 accepting connections');
    expect(await fake.silent(150)).toBe(true);
    fake.send('+ Welcome to the Dame server');
    await fake.expect('VERSION 3.1');
    fake.send('+ Client version accepted - please send Game-ID to join');
    await fake.expect('ID abcdefghijklm');
    fake.send('+ PLAYING Checkers', '+ a game');
    await fake.expect('PLAYER');
    fake.send('- No free player');
    expect(await result).toMatchObject({ outcome: 'error', error: '- No free player' });

    const fake2 = new ScriptedServer();
    const port2 = await fake2.start();
    const t0 = Date.now();
    const second = new DameClient({ host: '127.0.0.1', port: port2, gameId: 'abcdefghijklm', player: botPlayer(randomBot, 1), motdWaitMs: 300 }).run();
    await fake2.connected();
    fake2.send('+ MNM Gameserver v3.1 accepting connections');
    await fake2.expect('VERSION 3.1', 2000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(280);
    fake2.send('- Client Version does not match server Version');
    expect((await second).error).toBe('- Client Version does not match server Version');
  });

  it('replaces an illegal choice of its player by a legal move, and reports a TIMEOUT line', async () => {
    const fake = new ScriptedServer();
    const port = await fake.start();
    const client = new DameClient({ host: '127.0.0.1', port, gameId: 'abcdefghijklm', seat: 1, player: () => move('A1:H8') });
    const result = client.run();
    await fake.connected();
    fake.send('+ MNM Gameserver v2.1 accepting connections');
    await fake.expect('VERSION 2.1');
    fake.send('+ Client version accepted - please send Game-ID to join');
    await fake.expect('ID abcdefghijklm');
    fake.send('+ PLAYING Checkers', '+ g');
    await fake.expect('PLAYER 1');
    fake.send('+ YOU 1 Black Player', '+ TOTAL 2', '+ 0 White Player 1', '+ ENDPLAYERS');
    fake.send('+ MOVE 3000', ...boardBlock('w A1; b H8'));
    await fake.expect('THINKING');
    fake.send('+ OKTHINK');
    const played = await fake.expect(/^PLAY /);
    expect(['PLAY H8:G7']).toContain(played);
    fake.send('+ MOVEOK', '- TIMEOUT Be faster next time');
    expect(await result).toMatchObject({ outcome: 'error', error: '- TIMEOUT Be faster next time', plays: 1 });
  });
});

describe('DameClient when GAMEOVER comes while it owes an answer (issue 16.1)', () => {
  /** Runs the prolog as seat `seat` and returns the fake server with the client's result. */
  async function seated(seat: Seat, player: DamePlayer) {
    const fake = new ScriptedServer();
    const port = await fake.start();
    const result = new DameClient({ host: '127.0.0.1', port, gameId: 'abcdefghijklm', seat, player }).run();
    await fake.connected();
    fake.send('+ MNM Gameserver v2.3 accepting connections');
    await fake.expect('VERSION 2.3');
    fake.send('+ Client version accepted - please send Game-ID to join');
    await fake.expect('ID abcdefghijklm');
    fake.send('+ PLAYING Checkers', '+ g');
    await fake.expect(`PLAYER ${seat}`);
    fake.send(`+ YOU ${seat} ${seat === 0 ? 'White' : 'Black'} Player`, '+ TOTAL 2', `+ ${1 - seat} ${seat === 0 ? 'Black' : 'White'} Player 1`, '+ ENDPLAYERS');
    return { fake, result };
  }

  const START = 'w A1 C1 E1 G1 B2 D2 F2 H2 A3 C3 E3 G3; b B6 D6 F6 H6 A7 C7 E7 G7 B8 D8 F8 H8';
  const gameOver = (won0: boolean, won1: boolean): string[] => [
    '+ GAMEOVER',
    ...boardBlock(START),
    `+ PLAYER0WON ${won0 ? 'Yes' : 'No'}`,
    `+ PLAYER1WON ${won1 ? 'Yes' : 'No'}`,
    '+ QUIT',
  ];
  /** A player that takes `ms` to answer, as the engine in a worker does. */
  const slow = (ms: number): DamePlayer => (state) => new Promise((r) => setTimeout(() => r(legalMoves(state)[0]!), ms));

  it('in the same write as the MOVE request (before THINKING): reads the result, sends no PLAY', async () => {
    const { fake, result } = await seated(0, slow(50));
    fake.send('+ MOVE 3000', ...boardBlock(START), ...gameOver(true, false));
    const r = await result;
    expect(r).toMatchObject({ outcome: 'won', winners: [true, false], error: null, plays: 0 });
    // THINKING went out with the board (the client answers a request at once); nothing follows it.
    await new Promise((done) => setTimeout(done, 200));
    expect(fake.received.slice(fake.received.indexOf('PLAYER 0') + 1)).toEqual(['THINKING']);
  });

  it('after THINKING, before OKTHINK: a loss is a loss, not an error', async () => {
    const { fake, result } = await seated(1, slow(50));
    fake.send('+ MOVE 3000', ...boardBlock(START));
    await fake.expect('THINKING');
    fake.send(...gameOver(true, false));
    expect(await result).toMatchObject({ outcome: 'lost', seat: 1, winners: [true, false], error: null, plays: 0 });
  });

  it('after OKTHINK while the player still thinks: the late move is never sent', async () => {
    const { fake, result } = await seated(1, slow(300));
    fake.send('+ MOVE 3000', ...boardBlock(START));
    await fake.expect('THINKING');
    fake.send('+ OKTHINK');
    expect(await fake.silent(50)).toBe(true);
    fake.send(...gameOver(false, true));
    const r = await result;
    expect(r).toMatchObject({ outcome: 'won', seat: 1, winners: [false, true], error: null, plays: 0 });
    expect(await fake.silent(450)).toBe(true);
    expect(fake.received.filter((l) => l.startsWith('PLAY '))).toEqual([]);
  });

  it('after PLAY, instead of MOVEOK: reads the result (here a draw)', async () => {
    const { fake, result } = await seated(0, (state) => legalMoves(state)[0]!);
    fake.send('+ MOVE 3000', ...boardBlock(START));
    await fake.expect('THINKING');
    fake.send('+ OKTHINK');
    await fake.expect(/^PLAY /);
    fake.send(...gameOver(true, true));
    expect(await result).toMatchObject({ outcome: 'draw', winners: [true, true], error: null, plays: 1 });
  });

  it('after PLAY, with a WAIT before the GAMEOVER: answers OKWAIT, then reads the win', async () => {
    const { fake, result } = await seated(0, (state) => legalMoves(state)[0]!);
    fake.send('+ MOVE 3000', ...boardBlock(START));
    await fake.expect('THINKING');
    fake.send('+ OKTHINK');
    await fake.expect(/^PLAY /);
    fake.send('+ WAIT');
    await fake.expect('OKWAIT');
    fake.send(...gameOver(true, false));
    expect(await result).toMatchObject({ outcome: 'won', error: null, plays: 1 });
  });
});

describe('spielhalle bot dame when GAMEOVER replaces MOVEOK (issue 16.1)', () => {
  it('prints the win and exits 0, as at a normal end', async () => {
    const fake = new ScriptedServer();
    const port = await fake.start();
    const root = join(import.meta.dirname, '..', '..', '..');
    const tsx = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
    const args = ['--import', tsx, join(root, 'src', 'cli.ts'), 'bot', 'dame', '-g', 'abcdefghijklm', '-p', '2', '--port', String(port), '--bot', 'random', '--log-level', 'silent'];
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('close', r));
    cleanups.push(() => {
      child.kill();
    });
    await fake.connected(30_000);
    fake.send('+ MNM Gameserver v2.3 accepting connections');
    await fake.expect('VERSION 2.3');
    fake.send('+ Client version accepted - please send Game-ID to join');
    await fake.expect('ID abcdefghijklm');
    fake.send('+ PLAYING Checkers', '+ g');
    await fake.expect('PLAYER 1');
    fake.send('+ YOU 1 Black Player', '+ TOTAL 2', '+ 0 White Player 1', '+ ENDPLAYERS');
    fake.send('+ MOVE 3000', ...boardBlock('w C3 E3; b D6 F6'));
    await fake.expect('THINKING');
    fake.send('+ OKTHINK');
    await fake.expect(/^PLAY /);
    // White vanished while our PLAY was on its way.
    fake.send('+ GAMEOVER', ...boardBlock('w C3 E3; b D6 F6'), '+ PLAYER0WON No', '+ PLAYER1WON Yes', '+ QUIT');
    expect(await exited).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ outcome: 'won', seat: 1, winners: [false, true], error: null, plays: 1 });
  }, 60_000);
});

describe('the bot command', () => {
  it('maps the course client\'s -p 1|2 to PLAYER 0|1, and no -p to a bare PLAYER', () => {
    expect(playerFlag('1')).toBe(0);
    expect(playerFlag('2')).toBe(1);
    expect(playerFlag(undefined)).toBeNull();
    expect(() => playerFlag('0')).toThrow(/-p must be 1/);
    expect(() => playerFlag('3')).toThrow(/-p must be 1/);
  });
});

describe('ClientPosition', () => {
  it('counts quiet king moves and keeps the turn-start history; a man move or capture resets both', () => {
    const p = new ClientPosition();
    let s = p.state(board('W A1; B H8'), 'white', false);
    expect(s.history).toHaveLength(1);
    p.played(s, move('A1:B2'));
    s = p.state(board('W B2; B G7'), 'white', false);
    expect(s.quietMoves).toBe(2);
    expect(s.history).toHaveLength(3);
    p.played(s, move('B2:A1'));
    s = p.state(board('W A1; B H8'), 'white', false);
    expect(s.quietMoves).toBe(4);
    expect(s.history.filter((k) => k === s.history[0])).toHaveLength(2);
    s = p.state(board('W A1; B H8; b D6'), 'white', false);
    expect(s.quietMoves).toBe(0);
    expect(s.history).toHaveLength(1);
    expect(p.state(board('W A1; B H8'), 'white', true)).toMatchObject({ mustContinue: true, history: [] });
  });
});

describe('DameClient against our server', () => {
  let server: DameServer;

  async function serve(moveTimeMs: number): Promise<DameServer> {
    const store = new RecordStore(':memory:');
    server = createDameServer({ port: 0, log: silentLogger, store, defaultMoveTimeMs: moveTimeMs, motdDelayMs: 100 });
    await server.start();
    cleanups.push(async () => {
      await server.stop();
      store.close();
    });
    return server;
  }

  it('the full engine (worker thread) beats a random client within the move time', async () => {
    const s = await serve(300);
    const pool = new DameEnginePool();
    cleanups.push(() => pool.close());
    await pool.warm();
    const id = s.createGame();
    const engine = new DameClient({ host: '127.0.0.1', port: s.port, gameId: id, seat: 0, player: workerPlayer(pool) });
    const random = new DameClient({ host: '127.0.0.1', port: s.port, gameId: id, seat: 1, player: botPlayer(randomBot, 3) });
    const [e, r] = await Promise.all([engine.run(), random.run()]);
    expect(e).toMatchObject({ outcome: 'won', error: null });
    expect(r).toMatchObject({ outcome: 'lost', error: null });
    // Within the move time on an idle machine (about 200 ms here); the deadline is MOVE + 200 ms.
    expect(e.slowestMs).toBeLessThan(500);
  }, 40_000);

  it('the engine in its worker thread plays a short endgame to a win', async () => {
    const s = await serve(300);
    const pool = new DameEnginePool();
    cleanups.push(() => pool.close());
    const start = createState(board('W D4, w F2; b B6 F6'), 'white');
    const id = s.createGame({ start });
    const engine = new DameClient({ host: '127.0.0.1', port: s.port, gameId: id, seat: 0, player: workerPlayer(pool, 't') });
    const random = new DameClient({ host: '127.0.0.1', port: s.port, gameId: id, seat: 1, player: botPlayer(randomBot, 5) });
    const [e, r] = await Promise.all([engine.run(), random.run()]);
    expect(e.error).toBeNull();
    expect(r.error).toBeNull();
    expect(e.outcome).toBe('won');
  }, 30_000);
});
