import { createSocket, type Socket } from 'node:dgram';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '../../../src/config.js';
import { INTERNAL_ERROR } from '../../../src/core/guard.js';
import { silentLogger } from '../../../src/core/log.js';
import { RecordStore, type MatchRecord } from '../../../src/core/records.js';
import { Connect4Hub } from '../../../src/games/connect4/hub.js';
import { connect4 } from '../../../src/games/connect4/index.js';
import { AutoPlayer, Peer } from '../../../src/games/connect4/peer.js';
import { Board } from '../../../src/games/connect4/peer/board.js';
import { Rng } from '../../../src/core/rng.js';
import { Repeater } from '../../../src/games/connect4/peer/repeater.js';
import { HOUSE_TIMING, InProcessEngine } from './house-support.js';

/**
 * The house bots of `spielhalle serve` over real UDP on 127.0.0.1, under faults and floods:
 * exceptions thrown from the socket handler, a timer, the bot and the house loop end at most one
 * game each (recorded aborted, reason `internal error`), and a flood from 127.0.0.2 (one port,
 * many ports) does not stop the two house bots finishing games against each other.
 */

function settings(overrides: Partial<Settings['games']['connect4']>): Settings {
  const c4 = {
    ...DEFAULT_SETTINGS.games.connect4,
    port: 0,
    peerPorts: [],
    houseBots: 2,
    sparringPauseMs: 50,
    hostPauseMs: 600,
    ...overrides,
  };
  return { ...DEFAULT_SETTINGS, games: { ...DEFAULT_SETTINGS.games, connect4: c4 } };
}

async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const escaped: unknown[] = [];
const onEscape = (err: unknown): void => {
  escaped.push(err);
};
const cleanups: (() => Promise<void> | void)[] = [];
beforeEach(() => {
  escaped.length = 0;
  process.on('uncaughtException', onEscape);
  process.on('unhandledRejection', onEscape);
});
afterEach(async () => {
  vi.restoreAllMocks();
  for (const c of cleanups.splice(0).reverse()) await c();
  process.off('uncaughtException', onEscape);
  process.off('unhandledRejection', onEscape);
});

interface House {
  hub: Connect4Hub;
  store: RecordStore;
  engine: InProcessEngine;
  records: () => MatchRecord[];
  /** Finished games between the two house bots. */
  houseGames: () => number;
}

async function startHouse(overrides: Partial<Settings['games']['connect4']> = {}): Promise<House> {
  const store = new RecordStore(':memory:');
  const engine = new InProcessEngine();
  const s = settings(overrides);
  const limits = {
    datagramsPerSecondPerHost: s.games.connect4.datagramsPerSecondPerHost,
    lobbyEntriesPerHost: s.games.connect4.lobbyEntriesPerHost,
    invitationsPerHost: s.games.connect4.invitationsPerHost,
  };
  const hub = new Connect4Hub({
    host: '127.0.0.1',
    port: 0,
    broadcastAddress: null,
    peerPorts: [],
    store,
    log: silentLogger,
    timing: HOUSE_TIMING,
    engine,
    limits,
  });
  await hub.start();
  const parts = await connect4.startHouseBots!({ settings: s, log: silentLogger, store }, hub);
  cleanups.push(async () => {
    for (const p of parts) await p.stop();
    await hub.stop();
    store.close();
  });
  const records = () => store.listMatches({ game: 'connect4', limit: 1000 });
  const houseGames = () =>
    records().filter(
      (m) =>
        m.status === 'finished' &&
        m.seats
          .map((x) => x.name)
          .sort()
          .join() === 'house-perfect,house-strong',
    ).length;
  return { hub, store, engine, records, houseGames };
}

const reasonOf = (m: MatchRecord): unknown => (m.result as { reason?: unknown } | null)?.reason;

describe('Connect Four house bots: error boundaries', () => {
  it('an exception from the socket handler, a timer, the bot and the house loop ends at most one game each', async () => {
    const house = await startHouse();
    const internal = () =>
      house.records().filter((m) => m.status === 'aborted' && reasonOf(m) === INTERNAL_ERROR).length;
    let armed: 'datagram' | 'timer' | 'bot' | 'loop' | null = 'datagram';
    const fired: string[] = [];
    const fire = (what: string): never => {
      fired.push(what);
      armed = null;
      throw new Error(`injected: ${what}`);
    };

    const receive = Board.prototype.receive;
    vi.spyOn(Board.prototype, 'receive').mockImplementation(function (this: Board, m) {
      if (armed === 'datagram' && m.kind === 'move') fire('datagram');
      receive.call(this, m);
    });
    const tickOf = Repeater.prototype as unknown as { tick: () => void };
    const tick = tickOf.tick;
    vi.spyOn(tickOf, 'tick').mockImplementation(function (this: Repeater) {
      // A repeat (not the first copy, which goes out from a command or a datagram) is a timer.
      if (armed === 'timer' && this.sent > 0) fire('timer');
      tick.call(this);
    });
    const playOf = AutoPlayer.prototype as unknown as { play: (...a: unknown[]) => void };
    const play = playOf.play;
    vi.spyOn(playOf, 'play').mockImplementation(function (this: AutoPlayer, ...args: unknown[]) {
      // Only for a move of the running game (a late answer for an ended game is ignored anyway).
      const peer = (this as unknown as { peer: Peer }).peer;
      if (armed === 'bot' && peer.phase === 'playing' && peer.game?.id === args[0]) fire('bot');
      play.apply(this, args);
    });
    const invite = Peer.prototype.invite;
    vi.spyOn(Peer.prototype, 'invite').mockImplementation(function (this: Peer, target) {
      if (armed === 'loop') fire('loop');
      return invite.call(this, target);
    });

    await until(() => internal() >= 1, 'the game ended by the datagram handler');
    // Slow moves, so the keepalives repeat during the game.
    house.engine.delayMs = 150;
    armed = 'timer';
    await until(() => internal() >= 2, 'the game ended by a timer');
    house.engine.delayMs = 0;
    armed = 'bot';
    await until(() => internal() >= 3, 'the game ended by the bot');
    const before = house.houseGames();
    armed = 'loop';
    await until(() => fired.includes('loop'), 'the house loop to fail');
    await until(() => house.houseGames() >= before + 2, 'two more finished house games');

    expect(fired).toEqual(['datagram', 'timer', 'bot', 'loop']);
    // Each exception ended exactly one game (the house loop's ended none), recorded once.
    expect(internal()).toBe(3);
    // The aborted games left the live view (only the house game running now, if any).
    expect(house.hub.info().liveMatches).toBeLessThanOrEqual(1);
    expect(house.hub.info().status).toBe('running');
    expect(escaped).toEqual([]);
  }, 60_000);
});

