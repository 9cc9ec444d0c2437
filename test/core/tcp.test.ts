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

describe('per-host limits', () => {
  it('caps connections per IP and refuses the rest through onRefused, not onSocket', async () => {
    const accepted: string[] = [];
    const refused: string[] = [];
    const clients: Socket[] = [];
    const tcp = new TcpEndpoint({
      host: '127.0.0.1',
      port: 0,
      log: silentLogger,
      maxConnectionsPerHost: 2,
      onRefused: (socket, host) => {
        refused.push(host);
        socket.write('full\n');
      },
      onSocket: (socket) => {
        clients.push(socket);
        accepted.push(socket.remoteAddress ?? '?');
        socket.write('hello\n');
      },
    });
    await tcp.open();
    const open = (localAddress: string) =>
      new Promise<{ socket: Socket; first: string }>((resolve) => {
        const socket = connect({ host: '127.0.0.1', port: tcp.port, localAddress });
        socket.once('data', (d) => resolve({ socket, first: d.toString() }));
      });
    const attacker = [await open('127.0.0.2'), await open('127.0.0.2'), await open('127.0.0.2')];
    expect(attacker.map((a) => a.first)).toEqual(['hello\n', 'hello\n', 'full\n']);
    // Another host is not affected by the first one's cap.
    expect((await open('127.0.0.1')).first).toBe('hello\n');
    expect(refused).toEqual(['127.0.0.2']);
    // A place freed is a place to take again.
    attacker[0]!.socket.destroy();
    await new Promise((r) => setTimeout(r, 100));
    const again = await open('127.0.0.2');
    expect(again.first).toBe('hello\n');
    for (const c of [...attacker, again]) c.socket.destroy();
    await tcp.close(() => clients, { graceMs: 100 });
  });

  it('throttles what one IP sends past its byte budget, and no other host', async () => {
    let fromAttacker = 0;
    const echoes: number[] = [];
    const sockets = new Set<Socket>();
    const tcp = new TcpEndpoint({
      host: '127.0.0.1',
      port: 0,
      log: silentLogger,
      maxInputBytesPerSecondPerHost: 100_000,
      onSocket: (socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('data', (d: Buffer) => {
          if (socket.remoteAddress?.endsWith('127.0.0.2')) fromAttacker += d.length;
          else socket.write(d);
        });
      },
    });
    await tcp.open();
    const attacker = connect({ host: '127.0.0.1', port: tcp.port, localAddress: '127.0.0.2' });
    attacker.on('error', () => {});
    await new Promise((r) => attacker.once('connect', r));
    const started = Date.now();
    attacker.write(Buffer.alloc(8_000_000, 0x61));
    // Meanwhile a client on another address is answered at once.
    const good = connect({ host: '127.0.0.1', port: tcp.port, localAddress: '127.0.0.1' });
    await new Promise((r) => good.once('connect', r));
    for (let i = 0; i < 5; i++) {
      const t = Date.now();
      good.write('ping');
      await new Promise((r) => good.once('data', r));
      echoes.push(Date.now() - t);
    }
    await new Promise((r) => setTimeout(r, 1000));
    const seconds = (Date.now() - started) / 1000;
    // Burst (4 s of budget) plus what refilled, not the 8 MB sent.
    expect(fromAttacker).toBeGreaterThan(100_000);
    expect(fromAttacker).toBeLessThanOrEqual(400_000 + 100_000 * seconds + 65_536);
    expect(Math.max(...echoes)).toBeLessThan(500);
    attacker.destroy();
    good.destroy();
    await tcp.close(() => sockets, { graceMs: 0 });
  });
});
