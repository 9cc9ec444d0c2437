import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import { Rng } from '../../../src/core/rng.js';
import { randomBot } from '../../../src/games/ostseeschach/bots/random.js';
import { playOnServer, type ClientOutcome } from '../../../src/games/ostseeschach/client.js';
import { Connection } from '../../../src/games/ostseeschach/connection.js';
import { startHouseGames, type HouseWorker } from '../../../src/games/ostseeschach/house.js';
import { HouseLoop, type HouseGame } from '../../../src/games/ostseeschach/house-loop.js';
import { Room } from '../../../src/games/ostseeschach/room.js';
import { RoomRecord } from '../../../src/games/ostseeschach/room-record.js';
import {
  createOstseeschachServer,
  type OstseeschachServer,
  type OstseeschachServerInput,
} from '../../../src/games/ostseeschach/server.js';
import { Harness, kinds, playFirstLegal, serverPackets, type MemoryClient } from './wire-harness.js';

/**
 * Issue 15: no client can take the Ostseeschach server down or lock others out. Attackers come
 * from 127.0.0.2, the good clients from 127.0.0.1, so the per-host limits can tell them apart.
 */

const PREPARE =
  '<prepare gameType="swc_2022_ostseeschach" pause="false"><slot displayName="Alice" canTimeout="true" reserved="true"/>' +
  '<slot displayName="Bob" canTimeout="true" reserved="true"/></prepare>';
const AUTH = '<protocol><authenticate password="examplepassword"/>';
/** What the official server sends a client it stops (Client.stop()): CloseConnection, then the end. */
const STOPPED = '\n  <sc.protocol.CloseConnection/>\n</protocol>';

const preparedRooms = (c: MemoryClient): string[] =>
  serverPackets(c.received).flatMap((p) => (p.type === 'prepared' ? [p.roomId] : []));
const errors = (c: MemoryClient): string[] =>
  serverPackets(c.received).flatMap((p) => (p.type === 'errorpacket' ? [p.message] : []));

