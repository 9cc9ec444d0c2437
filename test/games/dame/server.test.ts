import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import { randomBot } from '../../../src/games/dame/bots/random.js';
import { DameClient } from '../../../src/games/dame/client.js';
import type { DameMoveSource } from '../../../src/games/dame/engine-pool.js';
import { parsePieces } from '../../../src/games/dame/notation.js';
import { botPlayer } from '../../../src/games/dame/players.js';
import { verifyDameMatch } from '../../../src/games/dame/replay.js';
import { createState, type DameState } from '../../../src/games/dame/rules.js';
import { createDameServer, type DameServer, type DameServerOptions } from '../../../src/games/dame/server.js';
import { join, RawClient, readMove } from './raw-client.js';

/** The Dame server over real TCP on 127.0.0.1, with short timers. */

const FAST = {
  waitIdleMs: 100,
  okwaitTimeoutMs: 500,
  graceMs: 100,
  prologTimeoutMs: 600,
  defaultMoveTimeMs: 400,
  motdDelayMs: 2000,
} as const;

let server: DameServer | null = null;
let store: RecordStore | null = null;
const raws: RawClient[] = [];

async function serve(options: Partial<DameServerOptions> = {}): Promise<DameServer> {
  store = new RecordStore(':memory:');
  server = createDameServer({ port: 0, log: silentLogger, store, ...FAST, ...options });
  await server.start();
  return server;
}

async function open(): Promise<RawClient> {
  const c = await RawClient.open(server!.port);
  raws.push(c);
  return c;
}

async function seat(gameId: string, player: string, autoOkWait = true): Promise<{ client: RawClient; players: string[] }> {
  const joined = await join(server!.port, gameId, player);
  raws.push(joined.client);
  joined.client.autoOkWait = autoOkWait;
  return joined;
}

async function seatBoth(gameId: string): Promise<{ white: RawClient; black: RawClient }> {
  const white = (await seat(gameId, 'PLAYER 0')).client;
  const black = (await seat(gameId, 'PLAYER 1')).client;
  return { white, black };
}

/** THINKING, OKTHINK, then the PLAY command. */
async function play(c: RawClient, command: string): Promise<void> {
  c.send('THINKING');
  await c.waitFor('+ OKTHINK');
  c.send(command);
}

async function readGameOver(c: RawClient, timeoutMs = 5000): Promise<string[]> {
  const lines = [await c.waitFor('+ GAMEOVER', timeoutMs)];
  while (lines[lines.length - 1] !== '+ QUIT') lines.push(await c.next());
  return lines;
}

function position(pieces: string, toMove: 'white' | 'black' = 'white'): DameState {
  const board = parsePieces(pieces);
  if (!board.ok) throw new Error(board.error);
  return createState(board.value, toMove);
}

/** When the server wrote `line` to the connection that sent `marker` (from the record's wire log). */
function writtenAt(marker: string, line: string): number[] {
  const wire = store!.getMatch(lastRecord().id)!.wire;
  const conn = wire.find((w) => w.dir === 'in' && w.data === marker)?.conn;
  return wire.filter((w) => w.conn === conn && w.dir === 'out' && w.data === line).map((w) => w.at);
}

function lastRecord(): { result: unknown; id: string } {
  const [m] = store!.listMatches({ game: 'dame' });
  if (!m) throw new Error('no record');
  return m;
}

afterEach(async () => {
  for (const c of raws.splice(0)) c.close();
  await server?.stop();
  store?.close();
  server = null;
  store = null;
});

const START_ROWS = [
  '+ 8 * b * b * b * b',
  '+ 7 b * b * b * b *',
  '+ 6 * b * b * b * b',
  '+ 5 * * * * * * * *',
  '+ 4 * * * * * * * *',
  '+ 3 w * w * w * w *',
  '+ 2 * w * w * w * w',
  '+ 1 w * w * w * w *',
];

