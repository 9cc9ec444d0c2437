import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.js';
import { formatDice, type Dice } from '../../../src/games/mia/dice.js';
import { createBot, type MiaBot, type ObservedEvent, type RoundContext } from '../../../src/games/mia/bots/index.js';
import { MiaClient } from '../../../src/games/mia/client.js';

/** A scripted Mia server: a UDP socket on 127.0.0.1 that records what arrives and says what it is told. */
class FakeServer {
  private readonly inbox: { line: string; from: RemoteInfo }[] = [];
  private readonly waiters: ((d: { line: string; from: RemoteInfo }) => void)[] = [];
  client: RemoteInfo | null = null;

  private constructor(private readonly socket: Socket) {
    socket.on('message', (msg, from) => {
      const d = { line: msg.toString('utf8'), from };
      this.client ??= from;
      const waiter = this.waiters.shift();
      if (waiter) waiter(d);
      else this.inbox.push(d);
    });
  }

  static async start(): Promise<FakeServer> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    return new FakeServer(socket);
  }

  get port(): number {
    return this.socket.address().port;
  }

  /** The next datagram from any client, failing after `ms`. */
  next(ms = 2000): Promise<{ line: string; from: RemoteInfo }> {
    const queued = this.inbox.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(new Error(`fake server: nothing received within ${ms} ms`));
      }, ms);
      const waiter = (d: { line: string; from: RemoteInfo }): void => {
        clearTimeout(timer);
        resolve(d);
      };
      this.waiters.push(waiter);
    });
  }

  async nextLine(ms?: number): Promise<string> {
    return (await this.next(ms)).line;
  }

  /** Sends datagrams, in order, to the client (the source of the first datagram received). */
  async say(...lines: (string | Buffer)[]): Promise<void> {
    const to = this.client;
    if (!to) throw new Error('fake server: no client yet');
    for (const line of lines) {
      await new Promise<void>((resolve, reject) => this.socket.send(line, to.port, to.address, (e) => (e ? reject(e) : resolve())));
    }
  }

  pending(): string[] {
    return this.inbox.map((d) => d.line);
  }

  close(): void {
    this.socket.close();
  }
}

/** Wraps a bot and records what the client tells it. */
function spy(inner: MiaBot): { bot: MiaBot; contexts: RoundContext[]; observed: ObservedEvent[]; rolls: Dice[] } {
  const contexts: RoundContext[] = [];
  const observed: ObservedEvent[] = [];
  const rolls: Dice[] = [];
  const bot: MiaBot = {
    strategy: inner.strategy,
    onTurn: (ctx) => {
      contexts.push(ctx);
      return inner.onTurn(ctx);
    },
    onRolled: (ctx, rolled) => {
      contexts.push(ctx);
      rolls.push(rolled);
      return inner.onRolled(ctx, rolled);
    },
    observe: (e) => {
      observed.push(e);
      inner.observe?.(e);
    },
  };
  return { bot, contexts, observed, rolls };
}

