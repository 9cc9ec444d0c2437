import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { RecordStore } from '../../../src/core/records.js';
import { CatanClient, randomBot as catanRandomBot } from '../../../src/games/catan/client.js';
import { createCatanServer } from '../../../src/games/catan/server.js';
import { Connect4Hub } from '../../../src/games/connect4/hub.js';
import { chooseMove } from '../../../src/games/connect4/bots/index.js';
import { HouseAdmission } from '../../../src/games/connect4/house.js';
import { AutoPlayer } from '../../../src/games/connect4/peer.js';
import { startUdpPeer } from '../../../src/games/connect4/transport.js';
import { Rng } from '../../../src/core/rng.js';
import { randomBot as dameRandomBot } from '../../../src/games/dame/bots/random.js';
import { DameClient } from '../../../src/games/dame/client.js';
import { botPlayer } from '../../../src/games/dame/players.js';
import { createDameServer } from '../../../src/games/dame/server.js';
import { MIA_DEFAULTS, MiaServer } from '../../../src/games/mia/server.js';
import { randomBot as osRandomBot } from '../../../src/games/ostseeschach/bots/index.js';
import { playOnServer } from '../../../src/games/ostseeschach/client.js';
import { createOstseeschachServer } from '../../../src/games/ostseeschach/server.js';
import { HOUSE_TIMING, InProcessEngine } from '../../games/connect4/house-support.js';
import { MessageSource } from './campaign.js';
import { CODECS } from './codecs.js';
import { chunks, type FastRng } from './mutate.js';

/**
 * The per-server half of the fuzz campaign: a running server of each game (in-process, small
 * limits, an in-memory record store), an attacker on 127.0.0.2 that feeds it generated and
 * mutated messages over real loopback sockets, and a good client on 127.0.0.1 that must still
 * complete a game (for Mia: a round) afterwards. What escapes every boundary is caught by process
 * listeners; what a boundary caught is in the error-level log, which must stay empty too.
 */

export const ATTACKER = '127.0.0.2';

export interface RunningServer {
  readonly port: number;
  status(): string;
  /** Connections or registered clients the server holds. */
  clients(): number;
  /** A good client on 127.0.0.1 completes a game (Mia: a round). */
  goodGame(): Promise<void>;
  stop(): Promise<void>;
}

export interface ServerTarget {
  readonly name: string;
  readonly transport: 'tcp' | 'udp';
  /** The codec whose messages the attacker sends. */
  readonly codec: string;
  start(log: Logger): Promise<RunningServer>;
  /** TCP: the bytes of one attacker connection, from its messages. */
  session?(messages: Buffer[], rng: FastRng): Buffer;
}

/** A pino logger that keeps error-level (and worse) lines in memory. */
export function errorLog(): { log: Logger; errors: string[] } {
  const errors: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      if (errors.length < 100) errors.push(chunk.toString('utf8').slice(0, 2000));
      done();
    },
  });
  return { log: pino({ level: 'error' }, stream), errors };
}