describe('§5.2 wire tests', () => {
  it('PLAY C3:D4;D4:E5 applies only C3:D4 and the turn ends', async () => {
    const s = await serve();
    const id = s.createGame();
    const { white, black } = await seatBoth(id);
    await readMove(white);
    await play(white, 'PLAY C3:D4;D4:E5');
    await white.waitFor('+ MOVEOK');
    const move = await readMove(black);
    expect(move.slice(2, 10)).toEqual([...START_ROWS.slice(0, 4), '+ 4 * * * w * * * *', '+ 3 w * * * w * w *', ...START_ROWS.slice(6)]);
    expect(s.getGame(id)).toMatchObject({ toMove: 1, plies: 1, lastMove: 'C3:D4' });
  });

  it.each([
    ['PLAY C3-D4', 'Syntax error'],
    ['PLAY C3:', 'Syntax error'],
    ['PLAY C3:D5', 'Invalid position'],
    ['PLAY C3:C4', 'Invalid position'],
    ['PLAY D4:E5', 'No own piece'],
    ['PLAY A1:B2', 'Destination is already occupied'],
    ['PLAY C3:E5', 'Move not allowed'],
    ['PLAY', 'Syntax error'],
  ])('%s gets "- Invalid Move: %s" and loses', async (command, reason) => {
    const s = await serve();
    const id = s.createGame();
    const { white, black } = await seatBoth(id);
    await readMove(white);
    await play(white, command);
    expect(await white.next()).toBe(`- Invalid Move: ${reason}`);
    await white.closed();
    // The opponent wins; the GAMEOVER board is the position before the PLAY.
    expect(await readGameOver(black)).toEqual(['+ GAMEOVER', '+ BOARD 8,8', ...START_ROWS, '+ ENDBOARD', '+ PLAYER0WON No', '+ PLAYER1WON Yes', '+ QUIT']);
    await black.closed();
    expect(lastRecord().result).toMatchObject({ winner: 1, reason: `invalid-move: ${reason}` });
  });

  it('PLAY c3:d4 is accepted', async () => {
    const s = await serve();
    const { white, black } = await seatBoth(s.createGame());
    await readMove(white);
    await play(white, 'PLAY c3:d4');
    expect(await white.waitFor(/^[+-] (MOVEOK|Invalid)/)).toBe('+ MOVEOK');
    expect(await readMove(black)).toContain('+ 4 * * * w * * * *');
  });

  it('in P6, PLAY E3:C5 gets MOVEOK, then at once a new MOVE (its own write, ≥ 50 ms later)', async () => {
    const s = await serve();
    const p6 = position('w A1 C1 E1 G1 B2 D2 F2 A3 C3 E3 G3 H4; b B8 D8 F8 H8 A7 C7 E7 G7 D6 F6 H6 D4');
    const { white } = await seatBoth(s.createGame({ start: p6 }));
    await readMove(white);
    await play(white, 'PLAY E3:C5');
    expect(await white.nextGroup()).toEqual(['+ MOVEOK']);
    const follow = await white.nextGroup();
    expect(follow[0]).toBe('+ MOVE 400');
    expect(follow.slice(2, 10)).toEqual([
      '+ 8 * b * b * b * b',
      '+ 7 b * b * b * b *',
      '+ 6 * * * b * b * b',
      '+ 5 * * w * * * * *',
      '+ 4 * * * * * * * w',
      '+ 3 w * w * * * w *',
      '+ 2 * w * w * w * *',
      '+ 1 w * w * w * w *',
    ]);
    const [okAt] = writtenAt('PLAYER 0', '+ MOVEOK');
    const [, followAt] = writtenAt('PLAYER 0', '+ MOVE 400');
    expect(followAt! - okAt!).toBeGreaterThanOrEqual(50);
    expect(s.getGame(s.listGames()[0]!.id)).toMatchObject({ toMove: 0, mustContinue: true });
    await play(white, 'PLAY C5:B6');
    expect(await white.nextGroup()).toEqual(['+ MOVEOK']);
  });

  it('E3:C5;C5:B6 and E3:C5:B6 are one turn each', async () => {
    const s = await serve();
    for (const command of ['PLAY E3:C5;C5:B6', 'PLAY E3:C5:B6']) {
      const p6 = position('w A1 C1 E1 G1 B2 D2 F2 A3 C3 E3 G3 H4; b B8 D8 F8 H8 A7 C7 E7 G7 D6 F6 H6 D4');
      const id = s.createGame({ start: p6 });
      const { white, black } = await seatBoth(id);
      await readMove(white);
      await play(white, command);
      await white.waitFor('+ MOVEOK');
      const move = await readMove(black);
      expect(move).toContain('+ 6 * w * b * b * b');
      expect(s.getGame(id)).toMatchObject({ toMove: 1, plies: 2 });
    }
  });
});

