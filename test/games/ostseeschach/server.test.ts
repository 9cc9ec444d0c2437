import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import { Rng } from '../../../src/core/rng.js';
import { randomBot } from '../../../src/games/ostseeschach/bots/random.js';
import { playOnServer } from '../../../src/games/ostseeschach/client.js';
import { createOstseeschachServer, type OstseeschachServer } from '../../../src/games/ostseeschach/server.js';
import type { SpectatorEvent } from '../../../src/core/game-server.js';
import { fromPosition } from '../../../src/games/ostseeschach/setup.js';
import {
  Harness,
  kinds,
  lastState,
  moveXml,
  playFirstLegal,
  resultOf,
  serverPackets,
  type MemoryClient,
} from './wire-harness.js';

const ALICE_BOB =
  '<prepare gameType="swc_2022_ostseeschach" pause="PAUSE"><slot displayName="Alice" canTimeout="TIMEOUT" reserved="true"/>' +
  '<slot displayName="Bob" canTimeout="TIMEOUT" reserved="true"/></prepare>';

interface Game {
  room: string;
  one: MemoryClient;
  two: MemoryClient;
}

/** Two clients `join` and get a fresh room (ONE is the first). */
function joinGame(h: Harness, tag: string): Game {
  const one = h.connect(`${tag}1`).send('<protocol><join/>');
  const room = serverPackets(one.received).flatMap((p) => (p.type === 'joined' ? [p.roomId] : []))[0]!;
  const two = h.connect(`${tag}2`).send('<protocol><join/>');
  return { room, one, two };
}

/** An admin prepares Alice (ONE) and Bob (TWO); the admin observes; both join with their codes. */
function preparedGame(
  h: Harness,
  options: { paused?: boolean; canTimeout?: boolean; join?: boolean } = {},
): Game & { admin: MemoryClient } {
  const admin = h.connect('admin').send('<protocol><authenticate password="examplepassword"/>');
  admin.send(
    ALICE_BOB.replace('PAUSE', String(options.paused ?? false)).replaceAll(
      'TIMEOUT',
      String(options.canTimeout ?? true),
    ),
  );
  const prepared = serverPackets(admin.received).find((p) => p.type === 'prepared');
  if (prepared?.type !== 'prepared') throw new Error('no prepared');
  admin.send(`<observe roomId="${prepared.roomId}"/>`);
  const one = h.connect('alice');
  const two = h.connect('bob');
  if (options.join ?? true) {
    one.send(`<protocol><joinPrepared reservationCode="${prepared.reservations[0]!}"/>`);
    two.send(`<protocol><joinPrepared reservationCode="${prepared.reservations[1]!}"/>`);
  }
  return { room: prepared.roomId, one, two, admin };
}

/** A second, well-behaved game goes on as if nothing happened. */
function expectUnaffected(h: Harness, g: Game): void {
  g.two.take();
  const before = kinds(g.two.received).length;
  playFirstLegal(g.one, g.room);
  expect(kinds(g.two.received).slice(before)).toEqual(['memento', 'moveRequest']);
  expect(h.server.lobby.room(g.room)).toBeDefined();
}

const scoreOf = (stream: string, team: 'ONE' | 'TWO') =>
  resultOf(stream).scores.find((s) => s.team === team)!;