/** Records what escapes every error boundary while installed. */
export function escapes(): { list: unknown[]; remove: () => void } {
  const list: unknown[] = [];
  const on = (err: unknown): void => {
    list.push(err);
  };
  process.on('uncaughtException', on);
  process.on('unhandledRejection', on);
  return {
    list,
    remove: () => {
      process.off('uncaughtException', on);
      process.off('unhandledRejection', on);
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms)),
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

// ---- the servers ----------------------------------------------------------------------------------

/** A started game server with its in-memory store, as the campaign drives it. */
function served(
  server: { readonly port: number; info(): { status: string; clients: number }; stop(): Promise<void> },
  store: RecordStore,
  goodGame: () => Promise<void>,
): RunningServer {
  return {
    port: server.port,
    status: () => server.info().status,
    clients: () => server.info().clients,
    goodGame,
    stop: async () => {
      await server.stop();
      store.close();
    },
  };
}

const lines = (messages: Buffer[], rng: FastRng, sep = '\n'): Buffer[] =>
  messages.map((m) =>
    rng.chance(0.9) ? Buffer.concat([m, Buffer.from(rng.chance(0.9) ? sep : '\r\n')]) : m,
  );

const mia: ServerTarget = {
  name: 'mia',
  transport: 'udp',
  codec: 'mia',
  async start(log) {
    const store = new RecordStore(':memory:');
    const server = new MiaServer({
      ...MIA_DEFAULTS,
      host: '127.0.0.1',
      port: 0,
      answerTimeoutMs: 60,
      heartbeatMs: 500,
      waitRecheckMs: 50,
      startEarly: true,
      maxClients: 50,
      floodPerSecond: 1_000_000,
      seed: 'fuzz',
      log,
      store,
    });
    await server.start();
    return served(server, store, () => miaRound(server.port));
  },
};

/** Two honest players on 127.0.0.1 until a round with both of them is scored. */
async function miaRound(port: number): Promise<void> {
  const sockets: UdpSocket[] = [];
  const tag = Math.random().toString(36).slice(2, 8);
  const names = [`good1${tag}`, `good2${tag}`];
  let inRound = false;
  const seen: string[] = [];
  const retries: NodeJS.Timeout[] = [];
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (done = resolve));
  for (const name of names) {
    const s = createSocket('udp4');
    sockets.push(s);
    await new Promise<void>((resolve) => s.bind(0, '127.0.0.1', resolve));
    const send = (line: string) => s.send(line, port, '127.0.0.1');
    s.on('message', (msg) => {
      const line = msg.toString('utf8');
      seen.push(`${name} < ${line.slice(0, 120)}`);
      if (seen.length > 40) seen.shift();
      const last = line.slice(line.lastIndexOf(';') + 1);
      if (line.startsWith('ROUND STARTING;')) send(`JOIN;${last}`);
      else if (line.startsWith('YOUR TURN;')) send(`ROLL;${last}`);
      else if (line.startsWith('ROLLED;')) {
        const [, dice, token] = line.split(';');
        send(`ANNOUNCE;${dice!};${token!}`);
      } else if (
        line.startsWith('ROUND STARTED;') &&
        names.every((n) => line.split(';')[2]?.split(',').includes(n))
      )
        inRound = true;
      else if (line.startsWith('SCORE;') && inRound) done();
    });
    // UDP may lose it (the socket's buffer may still be full of the attacker's datagrams): retry until answered.
    let registered = false;
    s.on('message', (msg) => {
      if (msg.toString('utf8') === 'REGISTERED') registered = true;
    });
    const retry = setInterval(() => {
      if (registered) clearInterval(retry);
      else send(`REGISTER;${name}`);
    }, 300);
    retries.push(retry);
    send(`REGISTER;${name}`);
  }
  try {
    await within(15_000, 'a Mia round of two good players', finished).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}; the last lines they got:\n${seen.join('\n')}`);
    });
  } finally {
    for (const r of retries) clearInterval(r);
    for (const s of sockets) {
      s.send('UNREGISTER', port, '127.0.0.1');
      await sleep(5);
      s.close();
    }
  }
}

const dame: ServerTarget = {
  name: 'dame',
  transport: 'tcp',
  codec: 'dame',
  async start(log) {
    const store = new RecordStore(':memory:');
    const server = createDameServer({
      host: '127.0.0.1',
      port: 0,
      log,
      store,
      maxConnections: 64,
      maxGames: 64,
      prologTimeoutMs: 500,
      waitIdleMs: 200,
      okwaitTimeoutMs: 500,
      graceMs: 100,
      defaultMoveTimeMs: 300,
      motdDelayMs: 300,
      lingerMs: 200,
    });
    await server.start();
    const ids = Array.from({ length: 8 }, () => server.createGame());
    dameIds = ids;
    return served(server, store, async () => {
      const id = server.createGame();
      const make = (seed: number) =>
        new DameClient({
          host: '127.0.0.1',
          port: server.port,
          gameId: id,
          player: botPlayer(dameRandomBot, seed),
        });
      const results = await within(
        30_000,
        'a Dame game of two good clients',
        Promise.all([make(1).run(), make(2).run()]),
      );
      for (const r of results)
        if (r.error !== null) throw new Error(`a good Dame client failed: ${r.error}`);
    });
  },
  session(messages, rng) {
    // Half the sessions pass the prolog first, so the mutated lines reach the game.
    const prolog = rng.chance(0.5)
      ? [
          `VERSION ${rng.pick(['2.1', '3.1'])}`,
          `ID ${rng.pick(dameIds)}`,
          rng.pick(['PLAYER', 'PLAYER 0', 'PLAYER 1']),
        ].map((l) => Buffer.from(l + '\n'))
      : [];
    return Buffer.concat([...prolog, ...lines(messages, rng)]);
  },
};
let dameIds: string[] = ['0000000000000'];

const ostseeschach: ServerTarget = {
  name: 'ostseeschach',
  transport: 'tcp',
  codec: 'ostseeschach',
  async start(log) {
    const store = new RecordStore(':memory:');
    // The admin password is a secret the attacker does not know (the fixtures hold the default).
    const server = createOstseeschachServer({
      host: '127.0.0.1',
      port: 0,
      seed: 'fuzz',
      log,
      store,
      adminPassword: 'not-in-any-fixture',
      softTimeoutMs: 300,
      hardTimeoutMs: 1000,
      maxConnections: 64,
      maxRooms: 32,
      lingerMs: 200,
    });
    await server.start();
    return served(server, store, async () => {
      const first = playOnServer({
        host: '127.0.0.1',
        port: server.port,
        join: { kind: 'join' },
        bot: osRandomBot,
        budgetMs: 50,
        seed: 'good1',
      });
      const second = playOnServer({
        host: '127.0.0.1',
        port: server.port,
        join: { kind: 'join' },
        bot: osRandomBot,
        budgetMs: 50,
        seed: 'good2',
      });
      const [a, b] = await within(
        30_000,
        'an Ostseeschach game of two good clients',
        Promise.all([first, second]),
      );
      for (const o of [a, b])
        if (o.result === null)
          throw new Error(`a good Ostseeschach client got no result: ${JSON.stringify(o)}`);
    });
  },
  session(messages, rng) {
    const head = rng.chance(0.95) ? [Buffer.from(rng.chance(0.5) ? '<protocol><join/>' : '<protocol>')] : [];
    const tail = rng.chance(0.2) ? [Buffer.from('</protocol>')] : [];
    return Buffer.concat([
      ...head,
      ...messages.map((m) => (rng.chance(0.3) ? Buffer.concat([m, Buffer.from('\n  ')]) : m)),
      ...tail,
    ]);
  },
};

const catan: ServerTarget = {
  name: 'catan',
  transport: 'tcp',
  codec: 'catan',
  async start(log) {
    const store = new RecordStore(':memory:');
    const server = createCatanServer({
      host: '127.0.0.1',
      port: 0,
      seed: 'fuzz',
      log,
      store,
      maxConnections: 64,
      maxGames: 16,
      helloTimeoutMs: 1000,
      aiTurnTimeoutMs: 300,
      lingerMs: 200,
      floodPerSecond: 100_000,
    });
    await server.start();
    return served(server, store, async () => {
      const clients = Array.from(
        { length: 3 },
        (_, i) =>
          new CatanClient({
            host: '127.0.0.1',
            port: server.port,
            name: `Good ${i + 1}`,
            bot: catanRandomBot(`good${i}`),
          }),
      );
      for (const c of clients) await c.start();
      const results = await within(
        40_000,
        'a Catan game of three good clients',
        Promise.all(clients.map((c) => c.done)),
      );
      if (!results.some((r) => r.won))
        throw new Error(`no good Catan client won: ${JSON.stringify(results.map((r) => r.message))}`);
    });
  },
  session(messages, rng) {
    const prolog = rng.chance(0.5)
      ? [
          `{"Hallo":{"Version":"Fuzz 0.3"}}`,
          `{"Spieler":{"Name":"F${rng.below(1000)}","Farbe":"${rng.pick(['Rot', 'Blau', 'Weiss', 'Orange'])}"}}`,
          '{"Spiel starten":{}}',
        ].map((l) => Buffer.from(l + '\n'))
      : [];
    return Buffer.concat([...prolog, ...lines(messages, rng)]);
  },
};

const connect4: ServerTarget = {
  name: 'connect4',
  transport: 'udp',
  codec: 'connect4',
  async start(log) {
    const store = new RecordStore(':memory:');
    // No datagram budget here, so every fuzzed datagram reaches the peer (the budget has its own flood test).
    const hub = new Connect4Hub({
      host: '127.0.0.1',
      port: 0,
      broadcastAddress: null,
      peerPorts: [],
      store,
      log,
      timing: HOUSE_TIMING,
      engine: new InProcessEngine(),
      limits: { datagramsPerSecondPerHost: 0 },
    });
    await hub.start();
    const house = await hub.startPeer({ name: 'house-perfect', role: 'house', port: 0 });
    const admission = new HouseAdmission({
      maxGamesPerHost: 1,
      hostPauseMs: 300,
      isOwn: (p) => hub.isOwnPeer(p),
    });
    let n = 0;
    const player = new AutoPlayer(house.peer, (state) => hub.engine.choose(state, 'perfect', `fuzz:${n++}`), {
      log,
      admission,
    });
    return {
      port: house.address.port,
      status: () => hub.info().status,
      clients: () => house.peer.lobby().length + house.peer.invitations().length,
      async goodGame() {
        const mine = await startUdpPeer({ name: 'good', port: 0, timing: HOUSE_TIMING, log });
        const me = new AutoPlayer(mine.peer, (s) => chooseMove(s, 'easy', Rng.seeded(s.moves.join(''))), {
          acceptInvitations: false,
        });
        let finished = 0;
        mine.peer.on((e) => {
          if (e.type === 'game-over') finished++;
          if (e.type === 'end-window-closed') mine.peer.backToLobby();
        });
        const invite = setInterval(() => {
          if (mine.peer.phase === 'lobby' && mine.peer.invitee === null)
            mine.peer.invite({ address: '127.0.0.1', port: house.address.port });
        }, 200);
        try {
          await within(
            30_000,
            'a Connect Four game of a good peer with the house bot',
            (async () => {
              while (finished === 0) await sleep(20);
            })(),
          );
        } finally {
          clearInterval(invite);
          me.stop();
          await mine.close();
        }
      },
      stop: async () => {
        player.stop();
        await hub.stop();
        store.close();
      },
    };
  },
};

export const SERVERS: Record<string, ServerTarget> = { mia, dame, ostseeschach, catan, connect4 };

// ---- the attacker ---------------------------------------------------------------------------------

export interface AttackStats {
  readonly server: string;
  messages: number;
  generated: number;
  mutated: number;
  /** TCP: connections opened (refused ones included); UDP: sockets. */
  connections: number;
  refused: number;
  bytes: number;
  ms: number;
  /** The longest the event loop (server and attacker share it) was blocked: a hang shows here. */
  maxLagMs: number;
}

export interface AttackOptions {
  seed: string;
  maxMessages?: number;
  maxMs?: number;
  /** Parallel TCP connections or UDP sockets (default 4). */
  concurrency?: number;
  onProgress?: (stats: AttackStats) => void;
}

/** Feeds the server generated and mutated messages from 127.0.0.2 until the budget is spent. */
export async function attack(target: ServerTarget, port: number, o: AttackOptions): Promise<AttackStats> {
  const source = new MessageSource(CODECS[target.codec]!(), `${target.name}:${o.seed}`);
  const stats: AttackStats = {
    server: target.name,
    messages: 0,
    generated: 0,
    mutated: 0,
    connections: 0,
    refused: 0,
    bytes: 0,
    ms: 0,
    maxLagMs: 0,
  };
  const started = performance.now();
  const maxMessages = o.maxMessages ?? Infinity;
  const deadline = o.maxMs === undefined ? Infinity : started + o.maxMs;
  const more = (): boolean => stats.messages < maxMessages && performance.now() < deadline;
  const workers = Array.from({ length: o.concurrency ?? 4 }, (_, i) =>
    target.transport === 'udp'
      ? udpWorker(port, source, stats, more, i)
      : tcpWorker(target, port, source, stats, more),
  );
  let lastTick = performance.now();
  const lag = setInterval(() => {
    const now = performance.now();
    stats.maxLagMs = Math.max(stats.maxLagMs, now - lastTick - 50);
    lastTick = now;
  }, 50);
  let lastProgress = performance.now();
  const progress = o.onProgress
    ? setInterval(() => {
        stats.ms = performance.now() - started;
        if (performance.now() - lastProgress >= 5000) {
          lastProgress = performance.now();
          o.onProgress!(stats);
        }
      }, 500)
    : null;
  try {
    await Promise.all(workers);
  } finally {
    clearInterval(lag);
    if (progress) clearInterval(progress);
  }
  stats.generated = source.generated;
  stats.mutated = source.mutated;
  stats.ms = performance.now() - started;
  return stats;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** One UDP socket on 127.0.0.2: sends in bursts, and sometimes puts a token it received into what it sends. */
async function udpWorker(
  port: number,
  source: MessageSource,
  stats: AttackStats,
  more: () => boolean,
  index: number,
): Promise<void> {
  const socket = createSocket('udp4');
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.bind(0, ATTACKER, resolve));
  stats.connections++;
  const heard: { token: string | null } = { token: null };
  socket.on('message', (msg) => {
    const m = msg.toString('latin1').match(UUID);
    if (m) heard.token = m[m.length - 1]!;
  });
  const rng = source.rng;
  let inFlight = 0;
  try {
    while (more()) {
      for (let i = 0; i < 64 && more(); i++) {
        let data = source.next();
        if (heard.token !== null && rng.chance(0.5))
          data = Buffer.from(data.toString('latin1').replace(UUID, heard.token), 'latin1');
        if (data.length > 60_000) data = data.subarray(0, 60_000);
        inFlight++;
        stats.messages++;
        stats.bytes += data.length;
        socket.send(data, port, '127.0.0.1', () => inFlight--);
      }
      // Let the server read (both run in this process) and keep the send queue short.
      await new Promise((r) => setImmediate(r));
      while (inFlight > 256) await new Promise((r) => setImmediate(r));
      if (index === 0 && rng.chance(0.01)) await sleep(1);
    }
    while (inFlight > 0) await new Promise((r) => setImmediate(r));
  } finally {
    await new Promise<void>((resolve) => socket.close(() => resolve()));
  }
}

/** Connections from 127.0.0.2, one after another: each a session of mutated messages in random fragments. */
async function tcpWorker(
  target: ServerTarget,
  port: number,
  source: MessageSource,
  stats: AttackStats,
  more: () => boolean,
): Promise<void> {
  const rng = source.rng;
  while (more()) {
    const count = rng.chance(0.8) ? rng.int(1, 40) : rng.int(41, 400);
    const messages = Array.from({ length: count }, () => source.next());
    const data = target.session!(messages, rng);
    stats.messages += count;
    stats.bytes += data.length;
    stats.connections++;
    if (!(await tcpSession(port, data, rng))) stats.refused++;
  }
}

/** One connection: writes `data` in fragments, half-closes, waits briefly for the server, resets. */
function tcpSession(port: number, data: Buffer, rng: FastRng): Promise<boolean> {
  return new Promise((resolve) => {
    const socket: Socket = connect({ host: '127.0.0.1', port, localAddress: ATTACKER });
    let connected = false;
    let settled = false;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // A reset, not a FIN: no TIME_WAIT piles up on 127.0.0.2 over a million messages.
      if (!socket.destroyed) socket.resetAndDestroy();
      resolve(connected);
    };
    const timer = setTimeout(finish, 1500);
    socket.on('error', finish);
    socket.on('close', finish);
    socket.resume();
    socket.once('connect', () => {
      connected = true;
      const parts = chunks(rng, data, 6);
      const writeAll = async (): Promise<void> => {
        for (const part of parts) {
          if (socket.destroyed) return;
          if (!socket.write(part))
            await Promise.race([new Promise((r) => socket.once('drain', r)), sleep(300)]);
        }
        if (!socket.destroyed) socket.end();
        // The server answers (or closes); give it a moment, then reset.
        await sleep(rng.chance(0.9) ? 5 : 100);
        finish();
      };
      void writeAll();
    });
  });
}
