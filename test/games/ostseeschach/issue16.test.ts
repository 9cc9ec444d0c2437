import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/log.js';
import {
  createOstseeschachServer,
  type OstseeschachServer,
} from '../../../src/games/ostseeschach/server.js';
import { kinds, resultOf } from './wire-harness.js';

/**
 * Issue 16: wire transcripts on a real socket (127.0.0.1) of what the official server does and we
 * did differently: a client's own end of the stream, text before `<protocol>`, a move without
 * `<from>`. Every byte a client receives is compared, and the end of the stream is the socket's.
 */

const servers: OstseeschachServer[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function server(): Promise<OstseeschachServer> {
  let rooms = 0;
  const s = createOstseeschachServer({
    port: 0,
    seed: 'issue16',
    log: silentLogger,
    store: null,
    roomIds: () => `room-${++rooms}`,
    lingerMs: 5000,
  });
  servers.push(s);
  await s.start();
  return s;
}

/** A raw client: what it got so far, what arrived since the last `take`, and the end of its stream. */
class WireClient {
  text = '';
  private read = 0;
  ended = false;
  readonly socket: Socket;
  readonly end: Promise<void>;

  constructor(port: number) {
    this.socket = connect({ host: '127.0.0.1', port });
    sockets.push(this.socket);
    this.socket.setEncoding('utf8').on('data', (d: string) => (this.text += d));
    this.socket.on('error', () => undefined);
    this.end = new Promise((resolve) =>
      this.socket.once('end', () => {
        this.ended = true;
        resolve();
      }),
    );
  }

  send(text: string): this {
    this.socket.write(text);
    return this;
  }

  async waitFor(what: string, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.text.includes(what, this.read)) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} in ${JSON.stringify(this.text)}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  /** Resolves once the server ended the stream; fails after `timeoutMs`. */
  async ends(timeoutMs = 3000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.end,
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('the server did not end the stream')), timeoutMs))),
    ]).finally(() => clearTimeout(timer));
  }

  take(): string {
    const out = this.text.slice(this.read);
    this.read = this.text.length;
    return out;
  }
}

const JOINED = (room: string): string => `<protocol>\n  <joined roomId="${room}"/>`;
const MOVE_REQUEST = (room: string): string =>
  `\n  <room roomId="${room}">\n    <data class="moveRequest"/>\n  </room>`;
const LEFT = (room: string): string => `\n  <left roomId="${room}"/>`;