describe('bad input ends only the offender’s game', () => {
  const dropped = (send: (g: Game) => void, cause: string) => () => {
    const h = new Harness();
    const bad = joinGame(h, 'a');
    const good = joinGame(h, 'b');
    bad.one.take();
    send(bad);
    // Only a CloseConnection is answered with the end of the stream; otherwise no further byte (issue #16).
    expect(bad.one.take()).toBe(cause === 'RECEIVED_DISCONNECT' ? '\n</protocol>' : '');
    expect(bad.one.ended).toBe(true);
    expect(scoreOf(bad.two.received, 'ONE')).toMatchObject({
      cause: 'LEFT',
      reason: `Der Spieler hat das Spiel verlassen: ${cause}`,
      parts: [0, 0, 0],
    });
    expect(scoreOf(bad.two.received, 'TWO')).toMatchObject({ cause: 'REGULAR', parts: [2, 0, 0] });
    expect(resultOf(bad.two.received).winner).toBe('TWO');
    expect(kinds(bad.two.received).slice(-2)).toEqual(['result', 'left']);
    expect(bad.two.ended).toBe(false);
    expectUnaffected(h, good);
  };

  it(
    'malformed XML',
    dropped((g) => g.one.send(`<room roomId="${g.room}"><data class="move"></room>`), 'PROTOCOL_ERROR'),
  );
  it(
    'an unknown element',
    dropped((g) => g.one.send('<hello/>'), 'PROTOCOL_ERROR'),
  );
  it(
    '<close/>, which the official server does not know either',
    dropped((g) => g.one.send('<close/>'), 'PROTOCOL_ERROR'),
  );
  it(
    'a known packet with content XStream cannot read',
    dropped(
      (g) =>
        g.one.send(
          `<room roomId="${g.room}"><data class="move"><from x="one" y="0"/><to x="1" y="1"/></data></room>`,
        ),
      'PROTOCOL_ERROR',
    ),
  );
  it(
    'an overlong element',
    dropped((g) => g.one.send(`<join gameType="${'x'.repeat(70_000)}"/>`), 'PROTOCOL_ERROR'),
  );
  it(
    'an endless element',
    dropped((g) => {
      g.one.send(`<room roomId="${g.room}">`);
      for (let i = 0; i < 100 && !g.one.ended; i++) g.one.send('<data class="move">'.padEnd(1024, ' '));
    }, 'PROTOCOL_ERROR'),
  );
  it(
    'too deep nesting',
    dropped((g) => g.one.send('<room>'.repeat(40)), 'PROTOCOL_ERROR'),
  );
  it(
    'binary garbage',
    dropped((g) => {
      const rng = Rng.seeded('garbage');
      g.one.send(Buffer.from(Array.from({ length: 4096 }, () => rng.int(0, 255))).toString('latin1'));
    }, 'PROTOCOL_ERROR'),
  );
  it(
    'a client that closes its socket mid-game',
    dropped((g) => g.one.close(), 'LOST_CONNECTION'),
  );
  it(
    'a client that closes its </protocol> mid-game',
    dropped((g) => g.one.send('</protocol>'), 'LOST_CONNECTION'),
  );
  it(
    'CloseConnection mid-game',
    dropped((g) => g.one.send('<sc.protocol.CloseConnection/>'), 'RECEIVED_DISCONNECT'),
  );

  it('a graceful close is answered with the end of the stream', () => {
    const h = new Harness();
    const g = joinGame(h, 'a');
    g.one.take();
    g.one.send('<sc.protocol.CloseConnection/>');
    expect(g.one.take()).toBe('\n</protocol>');
    const lonely = h.connect('lonely');
    lonely.send('<protocol><sc.protocol.CloseConnection/>');
    expect(lonely.received).toBe('<protocol/>');
  });

  it('an illegal move: error to the offender and observers, RULE_VIOLATION, the opponent wins', () => {
    const h = new Harness({ layouts: ['HMSRHMSR'] });
    const g = preparedGame(h);
    const good = joinGame(h, 'b');
    for (const c of [g.one, g.two, g.admin]) c.take();
    g.one.send(moveXml(g.room, { from: { x: 0, y: 1 }, to: { x: 0, y: 0 } }));
    const reason = "Kann nicht auf ein Feld der eigenen Farbe ziehen bei Zug 'Zug von [0|1] zu [0|0]'";
    expect(kinds(g.one.received).slice(-3)).toEqual(['error', 'result', 'left']);
    expect(kinds(g.admin.received).slice(-3)).toEqual(['error', 'result', 'left']);
    expect(kinds(g.two.received).slice(-2)).toEqual(['result', 'left']);
    expect(g.one.received).toContain(
      'InvalidMoveException(mistake=Kann nicht auf ein Feld der eigenen Farbe ziehen, move=Zug von [0|1] zu [0|0])',
    );
    expect(scoreOf(g.two.received, 'ONE')).toMatchObject({
      cause: 'RULE_VIOLATION',
      reason,
      parts: [0, 0, 0],
    });
    expect(resultOf(g.two.received).winner).toBe('TWO');
    expect(g.one.ended).toBe(false);
    expectUnaffected(h, good);
  });

  it('a move out of turn: the error only to the offender, RULE_VIOLATION, the other wins', () => {
    const h = new Harness();
    const g = joinGame(h, 'a');
    const good = joinGame(h, 'b');
    g.one.take();
    g.two.take();
    g.two.send(moveXml(g.room, { from: { x: 7, y: 0 }, to: { x: 6, y: 0 } }));
    const message = "It's not your turn yet; expected: ONE(), got TWO() (msg was Zug von [7|0] zu [6|0]).";
    expect(kinds(g.two.take())).toEqual(['error', 'result', 'left']);
    expect(kinds(g.one.take())).toEqual(['result', 'left']);
    expect(scoreOf(g.one.received, 'TWO')).toMatchObject({ cause: 'RULE_VIOLATION', reason: message });
    expect(scoreOf(g.one.received, 'ONE')).toMatchObject({ cause: 'REGULAR', parts: [2, 0, 0] });
    expect(resultOf(g.one.received).winner).toBe('ONE');
    expectUnaffected(h, good);
  });

  it('moves to unknown rooms, rooms of others and non-move data get an errorpacket; the game goes on', () => {
    const h = new Harness();
    const g = joinGame(h, 'a');
    const other = joinGame(h, 'b');
    g.one.take();
    g.one.send(moveXml('nope', { from: { x: 0, y: 0 }, to: { x: 1, y: 0 } }));
    g.one.send(moveXml(other.room, { from: { x: 0, y: 0 }, to: { x: 1, y: 0 } }));
    g.one.send(`<room roomId="${g.room}"><data class="moveRequest"/></room>`);
    const errors = serverPackets(g.one.take()).map((p) => (p.type === 'errorpacket' ? p.message : p.type));
    expect(errors).toEqual([
      "sc.api.plugins.exceptions.GameRoomException: Couldn't find a room with id nope",
      `sc.api.plugins.exceptions.GameRoomException: Client is not a member of game ${other.room}`,
      `sc.api.plugins.exceptions.GameRoomException: Received non-move packet: RoomPacket(roomId=${g.room}, data=sc.protocol.room.MoveRequest@1b6d3586)`,
    ]);
    playFirstLegal(g.one, g.room);
    expect(kinds(g.two.received).slice(-2)).toEqual(['memento', 'moveRequest']);
    expectUnaffected(h, other);
  });

  it('an unknown gameType that must create a room gets an errorpacket and keeps the connection (spec §4 #4)', () => {
    const h = new Harness();
    const c = h.connect('c').send('<protocol><join gameType="swc_2023_penguins"/>');
    expect(serverPackets(c.take())).toEqual([
      {
        type: 'errorpacket',
        message:
          "sc.api.plugins.exceptions.PluginLoaderException: Could not find game of type 'swc_2023_penguins'",
        original: { type: 'join', gameType: 'swc_2023_penguins' },
      },
    ]);
    c.send('<join gameType="swc_2022_ostseeschach"/>');
    expect(kinds(c.take())).toEqual(['joined']);
    // With a room open, any gameType joins it, as officially (nikohass sends swc_2022).
    const d = h.connect('d').send('<protocol><join gameType="swc_2022"/>');
    expect(kinds(d.received)).toEqual(['joined', 'welcomeMessage', 'memento']);
  });

  it('a first element other than <protocol> becomes the root; closing it ends the stream', () => {
    const h = new Harness();
    const c = h.connect('c').send('<join/>');
    expect(c.received).toBe('');
    expect(c.ended).toBe(true);
    const d = h.connect('d').send('<stream><join/>');
    expect(kinds(d.received)).toEqual(['joined']);
  });
});