describe('the game cycle', () => {
  it('sends WAIT to an idle seat, and MOVE only once an outstanding OKWAIT came', async () => {
    const s = await serve({ waitIdleMs: 300, okwaitTimeoutMs: 2000, defaultMoveTimeMs: 1500 });
    const id = s.createGame();
    const white = (await seat(id, 'PLAYER 0', false)).client;
    // White waits for an opponent: WAIT after 300 ms idle, answered.
    expect(await white.nextGroup()).toEqual(['+ WAIT']);
    white.send('OKWAIT');
    const { client: black } = await seat(id, 'PLAYER 1', false);
    expect(black.chunks[black.chunks.length - 1]!.lines).toEqual(['+ YOU 1 Black Player', '+ TOTAL 2', '+ 0 White Player 1', '+ ENDPLAYERS']);
    expect((await white.nextGroup())[0]).toBe('+ MOVE 1500');
    // Black idles while White thinks: WAIT after 300 ms. Black does not answer yet.
    expect(await black.nextGroup()).toEqual(['+ WAIT']);
    const [endPlayersAt] = writtenAt('PLAYER 1', '+ ENDPLAYERS');
    expect(writtenAt('PLAYER 1', '+ WAIT')[0]! - endPlayersAt!).toBeGreaterThanOrEqual(290);
    await play(white, 'PLAY C3:D4');
    expect(await white.nextGroup()).toEqual(['+ MOVEOK']);
    // Black owes an OKWAIT, so its MOVE waits for it.
    await new Promise((r) => setTimeout(r, 300));
    expect(black.lines[black.lines.length - 1]).toBe('+ WAIT');
    black.send('OKWAIT');
    expect((await black.nextGroup())[0]).toBe('+ MOVE 1500');
  });

  it('plays a full game between two of our clients with random bots to GAMEOVER', async () => {
    const s = await serve({ defaultMoveTimeMs: 300 });
    const id = s.createGame();
    const make = (seed: number): DameClient =>
      new DameClient({ host: '127.0.0.1', port: s.port, gameId: id, player: botPlayer(randomBot, seed) });
    const [a, b] = await Promise.all([make(1).run(), make(2).run()]);
    expect(a.error).toBeNull();
    expect(b.error).toBeNull();
    expect(new Set([a.seat, b.seat])).toEqual(new Set([0, 1]));
    expect(a.winners).toEqual(b.winners);
    expect(a.board).toEqual(b.board);
    const outcomes = [a.outcome, b.outcome].sort();
    expect(outcomes).toSatisfy((o: string[]) => (o[0] === 'draw' && o[1] === 'draw') || (o[0] === 'lost' && o[1] === 'won'));
    const record = lastRecord();
    expect(record.result).toMatchObject({ reason: expect.stringMatching(/^(no-pieces|no-moves|repetition|fifty-moves)$/) as string });
    const detail = store!.getMatch(record.id)!;
    expect(detail.status).toBe('finished');
    // Our client sends one single move per PLAY; the record has one event per single move.
    expect(detail.events.length).toBe(a.plays + b.plays);
    expect(verifyDameMatch(detail)).toEqual({ checked: true, problems: [] });
    // A tampered record does not pass.
    const moves = detail.events.filter((e) => e.type === 'move');
    expect(verifyDameMatch({ ...detail, events: moves.slice(1) }).problems.length).toBeGreaterThan(0);
    expect(s.snapshot().recent[0]).toMatchObject({ id, status: 'over' });
  }, 30_000);

  it('joining an ended game gives the prolog, then the GAMEOVER block, then closes', async () => {
    const s = await serve();
    const id = s.createGame({ start: position('w C3; b D4') });
    const { white, black } = await seatBoth(id);
    await readMove(white);
    await play(white, 'PLAY C3:E5');
    await white.waitFor('+ MOVEOK');
    const over = await readGameOver(white);
    expect(over.slice(-3)).toEqual(['+ PLAYER0WON Yes', '+ PLAYER1WON No', '+ QUIT']);
    await readGameOver(black);
    expect(lastRecord().result).toMatchObject({ winner: 0, reason: 'no-pieces' });
    const late = await join(s.port, id, 'PLAYER');
    raws.push(late.client);
    expect(late.players).toEqual(['+ YOU 0 White Player', '+ TOTAL 2', expect.stringMatching(/^\+ 1 Black Player [01]$/) as string, '+ ENDPLAYERS']);
    expect(await late.client.nextGroup()).toEqual(over);
    await late.client.closed();
  });

  it('a disconnect before the start frees the seat; the game does not start', async () => {
    const s = await serve();
    const id = s.createGame();
    const first = (await seat(id, 'PLAYER 0')).client;
    first.close();
    await new Promise((r) => setTimeout(r, 100));
    expect(s.getGame(id)!.seats[0].kind).toBe('open');
    const again = await seat(id, 'PLAYER 0');
    expect(again.players[0]).toBe('+ YOU 0 White Player');
    expect(s.getGame(id)!.status).toBe('waiting');
    expect(store!.countMatches('dame')).toBe(0);
  });

  it('a client vanishing mid-turn loses: the opponent gets GAMEOVER with PLAYER1WON Yes', async () => {
    const s = await serve({ defaultMoveTimeMs: 3000 });
    const { white, black } = await seatBoth(s.createGame());
    await readMove(white);
    white.send('THINKING');
    await white.waitFor('+ OKTHINK');
    white.socket.destroy();
    const over = await readGameOver(black, 2000);
    expect(over.slice(-3)).toEqual(['+ PLAYER0WON No', '+ PLAYER1WON Yes', '+ QUIT']);
    await black.closed();
    expect(lastRecord().result).toMatchObject({ winner: 1, reason: 'disconnect' });
  });

  it('a half-closed connection (FIN) mid-game is a disconnect', async () => {
    const s = await serve({ defaultMoveTimeMs: 3000 });
    const { white, black } = await seatBoth(s.createGame());
    await readMove(white);
    black.socket.end();
    expect((await readGameOver(white)).slice(-3, -1)).toEqual(['+ PLAYER0WON Yes', '+ PLAYER1WON No']);
    expect(lastRecord().result).toMatchObject({ winner: 0, reason: 'disconnect' });
  });

  it('publishes public events, shows games in the snapshot, and records a game cut off by stop() as aborted', async () => {
    const s = await serve({ defaultMoveTimeMs: 3000 });
    const events: string[] = [];
    s.subscribe((e) => events.push(e.type));
    const id = s.createGame({ name: 'Probe' });
    expect(id).toMatch(/^[a-z0-9]{13}$/);
    const { white, black } = await seatBoth(id);
    await readMove(white);
    await play(white, 'PLAY C3:D4');
    await white.waitFor('+ MOVEOK');
    await readMove(black);
    const snap = s.snapshot();
    expect(snap).toMatchObject({ game: 'dame', mode: 'auto', port: s.port, recent: [] });
    expect(snap.games).toHaveLength(1);
    expect(snap.games[0]).toMatchObject({
      id,
      name: 'Probe',
      status: 'running',
      moveTimeMs: 3000,
      toMove: 1,
      plies: 1,
      lastMove: 'C3:D4',
      seats: [
        { seat: 0, name: 'White Player', kind: 'client', connected: true },
        { seat: 1, name: 'Black Player', kind: 'client', connected: true },
      ],
    });
    expect(snap.games[0]!.board[4]).toBe('4 * * * w * * * *');
    expect(s.info()).toMatchObject({ game: 'dame', transport: 'tcp', status: 'running', liveMatches: 1, clients: 2 });
    expect(events).toEqual(['gameCreated', 'seatTaken', 'seatTaken', 'gameStarted', 'move']);
    await s.stop();
    expect(store!.listMatches({ game: 'dame' })[0]).toMatchObject({ status: 'aborted', result: { reason: 'server stopped' } });
    expect(s.info().status).toBe('stopped');
    server = null;
  });

  it('plays a game against the engine seat (in a worker thread) without blocking the server', async () => {
    const s = await serve({ defaultMoveTimeMs: 300, engineTimeMs: 60 });
    const id = s.createGame({ engineSeat: 0 });
    expect(s.getGame(id)!.seats[0]).toMatchObject({ kind: 'engine', connected: true });
    const client = new DameClient({ host: '127.0.0.1', port: s.port, gameId: id, player: botPlayer(randomBot, 7) });
    const result = await client.run();
    expect(result.seat).toBe(1);
    expect(result.error).toBeNull();
    expect(result.outcome).toBe('lost');
    const detail = store!.getMatch(lastRecord().id)!;
    expect(detail.seats.map((x) => x.kind)).toEqual(['engine', 'client']);
    expect(detail.events.some((e) => (e.data as { by?: string }).by === 'engine')).toBe(true);
  }, 30_000);
});