/** Two clients `join` a fresh room (hosts default to their names). */
function joinGame(h: Harness, tag: string, host?: string): { room: string; one: MemoryClient; two: MemoryClient } {
  const one = h.connect(`${tag}1`, host).send('<protocol><join/>');
  const room = serverPackets(one.received).flatMap((p) => (p.type === 'joined' ? [p.roomId] : []))[0]!;
  const two = h.connect(`${tag}2`, host).send('<protocol><join/>');
  return { room, one, two };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('join timeout', () => {
  it('stops a connection that has not joined in time, as the official server stops a client', () => {
    const h = new Harness({ joinTimeoutMs: 1000 });
    const silent = h.connect('silent');
    const opened = h.connect('opened').send('<protocol>');
    const refused = h.connect('refused').send('<protocol><join gameType="swc_2023_penguins"/>');
    const wrong = h.connect('wrong').send('<protocol><authenticate password="nope"/>');
    const player = h.connect('player').send('<protocol><join/>');
    const admin = h.connect('admin').send(AUTH + PREPARE);
    const code = serverPackets(admin.received).flatMap((p) => (p.type === 'prepared' ? p.reservations : []))[0]!;
    const reserved = h.connect('reserved');
    h.clock.advance(500);
    reserved.send(`<protocol><joinPrepared reservationCode="${code}"/>`);
    h.clock.advance(499);
    for (const c of [silent, opened, refused, wrong, player, admin, reserved]) expect(c.ended, c.name).toBe(false);
    expect(h.server.info().clients).toBe(7);

    h.clock.advance(1);
    expect(silent.received).toBe('<protocol>' + STOPPED);
    expect(opened.received).toBe('<protocol>' + STOPPED);
    expect(kinds(refused.received)).toEqual(['errorpacket', 'closeConnection']);
    expect(refused.received.endsWith(STOPPED)).toBe(true);
    expect(kinds(wrong.received)).toEqual(['errorpacket', 'closeConnection']);
    for (const c of [silent, opened, refused, wrong]) expect(c.ended, c.name).toBe(true);
    // Whoever joined, redeemed a code or authenticated stays, however long it waits.
    h.clock.advance(3_600_000);
    for (const c of [player, admin, reserved]) expect(c.ended, c.name).toBe(false);
    expect(h.server.info().clients).toBe(3);
    // The closed connections send no more; late bytes change nothing.
    silent.send('<protocol><join/>');
    expect(silent.received).toBe('<protocol>' + STOPPED);
  });

  it('frees the connections a silent client holds, so that others can play (over TCP)', async () => {
    const server = await tcpServer({ joinTimeoutMs: 150, maxConnections: 6, maxConnectionsPerHost: 0 });
    const silent = await Promise.all(Array.from({ length: 6 }, () => attacker(server.port)));
    // The server is full: a good client is turned away at once.
    const probe = await attacker(server.port, '127.0.0.1');
    await probe.closed;
    expect(probe.text()).toBe('');
    const t0 = Date.now();
    await Promise.all(silent.map((s) => s.closed));
    expect(Date.now() - t0).toBeLessThan(3000);
    for (const s of silent) expect(s.text()).toBe('<protocol>' + STOPPED);
    // The server counts a socket until its own side has closed too.
    await new Promise((r) => setTimeout(r, 100));
    await expectGoodGame(server);
  });
});

describe('prepared rooms expire', () => {
  it('250 empty prepared rooms block every join until they expire; then joins and prepares work again', () => {
    const h = new Harness({ preparedRoomTimeoutMs: 60_000, maxRoomsPerHost: 0 });
    const attacker = h.connect('attacker', '127.0.0.2').send(AUTH);
    for (let i = 0; i < 250; i++) attacker.send(PREPARE);
    const rooms = preparedRooms(attacker);
    expect(rooms).toHaveLength(250);
    attacker.send(`<observe roomId="${rooms[0]!}"/>`);
    const victim = h.connect('victim', '127.0.0.1').send('<protocol><join/>');
    expect(errors(victim)).toEqual(['sc.api.plugins.exceptions.GameRoomException: The server already has 250 open rooms']);
    const house = h.connect('house', '127.0.0.1').send(AUTH + PREPARE);
    expect(errors(house)).toEqual(['sc.api.plugins.exceptions.GameRoomException: The server already has 250 open rooms']);
    h.clock.advance(59_999);
    expect(h.server.lobby.roomRows()).toHaveLength(250);

    attacker.take();
    h.clock.advance(1);
    expect(h.server.lobby.roomRows()).toHaveLength(0);
    // The observed room ends as a cancel does (result and left); every other room's preparer gets left.
    const after = serverPackets(attacker.take());
    expect(after.slice(0, 2).map((p) => p.type === 'room' ? p.data.class : p.type)).toEqual(['result', 'left']);
    const left = after.flatMap((p) => (p.type === 'left' ? [p.roomId] : []));
    expect(new Set(left)).toEqual(new Set(rooms));
    expect(left).toHaveLength(250);
    expect(attacker.ended).toBe(false);
    // The codes died with their rooms; a fresh join and a fresh prepare work.
    const late = h.connect('late').send('<protocol><joinPrepared reservationCode="code-1"/>');
    expect(errors(late)[0]).toMatch(/UnknownReservationException/);
    // (The victim, which never joined, was closed by the join timeout meanwhile.)
    expect(victim.ended).toBe(true);
    const player = h.connect('player', '127.0.0.1').send('<protocol><join/>');
    expect(kinds(player.received)).toEqual(['joined']);
    house.send(PREPARE);
    expect(preparedRooms(house)).toHaveLength(1);
  });

  it('a prepared room with a player in it, a running game and a join room stay', () => {
    const h = new Harness({ preparedRoomTimeoutMs: 1000 });
    const admin = h.connect('admin').send(AUTH + PREPARE + PREPARE + PREPARE);
    const [waiting, running, empty] = preparedRooms(admin) as [string, string, string];
    const codes = serverPackets(admin.received).flatMap((p) => (p.type === 'prepared' ? p.reservations : []));
    const alone = h.connect('alone').send(`<protocol><joinPrepared reservationCode="${codes[0]!}"/>`);
    const one = h.connect('one').send(`<protocol><joinPrepared reservationCode="${codes[2]!}"/>`);
    const two = h.connect('two').send(`<protocol><joinPrepared reservationCode="${codes[3]!}"/>`);
    const g = joinGame(h, 'j');
    h.clock.advance(900);
    playFirstLegal(one, running);
    h.clock.advance(100);
    expect(h.server.lobby.room(empty)).toBeUndefined();
    expect(h.server.lobby.room(waiting)).toBeDefined();
    expect(h.server.lobby.room(running)).toBeDefined();
    expect(h.server.lobby.room(g.room)).toBeDefined();
    expect(kinds(alone.received)).toEqual(['joined']);
    expect(kinds(two.received).at(-1)).toBe('moveRequest');
    expect(serverPackets(admin.received).filter((p) => p.type === 'left')).toEqual([{ type: 'left', roomId: empty }]);
  });

  it('house games get a room again once an attacker\'s prepared rooms expire (over TCP)', async () => {
    const server = await tcpServer({ maxRooms: 4, maxRoomsPerHost: 0, preparedRoomTimeoutMs: 400 });
    const bad = await attacker(server.port);
    bad.socket.write(AUTH + PREPARE.repeat(4));
    await until('four prepared rooms', () => (bad.text().match(/<\/prepared>/g) ?? []).length === 4);
    const games = await firstHouseGame(server.port, 'expiry');
    expect(games[0]!.outcomes.map((o) => o.result?.scores.map((s) => s.cause))).toEqual([
      ['REGULAR', 'REGULAR'],
      ['REGULAR', 'REGULAR'],
    ]);
    expect((bad.text().match(/<left roomId=/g) ?? []).length).toBe(4);
    bad.socket.destroy();
  });
});

describe('fair share per host', () => {
  it('one host creates at most maxRoomsPerHost rooms by join or prepare; others still can', () => {
    const h = new Harness({ maxRoomsPerHost: 3 });
    const BAD = '127.0.0.2';
    const admin = h.connect('admin', BAD).send(AUTH + PREPARE + PREPARE);
    const first = h.connect('bad1', BAD).send('<protocol><join/>');
    expect(kinds(first.received)).toEqual(['joined']);
    admin.send(PREPARE);
    const tooMany = 'sc.api.plugins.exceptions.GameRoomException: Your host already has 3 open rooms';
    expect(errors(admin)).toEqual([tooMany]);
    // Joining a room that is already open is not creating one.
    const second = h.connect('bad2', BAD).send('<protocol><join/>');
    expect(kinds(second.received)).toEqual(['joined', 'welcomeMessage', 'memento']);
    const third = h.connect('bad3', BAD).send('<protocol><join/>');
    expect(errors(third)).toEqual([tooMany]);
    expect(serverPackets(third.received)[0]).toMatchObject({ type: 'errorpacket', original: { type: 'join' } });
    expect(third.ended).toBe(false);
    // Another host is not affected.
    const good = joinGame(h, 'good', '127.0.0.1');
    expect(kinds(good.two.received)).toEqual(['joined', 'welcomeMessage', 'memento']);
    // A closed room gives the host its share back.
    admin.send(`<cancel roomId="${preparedRooms(admin)[0]!}"/>`);
    admin.send(PREPARE);
    expect(preparedRooms(admin)).toHaveLength(3);
    expect(h.server.lobby.roomsOf(BAD)).toBe(3);
  });

  it('one host holds at most maxConnectionsPerHost connections; a good client still plays (over TCP)', async () => {
    const server = await tcpServer({ maxConnectionsPerHost: 5 });
    const sockets: Attacker[] = [];
    for (let i = 0; i < 8; i++) sockets.push(await attacker(server.port));
    await Promise.all(sockets.slice(5).map((s) => s.closed));
    for (const s of sockets.slice(5)) expect(s.text()).toBe('');
    await until('five attackers connected', () => server.info().clients === 5);
    for (const s of sockets.slice(0, 5)) expect(s.isClosed()).toBe(false);
    await expectGoodGame(server);
    for (const s of sockets) s.socket.destroy();
    // The host's share is free again once its sockets are gone.
    await until('the attacker gone', () => server.info().clients === 0);
    const again = await attacker(server.port);
    again.socket.write('<protocol><join/>');
    await until('joined', () => again.text().includes('<joined'));
    again.socket.destroy();
  });
});

describe('hostile input over TCP ends only that connection', () => {
  const bomb =
    '<?xml version="1.0"?><!DOCTYPE protocol [<!ENTITY a "aaaaaaaaaa">' +
    Array.from({ length: 9 }, (_, i) => `<!ENTITY ${'b'.repeat(i + 1)} "${`&${i === 0 ? 'a' : 'b'.repeat(i)};`.repeat(10)}">`).join('') +
    ']><protocol><join gameType="&bbbbbbbbb;"/>';
  /** Name, the chunks to send, and whether nothing at all may come back (dropped before any reply). */
  type Attack = [string, () => Iterable<string | Buffer>, boolean];
  const fuzz = (seed: string): Buffer => {
    const rng = Rng.seeded(seed);
    return Buffer.from(Array.from({ length: 65_536 }, () => rng.int(0, 255)));
  };
  const attacks: Attack[] = [
    ['entity expansion (billion laughs)', () => [bomb], true],
    ['an external entity', () => ['<!DOCTYPE protocol [<!ENTITY x SYSTEM "file:///etc/passwd">]><protocol><join gameType="&x;"/>'], true],
    ['an undefined entity', () => ['<protocol><join gameType="&x;"/>'], true],
    ['nesting 100000 deep', () => ['<protocol>', '<room>'.repeat(100_000)], true],
    ['a 4 MB attribute', () => ['<protocol><join gameType="', ...Array.from({ length: 64 }, () => 'x'.repeat(65_536))], true],
    ['100000 attributes', () => ['<protocol><join ' + Array.from({ length: 100_000 }, (_, i) => `a${i}="1"`).join(' ') + '/>'], true],
    ['an 8 MB text element', () => ['<protocol><join>', ...Array.from({ length: 128 }, () => 'y'.repeat(65_536))], true],
    ['8 MB of whitespace between packets', () => ['<protocol><join/>', ...Array.from({ length: 128 }, () => ' '.repeat(65_536))], false],
    ...[1, 2, 3, 4].map((n): Attack => [`random bytes (seed ${n})`, () => [fuzz(`fuzz-${n}`)], false]),
    ...[1, 2].map((n): Attack => [`random bytes after a join (seed ${n})`, () => ['<protocol><join/>', fuzz(`fuzz-join-${n}`)], false]),
  ];

  it('bombs, overlong input and fuzzed bytes close the sender; the server stays up and a good game finishes', async () => {
    const server = await tcpServer();
    // A good game is under way (its room full, so no attacker's join lands in it) when the attacks begin.
    const good = goodGame(server);
    let goodOver = false;
    void good.finally(() => (goodOver = true));
    await until('the good game', () => server.lobby.liveMatches === 1 || goodOver);
    const results = await Promise.all(
      attacks.map(async ([name, chunks, silent]) => {
        const a = await attacker(server.port);
        for (const chunk of chunks()) {
          if (a.isClosed()) break;
          a.socket.write(chunk);
        }
        const t0 = Date.now();
        await Promise.race([a.closed, new Promise((r) => setTimeout(r, 5000))]);
        return { name, silent, closed: a.isClosed(), ms: Date.now() - t0, text: a.text() };
      }),
    );
    for (const r of results) expect(r, r.name).toMatchObject({ closed: true });
    // Nothing is sent to a client dropped for unreadable XML before it joined.
    for (const r of results) if (r.silent) expect(r.text, r.name).toBe('');
    checkGoodGame(await good);
    expect(server.info().status).toBe('running');
    await until('the attackers gone', () => server.info().clients === 0);
    await expectGoodGame(server);
  }, 30_000);
});

describe('error boundaries (fault injection)', () => {
  it('a timer that throws ends only its room, recorded as aborted with reason "internal error"', async () => {
    const store = new RecordStore(':memory:');
    try {
      const h = new Harness({ store });
      const admin = h.connect('admin').send(AUTH + PREPARE);
      const [room] = preparedRooms(admin) as [string];
      const codes = serverPackets(admin.received).flatMap((p) => (p.type === 'prepared' ? p.reservations : []));
      const one = h.connect('one').send(`<protocol><joinPrepared reservationCode="${codes[0]!}"/>`);
      const two = h.connect('two').send(`<protocol><joinPrepared reservationCode="${codes[1]!}"/>`);
      const other = joinGame(h, 'other');
      vi.spyOn(Room.prototype as unknown as { onHardTimeout: () => void }, 'onHardTimeout').mockImplementation(() => {
        throw new Error('injected: hard timer');
      });
      h.clock.advance(10_000);
      // No result (the room failed), but everyone there learns the room is gone.
      expect(kinds(one.received).slice(-2)).toEqual(['moveRequest', 'left']);
      expect(kinds(two.received).at(-1)).toBe('left');
      expect(kinds(two.received)).not.toContain('result');
      expect(h.server.lobby.room(room)).toBeUndefined();
      expect(one.ended).toBe(false);
      // The other game goes on to its end.
      vi.restoreAllMocks();
      other.two.take();
      playFirstLegal(other.one, other.room);
      expect(kinds(other.two.take())).toEqual(['memento', 'moveRequest']);
      const aborted = store.listMatches({ game: 'ostseeschach', status: 'aborted' });
      expect(aborted).toHaveLength(1);
      expect(store.getMatch(aborted[0]!.id)!.result).toMatchObject({ roomId: room, reason: 'internal error', turn: 0 });
    } finally {
      await store.drain();
      store.close();
    }
  });

  it('a room whose own end throws half-way is still recorded and taken out of the lobby', async () => {
    const store = new RecordStore(':memory:');
    try {
      const h = new Harness({ store });
      const g = joinGame(h, 'g');
      vi.spyOn(RoomRecord.prototype, 'finish').mockImplementationOnce(() => {
        throw new Error('injected: record');
      });
      // TWO moves out of turn: the game ends, and writing its result fails.
      g.two.send(`<room roomId="${g.room}"><data class="move"><from x="7" y="0"/><to x="6" y="0"/></data></room>`);
      expect(h.server.lobby.room(g.room)).toBeUndefined();
      expect(kinds(g.one.received).at(-1)).toBe('left');
      const [match] = store.listMatches({ game: 'ostseeschach' });
      expect(match).toMatchObject({ status: 'aborted' });
      expect(store.getMatch(match!.id)!.result).toMatchObject({ reason: 'internal error' });
      // The lobby goes on: a new pair gets a new room.
      const next = joinGame(h, 'n');
      expect(kinds(next.two.received)).toEqual(['joined', 'welcomeMessage', 'memento']);
    } finally {
      await store.drain();
      store.close();
    }
  });

  it('a join timer that throws closes only that connection', () => {
    const h = new Harness({ joinTimeoutMs: 100 });
    vi.spyOn(Connection.prototype as unknown as { joinTimedOut: () => void }, 'joinTimedOut').mockImplementation(() => {
      throw new Error('injected: join timer');
    });
    const silent = h.connect('silent');
    const g = joinGame(h, 'g');
    h.clock.advance(100);
    expect(silent.ended).toBe(true);
    expect(silent.received).toBe('');
    expect(h.server.info().clients).toBe(2);
    playFirstLegal(g.one, g.room);
    expect(kinds(g.two.received).slice(-2)).toEqual(['memento', 'moveRequest']);
  });

  it('a socket handler that throws ends that connection and aborts its game; the server and other games go on', async () => {
    const store = new RecordStore(':memory:');
    const server = await tcpServer({ store });
    const original = Connection.prototype.receive;
    vi.spyOn(Connection.prototype, 'receive').mockImplementation(function (this: Connection, chunk) {
      if (Buffer.from(chunk).toString('utf8').includes('BOOM')) throw new Error('injected: socket handler');
      original.call(this, chunk);
    });
    const one = await attacker(server.port, '127.0.0.1');
    one.socket.write('<protocol><join/>');
    await until('joined', () => one.text().includes('<joined'));
    const two = await attacker(server.port, '127.0.0.1');
    two.socket.write('<protocol><join/>');
    await until('the move request', () => one.text().includes('moveRequest'));
    one.socket.write('<BOOM/>');
    await one.closed;
    await until('the opponent told', () => two.text().includes('<left roomId='));
    expect(two.text()).not.toContain('class="result"');
    expect(two.isClosed()).toBe(false);
    expect(server.info().status).toBe('running');
    await expectGoodGame(server);
    await stopServer(server);
    const aborted = store.listMatches({ game: 'ostseeschach', status: 'aborted' });
    expect(aborted).toHaveLength(1);
    expect(store.getMatch(aborted[0]!.id)!.result).toMatchObject({ reason: 'internal error' });
    expect(store.listMatches({ game: 'ostseeschach', status: 'finished' })).toHaveLength(1);
    two.socket.destroy();
    store.close();
  });

  it('a house loop whose game throws tries again and plays', async () => {
    const server = await tcpServer();
    const proto = HouseLoop.prototype as unknown as { playOne: () => Promise<void> };
    const spy = vi.spyOn(proto, 'playOne').mockImplementationOnce(() => {
      throw new Error('injected: house loop');
    });
    const games = await firstHouseGame(server.port, 'fault');
    expect(spy).toHaveBeenCalledTimes(2);
    expect(games[0]!.outcomes[0].result?.scores.map((s) => s.cause)).toEqual(['REGULAR', 'REGULAR']);
    expect(server.info().status).toBe('running');
  });

  it('a house game thread that dies is started again; a failing game listener changes nothing', async () => {
    const server = await tcpServer();
    let games = 0;
    const parts: HouseWorker[] = await startHouseGames({
      games: 1,
      host: '127.0.0.1',
      port: server.port,
      adminPassword: 'examplepassword',
      moveTimeMs: 10,
      pauseMs: 0,
      seed: 'restart',
      log: silentLogger,
      onGame: () => {
        games++;
        throw new Error('injected: game listener');
      },
    });
    try {
      await until('a house game', () => games >= 1, 20_000);
      await until('a second house game', () => games >= 2, 20_000);
      const seen = games;
      await parts[0]!.thread!.terminate();
      await until('a house game after the restart', () => games > seen, 20_000);
    } finally {
      for (const p of parts) await p.stop();
    }
    expect(server.info().status).toBe('running');
  }, 60_000);
});

// ---- helpers ------------------------------------------------------------------------------------

const servers: OstseeschachServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
});