describe('rooms with one player (spec §4 #7)', () => {
  it('an early move closes the room with <left> instead of hanging the next player', () => {
    const h = new Harness();
    const first = h.connect('first').send('<protocol><join/>');
    const room = serverPackets(first.received)[0]!;
    if (room.type !== 'joined') throw new Error('not joined');
    first.send(moveXml(room.roomId, { from: { x: 0, y: 0 }, to: { x: 1, y: 0 } }));
    expect(serverPackets(first.received).slice(1)).toEqual([
      {
        type: 'room',
        roomId: room.roomId,
        data: {
          class: 'error',
          message: 'Move from ONE() has not been requested.',
          original: { from: { x: 0, y: 0 }, to: { x: 1, y: 0 } },
        },
      },
      { type: 'left', roomId: room.roomId },
    ]);
    expect(h.server.lobby.room(room.roomId)).toBeUndefined();
    const next = h.connect('next').send('<protocol><join/>');
    expect(serverPackets(next.received)).toEqual([{ type: 'joined', roomId: 'room-2' }]);
  });

  it('a player who leaves an unfilled room takes the room along', () => {
    const h = new Harness();
    const first = h.connect('first').send('<protocol><join/>');
    first.close();
    expect(h.server.snapshot().rooms).toEqual([]);
    const a = h.connect('a').send('<protocol><join/>');
    const b = h.connect('b').send('<protocol><join/>');
    expect(kinds(a.received)).toEqual(['joined', 'welcomeMessage', 'memento', 'moveRequest']);
    expect(kinds(b.received)).toEqual(['joined', 'welcomeMessage', 'memento']);
  });
});