describe('every error line of §2.5', () => {
  it('TIMEOUT in the prolog (10 s per line in production)', async () => {
    const s = await serve({ mode: 'v2' });
    const c = await open();
    await c.next();
    expect(await c.next(2000)).toBe('- TIMEOUT Be faster next time');
    await c.closed();
    const d = await open();
    await d.next();
    d.send('VERSION 2.1');
    await d.next();
    const t0 = Date.now();
    expect(await d.next(2000)).toBe('- TIMEOUT Be faster next time');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(450);
    expect(s.info().status).toBe('running');
  });

  it('the prolog errors: VERSION, ID, game id, unknown game, PLAYER, No free player', async () => {
    const s = await serve({ autoCreate: false });
    const id = s.createGame();
    const script = async (lines: string[]): Promise<string> => {
      const c = await open();
      await c.next();
      for (const line of lines) c.send(line);
      const error = await c.waitFor(/^-/);
      await c.closed();
      return error;
    };
    expect(await script(['HELLO'])).toBe('- Did not get the expected VERSION command');
    expect(await script(['VERSION 9.1'])).toBe('- Client Version does not match server Version');
    expect(await script(['VERSION 2.1', 'PLAYER'])).toBe('- Did not get the expected ID command');
    expect(await script(['VERSION 2.1', 'ID abc'])).toBe('- Not a valid game ID');
    expect(await script(['VERSION 2.1', 'ID'])).toBe('- Not a valid game ID');
    expect(await script(['VERSION 2.1', 'ID zzzzzzzzzzzzz'])).toBe('- Game does not exist');
    expect(await script(['VERSION 2.1', `ID ${id}`, 'THINKING'])).toBe('- Did not get the expected PLAYER command');
    expect(await script(['VERSION 2.1', `ID ${id}`, 'PLAYER 2'])).toBe('- No free player');
    expect(await script(['VERSION 2.1', `ID ${id}`, 'PLAYER x'])).toBe('- No free player');
    await seat(id, 'PLAYER 1');
    expect(await script(['VERSION 2.1', `ID ${id}`, 'PLAYER 1'])).toBe('- No free player');
    await seat(id, 'PLAYER');
    expect(await script(['VERSION 2.1', `ID ${id}`, 'PLAYER'])).toBe('- No free player');
  });

  it('auto-creates an unknown valid id, case-sensitively', async () => {
    const s = await serve();
    const { players } = await seat('AbCdEfGhIjKlM', 'PLAYER');
    expect(players[0]).toBe('+ YOU 0 White Player');
    expect(s.getGame('AbCdEfGhIjKlM')).toBeDefined();
    expect(s.getGame('abcdefghijklm')).toBeUndefined();
  });

  it('Did not expect response: a line from an idle seat (before the start it frees the seat)', async () => {
    const s = await serve({ waitIdleMs: 2000 });
    const id = s.createGame();
    const c = (await seat(id, 'PLAYER 0')).client;
    c.send('OKWAIT');
    expect(await c.next()).toBe('- Did not expect response from client');
    await c.closed();
    expect(s.getGame(id)!.seats[0].kind).toBe('open');
    const { white, black } = await seatBoth(id);
    await readMove(white);
    black.send('PLAY F6:E5');
    expect(await black.next()).toBe('- Did not expect response from client');
    expect((await readGameOver(white)).slice(-3, -1)).toEqual(['+ PLAYER0WON Yes', '+ PLAYER1WON No']);
    expect(lastRecord().result).toMatchObject({ winner: 0, reason: 'protocol-error: PLAY F6:E5' });
  });

  it('Did not get the expected THINKING / PLAY / OKWAIT command', async () => {
    const s = await serve();
    let { white, black } = await seatBoth(s.createGame());
    await readMove(white);
    white.send('PLAY C3:D4');
    expect(await white.next()).toBe('- Did not get the expected THINKING command');
    await readGameOver(black);

    ({ white, black } = await seatBoth(s.createGame()));
    await readMove(white);
    white.send('THINKING');
    await white.waitFor('+ OKTHINK');
    white.send('THINKING');
    expect(await white.next()).toBe('- Did not get the expected PLAY command');
    await readGameOver(black);

    const id = s.createGame();
    const w = (await seat(id, 'PLAYER 0', false)).client;
    expect(await w.next()).toBe('+ WAIT');
    w.send('THINKING');
    expect(await w.next()).toBe('- Did not get the expected OKWAIT command');
    await w.closed();
    expect(s.getGame(id)!.seats[0].kind).toBe('open');
  });

  it('TIMEOUT for OKWAIT: before the start the seat is freed, after it the game is lost', async () => {
    const s = await serve({ defaultMoveTimeMs: 3000 });
    const id = s.createGame();
    const w = (await seat(id, 'PLAYER 0', false)).client;
    expect(await w.next()).toBe('+ WAIT');
    const t0 = Date.now();
    expect(await w.next(2000)).toBe('- TIMEOUT Be faster next time');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(400);
    expect(s.getGame(id)!.seats[0].kind).toBe('open');

    const white = (await seat(id, 'PLAYER 0')).client;
    const black = (await seat(id, 'PLAYER 1', false)).client;
    await readMove(white);
    expect(await black.next()).toBe('+ WAIT');
    expect(await black.next(2000)).toBe('- TIMEOUT Be faster next time');
    expect((await readGameOver(white)).slice(-3, -1)).toEqual(['+ PLAYER0WON Yes', '+ PLAYER1WON No']);
    expect(lastRecord().result).toMatchObject({ winner: 0, reason: 'timeout' });
  });

  it('TIMEOUT for THINKING and for PLAY: MOVE ms + grace from the MOVE write', async () => {
    const s = await serve();
    let { white, black } = await seatBoth(s.createGame());
    await readMove(white);
    expect(await white.next(2000)).toBe('- TIMEOUT Be faster next time');
    await readGameOver(black);
    // On the server's clock: MOVE 400 + 100 ms of grace from the MOVE write.
    const took = writtenAt('PLAYER 0', '- TIMEOUT Be faster next time')[0]! - writtenAt('PLAYER 0', '+ MOVE 400')[0]!;
    expect(took).toBeGreaterThanOrEqual(490);
    expect(took).toBeLessThan(800);

    ({ white, black } = await seatBoth(s.createGame()));
    await readMove(white);
    white.send('THINKING');
    await white.waitFor('+ OKTHINK');
    expect(await white.next(2000)).toBe('- TIMEOUT Be faster next time');
    expect((await readGameOver(black)).slice(-3, -1)).toEqual(['+ PLAYER0WON No', '+ PLAYER1WON Yes']);
  });

  it('Internal error: a failing engine ends only its own game', async () => {
    const broken: DameMoveSource = {
      choose: () => {
        throw new Error('boom');
      },
      close: () => Promise.resolve(),
    };
    const s = await serve({ engine: broken });
    const id = s.createGame({ engineSeat: 0 });
    const c = (await seat(id, 'PLAYER')).client;
    expect(await c.next()).toBe('- Internal error. Sorry & Bye');
    await c.closed();
    expect(s.getGame(id)!.status).toBe('over');
    expect(store!.listMatches({ game: 'dame', status: 'aborted' })).toHaveLength(1);
    const { white } = await seatBoth(s.createGame());
    expect((await readMove(white))[0]).toBe('+ MOVE 400');
  });
});