async function stopServer(server: OstseeschachServer): Promise<void> {
  servers.splice(servers.indexOf(server), 1);
  await server.stop();
}

async function tcpServer(options: Partial<OstseeschachServerInput> = {}): Promise<OstseeschachServer> {
  const server = createOstseeschachServer({ port: 0, seed: 'hardening', log: silentLogger, store: null, ...options });
  servers.push(server);
  await server.start();
  return server;
}

interface Attacker {
  socket: Socket;
  text(): string;
  isClosed(): boolean;
  closed: Promise<void>;
}

/** A raw client, by default from 127.0.0.2; resolves once connected. */
async function attacker(port: number, localAddress = '127.0.0.2'): Promise<Attacker> {
  const socket = connect({ host: '127.0.0.1', port, localAddress });
  let text = '';
  let closed = false;
  socket.setEncoding('utf8').on('data', (d: string) => (text += d));
  socket.on('error', () => undefined);
  const done = new Promise<void>((resolve) =>
    socket.once('close', () => {
      closed = true;
      resolve();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  return { socket, text: () => text, isClosed: () => closed, closed: done };
}

function goodGame(server: OstseeschachServer): Promise<[ClientOutcome, ClientOutcome]> {
  const play = (seed: string) =>
    playOnServer({ host: '127.0.0.1', port: server.port, join: { kind: 'join' }, bot: randomBot, seed });
  return Promise.all([play('good-1'), play('good-2')]);
}

function checkGoodGame([a, b]: [ClientOutcome, ClientOutcome]): void {
  expect(a.roomId).toBe(b.roomId);
  expect(a.result?.scores.map((s) => s.cause)).toEqual(['REGULAR', 'REGULAR']);
  expect((a.points ?? 0) + (b.points ?? 0)).toBe(2);
}

/** Two good clients on 127.0.0.1 play a whole game. */
async function expectGoodGame(server: OstseeschachServer): Promise<void> {
  checkGoodGame(await goodGame(server));
}

async function until(what: string, fn: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A house loop of two random bots on the server at `port`, until its first game ends. */
async function firstHouseGame(port: number, seed: string): Promise<HouseGame[]> {
  const games: HouseGame[] = [];
  const loop = new HouseLoop({
    host: '127.0.0.1',
    port,
    adminPassword: 'examplepassword',
    moveTimeMs: 10,
    pauseMs: 60_000,
    name: 'House 1',
    bots: ['random', 'random'],
    seed,
    log: silentLogger,
    onGame: (g) => games.push(g),
  });
  try {
    await until('a house game', () => games.length > 0, 10_000);
  } finally {
    await loop.stop();
  }
  return games;
}