describe('one client in both seats', () => {
  it('plays both sides; when it leaves, its first seat has left and the other wins', () => {
    const h = new Harness();
    const admin = h.connect('admin').send('<protocol><authenticate password="examplepassword"/>');
    const both = h.connect('both').send('<protocol><join/><join/>');
    expect(kinds(both.received)).toEqual([
      'joined',
      'joined',
      'welcomeMessage',
      'welcomeMessage',
      'memento',
      'memento',
      'moveRequest',
    ]);
    expect(
      serverPackets(admin.take()).map((p) => (p.type === 'joinedGameRoom' ? p.playerCount : -1)),
    ).toEqual([1, 2]);
    admin.send('<observe roomId="room-1"/>');
    admin.take();
    both.close();
    expect(kinds(admin.take())).toEqual(['result', 'left']);
    expect(resultOf(admin.received)).toMatchObject({
      winner: 'TWO',
      scores: [
        { cause: 'LEFT', parts: [0, 0, 0] },
        { cause: 'REGULAR', parts: [2, 0, 0] },
      ],
    });
  });
});

describe('timeouts (spec §3.7)', () => {
  it('a move after more than 2000 ms is a SOFT_TIMEOUT, dropped without an error, no winner', () => {
    const h = new Harness();
    const g = preparedGame(h);
    for (const c of [g.one, g.two, g.admin]) c.take();
    h.clock.advance(2001);
    playFirstLegal(g.one, g.room);
    for (const c of [g.one, g.two, g.admin]) expect(kinds(c.take())).toEqual(['result', 'left']);
    expect(scoreOf(g.two.received, 'ONE')).toMatchObject({
      cause: 'SOFT_TIMEOUT',
      reason: 'Der Spieler hat innerhalb von 2 Sekunden nach Aufforderung keinen Zug gesendet',
      parts: [0, 0, 0],
    });
    expect(scoreOf(g.two.received, 'TWO')).toMatchObject({ cause: 'REGULAR', parts: [2, 0, 0] });
    expect(resultOf(g.two.received).winner).toBe(null);
  });

  it('a move after exactly 2000 ms is in time', () => {
    const h = new Harness();
    const g = preparedGame(h);
    g.two.take();
    h.clock.advance(2000);
    playFirstLegal(g.one, g.room);
    expect(kinds(g.two.take())).toEqual(['memento', 'moveRequest']);
  });

  it('no move within 10 s: SOFT_TIMEOUT with the 10-second reason; a late move finds no room', () => {
    const h = new Harness();
    const g = preparedGame(h);
    for (const c of [g.one, g.two]) c.take();
    h.clock.advance(9999);
    expect(g.two.take()).toBe('');
    h.clock.advance(1);
    expect(kinds(g.one.take())).toEqual(['result', 'left']);
    expect(scoreOf(g.two.received, 'ONE')).toMatchObject({
      cause: 'SOFT_TIMEOUT',
      reason: 'Der Spieler hat innerhalb von 10 Sekunden nach Aufforderung keinen Zug gesendet',
    });
    expect(resultOf(g.two.received).winner).toBe(null);
    playFirstLegal(g.one, g.room);
    expect(serverPackets(g.one.take())[0]).toMatchObject({
      type: 'errorpacket',
      message: `sc.api.plugins.exceptions.GameRoomException: Couldn't find a room with id ${g.room}`,
    });
  });

  it('players of join rooms and of canTimeout="false" slots never time out', () => {
    const h = new Harness();
    const joined = joinGame(h, 'j');
    const prepared = preparedGame(h, { canTimeout: false });
    h.clock.advance(3_600_000);
    playFirstLegal(joined.one, joined.room);
    playFirstLegal(prepared.one, prepared.room);
    expect(kinds(joined.two.received).slice(-2)).toEqual(['memento', 'moveRequest']);
    expect(kinds(prepared.two.received).slice(-2)).toEqual(['memento', 'moveRequest']);
  });

  it('runs on short real timers over TCP', async () => {
    const server = createOstseeschachServer({
      port: 0,
      seed: 'short',
      log: silentLogger,
      store: null,
      softTimeoutMs: 50,
      hardTimeoutMs: 200,
    });
    await server.start();
    try {
      const admin = connect({ host: '127.0.0.1', port: server.port });
      let adminText = '';
      admin.setEncoding('utf8').on('data', (d: string) => (adminText += d));
      admin.write(
        '<protocol><authenticate password="examplepassword"/>' +
          ALICE_BOB.replace('PAUSE', 'false').replaceAll('TIMEOUT', 'true'),
      );
      const started = Date.now();
      while (!adminText.includes('</prepared>') && Date.now() - started < 5000)
        await new Promise((r) => setTimeout(r, 5));
      const codes = [...adminText.matchAll(/<reservation>([^<]+)<\/reservation>/g)].map((m) => m[1]!);
      // ONE never answers; TWO is our client with the random bot.
      const idle = connect({ host: '127.0.0.1', port: server.port });
      let idleText = '';
      idle.setEncoding('utf8').on('data', (d: string) => (idleText += d));
      idle.write(`<protocol><joinPrepared reservationCode="${codes[0]!}"/>`);
      const t0 = Date.now();
      const outcome = await playOnServer({
        host: '127.0.0.1',
        port: server.port,
        join: { kind: 'prepared', reservationCode: codes[1]! },
        bot: randomBot,
      });
      expect(Date.now() - t0).toBeLessThan(5000);
      expect(outcome.points).toBe(2);
      expect(outcome.result?.scores[0]).toMatchObject({
        name: 'Alice',
        cause: 'SOFT_TIMEOUT',
        reason: 'Der Spieler hat innerhalb von 0 Sekunden nach Aufforderung keinen Zug gesendet',
      });
      expect(idleText).toContain('<left roomId=');
      admin.destroy();
      idle.destroy();
    } finally {
      await server.stop();
    }
  });

  it('a second step replaces the open request and its timer', () => {
    const h = new Harness();
    const g = preparedGame(h, { paused: true });
    g.admin.send(`<step roomId="${g.room}" forced="false"/>`);
    h.clock.advance(9000);
    g.admin.send(`<step roomId="${g.room}" forced="false"/>`);
    h.clock.advance(500);
    playFirstLegal(g.one, g.room);
    h.clock.advance(20_000);
    expect(kinds(g.one.received)).not.toContain('result');
    expect(h.server.lobby.room(g.room)).toBeDefined();
  });
});

