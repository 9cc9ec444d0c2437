import {
  EventHub,
  type GameServer,
  type LeaderboardEntry,
  type ServerInfo,
  type SpectatorEvent,
} from '../../src/core/game-server.js';
import { RecordStore } from '../../src/core/records.js';
import type { MiaRoundRow, MiaSnapshot } from '../../src/games/mia/snapshot.js';

/** A game server that does nothing but show what a test tells it to show. */
export class FakeGameServer implements GameServer {
  readonly hub = new EventHub();
  /** Errors thrown by a spectator listener into `publish` (must stay empty). */
  readonly listenerErrors: unknown[] = [];
  snapshotError: Error | null = null;
  details: ServerInfo;

  constructor(
    readonly game: string,
    public state: unknown,
    info: Partial<ServerInfo> = {},
    private readonly board: LeaderboardEntry[] | null = null,
  ) {
    this.details = {
      game,
      title: game,
      protocol: `${game} protocol`,
      transport: 'tcp',
      host: '127.0.0.1',
      port: 9999,
      status: 'running',
      clients: 0,
      liveMatches: 0,
      ...info,
    };
    if (board !== null) this.leaderboard = () => [...board];
  }

  leaderboard?: () => LeaderboardEntry[];

  start(): Promise<void> {
    return Promise.resolve();
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  info(): ServerInfo {
    return { ...this.details };
  }

  snapshot(): unknown {
    if (this.snapshotError) throw this.snapshotError;
    return structuredClone(this.state);
  }

  subscribe(listener: (event: SpectatorEvent) => void): () => void {
    return this.hub.subscribe((event) => {
      try {
        listener(event);
      } catch (err) {
        this.listenerErrors.push(err);
        throw err;
      }
    });
  }

  publish(type: string, data: unknown): SpectatorEvent {
    const event = { game: this.game, type, at: Date.now(), data };
    this.hub.publish(event);
    return event;
  }
}

export function miaRound(number: number, over: Partial<MiaRoundRow> = {}): MiaRoundRow {
  return {
    number,
    players: ['alice', 'bob', 'carol'],
    phase: 'turn',
    toAct: 'alice',
    announcements: [],
    log: [`ROUND STARTED;${number};alice,bob,carol`],
    losers: [],
    reason: null,
    actual: null,
    matchId: null,
    ...over,
  };
}

export function miaSnapshot(): MiaSnapshot {
  return {
    game: 'mia',
    port: 9000,
    players: [
      { name: 'alice', points: 4, registered: true, address: '127.0.0.1:40001' },
      { name: 'bob', points: 7, registered: true, address: '127.0.0.1:40002' },
      { name: 'carol', points: 1, registered: true, address: '127.0.0.1:40003' },
      { name: 'dave', points: 2, registered: false, address: null },
    ],
    spectators: ['watcher'],
    round: miaRound(7),
    recent: [],
    roundsPlayed: 6,
  };
}

export function fakeMia(): FakeGameServer & { state: MiaSnapshot } {
  const server = new FakeGameServer(
    'mia',
    miaSnapshot(),
    {
      title: 'Mäxchen (Mia)',
      protocol: 'maexchen UDP',
      transport: 'udp',
      port: 9000,
      clients: 4,
      liveMatches: 1,
    },
    [
      { name: 'bob', points: 7 },
      { name: 'alice', points: 4 },
    ],
  );
  return server as FakeGameServer & { state: MiaSnapshot };
}

export const T0 = Date.UTC(2025, 0, 6, 12, 0, 0);

/** The wire log of the first recorded Mia round, in order. */
export const ROUND_ONE_WIRE: { conn: string; dir: 'in' | 'out'; data: string }[] = [
  { conn: '127.0.0.1:40001', dir: 'out', data: 'ROUND STARTING;tok-1' },
  { conn: '127.0.0.1:40002', dir: 'out', data: 'ROUND STARTING;tok-2' },
  { conn: '127.0.0.1:40001', dir: 'in', data: 'JOIN;tok-1' },
  { conn: '127.0.0.1:40002', dir: 'in', data: 'JOIN;tok-2' },
  { conn: '*', dir: 'out', data: 'ROUND STARTED;1;alice,bob' },
  { conn: '127.0.0.1:40001', dir: 'out', data: 'YOUR TURN;tok-3' },
  { conn: '127.0.0.1:40001', dir: 'in', data: 'ROLL;tok-3' },
  { conn: '*', dir: 'out', data: 'PLAYER ROLLS;alice' },
  { conn: '127.0.0.1:40001', dir: 'out', data: 'ROLLED;3,1;tok-4' },
  { conn: '127.0.0.1:40001', dir: 'in', data: 'ANNOUNCE;3,1;tok-4' },
  { conn: '*', dir: 'out', data: 'ANNOUNCED;alice;3,1' },
  { conn: '127.0.0.1:40002', dir: 'out', data: 'YOUR TURN;tok-5' },
  { conn: '127.0.0.1:40002', dir: 'in', data: 'SEE;tok-5\r' },
  { conn: '*', dir: 'out', data: 'PLAYER WANTS TO SEE;bob' },
  { conn: '*', dir: 'out', data: 'ACTUAL DICE;3,1' },
  { conn: '*', dir: 'out', data: 'PLAYER LOST;bob;SEE_BEFORE_FIRST_ROLL' },
];

export interface SeededMatches {
  roundOne: string;
  roundTwo: string;
  connect4: string;
}

/** Three matches: a finished Mia round with events and wire log, a canceled one, a Connect Four game. */
export function seedStore(store: RecordStore): SeededMatches {
  const seats = [
    { seat: 0, name: 'alice', kind: 'player', address: '127.0.0.1:40001' },
    { seat: 1, name: 'bob', kind: 'player', address: '127.0.0.1:40002' },
  ];
  const roundOne = store.startMatch({
    id: 'mia-round-1',
    game: 'mia',
    seed: 'seed-1',
    startedAt: T0,
    seats,
    meta: { round: 1 },
  });
  store.addEvent(roundOne, { at: T0 + 10, type: 'started', data: { order: ['alice', 'bob'] } });
  store.addEvent(roundOne, { at: T0 + 20, seat: 0, type: 'roll', data: null });
  store.addEvent(roundOne, { at: T0 + 30, seat: 0, type: 'announce', data: '3,1' });
  store.addEvent(roundOne, { at: T0 + 40, seat: 1, type: 'see', data: null });
  ROUND_ONE_WIRE.forEach((w, i) => store.addWire({ matchId: roundOne, game: 'mia', at: T0 + 5 * i, ...w }));
  store.finishMatch(roundOne, {
    status: 'finished',
    endedAt: T0 + 1234,
    result: { round: 1, order: ['alice', 'bob'], losers: ['bob'], reason: 'SEE_BEFORE_FIRST_ROLL' },
  });

  const roundTwo = store.startMatch({
    id: 'mia-round-2',
    game: 'mia',
    seed: 'seed-1',
    startedAt: T0 + 60_000,
    seats,
  });
  store.finishMatch(roundTwo, {
    status: 'aborted',
    endedAt: T0 + 60_250,
    result: { round: 2, canceled: 'NO_PLAYERS' },
  });

  const connect4 = store.startMatch({
    id: 'connect4-1',
    game: 'connect4',
    startedAt: T0 + 30_000,
    seats: [
      { seat: 0, name: 'red-bot', kind: 'bot' },
      { seat: 1, name: 'yellow-bot', kind: 'bot' },
    ],
  });
  store.finishMatch(connect4, { status: 'finished', endedAt: T0 + 45_000, result: { winner: 0 } });
  return { roundOne, roundTwo, connect4 };
}

/** A WebSocket client's messages as parsed JSON, with a way to wait for the ones a test expects. */
export interface Inbox {
  messages: unknown[];
  waitFor(predicate: (messages: unknown[]) => boolean, timeoutMs?: number): Promise<unknown[]>;
}

export function pollUntil(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (check()) resolve();
      else if (Date.now() > deadline)
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      else setTimeout(tick, 5);
    };
    tick();
  });
}