describe('bad input', () => {
  it('fuzzed bytes, overlong lines and binary garbage hit only their own connection', async () => {
    const s = await serve({ defaultMoveTimeMs: 300, waitIdleMs: 200 });
    // The game that must go on: a short one, so the test stays quick.
    const id = s.createGame({ start: position('w A1 C1 E1 B2 D2 F2; b B8 D8 F8 A7 C7 E7') });
    const make = (seed: number): DameClient =>
      new DameClient({ host: '127.0.0.1', port: s.port, gameId: id, player: botPlayer(randomBot, seed) });
    const game = Promise.all([make(11).run(), make(12).run()]);

    const attack = async (payload: (c: RawClient) => void | Promise<void>): Promise<string> => {
      const c = await open();
      await c.next();
      await payload(c);
      const error = await c.waitFor(/^-/, 3000);
      await c.closed();
      return error;
    };
    const errors = await Promise.all([
      attack((c) => c.sendRaw(randomBytes(3000))),
      attack((c) => c.sendRaw(Buffer.alloc(1500, 0x41))), // no newline: answered at once
      attack((c) => c.sendRaw('VERSION 2.1\n' + 'A'.repeat(1025) + '\n')),
      attack((c) => c.sendRaw(Buffer.from([0xff, 0xfe, 0x00, 0x0a]))),
      attack(async (c) => {
        c.sendRaw('VERSION 2.1\r\nID fuzzfuzzfuzz1\r\n\r\nPLAYER\u0000 \r\n');
        await c.waitFor('+ ENDPLAYERS');
        c.sendRaw(randomBytes(200));
        c.sendRaw('\n');
      }),
    ]);
    expect(errors).toHaveLength(5);
    expect(errors[0]).toBe('- Did not get the expected VERSION command');
    expect(errors[1]).toBe('- Did not get the expected VERSION command');
    expect(errors[2]).toBe('- Did not get the expected ID command');
    expect(errors[3]).toBe('- Did not get the expected VERSION command');
    expect(errors[4]).toMatch(/^- Did not (expect response from client|get the expected OKWAIT command)$/);
    // A seated client sending garbage mid-game loses; its opponent gets a proper GAMEOVER.
    const g2 = s.createGame();
    const { white, black } = await seatBoth(g2);
    await readMove(white);
    white.sendRaw(Buffer.concat([randomBytes(64).map((b) => (b === 10 ? 32 : b)), Buffer.from('\n')]));
    expect(await white.waitFor(/^-/)).toBe('- Did not get the expected THINKING command');
    expect((await readGameOver(black)).slice(-3, -1)).toEqual(['+ PLAYER0WON No', '+ PLAYER1WON Yes']);
    expect(s.getGame(g2)!.result).toMatchObject({ winner: 1, reason: expect.stringMatching(/^protocol-error: /) as string });

    const [a, b] = await game;
    expect(a.error).toBeNull();
    expect(b.error).toBeNull();
    expect(s.info()).toMatchObject({ status: 'running' });
  }, 30_000);
});