describe('admin protocol (spec §3.10)', () => {
  it('pause, step, unpause and cancel', () => {
    const h = new Harness();
    const g = preparedGame(h, { paused: true });
    expect(kinds(g.admin.take())).toEqual(['prepared', 'observed', 'memento']);
    expect(kinds(g.one.take())).toEqual(['joined', 'welcomeMessage']);
    expect(kinds(g.two.take())).toEqual(['joined', 'welcomeMessage']);

    g.admin.send(`<step roomId="${g.room}" forced="false"/>`);
    expect(kinds(g.admin.take())).toEqual(['memento']);
    expect(kinds(g.one.take())).toEqual(['memento', 'moveRequest']);
    expect(kinds(g.two.take())).toEqual(['memento']);
    playFirstLegal(g.one, g.room);
    // Paused: the new state goes to observers only, and nobody is asked to move.
    expect(kinds(g.admin.take())).toEqual(['memento']);
    expect(g.two.take()).toBe('');

    g.admin.send(`<pause roomId="${g.room}" pause="true"/>`);
    expect(g.admin.take()).toBe('');
    g.admin.send(`<pause roomId="${g.room}" pause="false"/>`);
    // No move pending: unpausing acts as a step.
    expect(kinds(g.admin.take())).toEqual(['paused', 'memento']);
    expect(kinds(g.two.take())).toEqual(['memento', 'moveRequest']);
    expect(kinds(g.one.take())).toEqual(['memento']);

    g.admin.send(`<pause roomId="${g.room}" pause="true"/>`);
    expect(kinds(g.admin.take())).toEqual(['paused']);
    playFirstLegal(g.two, g.room);
    expect(kinds(g.admin.take())).toEqual(['memento']);
    expect(g.one.take()).toBe('');

    g.admin.send(`<cancel roomId="${g.room}"/>`);
    for (const c of [g.one, g.two, g.admin]) expect(kinds(c.take())).toEqual(['result', 'left']);
    const result = resultOf(g.one.received);
    expect(result.winner).toBe(null);
    expect(result.scores.map((s) => [s.name, s.cause, s.parts[0]])).toEqual([
      ['Alice', 'REGULAR', 0],
      ['Bob', 'REGULAR', 0],
    ]);
  });

  it('cancelling an empty prepared room: NOT_CONNECTED for both, result and left to the observer', () => {
    const h = new Harness();
    const g = preparedGame(h, { join: false });
    g.admin.take();
    g.admin.send(`<cancel roomId="${g.room}"/>`);
    expect(kinds(g.admin.take())).toEqual(['result', 'left']);
    expect(resultOf(g.admin.received).scores.map((s) => s.reason)).toEqual([
      'Der Spieler hat das Spiel verlassen: NOT_CONNECTED',
      'Der Spieler hat das Spiel verlassen: NOT_CONNECTED',
    ]);
    // The codes of a closed room are void.
    const late = h.connect('late').send('<protocol><joinPrepared reservationCode="code-1"/>');
    expect(late.received).toContain('UnknownReservationException');
  });

  it('a forced step on a room with one player cancels it; the present player wins', () => {
    const h = new Harness();
    const g = preparedGame(h, { join: false });
    g.one.send('<protocol><joinPrepared reservationCode="code-1"/>');
    g.admin.send(`<step roomId="${g.room}" forced="false"/>`);
    expect(kinds(g.one.received)).toEqual(['joined']);
    g.admin.send(`<step roomId="${g.room}" forced="true"/>`);
    expect(kinds(g.one.received)).toEqual(['joined', 'result', 'left']);
    expect(resultOf(g.one.received)).toMatchObject({
      winner: 'ONE',
      scores: [
        { name: 'Alice', cause: 'REGULAR', parts: [2, 0, 0] },
        {
          name: 'Bob',
          cause: 'LEFT',
          reason: 'Der Spieler hat das Spiel verlassen: NOT_CONNECTED',
          parts: [0, 0, 0],
        },
      ],
    });
  });

  it('unpausing a prepared room before the start only clears the flag', () => {
    const h = new Harness();
    const g = preparedGame(h, { paused: true, join: false });
    g.admin.take();
    g.admin.send(`<pause roomId="${g.room}" pause="false"/>`);
    expect(kinds(g.admin.take())).toEqual(['paused']);
    g.one.send('<protocol><joinPrepared reservationCode="code-1"/>');
    g.two.send('<protocol><joinPrepared reservationCode="code-2"/>');
    expect(kinds(g.one.received)).toEqual(['joined', 'welcomeMessage', 'memento', 'moveRequest']);
  });

  it('joins: reserved slots only by code (once), free prepared slots by join; admins hear of joins', () => {
    const h = new Harness();
    const admin = h.connect('admin').send('<protocol><authenticate password="examplepassword"/>');
    admin.send(
      '<prepare gameType="swc_2022_ostseeschach" pause="false"><slot displayName="A" canTimeout="false" reserved="true"/><slot displayName="B" canTimeout="false" reserved="false"/></prepare>',
    );
    const prepared = serverPackets(admin.take())[0];
    expect(prepared).toEqual({ type: 'prepared', roomId: 'room-1', reservations: ['code-1'] });
    const b = h.connect('b').send('<protocol><join/>');
    expect(kinds(b.received)).toEqual(['joined']);
    expect(serverPackets(admin.take())).toEqual([
      { type: 'joinedGameRoom', roomId: 'room-1', playerCount: 1 },
    ]);
    const a = h.connect('a').send('<protocol><joinPrepared reservationCode="code-1"/>');
    expect(kinds(a.received)).toEqual(['joined', 'welcomeMessage', 'memento', 'moveRequest']);
    const again = h.connect('again').send('<protocol><joinPrepared reservationCode="code-1"/>');
    expect(again.received).toContain('sc.server.gaming.UnknownReservationException');
    expect(again.ended).toBe(false);
  });

  it('refuses requests before authentication, unknown game types and more than two slots', () => {
    const h = new Harness();
    const c = h
      .connect('c')
      .send(
        '<protocol><prepare gameType="swc_2022_ostseeschach" pause="false"><slot displayName="A" canTimeout="true" reserved="true"/></prepare>',
      );
    expect(c.take()).toContain(
      'message="sc.server.network.UnauthenticatedException: Request PrepareGameRequest(gameType=swc_2022_ostseeschach, slotDescriptors=[Lsc.shared.SlotDescriptor;@1b6d3586, pause=false) requires authentication"',
    );
    c.send('<authenticate password="examplepassword"/>');
    c.send('<prepare gameType="swc_2021_blokus" pause="false"/>');
    expect(c.take()).toContain(
      'PluginLoaderException: Could not find game of type &apos;swc_2021_blokus&apos;',
    );
    c.send(
      '<prepare pause="false"><slot displayName="A"/><slot displayName="B"/><slot displayName="C"/></prepare>',
    );
    expect(c.take()).toContain('TooManyPlayersException');
    c.send('<prepare pause="false"><slot/><slot/></prepare>');
    expect(kinds(c.take())).toEqual(['prepared']);
    expect(c.ended).toBe(false);
    expect(h.server.snapshot().rooms).toHaveLength(1);
  });
});

