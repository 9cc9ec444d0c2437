import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WebSocket } from 'ws';
import { silentLogger } from '../../src/core/log.js';
import { spectate, UNKNOWN_GAME_CLOSE_CODE } from '../../src/web/spectate.js';
import { FakeGameServer } from './fixtures.js';

/** Just enough of a ws socket: records what is sent, can be made slow or broken. */
class FakeSocket extends EventEmitter {
  readyState = 1;
  bufferedAmount = 0;
  failSends = false;
  readonly sent: { type: string; data?: unknown; event?: { type: string; data: unknown } }[] = [];
  closedWith: number | null = null;

  send(data: string): void {
    if (this.failSends) throw new Error('socket broke');
    this.sent.push(JSON.parse(data) as FakeSocket['sent'][number]);
  }

  close(code?: number): void {
    this.closedWith = code ?? 1000;
    this.readyState = 3;
  }

  asWs(): WebSocket {
    return this as unknown as WebSocket;
  }

  types(): string[] {
    return this.sent.map((m) =>
      m.type === 'event' ? `event:${String((m.event?.data as { n: number }).n)}` : 'snapshot',
    );
  }
}

describe('spectate', () => {
  let server: FakeGameServer;
  let socket: FakeSocket;

  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
    server = new FakeGameServer('mia', { n: 0 });
    socket = new FakeSocket();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  const publish = (n: number) => {
    (server.state as { n: number }).n = n;
    server.publish('tick', { n });
  };

  it('closes with 4404 and subscribes nothing when the game is unknown', () => {
    spectate(socket.asWs(), undefined, 'nope', silentLogger);
    expect(socket.closedWith).toBe(UNKNOWN_GAME_CLOSE_CODE);
    expect(socket.sent).toEqual([]);
  });

  it('sends at most one snapshot per window, on the trailing edge, with the latest state', () => {
    spectate(socket.asWs(), server, 'mia', silentLogger, { throttleMs: 100 });
    expect(socket.types()).toEqual(['snapshot']);
    // The first snapshot went out at t=0: an event at t=10 waits for t=100.
    vi.advanceTimersByTime(10);
    publish(1);
    vi.advanceTimersByTime(50);
    publish(2);
    expect(socket.types()).toEqual(['snapshot', 'event:1', 'event:2']);
    vi.advanceTimersByTime(40);
    expect(socket.types()).toEqual(['snapshot', 'event:1', 'event:2', 'snapshot']);
    expect(socket.sent.at(-1)?.data).toEqual({ n: 2 });
    // No events, no snapshots.
    vi.advanceTimersByTime(1000);
    expect(socket.sent).toHaveLength(4);
    // After a quiet spell the next event is followed by a snapshot right away (same tick batch).
    publish(3);
    publish(4);
    vi.advanceTimersByTime(0);
    expect(socket.types().slice(4)).toEqual(['event:3', 'event:4', 'snapshot']);
    expect(socket.sent.at(-1)?.data).toEqual({ n: 4 });
  });

  it('drops messages while the send buffer is full and catches up with a snapshot', () => {
    spectate(socket.asWs(), server, 'mia', silentLogger, { throttleMs: 100, maxBufferedBytes: 1000 });
    socket.bufferedAmount = 5000;
    for (let n = 1; n <= 50; n++) publish(n);
    vi.advanceTimersByTime(500);
    expect(socket.types()).toEqual(['snapshot']);
    socket.bufferedAmount = 0;
    publish(51);
    vi.advanceTimersByTime(100);
    expect(socket.types()).toEqual(['snapshot', 'event:51', 'snapshot']);
    expect(socket.sent.at(-1)?.data).toEqual({ n: 51 });
  });

  it('never throws into the publisher when a send fails', () => {
    spectate(socket.asWs(), server, 'mia', silentLogger);
    socket.failSends = true;
    for (let n = 1; n <= 5; n++) publish(n);
    vi.advanceTimersByTime(500);
    expect(server.listenerErrors).toEqual([]);
    expect(server.hub.size).toBe(1);
    socket.failSends = false;
    publish(6);
    expect(socket.types()).toEqual(['snapshot', 'event:6']);
  });

  it('survives a snapshot that throws and keeps forwarding events', () => {
    server.snapshotError = new Error('boom');
    spectate(socket.asWs(), server, 'mia', silentLogger);
    expect(socket.sent).toEqual([]);
    publish(1);
    vi.advanceTimersByTime(200);
    expect(socket.types()).toEqual(['event:1']);
    expect(server.listenerErrors).toEqual([]);
  });

  it('unsubscribes and cancels the pending snapshot on close or error', () => {
    spectate(socket.asWs(), server, 'mia', silentLogger);
    publish(1);
    expect(server.hub.size).toBe(1);
    socket.emit('close', 1001, Buffer.from(''));
    expect(server.hub.size).toBe(0);
    vi.advanceTimersByTime(500);
    expect(socket.types()).toEqual(['snapshot', 'event:1']);

    const other = new FakeSocket();
    spectate(other.asWs(), server, 'mia', silentLogger);
    expect(server.hub.size).toBe(1);
    other.emit('error', new Error('reset'));
    expect(server.hub.size).toBe(0);
  });

  it('sends nothing to a socket that is no longer open', () => {
    spectate(socket.asWs(), server, 'mia', silentLogger);
    socket.readyState = 2;
    publish(1);
    vi.advanceTimersByTime(200);
    expect(socket.types()).toEqual(['snapshot']);
  });
});
