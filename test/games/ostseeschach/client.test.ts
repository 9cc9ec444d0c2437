import { connect, createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/log.js';
import type { Move } from '../../../src/games/ostseeschach/board.js';
import { randomBot } from '../../../src/games/ostseeschach/bots/random.js';
import type { Bot } from '../../../src/games/ostseeschach/bots/types.js';
import {
  DEFAULT_BUDGET_MS,
  OstseeschachClient,
  playOnServer,
} from '../../../src/games/ostseeschach/client.js';
import { parseClient } from '../../../src/games/ostseeschach/protocol.js';
import { createOstseeschachServer, type OstseeschachServer } from '../../../src/games/ostseeschach/server.js';
import { parsePackets } from '../../../src/games/ostseeschach/xml/parser.js';
import { wire } from './wire-harness.js';

/** The moves a recorded client sent, in order. */
function recordedMoves(file: string): Move[] {
  return parsePackets(wire(file)).packets.flatMap((e) => {
    const p = parseClient(e);
    if (!p.ok || p.value.type !== 'room' || p.value.data?.class !== 'move') return [];
    const { from, to } = p.value.data.move;
    return from === null ? [] : [{ from, to }];
  });
}

/**
 * A stand-in for the official server: it plays back a recorded server stream, one moveRequest at
 * a time, each as soon as the client answered the one before, and ends the stream when the
 * client says goodbye.
 */
async function replayServer(
  recording: string,
): Promise<{ server: Server; port: number; received: Promise<string> }> {
  const marker = '<data class="moveRequest"/>\n  </room>';
  const segments: string[] = [];
  let at = 0;
  for (let i = recording.indexOf(marker); i >= 0; i = recording.indexOf(marker, at)) {
    segments.push(recording.slice(at, i + marker.length));
    at = i + marker.length;
  }
  segments.push(recording.slice(at));
  let resolveReceived!: (text: string) => void;
  const received = new Promise<string>((resolve) => (resolveReceived = resolve));
  const server = createServer((socket) => {
    let text = '';
    let sent = 0;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      const answers = text.split('</room>').length - 1 + (text.includes('<join/>') ? 1 : 0);
      while (sent < answers && sent < segments.length) socket.write(segments[sent++]!);
      if (text.includes('<sc.protocol.CloseConnection/>')) {
        socket.end('\n</protocol>');
        resolveReceived(text);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : 0, received };
}

describe('against a recording of the official server', () => {
  for (const side of ['p1', 'p2'] as const) {
    it(`sends byte for byte what the recorded ${side} client sent, and reads every memento`, async () => {
      const { server, port, received } = await replayServer(wire(`fullgame-${side}.server-to-client.xml`));
      const moves = recordedMoves(`fullgame-${side}.client-to-server.txt`);
      const opponent = recordedMoves(`fullgame-${side === 'p1' ? 'p2' : 'p1'}.client-to-server.txt`);
      const seen: { turn: number; last: Move | null; budget: number; pieces: number }[] = [];
      const bot: Bot = (state, budget) => {
        seen.push({ turn: state.turn, last: state.lastMove, budget, pieces: state.pieces.length });
        return moves[seen.length - 1]!;
      };
      try {
        const outcome = await playOnServer({ host: '127.0.0.1', port, join: { kind: 'join' }, bot });
        expect(await received).toBe(
          wire(`fullgame-${side}.client-to-server.txt`) + '<sc.protocol.CloseConnection/>',
        );
        expect(outcome).toMatchObject({
          roomId: '47860e3e-4f3f-49e7-8196-202962b40ad6',
          team: side === 'p1' ? 'ONE' : 'TWO',
          moves: 30,
          end: 'closed',
          errors: [],
        });
        expect(outcome.points).toBe(side === 'p1' ? 0 : 2);
        expect(outcome.result?.winner).toBe('TWO');
        expect(outcome.result?.scores.map((s) => s.parts)).toEqual([
          [0, 0, 5],
          [2, 1, 5],
        ]);
        // Each request came with the state after the opponent's last move.
        seen.forEach((s, i) => {
          expect(s.turn).toBe(side === 'p1' ? 2 * i : 2 * i + 1);
          expect(s.last).toEqual(side === 'p1' ? (i === 0 ? null : opponent[i - 1]) : opponent[i]);
          expect(s.budget).toBe(DEFAULT_BUDGET_MS);
        });
      } finally {
        server.close();
      }
    });
  }
});

describe('against our server', () => {
  let server: OstseeschachServer | null = null;
  afterEach(async () => {
    await server?.stop();
    server = null;
  });

  const start = async (): Promise<number> => {
    server = createOstseeschachServer({ port: 0, seed: 'client-test', log: silentLogger, store: null });
    await server.start();
    return server.port;
  };

  /** An administrator over TCP prepares Alice and Bob and hands out their codes. */
  async function prepare(port: number, canTimeout: boolean): Promise<string[]> {
    const admin = connect({ host: '127.0.0.1', port });
    let text = '';
    admin.setEncoding('utf8').on('data', (d: string) => (text += d));
    admin.write(
      '<protocol><authenticate password="examplepassword"/><prepare gameType="swc_2022_ostseeschach" pause="false">' +
        `<slot displayName="Alice" canTimeout="${canTimeout}" reserved="true"/><slot displayName="Bob" canTimeout="${canTimeout}" reserved="true"/></prepare>`,
    );
    const deadline = Date.now() + 5000;
    while (!text.includes('</prepared>')) {
      if (Date.now() > deadline) throw new Error('no prepared');
      await new Promise((r) => setTimeout(r, 2));
    }
    admin.end();
    return [...text.matchAll(/<reservation>([^<]+)<\/reservation>/g)].map((m) => m[1]!);
  }

  it('joinPrepared: two clients play a timed game without a timeout', async () => {
    const port = await start();
    const [alice, bob] = await prepare(port, true);
    const [a, b] = await Promise.all([
      playOnServer({
        host: '127.0.0.1',
        port,
        join: { kind: 'prepared', reservationCode: alice! },
        bot: randomBot,
        seed: 'a',
      }),
      playOnServer({
        host: '127.0.0.1',
        port,
        join: { kind: 'prepared', reservationCode: bob! },
        bot: randomBot,
        seed: 'b',
      }),
    ]);
    expect([a.team, b.team]).toEqual(['ONE', 'TWO']);
    expect(a.result?.scores.map((s) => [s.name, s.cause])).toEqual([
      ['Alice', 'REGULAR'],
      ['Bob', 'REGULAR'],
    ]);
    expect(a.moves + b.moves).toBeGreaterThan(0);
    expect(a.end).toBe('closed');
  });

  it('joinRoom: the second client joins the first one’s room by id', async () => {
    const port = await start();
    const first = new OstseeschachClient({ host: '127.0.0.1', port, join: { kind: 'join' }, bot: randomBot });
    await first.start();
    while (server!.snapshot().rooms.length === 0) await new Promise((r) => setTimeout(r, 2));
    const roomId = server!.snapshot().rooms[0]!.roomId;
    const second = await playOnServer({
      host: '127.0.0.1',
      port,
      join: { kind: 'room', roomId },
      bot: randomBot,
    });
    const a = await first.finished;
    expect(second.roomId).toBe(roomId);
    expect(a.roomId).toBe(roomId);
    expect(second.result).toEqual(a.result);
  });

  it('reports a refused join and ends cleanly', async () => {
    const port = await start();
    const outcome = await playOnServer({
      host: '127.0.0.1',
      port,
      join: { kind: 'prepared', reservationCode: 'bogus' },
      bot: randomBot,
    });
    expect(outcome).toMatchObject({ roomId: null, result: null, moves: 0, end: 'closed' });
    expect(outcome.errors).toEqual([
      "sc.server.gaming.UnknownReservationException: Couldn't find a reservation for the provided token.",
    ]);
  });

  it('can stay connected after a game and stop later', async () => {
    const port = await start();
    const stays = new OstseeschachClient({
      host: '127.0.0.1',
      port,
      join: { kind: 'join' },
      bot: randomBot,
      leaveAfterGame: false,
    });
    await stays.start();
    while (server!.snapshot().rooms.length === 0) await new Promise((r) => setTimeout(r, 2));
    const other = await playOnServer({ host: '127.0.0.1', port, join: { kind: 'join' }, bot: randomBot });
    expect(other.result).not.toBe(null);
    await new Promise((r) => setTimeout(r, 20));
    expect(server!.info().clients).toBe(1);
    stays.stop();
    const outcome = await stays.finished;
    expect(outcome.result).toEqual(other.result);
    expect(outcome.end).toBe('stopped');
  });

  it('plays a legal move when the bot throws', async () => {
    const port = await start();
    const broken: Bot = () => {
      throw new Error('bot bug');
    };
    const first = playOnServer({ host: '127.0.0.1', port, join: { kind: 'join' }, bot: broken });
    while (server!.snapshot().rooms.length === 0) await new Promise((r) => setTimeout(r, 2));
    const second = await playOnServer({ host: '127.0.0.1', port, join: { kind: 'join' }, bot: randomBot });
    const a = await first;
    expect(a.errors).toEqual([]);
    expect(a.result?.scores.every((s) => s.cause === 'REGULAR')).toBe(true);
    expect(second.result).toEqual(a.result);
  });

  it('fails to start when nothing listens', async () => {
    const port = await start();
    await server!.stop();
    server = null;
    await expect(
      new OstseeschachClient({ host: '127.0.0.1', port, join: { kind: 'join' }, bot: randomBot }).start(),
    ).rejects.toThrow();
  });
});