describe('the end of a game', () => {
  it('scores a team without light pieces with 0 and still sends the result (spec §4 #1)', () => {
    const start = fromPosition({
      turn: 59,
      ambers: { ONE: 1, TWO: 1 },
      pieces: [
        { coordinates: { x: 3, y: 3 }, piece: { type: 'Robbe', team: 'ONE', count: 1 } },
        { coordinates: { x: 5, y: 5 }, piece: { type: 'Moewe', team: 'TWO', count: 1 } },
      ],
    });
    if (!start.ok) throw new Error(start.error.message);
    const h = new Harness({ startPosition: () => start.value });
    const g = joinGame(h, 'a');
    expect(kinds(g.two.received)).toEqual(['joined', 'welcomeMessage', 'memento', 'moveRequest']);
    g.two.send(moveXml(g.room, { from: { x: 5, y: 5 }, to: { x: 5, y: 6 } }));
    const result = resultOf(g.one.received);
    // Equal ambers, and no light piece of ONE to compare: a draw.
    expect(result).toEqual({
      winner: null,
      scores: [
        { team: 'ONE', name: '', cause: 'REGULAR', reason: '', parts: [1, 1, 0] },
        { team: 'TWO', name: '', cause: 'REGULAR', reason: '', parts: [1, 1, 2] },
      ],
    });
    expect(lastState(g.one.received).turn).toBe(60);
  });
});