async function until(condition: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setUp(options: { name?: string; bot?: MiaBot; clock?: VirtualClock; heartbeatTimeoutMs?: number; lines?: string[]; registerAgain?: boolean; onUnregistered?: () => void } = {}) {
  const server = await FakeServer.start();
  cleanups.push(() => server.close());
  const logLines: string[] = [];
  const log = pino(
    { level: 'debug' },
    new Writable({
      write(chunk: Buffer, _enc, cb) {
        logLines.push(chunk.toString());
        cb();
      },
    }),
  );
  const client = new MiaClient({
    host: '127.0.0.1',
    port: server.port,
    name: options.name ?? 'alice',
    ...(options.bot ? { bot: options.bot } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.heartbeatTimeoutMs !== undefined ? { heartbeatTimeoutMs: options.heartbeatTimeoutMs } : {}),
    log,
    onMessage: (line) => options.lines?.push(line),
    ...(options.registerAgain !== undefined ? { registerAgain: options.registerAgain } : {}),
    ...(options.onUnregistered ? { onUnregistered: options.onUnregistered } : {}),
  });
  cleanups.push(() => client.stop());
  return { server, client, logLines };
}

async function registered(options: Parameters<typeof setUp>[0] = {}) {
  const env = await setUp(options);
  const started = env.client.start();
  expect(await env.server.nextLine()).toBe(`REGISTER;${options.name ?? 'alice'}`);
  await env.server.say('REGISTERED');
  await started;
  return env;
}

describe('MiaClient', () => {
  it('registers, joins, rolls and announces the truth as an honest bot, then SEEs an impossible claim', async () => {
    const honest = spy(createBot('honest', 1));
    const lines: string[] = [];
    const { server, client, logLines } = await registered({ bot: honest.bot, lines });
    expect(client.isRegistered).toBe(true);
    expect(server.client?.address).toBe('127.0.0.1');

    await server.say('HEARTBEAT', 'ROUND STARTING;t1');
    expect(await server.nextLine()).toBe('JOIN;t1');
    await server.say('ROUND STARTED;1;alice,bob', 'YOUR TURN;t2');
    expect(await server.nextLine()).toBe('ROLL;t2');
    await server.say('PLAYER ROLLS;alice', 'ROLLED;2,4;t3');
    expect(await server.nextLine()).toBe('ANNOUNCE;4,2;t3');
    await server.say('ANNOUNCED;alice;4,2', 'PLAYER WANTS TO SEE;bob', 'ACTUAL DICE;4,2', 'PLAYER LOST;bob;SEE_FAILED', 'SCORE;bob:0,alice:1');
    await server.say('ROUND STARTING;t4');
    expect(await server.nextLine()).toBe('JOIN;t4');
    expect(client.stats).toEqual({ rounds: 1, points: 1, lost: 0 });
    expect(honest.rolls.map(formatDice)).toEqual(['4,2']);
    expect(honest.contexts[0]).toEqual({ me: 'alice', round: 1, players: ['alice', 'bob'], announcements: [] });
    expect(honest.observed).toEqual([
      { type: 'roundStarted', round: 1, players: ['alice', 'bob'] },
      { type: 'announced', name: 'alice', dice: { high: 4, low: 2 } },
      { type: 'wantsToSee', name: 'bob' },
      { type: 'actualDice', dice: { high: 4, low: 2 } },
      { type: 'lost', names: ['bob'], reason: 'SEE_FAILED' },
    ]);
    expect(lines).toContain('SCORE;bob:0,alice:1');
    // every datagram in and out went through logWire at debug level
    const wire = logLines.map((l) => JSON.parse(l) as { dir?: string; data?: string }).filter((l) => l.dir !== undefined);
    expect(wire).toContainEqual(expect.objectContaining({ dir: 'out', data: 'ANNOUNCE;4,2;t3' }));
    expect(wire).toContainEqual(expect.objectContaining({ dir: 'in', data: 'ROLLED;2,4;t3' }));
    expect(wire.filter((l) => l.dir === 'out').map((l) => l.data)).toEqual(['REGISTER;alice', 'JOIN;t1', 'ROLL;t2', 'ANNOUNCE;4,2;t3', 'JOIN;t4']);
  });

  it('SEEs a 6,6 as a probabilistic bot and counts the loss', async () => {
    const probabilistic = spy(createBot('probabilistic', 1));
    const { server, client } = await registered({ bot: probabilistic.bot });
    await server.say('ROUND STARTING;a');
    expect(await server.nextLine()).toBe('JOIN;a');
    await server.say('ROUND STARTED;7;bob,carol,alice', 'PLAYER ROLLS;bob', 'ANNOUNCED;bob;3,2', 'PLAYER ROLLS;carol', 'ANNOUNCED;carol;6,6', 'YOUR TURN;b');
    expect(await server.nextLine()).toBe('SEE;b');
    expect(probabilistic.contexts[0]).toEqual({
      me: 'alice',
      round: 7,
      players: ['bob', 'carol', 'alice'],
      announcements: [
        { name: 'bob', dice: { high: 3, low: 2 } },
        { name: 'carol', dice: { high: 6, low: 6 } },
      ],
    });
    await server.say('PLAYER WANTS TO SEE;alice', 'ACTUAL DICE;6,6', 'PLAYER LOST;alice;SEE_FAILED', 'SCORE;carol:1,alice:0,bob:1');
    await server.say('ROUND STARTING;c');
    expect(await server.nextLine()).toBe('JOIN;c');
    expect(client.stats).toEqual({ rounds: 1, points: 0, lost: 1 });
  });

  it('answers the claim of a rolled Mia with Mia, and takes a bluff-worthy roll higher than the claim', async () => {
    const { server } = await registered({ bot: createBot('probabilistic', 3) });
    await server.say('ROUND STARTED;1;bob,alice', 'ANNOUNCED;bob;5,2', 'YOUR TURN;t');
    expect(await server.nextLine()).toBe('ROLL;t');
    await server.say('ROLLED;4,1;u');
    const line = await server.nextLine();
    const m = /^ANNOUNCE;(\d),(\d);u$/.exec(line);
    expect(m).not.toBeNull();
    expect(10 * Number(m?.[1]) + Number(m?.[2])).toBeGreaterThan(52);
    await server.say('ANNOUNCED;alice;5,3', 'PLAYER ROLLS;bob', 'ANNOUNCED;bob;6,1', 'YOUR TURN;v');
    expect(await server.nextLine()).toMatch(/^(ROLL|SEE);v$/);
  });

  it('resolves a host name once and binds to loopback for a loopback server', async () => {
    const server = await FakeServer.start();
    cleanups.push(() => server.close());
    const client = new MiaClient({ host: 'localhost', port: server.port, name: 'loc', bot: createBot('honest', 1) });
    cleanups.push(() => client.stop());
    const started = client.start();
    const first = await server.next();
    expect(first.line).toBe('REGISTER;loc');
    expect(first.from.address).toBe('127.0.0.1');
    await server.say('REGISTERED');
    await started;
    expect(client.localPort).toBe(first.from.port);
  });

  it('rejects start() with the reason when the server sends REJECTED', async () => {
    const { server, client } = await setUp({ bot: createBot('honest', 1), name: 'bob' });
    const started = client.start();
    expect(await server.nextLine()).toBe('REGISTER;bob');
    await server.say('REJECTED;NAME_ALREADY_TAKEN');
    await expect(started).rejects.toThrow(/rejected the registration of "bob": NAME_ALREADY_TAKEN/);
    expect(client.localPort).toBeNull();
  });

  it('refuses to start with a name the protocol cannot carry, before sending anything', async () => {
    for (const name of ['a;b', 'a,b', 'a b', 'x:y', '', 'twenty-one-characters']) {
      const { server, client } = await setUp({ name, bot: createBot('honest', 1) });
      await expect(client.start(), name).rejects.toThrow(/is no Mia name/);
      expect(client.localPort).toBeNull();
      await new Promise((r) => setTimeout(r, 20));
      expect(server.client, name).toBeNull();
    }
  });

  it('registers a spectator, which never joins nor plays', async () => {
    const lines: string[] = [];
    const { server, client } = await setUp({ name: 'watcher', lines });
    const started = client.start();
    expect(await server.nextLine()).toBe('REGISTER_SPECTATOR;watcher');
    await server.say('REGISTERED');
    await started;
    await server.say('ROUND STARTING;x', 'ROUND STARTED;1;a,b', 'YOUR TURN;y', 'ROLLED;3,1;z', 'PLAYER LOST;a;SEE_BEFORE_FIRST_ROLL', 'SCORE;a:0,b:1');
    await until(() => lines.includes('SCORE;a:0,b:1'));
    await client.stop();
    expect(await server.nextLine()).toBe('UNREGISTER');
    expect(client.stats).toEqual({ rounds: 1, points: null, lost: 0 });
  });

  it('retries REGISTER every second and gives up after 3 s without an answer', async () => {
    const clock = new VirtualClock();
    const { server, client } = await setUp({ bot: createBot('honest', 1), clock });
    const started = client.start();
    const outcome = started.then(
      () => 'resolved',
      (e: unknown) => (e as Error).message,
    );
    expect(await server.nextLine()).toBe('REGISTER;alice');
    clock.advance(999);
    clock.advance(1);
    expect(await server.nextLine()).toBe('REGISTER;alice');
    clock.advance(1000);
    expect(await server.nextLine()).toBe('REGISTER;alice');
    clock.advance(1000);
    expect(await outcome).toMatch(/no answer from the Mia server at 127\.0\.0\.1:\d+ to REGISTER;alice within 3 s/);
    expect(server.pending()).toEqual([]);
    expect(clock.pending()).toBe(0);
  });

  it('registers again after a silence of heartbeatTimeoutMs instead of giving up', async () => {
    const clock = new VirtualClock();
    const { server, client } = await registered({ bot: createBot('honest', 1), clock, heartbeatTimeoutMs: 500 });
    clock.advance(400);
    await server.say('HEARTBEAT', 'ROUND STARTING;s1');
    expect(await server.nextLine()).toBe('JOIN;s1'); // the heartbeat arrived: the watchdog starts over
    clock.advance(400);
    await server.say('ROUND STARTING;s2');
    expect(await server.nextLine()).toBe('JOIN;s2'); // 800 ms after registering: no REGISTER yet
    clock.advance(499);
    await server.say('ROUND STARTING;s3');
    expect(await server.nextLine()).toBe('JOIN;s3');
    clock.advance(500);
    expect(await server.nextLine()).toBe('REGISTER;alice');
    await server.say('REGISTERED');
    clock.advance(500);
    expect(await server.nextLine()).toBe('REGISTER;alice'); // and it keeps trying while the server is silent
    expect(client.isRegistered).toBe(true);
  });

  it('re-registers with the real clock too', async () => {
    const { server } = await registered({ bot: createBot('honest', 1), heartbeatTimeoutMs: 100 });
    const t0 = Date.now();
    expect(await server.nextLine(1000)).toBe('REGISTER;alice');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(90);
  });

  it('survives garbage, answers duplicates once, and skips unreadable announcements', async () => {
    const honest = spy(createBot('honest', 1));
    const { server, client } = await registered({ bot: honest.bot });
    await server.say('ROUND STARTED;1;alice,bob', 'SCORE;alice:3,bob:1');
    await server.say(
      '',
      'x',
      Buffer.from([0, 0xff, 0xfe, 0x01]),
      'A'.repeat(5000),
      'SCORE;::,alice:abc,:5',
      'SCORE',
      'ANNOUNCED;bob;x,y',
      'ANNOUNCED;bob;7,1',
      'ANNOUNCED;bob',
      'ROUND STARTED;abc;',
      'PLAYER LOST',
      'ACTUAL DICE;7,7',
      'ROUND CANCELED;WHATEVER',
      'REJECTED;SOMETHING',
      'ECHOING;42',
      'UNKNOWN COMMAND;1;2;3',
      'round starting;lower-case',
    );
    await server.say('ROUND STARTED;2;bob,alice', 'ROUND STARTED;2;bob,alice', 'ANNOUNCED;bob;3,2', 'ANNOUNCED;bob;3,2', 'ANNOUNCED;bob;zz');
    await server.say('YOUR TURN;d', 'YOUR TURN;d', 'ROUND STARTING;s');
    expect(await server.nextLine()).toBe('ROLL;d');
    expect(await server.nextLine()).toBe('JOIN;s');
    await server.say('ROLLED;5,5;e', 'ROLLED;5,5;e', 'ROUND STARTING;s2');
    expect(await server.nextLine()).toBe('ANNOUNCE;5,5;e');
    expect(await server.nextLine()).toBe('JOIN;s2');
    expect(server.pending()).toEqual([]);
    expect(client.stats.points).toBe(3);
    const turn = honest.contexts[0];
    expect(turn?.round).toBe(2);
    expect(turn?.announcements).toEqual([{ name: 'bob', dice: { high: 3, low: 2 } }]);
    expect(honest.observed.filter((e) => e.type === 'announced')).toHaveLength(1);
    expect(honest.observed.flatMap((e) => (e.type === 'roundStarted' ? [e.round] : []))).toEqual([1, 0, 2]);
  });

  it('announces something even when ROLLED carries unreadable dice', async () => {
    const { server } = await registered({ bot: createBot('honest', 1) });
    await server.say('ROLLED;9,9;t');
    expect(await server.nextLine()).toBe('ANNOUNCE;3,1;t');
  });

  it('keeps playing when the bot throws', async () => {
    const broken: MiaBot = {
      strategy: 'broken',
      onTurn: () => {
        throw new Error('turn');
      },
      onRolled: () => {
        throw new Error('rolled');
      },
      observe: () => {
        throw new Error('observe');
      },
    };
    const { server } = await registered({ bot: broken });
    await server.say('ROUND STARTED;1;alice,bob', 'YOUR TURN;a');
    expect(await server.nextLine()).toBe('ROLL;a');
    await server.say('ROLLED;6,2;b');
    expect(await server.nextLine()).toBe('ANNOUNCE;6,2;b');
  });

  it('told UNREGISTERED unasked, registers again and plays on (registerAgain, issue 36)', async () => {
    let gone = 0;
    const { server, client } = await registered({ bot: createBot('honest', 1), registerAgain: true, onUnregistered: () => gone++ });
    await server.say('UNREGISTERED');
    expect(await server.nextLine()).toBe('REGISTER;alice');
    await server.say('REGISTERED');
    await until(() => client.isRegistered);
    await server.say('ROUND STARTING;t1');
    expect(await server.nextLine()).toBe('JOIN;t1');
    expect(gone).toBe(0);
  });

  it('a REJECTED after such an UNREGISTERED is final: onUnregistered, nothing more sent', async () => {
    let gone = 0;
    const { server, client } = await registered({ bot: createBot('honest', 1), registerAgain: true, onUnregistered: () => gone++ });
    await server.say('UNREGISTERED');
    expect(await server.nextLine()).toBe('REGISTER;alice');
    await server.say('REJECTED;INVALID_NAME');
    await until(() => gone === 1);
    expect(client.isRegistered).toBe(false);
    await new Promise((r) => setTimeout(r, 1200));
    expect(server.pending()).toEqual([]);
  });

  it('without registerAgain an unasked UNREGISTERED is final at once', async () => {
    let gone = 0;
    const { server } = await registered({ bot: createBot('honest', 1), onUnregistered: () => gone++ });
    await server.say('UNREGISTERED');
    await until(() => gone === 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(server.pending()).toEqual([]);
  });

  it('stop() sends UNREGISTER and closes the socket', async () => {
    const { server, client } = await registered({ bot: createBot('honest', 1) });
    await client.stop();
    expect(await server.nextLine()).toBe('UNREGISTER');
    expect(client.localPort).toBeNull();
    await client.stop(); // a second stop is harmless
  });
});
