import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import { randomBot } from '../../../src/games/ostseeschach/bots/random.js';
import { playOnServer, type ClientOutcome } from '../../../src/games/ostseeschach/client.js';
import { MAX_PENDING_PACKETS, MAX_UNMATCHED_WIRE, PACKETS_PER_TURN, SHOWN } from '../../../src/games/ostseeschach/connection.js';
import {
  createOstseeschachServer,
  type OstseeschachServer,
} from '../../../src/games/ostseeschach/server.js';
import { XmlStreamParser } from '../../../src/games/ostseeschach/xml/parser.js';
import { Harness } from './wire-harness.js';

/**
 * Issue 15: a connection that never joins and floods the server with requests (each answered by
 * an errorpacket) must not fill the record store, nor hold up a game on the same server.
 */

const servers: OstseeschachServer[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

describe('a never-joined connection that floods the lobby', () => {
  it('gets its first messages recorded and the rest counted; a game alongside finishes', async () => {
    const store = new RecordStore(':memory:');
    const rows: { conn: string; data: string; matchId: string | null }[] = [];
    const addWire = store.addWire.bind(store);
    vi.spyOn(store, 'addWire').mockImplementation((entry) => {
      rows.push(entry);
      addWire(entry);
    });
    const server = createOstseeschachServer({ port: 0, seed: 'flood', log: silentLogger, store });
    servers.push(server);
    await server.start();

    const game = Promise.all(
      ['good-1', 'good-2'].map((seed) =>
        playOnServer({ host: '127.0.0.1', port: server.port, join: { kind: 'join' }, bot: randomBot, seed }),
      ),
    );
    const flood = 5000;
    const socket = connect({ host: '127.0.0.1', port: server.port, localAddress: '127.0.0.2' });
    sockets.push(socket);
    let received = '';
    socket.setEncoding('utf8').on('data', (d: string) => (received += d));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined);
    socket.write('<protocol>' + '<observe roomId="nope"/>'.repeat(flood) + '<sc.protocol.CloseConnection/>');
    await closed;
    expect(received.split('<errorpacket ').length - 1).toBe(flood);
    expect(received.endsWith('\n</protocol>')).toBe(true);

    const [one, two] = (await game) as [ClientOutcome, ClientOutcome];
    expect(one.result?.scores.map((s) => s.cause)).toEqual(['REGULAR', 'REGULAR']);
    expect(one.roomId).toBe(two.roomId);

    const attacker = rows.filter((r) => r.conn.startsWith('127.0.0.2:'));
    expect(attacker.every((r) => r.matchId === null)).toBe(true);
    // 5000 requests and their errors, the CloseConnection and the end of the stream.
    const total = 2 * flood + 2;
    expect(attacker).toHaveLength(MAX_UNMATCHED_WIRE + 1);
    expect(attacker.at(-1)!.data).toBe(
      `<!-- ${total - MAX_UNMATCHED_WIRE} more messages of this connection outside a game, in and out, not recorded -->`,
    );
    // The game's players are recorded in full, in their match.
    const good = rows.filter((r) => r.conn.startsWith('127.0.0.1:') && r.matchId !== null);
    expect(good.length).toBeGreaterThan(60);
    await store.drain();
    store.close();
  }, 30_000);
});

describe('a host hammering its connection cap', () => {
  it('has its refused sockets closed at once, so they never crowd out other hosts (maxConnections)', async () => {
    const server = createOstseeschachServer({
      port: 0,
      seed: 'cap',
      log: silentLogger,
      store: null,
      maxConnections: 10,
      maxConnectionsPerHost: 3,
    });
    servers.push(server);
    await server.start();
    const open = (): Promise<{ socket: Socket; closed: Promise<void> }> =>
      new Promise((resolve) => {
        const socket = connect({ host: '127.0.0.1', port: server.port, localAddress: '127.0.0.2', allowHalfOpen: true });
        sockets.push(socket);
        socket.on('error', () => undefined);
        const closed = new Promise<void>((r) => socket.once('close', () => r()));
        // A socket the server dropped at once may close before it ever reports `connect`.
        socket.once('connect', () => resolve({ socket, closed }));
        void closed.then(() => resolve({ socket, closed }));
      });
    // Three held connections, then fifteen over the cap that keep sending and never close.
    for (let i = 0; i < 3; i++) (await open()).socket.write('<protocol>');
    await new Promise((r) => setTimeout(r, 50));
    const refused = await Promise.all(Array.from({ length: 15 }, () => open()));
    for (const r of refused) r.socket.write(Buffer.alloc(256 * 1024, 0x20));
    await new Promise((r) => setTimeout(r, 200));
    // Well within the 2 s a refused socket used to linger: other hosts connect and play.
    const [one, two] = (await Promise.all(
      ['good-1', 'good-2'].map((seed) =>
        playOnServer({ host: '127.0.0.1', port: server.port, join: { kind: 'join' }, bot: randomBot, seed }),
      ),
    )) as [ClientOutcome, ClientOutcome];
    expect(one.roomId).toBe(two.roomId);
    expect(one.result?.scores.map((s) => s.cause)).toEqual(['REGULAR', 'REGULAR']);
  }, 20_000);
});