describe('records, snapshot and spectator events', () => {
  it('records seats, moves, the wire of each connection and the result with its cause', () => {
    const store = new RecordStore(':memory:');
    const h = new Harness({ store });
    const g = preparedGame(h);
    playFirstLegal(g.one, g.room);
    g.two.send(
      `<room roomId="${g.room}"><data class="move"><from x="7" y="7"/><to x="7" y="7"/></data></room>`,
    );
    const [match] = store.listMatches({ game: 'ostseeschach' });
    expect(match).toMatchObject({
      status: 'finished',
      seats: [{ name: 'Alice' }, { name: 'Bob' }],
      meta: { roomId: g.room },
    });
    const detail = store.getMatch(match!.id)!;
    expect(detail.events.map((e) => e.type)).toEqual(['start', 'move', 'violation']);
    const bobIn = detail.wire.filter((w) => w.conn === 'bob:1' && w.dir === 'in').map((w) => w.data);
    expect(bobIn).toContain(
      `<room roomId="${g.room}"><data class="move"><from x="7" y="7"/><to x="7" y="7"/></data></room>`,
    );
    expect(
      detail.wire.some((w) => w.conn === 'bob:1' && w.dir === 'out' && w.data.includes('class="result"')),
    ).toBe(true);
    expect(detail.result).toMatchObject({
      winner: 'ONE',
      scores: [
        { cause: 'REGULAR' },
        {
          cause: 'RULE_VIOLATION',
          reason: "%s kann sich nicht um %s bewegen bei Zug 'Zug von [7|7] zu [7|7]'",
        },
      ],
    });
    store.close();
  });

  it('records unreadable input under the game it ended', () => {
    const store = new RecordStore(':memory:');
    const h = new Harness({ store });
    const g = joinGame(h, 'a');
    g.one.send('<<garbage>>');
    const detail = store.getMatch(store.listMatches({ game: 'ostseeschach' })[0]!.id)!;
    expect(detail.wire.some((w) => w.dir === 'in' && w.data === '<<garbage>>')).toBe(true);
    expect(detail.result).toMatchObject({
      scores: [
        { cause: 'LEFT', reason: 'Der Spieler hat das Spiel verlassen: PROTOCOL_ERROR' },
        { cause: 'REGULAR' },
      ],
    });
    store.close();
  });

  it('shows rooms, seats and recent results, and publishes public events', () => {
    const h = new Harness();
    const events: SpectatorEvent[] = [];
    h.server.subscribe((e) => events.push(e));
    const waiting = h.connect('w').send('<protocol><join/>');
    expect(h.server.snapshot().rooms).toMatchObject([
      { roomId: 'room-1', status: 'waiting', seats: [{ team: 'ONE', address: 'w:1' }] },
    ]);
    h.connect('x').send('<protocol><join/>');
    const row = h.server.snapshot().rooms[0]!;
    expect(row).toMatchObject({ status: 'running', awaiting: 'ONE', board: { turn: 0 } });
    expect(row.board.pieces).toHaveLength(16);
    expect(h.server.info()).toMatchObject({
      game: 'ostseeschach',
      transport: 'tcp',
      clients: 2,
      liveMatches: 1,
    });
    waiting.send('<sc.protocol.CloseConnection/>');
    const snapshot = h.server.snapshot();
    expect(snapshot.rooms).toEqual([]);
    expect(snapshot.recent).toMatchObject([
      { roomId: 'room-1', winner: 'TWO', scores: [{ cause: 'LEFT' }, { cause: 'REGULAR' }] },
    ]);
    expect(snapshot.gamesPlayed).toBe(1);
    expect(events.map((e) => e.type)).toEqual(['roomCreated', 'started', 'memento', 'roomClosed']);
    expect(JSON.stringify(snapshot)).not.toContain('examplepassword');
  });
});

