import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { TcpEndpoint } from '../../src/core/tcp.js';

function endpoint(port: number, sockets: Set<Socket>): TcpEndpoint {
  return new TcpEndpoint({
    host: '127.0.0.1',
    port,
    log: silentLogger,
    onSocket: (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    },
  });
}

describe('TcpEndpoint', () => {
  it('binds a free port, reports a bind error as failed, and stops', async () => {
    const sockets = new Set<Socket>();
    const first = endpoint(0, sockets);
    expect(first.status).toBe('stopped');
    expect(await first.open()).toBe(true);
    expect(first.status).toBe('running');
    expect(first.port).toBeGreaterThan(0);
    expect(await first.open()).toBe(false);

    const second = endpoint(first.port, new Set());
    await expect(second.open()).rejects.toThrow(/EADDRINUSE/);
    expect(second.status).toBe('failed');
    expect(second.error).toMatch(/EADDRINUSE/);
    await second.close(() => [], { graceMs: 0 });
    expect(second.status).toBe('failed');

    // A client still connected is half-closed, then destroyed after the grace period.
    const client = connect(first.port, '127.0.0.1');
    const ended = new Promise<void>((resolve) => client.on('end', () => resolve()));
    client.on('error', () => undefined);
    await new Promise<void>((resolve) => client.on('connect', () => resolve()));
    await expect.poll(() => sockets.size).toBe(1);
    await first.close(() => sockets, { graceMs: 50, end: true });
    await ended;
    expect(first.status).toBe('stopped');
    await expect.poll(() => sockets.size).toBe(0);
    client.destroy();
  });
});