/** Two clients join room-1; ONE has its first moveRequest, and both have been read up to here. */
async function started(port: number): Promise<[WireClient, WireClient]> {
  const one = new WireClient(port).send('<protocol><join gameType="swc_2022_ostseeschach"/>');
  await one.waitFor('<joined');
  const two = new WireClient(port).send('<protocol><join gameType="swc_2022_ostseeschach"/>');
  await one.waitFor(MOVE_REQUEST('room-1'));
  await two.waitFor('<data class="memento">');
  one.take();
  two.take();
  return [one, two];
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('issue 16 #1: a client that ends its own stream gets nothing more, then the end', () => {
  const endings: [string, (c: WireClient) => void][] = [
    ['</protocol>', (c) => c.send('</protocol>')],
    ['a half-close (FIN)', (c) => c.socket.end()],
  ];

  for (const [how, finish] of endings) {
    it(`${how} before any packet`, async () => {
      const s = await server();
      const c = new WireClient(s.port).send('<protocol>');
      await pause(50);
      finish(c);
      await c.ends();
      expect(c.text).toBe('');
    });

    it(`${how} after joined`, async () => {
      const s = await server();
      const c = new WireClient(s.port).send('<protocol><join/>');
      await c.waitFor('<joined');
      finish(c);
      await c.ends();
      expect(c.text).toBe(JOINED('room-1'));
      // The room it waited in is gone: the next join opens a new one.
      const d = new WireClient(s.port).send('<protocol><join/>');
      await d.waitFor('<joined');
      expect(d.take()).toBe(JOINED('room-2'));
    });

    it(`${how} mid-game: no more bytes to the leaver, LOST_CONNECTION for the opponent`, async () => {
      const s = await server();
      const [one, two] = await started(s.port);
      finish(one);
      await one.ends();
      expect(one.take()).toBe('');
      await two.waitFor(LEFT('room-1'));
      expect(kinds(two.text).slice(-2)).toEqual(['result', 'left']);
      expect(resultOf(two.text).scores.map((x) => [x.cause, x.reason])).toEqual([
        ['LEFT', 'Der Spieler hat das Spiel verlassen: LOST_CONNECTION'],
        ['REGULAR', ''],
      ]);
      expect(two.ended).toBe(false);
    });
  }

  it('a half-close after <left>', async () => {
    const s = await server();
    const [one, two] = await started(s.port);
    two.send('<sc.protocol.CloseConnection/>');
    await one.waitFor(LEFT('room-1'));
    one.take();
    one.socket.end();
    await one.ends();
    expect(one.take()).toBe('');
  });

  it('a CloseConnection is still answered with the end of the stream', async () => {
    const s = await server();
    const c = new WireClient(s.port).send('<protocol><join/>');
    await c.waitFor('<joined');
    c.send('<sc.protocol.CloseConnection/>');
    await c.ends();
    expect(c.text).toBe(JOINED('room-1') + '\n</protocol>');
  });
});

describe('issue 16 #2: text before <protocol> is ignored', () => {
  it('hello, then <protocol><join/>: the client joins and plays', async () => {
    const s = await server();
    const one = new WireClient(s.port).send('hello\n<protocol><join/>');
    await one.waitFor('<joined');
    expect(one.take()).toBe(JOINED('room-1'));
    const two = new WireClient(s.port).send('garbage & more ]]> garbage');
    await pause(20);
    two.send(' <protocol><join/>');
    await one.waitFor(MOVE_REQUEST('room-1'));
    expect(kinds(one.text)).toEqual(['joined', 'welcomeMessage', 'memento', 'moveRequest']);
    expect(kinds(two.text)).toEqual(['joined', 'welcomeMessage', 'memento']);
  });

  it('still counts against the packet limit: 70000 characters of it drop the client without a byte', async () => {
    const s = await server();
    const c = new WireClient(s.port).send('x'.repeat(70_000));
    await c.ends();
    expect(c.text).toBe('');
  });
});

describe('issue 16 #3: a move without <from> is an invalid move', () => {
  it('the error as for any invalid move, RULE_VIOLATION, and the offender stays', async () => {
    const s = await server();
    const [one, two] = await started(s.port);
    one.send('<room roomId="room-1"><data class="move"><to x="1" y="2"/></data></room>');
    await one.waitFor(LEFT('room-1'));
    const text = one.take();
    expect(text.startsWith(
      '\n  <room roomId="room-1">\n' +
        '    <data class="error" message="Ungueltiger Zug von &apos;&apos;.&#xa;InvalidMoveException(mistake=Nur eigene Spielfiguren können gezogen werden, move=Zug von null zu [1|2])">\n' +
        '      <originalMessage class="move">\n' +
        '        <to x="1" y="2"/>\n' +
        '      </originalMessage>\n' +
        '    </data>\n' +
        '  </room>\n' +
        '  <room roomId="room-1">\n' +
        '    <data class="result">',
    )).toBe(true);
    expect(text.endsWith('</room>' + LEFT('room-1'))).toBe(true);
    await two.waitFor(LEFT('room-1'));
    expect(resultOf(two.text).scores.map((x) => [x.cause, x.reason, x.parts[0]])).toEqual([
      ['RULE_VIOLATION', "Nur eigene Spielfiguren können gezogen werden bei Zug 'Zug von null zu [1|2]'", 0],
      ['REGULAR', '', 2],
    ]);
    expect(resultOf(two.text).winner).toBe('TWO');
    await pause(100);
    expect(one.ended).toBe(false);
    expect(one.take()).toBe('');
  });

  it('a move without <to> is still a protocol error: the stream just ends', async () => {
    const s = await server();
    const [one, two] = await started(s.port);
    one.send('<room roomId="room-1"><data class="move"><from x="0" y="1"/></data></room>');
    await one.ends();
    expect(one.take()).toBe('');
    await two.waitFor(LEFT('room-1'));
    expect(resultOf(two.text).scores[0]).toMatchObject({
      cause: 'LEFT',
      reason: 'Der Spieler hat das Spiel verlassen: PROTOCOL_ERROR',
    });
  });
});