describe('one connection\'s run of packets never holds up the others', () => {
  it(`handles ${PACKETS_PER_TURN} packets per turn of the event loop, and a client's end after them`, () => {
    const h = new Harness();
    const later: (() => void)[] = [];
    let out = '';
    let ended = false;
    const c = h.server.attach({ write: (d) => (out += d), end: () => (ended = true) }, 'flood:1', '127.0.0.2', (rest) =>
      later.push(rest),
    );
    const errors = (): number => out.split('<errorpacket ').length - 1;
    c.receive('<protocol>' + '<observe roomId="nope"/>'.repeat(5000));
    expect(errors()).toBe(PACKETS_PER_TURN - 1);
    // Meanwhile another client plays at once.
    const other = h.connect('other').send('<protocol><join/>');
    expect(other.received).toContain('<joined');
    c.remoteClosed(true);
    expect(ended).toBe(false);
    let turns = 0;
    while (later.length > 0) {
      later.shift()!();
      turns++;
    }
    expect(errors()).toBe(5000);
    expect(turns).toBe(Math.ceil(5001 / PACKETS_PER_TURN) - 1);
    // What the client sent before its end was handled; then the end, without a byte more.
    expect(ended).toBe(true);
    expect(out.endsWith('</errorpacket>')).toBe(true);
  });

  it('drops the rest when the socket is gone, and a client too far ahead of the server', () => {
    const h = new Harness();
    const later: (() => void)[] = [];
    let out = '';
    const attach = (name: string) =>
      h.server.attach({ write: (d) => (out += d), end: () => undefined }, name, '127.0.0.2', (rest) => later.push(rest));
    const gone = attach('gone:1');
    gone.receive('<protocol>' + '<observe roomId="nope"/>'.repeat(1000));
    gone.remoteClosed();
    while (later.length > 0) later.shift()!();
    expect(out.split('<errorpacket ').length - 1).toBe(PACKETS_PER_TURN - 1);
    expect(gone.open).toBe(false);

    out = '';
    const ahead = attach('ahead:1');
    ahead.receive('<protocol>' + '<observe roomId="nope"/>'.repeat(MAX_PENDING_PACKETS));
    expect(ahead.open).toBe(false);
    expect(out).toBe('');
    expect(later).toHaveLength(0);
  });
});

describe('garbage is refused before it is parsed', () => {
  it('records only the start of unreadable input', () => {
    const rows: { data: string }[] = [];
    const store = { addWire: (row: { data: string }) => rows.push(row) } as unknown as RecordStore;
    const h = new Harness({ store });
    const c = h.connect('garbage', '127.0.0.2');
    c.connection.receive(Buffer.concat([Buffer.from('<protocol>\u0001'), Buffer.alloc(64 * 1024, 0xc3)]));
    expect(c.ended).toBe(true);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.data).toHaveLength(SHOWN + 1);
    expect(rows[0]!.data.startsWith('<protocol>\u0001')).toBe(true);
    expect(rows[0]!.data.endsWith('…')).toBe(true);
  });

  it('a character XML never allows ends the stream; what came before it in the same chunk counts', () => {
    const parser = new XmlStreamParser();
    const events = parser.write('<protocol><join/>\u0001' + 'x'.repeat(100_000));
    expect(events.map((e) => e.type)).toEqual(['open', 'packet', 'error']);
    expect(events[2]).toMatchObject({ code: 'malformed', message: 'character U+0001 is not allowed in XML' });
    expect(parser.finished).toBe(true);
  });
});