describe('over TCP', () => {
  let server: OstseeschachServer | null = null;
  afterEach(async () => {
    await server?.stop();
    server = null;
  });

  it('two of our clients play a whole game; the record holds every move', async () => {
    const store = new RecordStore(':memory:');
    server = createOstseeschachServer({ port: 0, seed: 'tcp', log: silentLogger, store });
    await server.start();
    const port = server.port;
    const first = playOnServer({
      host: '127.0.0.1',
      port,
      join: { kind: 'join' },
      bot: randomBot,
      seed: 'one',
    });
    // The first client must be in its room before the second joins, to be ONE.
    while (server.snapshot().rooms.length === 0) await new Promise((r) => setTimeout(r, 2));
    const second = playOnServer({
      host: '127.0.0.1',
      port,
      join: { kind: 'join', gameType: 'swc_2022_ostseeschach' },
      bot: randomBot,
      seed: 'two',
    });
    const [a, b] = await Promise.all([first, second]);
    expect(a.team).toBe('ONE');
    expect(b.team).toBe('TWO');
    expect(a.result).toEqual(b.result);
    expect(a.end).toBe('closed');
    expect(a.errors).toEqual([]);
    expect(a.result!.scores.every((s) => s.cause === 'REGULAR')).toBe(true);
    expect((a.points ?? 0) + (b.points ?? 0)).toBe(2);
    const match = store.listMatches({ game: 'ostseeschach' })[0]!;
    const detail = store.getMatch(match.id)!;
    expect(detail.status).toBe('finished');
    expect(detail.events.filter((e) => e.type === 'move')).toHaveLength(a.moves + b.moves);
    store.close();
  });

  it('a client that vanishes mid-turn loses with LOST_CONNECTION; the other gets the result', async () => {
    server = createOstseeschachServer({ port: 0, seed: 'vanish', log: silentLogger, store: null });
    await server.start();
    const port = server.port;
    const ghost = connect({ host: '127.0.0.1', port });
    let ghostText = '';
    ghost.setEncoding('utf8').on('data', (d: string) => (ghostText += d));
    ghost.write('<protocol><join/>');
    const other = playOnServer({ host: '127.0.0.1', port, join: { kind: 'join' }, bot: randomBot });
    while (!ghostText.includes('moveRequest')) await new Promise((r) => setTimeout(r, 2));
    ghost.destroy();
    const outcome = await other;
    expect(outcome.points).toBe(2);
    expect(outcome.result?.scores[0]).toMatchObject({
      cause: 'LEFT',
      reason: 'Der Spieler hat das Spiel verlassen: LOST_CONNECTION',
    });
    expect(outcome.result?.winner).toBe('TWO');
  });

  it('closes the socket of a dropped client that keeps its side open', async () => {
    server = createOstseeschachServer({
      port: 0,
      seed: 'linger',
      log: silentLogger,
      store: null,
      lingerMs: 50,
    });
    await server.start();
    const socket = connect({ host: '127.0.0.1', port: server.port, allowHalfOpen: true });
    let text = '';
    socket.setEncoding('utf8').on('data', (d: string) => (text += d));
    const ended = new Promise<void>((resolve) => socket.on('end', () => resolve()));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => undefined);
    socket.write('<protocol><join/><bogus/>');
    await ended;
    expect(text).toMatch(/^<protocol>\n {2}<joined roomId="[^"]+"\/>$/);
    // The server's socket is gone after the linger time: bytes bounce (a write after the reset fails).
    const knock = setInterval(() => socket.write('<join/>'), 50);
    await closed;
    clearInterval(knock);
    expect(server.info().clients).toBe(0);
  });

  it('stopping the server sends CloseConnection and ends every stream', async () => {
    server = createOstseeschachServer({ port: 0, seed: 'stop', log: silentLogger, store: null });
    await server.start();
    const socket = connect({ host: '127.0.0.1', port: server.port });
    let text = '';
    const ended = new Promise<void>((resolve) => socket.on('end', () => resolve()));
    socket.setEncoding('utf8').on('data', (d: string) => (text += d));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    while (server.info().clients === 0) await new Promise((r) => setTimeout(r, 2));
    await server.stop();
    await ended;
    expect(text).toBe('<protocol>\n  <sc.protocol.CloseConnection/>\n</protocol>');
    expect(server.info().status).toBe('stopped');
    server = null;
    socket.destroy();
  });
});