/** A socket on 127.0.0.2 that sends as fast as the event loop lets it until stopped. */
async function attacker(ports: number): Promise<{ sockets: Socket[]; close: () => Promise<void> }> {
  const sockets = await Promise.all(
    Array.from({ length: ports }, async () => {
      const s = createSocket('udp4');
      s.on('error', () => undefined);
      await new Promise<void>((resolve) => s.bind(0, '127.0.0.2', resolve));
      return s;
    }),
  );
  return {
    sockets,
    close: () =>
      Promise.all(sockets.map((s) => new Promise<void>((resolve) => s.close(() => resolve())))).then(
        () => undefined,
      ),
  };
}

function floodMessages(rng: Rng): string[] {
  const stage = (n: number, extra: object = {}) =>
    JSON.stringify({ version: 2, clienttype: 0, stage: n, ...extra });
  return [
    stage(1, { clientname: 'evil' }),
    stage(2, { clientname: 'evil' }),
    stage(2),
    stage(3),
    stage(4, { turn: rng.int(-1, 3), column: rng.int(0, 8) }),
    stage(4, { turn: rng.int(0, 1e9), column: rng.int(1, 7) }),
    stage(5),
    stage(99),
    '{"version":2,"stage":',
    '\u0000\u00ff garbage',
  ];
}

describe('Connect Four house bots: a flood from 127.0.0.2', () => {
  for (const [label, portCount] of [
    ['one port', 1],
    ['many ports', 64],
  ] as const) {
    it(`does not stop the house bots finishing games (${label})`, async () => {
      const house = await startHouse();
      const targets = house.hub.snapshot().peers.map((p) => Number(p.address.split(':')[1]));
      expect(targets).toHaveLength(2);
      await until(() => house.houseGames() >= 1, 'a first house game');
      const evil = await attacker(portCount);
      cleanups.push(evil.close);
      const rng = Rng.seeded(label);
      let sent = 0;
      let flooding = true;
      const flood = (): void => {
        if (!flooding) return;
        for (let i = 0; i < 40; i++) {
          const socket = evil.sockets[rng.int(0, evil.sockets.length - 1)]!;
          const messages = floodMessages(rng);
          const line = messages[rng.int(0, messages.length - 1)]!;
          socket.send(line, targets[rng.int(0, 1)], '127.0.0.1');
          sent++;
        }
        setTimeout(flood, 1);
      };
      flood();
      const before = house.houseGames();
      const started = Date.now();
      let maxHeld = 0;
      const sample = setInterval(() => {
        const busyWithEvil = house.hub
          .snapshot()
          .games.filter((g) => g.status === 'running' && g.players.includes('evil')).length;
        maxHeld = Math.max(maxHeld, busyWithEvil);
      }, 20);
      try {
        await until(
          () => house.houseGames() >= before + 3,
          'three more finished house games during the flood',
          30_000,
        );
      } finally {
        flooding = false;
        clearInterval(sample);
      }
      const seconds = (Date.now() - started) / 1000;
      expect(sent / seconds).toBeGreaterThan(1000);
      // One game at a time with the flooding host, whatever its ports.
      expect(maxHeld).toBeLessThanOrEqual(1);
      // Its share of each peer's lobby and invitations.
      const lobby = house.hub.snapshot().lobby.filter((p) => p.address.startsWith('127.0.0.2:'));
      expect(lobby.length).toBeLessThanOrEqual(DEFAULT_SETTINGS.games.connect4.lobbyEntriesPerHost);
      // The games with the flooding host, all ended, left the live view: nothing piles up.
      await until(
        () => house.hub.info().liveMatches <= 1,
        'the live games to be the house game at most',
        5000,
      );
      expect(house.hub.info().status).toBe('running');
      expect(escaped).toEqual([]);
    }, 60_000);
  }
});
