import type { RemoteInfo } from 'node:dgram';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.js';
import { INTERNAL_ERROR } from '../../../src/core/guard.js';
import { silentLogger, type Logger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import { MAX_UDP_PAYLOAD } from '../../../src/games/mia/protocol.js';
import { MIA_DEFAULTS, MiaServer } from '../../../src/games/mia/server.js';
import type { MiaTable } from '../../../src/games/mia/table.js';
import { Harness } from './harness.js';

/** Issue 15 for Mia: floods from many ports, dead registrations, SCORE size, scores kept, error boundaries. */

const A = Harness.addr(1001);
const B = Harness.addr(1002);

/** A logger whose lines (parsed JSON) land in `lines`. */
function capturingLogger(): { log: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) });
  return { log, lines };
}

/** The server's datagram entry, fed directly (no socket: what it sends goes nowhere). */
function feeder(server: MiaServer) {
  const onDatagram = (server as unknown as { onDatagram(msg: Buffer, rinfo: RemoteInfo): void }).onDatagram.bind(server);
  return (address: string, port: number, line: string) => onDatagram(Buffer.from(line), { address, port, family: 'IPv4', size: line.length });
}

describe('flood control (a)', () => {
  it('one budget per IP for unregistered traffic, however many ports; registered players keep their own', () => {
    const clock = new VirtualClock(1_000_000);
    const { log, lines } = capturingLogger();
    const server = new MiaServer({ ...MIA_DEFAULTS, port: 0, seed: 'flood', log, store: null, clock, unregisteredPerSecond: 50, floodPerSecond: 200 });
    const feed = feeder(server);
    const receive = vi.spyOn(server.state, 'receive');
    feed('127.0.0.1', 5001, 'REGISTER;alice');
    feed('127.0.0.2', 6000, 'REGISTER;eve'); // a registered player on the attacker's host
    expect(server.state.nameAt('127.0.0.2:6000')).toBe('eve');
    receive.mockClear();

    // 100,000 datagrams from 1000 ports of 127.0.0.2 within one second.
    for (let i = 0; i < 100_000; i++) {
      if (i % 1000 === 0) clock.advance(10);
      feed('127.0.0.2', 10_000 + (i % 1000), i % 2 ? 'ECHO;x' : `JOIN;${i}`);
    }
    const fromFlood = receive.mock.calls.filter(([, from]) => from.address === '127.0.0.2' && from.port !== 6000).length;
    // burst 100 plus 50 per second for the one second the flood lasted
    expect(fromFlood).toBeGreaterThan(50);
    expect(fromFlood).toBeLessThanOrEqual(100 + 50 + 1);

    // The host's budget is spent, but its registered player and everyone else still get through.
    receive.mockClear();
    for (let i = 0; i < 100; i++) {
      feed('127.0.0.2', 6000, 'ECHO;eve');
      feed('127.0.0.1', 5001, 'ECHO;alice');
      feed('127.0.0.2', 10_001, 'ECHO;flood');
    }
    const by = (port: number) => receive.mock.calls.filter(([, from]) => from.port === port).length;
    expect(by(6000)).toBe(100);
    expect(by(5001)).toBe(100);
    expect(by(10_001)).toBe(0);

    // Drops are warned about, but not once per datagram.
    const warnings = lines.filter((l) => l.level === 40 && String(l.msg).startsWith('flood'));
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings.length).toBeLessThan(5);
    expect(warnings[0]).toMatchObject({ host: '127.0.0.2' });
  });

  it('a registered client that floods is cut off at its own budget, not the host', () => {
    const clock = new VirtualClock(0);
    const server = new MiaServer({ ...MIA_DEFAULTS, port: 0, seed: 'flood', log: silentLogger, store: null, clock, floodPerSecond: 20, unregisteredPerSecond: 50 });
    const feed = feeder(server);
    const receive = vi.spyOn(server.state, 'receive');
    feed('127.0.0.2', 6000, 'REGISTER;eve');
    feed('127.0.0.2', 6001, 'REGISTER;mallory');
    receive.mockClear();
    for (let i = 0; i < 500; i++) feed('127.0.0.2', 6001, 'ECHO;m');
    for (let i = 0; i < 30; i++) feed('127.0.0.2', 6000, 'ECHO;e');
    expect(receive.mock.calls.filter(([, f]) => f.port === 6001)).toHaveLength(40); // burst: 2 × 20
    expect(receive.mock.calls.filter(([, f]) => f.port === 6000)).toHaveLength(30);
  });

  it('caps the registrations one host holds', () => {
    const h = new Harness({ maxClientsPerHost: 3 });
    h.table.start();
    for (let i = 0; i < 5; i++) h.say(Harness.addr(3000 + i, '127.0.0.2'), `REGISTER;m${i}`);
    expect(h.table.clientCount).toBe(3);
    expect(h.take(Harness.addr(3003, '127.0.0.2'))).toEqual([]);
    // another host is not affected; a takeover from the same host does not count twice
    h.say(A, 'REGISTER;alice');
    h.say(Harness.addr(4000, '127.0.0.2'), 'REGISTER;m0');
    expect(h.take(Harness.addr(4000, '127.0.0.2'))).toEqual(['REGISTERED']);
    expect(h.table.clientCount).toBe(4);
  });
});

/** Waits (virtual time, at most `ms`) until `p` received a line that starts with `prefix`. */
function waitFor(h: Harness, p: typeof A, prefix: string, ms = 3000): boolean {
  for (let i = 0; i < ms; i++) {
    if (h.inbox(p).some((l) => l.startsWith(prefix))) return true;
    h.clock.advance(1);
  }
  return false;
}

/** One round where `A` and `B` join and the first to act calls SEE at once (over as soon as it starts). */
function quickRound(h: Harness): void {
  if (!waitFor(h, A, 'ROUND STARTING')) throw new Error('no round offered');
  h.say(A, `JOIN;${h.lastToken(A)}`);
  h.say(B, `JOIN;${h.lastToken(B)}`);
  h.take(A);
  h.take(B);
  for (let i = 0; i < 300; i++) {
    const turn = [A, B].find((p) => h.inbox(p).some((l) => l.startsWith('YOUR TURN;')));
    if (turn) {
      h.say(turn, `SEE;${h.lastToken(turn)}`);
      return;
    }
    h.clock.advance(1);
  }
}

describe('dead registrations (b), expired on evidence (issue 36)', () => {
  /** Plays quick rounds (A and B join) until `ghost` is told UNREGISTERED; the lines the ghost got. */
  function roundsUntilGone(h: Harness, ghost: typeof A, maxRounds: number): { seen: string[]; rounds: number } {
    const seen: string[] = [];
    for (let round = 1; round <= maxRounds; round++) {
      quickRound(h);
      seen.push(...h.take(ghost));
      if (seen.includes('UNREGISTERED')) return { seen, rounds: round };
    }
    return { seen, rounds: maxRounds };
  }

  it('unregisters a silent player after 10 missed invitations, invites it to every 4th round once it is dormant, keeps its score, and start-early works again', () => {
    const ghost = Harness.addr(1003, '127.0.0.3');
    const h = new Harness({ startEarly: true, maxMissedRounds: 10, expireSilenceMs: 0 });
    h.table.start();
    h.say(ghost, 'REGISTER;ghost');
    h.say(A, 'REGISTER;alice');
    h.say(B, 'REGISTER;bob');
    for (const p of [A, B, ghost]) h.take(p);
    const { seen, rounds } = roundsUntilGone(h, ghost, 60);
    expect(seen.filter((l) => l === 'UNREGISTERED')).toHaveLength(1);
    // ten invitations it let pass: three in a row, then one in four rounds while dormant
    expect(seen.filter((l) => l.startsWith('ROUND STARTING'))).toHaveLength(10);
    expect(rounds).toBeGreaterThan(25);
    // gone from the table: no invitations, no heartbeats, but its score stays
    expect(h.table.nameAt('127.0.0.3:1003')).toBeUndefined();
    expect(h.table.scoreOf('ghost')).toBe(0);
    h.clock.advance(2100);
    expect(h.inbox(ghost)).toEqual([]);
    // with only the two live players invited, start-early starts the round as soon as both joined
    h.take(A);
    h.take(B);
    expect(waitFor(h, A, 'ROUND STARTING')).toBe(true);
    h.say(A, `JOIN;${h.lastToken(A)}`);
    h.say(B, `JOIN;${h.lastToken(B)}`);
    expect(h.take(A).some((l) => l.startsWith('ROUND STARTED'))).toBe(true);
    // and the name can register again
    h.say(ghost, 'REGISTER;ghost');
    expect(h.take(ghost)).toEqual(['REGISTERED']);
  });

  it('a dormant player that shows life is invited to every round again', () => {
    const ghost = Harness.addr(1003, '127.0.0.3');
    const h = new Harness({ startEarly: true, maxMissedRounds: 100, expireSilenceMs: 0 });
    h.table.start();
    for (const [p, name] of [[ghost, 'ghost'], [A, 'alice'], [B, 'bob']] as const) h.say(p, `REGISTER;${name}`);
    for (const p of [A, B, ghost]) h.take(p);
    for (let i = 0; i < 8; i++) quickRound(h);
    expect(h.take(ghost).filter((l) => l.startsWith('ROUND STARTING')).length).toBeLessThan(6);
    h.say(ghost, 'ECHO;still here');
    for (let i = 0; i < 3; i++) quickRound(h);
    // alive again: invited to each of the next rounds (it still does not join: dormant again after 3)
    expect(h.take(ghost).filter((l) => l.startsWith('ROUND STARTING'))).toHaveLength(3);
  });

  it('keeps a paused player (no datagram for 5 s) through far more than 10 missed rounds, and expires it after a minute of silence', () => {
    const paused = Harness.addr(1003);
    const h = new Harness({ maxMissedRounds: 10, expireSilenceMs: 60_000 });
    h.table.start();
    for (const [p, name] of [[paused, 'paused'], [A, 'alice'], [B, 'bob']] as const) h.say(p, `REGISTER;${name}`);
    const seen: string[] = [];
    for (let round = 0; round < 40; round++) {
      quickRound(h);
      seen.push(...h.take(paused));
    }
    expect(h.clock.now()).toBeGreaterThan(5000);
    expect(seen).not.toContain('UNREGISTERED');
    expect(h.table.nameAt('127.0.0.1:1003')).toBe('paused');
    // a minute without a word: gone at its next missed invitation
    while (h.clock.now() < 61_000) quickRound(h);
    for (let round = 0; round < 8 && !seen.includes('UNREGISTERED'); round++) {
      quickRound(h);
      seen.push(...h.take(paused));
    }
    expect(seen.filter((l) => l === 'UNREGISTERED')).toHaveLength(1);
  });

  it('expires nobody while the server is dropping a flood', () => {
    let flooding = true;
    const ghost = Harness.addr(1003, '127.0.0.3');
    const h = new Harness({ maxMissedRounds: 2, expireSilenceMs: 0, flooding: () => flooding });
    h.table.start();
    for (const [p, name] of [[ghost, 'ghost'], [A, 'alice'], [B, 'bob']] as const) h.say(p, `REGISTER;${name}`);
    for (let round = 0; round < 12; round++) quickRound(h);
    expect(h.table.nameAt('127.0.0.3:1003')).toBe('ghost');
    flooding = false;
    expect(roundsUntilGone(h, ghost, 12).seen).toContain('UNREGISTERED');
  });

  it('a join resets the count', () => {
    const C = Harness.addr(1003);
    const D = Harness.addr(1004);
    const h = new Harness({ maxMissedRounds: 3, expireSilenceMs: 0 });
    h.table.start();
    h.say(A, 'REGISTER;alice');
    h.say(C, 'REGISTER;carol');
    h.say(D, 'REGISTER;dave');
    for (let round = 0; round < 8; round++) {
      h.take(C);
      h.take(D);
      expect(waitFor(h, D, 'ROUND STARTING')).toBe(true);
      h.say(D, `JOIN;${h.lastToken(D)}`);
      if (round % 2 === 0) h.say(C, `JOIN;${h.lastToken(C)}`); // carol joins every other round
      h.clock.advance(250);
    }
    expect(h.table.nameAt('127.0.0.1:1003')).toBe('carol');
    expect(h.table.nameAt('127.0.0.1:1004')).toBe('dave');
    // alice never joined: gone after 3 rounds
    expect(h.table.nameAt('127.0.0.1:1001')).toBeUndefined();
    expect(h.inbox(A).filter((l) => l.startsWith('ROUND STARTING'))).toHaveLength(3);
    expect(h.inbox(A).at(-1)).toBe('UNREGISTERED');
  });
});

describe('SCORE fits into one datagram (c)', () => {
  /** A valid 20-character name of 60 UTF-8 bytes. */
  const longName = (i: number) => String.fromCharCode(0x4e00 + i) + '€'.repeat(19);

  it('refuses registrations that would not fit, and never sends a longer SCORE', () => {
    const spec = Harness.addr(999);
    const h = new Harness({ maxClients: 5000 });
    h.table.start();
    h.say(spec, 'REGISTER_SPECTATOR;spec');
    let registered = 0;
    for (let i = 0; i < 1100; i++) {
      const p = Harness.addr(10_000 + i, `127.0.${1 + (i >> 8)}.${i & 255}`);
      h.say(p, `REGISTER;${longName(i)}`);
      if (h.take(p).includes('REGISTERED')) registered++;
    }
    // `SCORE;` and 63 bytes per player (60 for the name, `:0,`), without the last comma
    expect(6 + 1039 * 63 - 1).toBeLessThanOrEqual(MAX_UDP_PAYLOAD);
    expect(6 + 1040 * 63 - 1).toBeGreaterThan(MAX_UDP_PAYLOAD);
    expect(registered).toBe(1039);
    const scores = h.take(spec).filter((l) => l.startsWith('SCORE;'));
    expect(scores).toHaveLength(1039);
    expect(Math.max(...scores.map((l) => Buffer.byteLength(l)))).toBe(6 + 1039 * 63 - 1);
  });

  it('lists the registered players and the most recent others when everyone ever registered would not fit', () => {
    const store = new RecordStore(':memory:');
    store.setScores('mia', new Map(Array.from({ length: 2000 }, (_, i) => [longName(i), i])), 0);
    const h = new Harness({ store });
    h.table.start();
    h.say(A, 'REGISTER;alice');
    h.say(B, 'REGISTER;bob');
    h.clock.advance(500 + 250); // nobody joins: canceled, SCORE to all
    const score = h.take(A).find((l) => l.startsWith('SCORE;'))!;
    expect(Buffer.byteLength(score)).toBeLessThanOrEqual(MAX_UDP_PAYLOAD);
    expect(Buffer.byteLength(score)).toBeGreaterThan(MAX_UDP_PAYLOAD - 100);
    const names = score.slice(6).split(',').map((e) => e.split(':')[0]!);
    expect(names).toContain('alice');
    expect(names).toContain('bob');
    expect([...names].sort()).toEqual(names); // still sorted by name
    // Of the others, the highest scores come first (nobody has played since the restart).
    expect(names).toContain(longName(1999));
    expect(names).not.toContain(longName(0));
    // the record keeps the line short
    store.flush();
    const round = store.getMatch(store.listMatches({ game: 'mia', status: 'aborted' })[0]!.id)!;
    const recorded = round.wire.find((w) => w.data.startsWith('SCORE;'))!;
    expect(recorded.data.length).toBeLessThan(1100);
    expect(recorded.data).toMatch(/… \(\d+ bytes\)$/);
    store.close();
  });
});

describe('scores (d)', () => {
  it('persists a registered name at once, with 0 points', () => {
    const store = new RecordStore(':memory:');
    const h = new Harness({ store });
    h.table.start();
    h.say(A, 'REGISTER;carol');
    expect(store.getScores('mia')).toEqual(new Map([['carol', 0]]));
    h.table.stop();
    expect(new Harness({ store }).table.scoreTable()).toEqual([['carol', 0]]);
    store.close();
  });
});

describe('records stay small (e)', () => {
  it('records at most 40 datagrams of one client per round, and nothing of unregistered addresses', () => {
    const store = new RecordStore(':memory:');
    const h = new Harness({ store });
    h.table.start();
    h.say(A, 'REGISTER;alice');
    h.say(B, 'REGISTER;bob');
    h.clock.advance(500);
    for (let i = 0; i < 500; i++) {
      h.say(A, `ROLL;${i}`);
      h.say(Harness.addr(7000 + (i % 50), '127.0.0.2'), `JOIN;${i}`);
      h.say(Harness.addr(7000 + (i % 50), '127.0.0.2'), 'ECHO;x');
    }
    h.clock.advance(250);
    store.flush();
    const round = store.getMatch(store.listMatches({ game: 'mia', status: 'aborted' })[0]!.id)!;
    expect(round.wire.filter((w) => w.dir === 'in')).toHaveLength(40);
    expect(round.wire.some((w) => w.conn.startsWith('127.0.0.2'))).toBe(false);
    expect(round.result).toMatchObject({ canceled: 'NO_PLAYERS', unrecordedDatagrams: 460 });
    const db = (store as unknown as { db: { prepare(sql: string): { get(): unknown } } }).db;
    // the round (one batch) and the two registrations (REGISTER and REGISTERED each)
    expect(db.prepare('SELECT COUNT(*) AS n FROM wire').get()).toEqual({ n: 5 });
    store.close();
  });
});

describe('error boundaries (f)', () => {
  type Private = Record<'turn' | 'closeJoinWindow' | 'newRound', (...args: unknown[]) => unknown>;
  const spyOnce = (table: MiaTable, method: keyof Private) =>
    vi.spyOn(table as unknown as Private, method).mockImplementationOnce(() => {
      throw new Error(`injected fault in ${method}`);
    });

  function table() {
    const store = new RecordStore(':memory:');
    const { log, lines } = capturingLogger();
    const h = new Harness({ store, log });
    h.table.start();
    h.say(A, 'REGISTER;alice');
    h.say(B, 'REGISTER;bob');
    return { h, store, lines };
  }

  /** Lets rounds be played for a while by two players that join and then SEE at once. */
  function playOn(h: Harness, rounds: number): void {
    for (let r = 0; r < rounds; r++) quickRound(h);
  }

  it('an exception while handling a datagram ends that round (aborted, internal error); the table plays on', () => {
    const { h, store, lines } = table();
    h.clock.advance(500);
    h.say(A, `JOIN;${h.lastToken(A)}`);
    h.say(B, `JOIN;${h.lastToken(B)}`);
    h.orders.push(['alice', 'bob']);
    h.clock.advance(250);
    spyOnce(h.table, 'turn');
    expect(h.say(A, `ROLL;${h.lastToken(A)}`)).toBe(INTERNAL_ERROR);
    playOn(h, 3);
    store.flush();
    const aborted = store.listMatches({ game: 'mia', status: 'aborted' }).filter((m) => (m.result as { reason?: string }).reason === INTERNAL_ERROR);
    expect(aborted).toHaveLength(1);
    expect(aborted[0]!.result).toMatchObject({ round: 1, reason: INTERNAL_ERROR, order: ['alice', 'bob'] });
    expect(store.listMatches({ game: 'mia', status: 'finished' }).length).toBeGreaterThanOrEqual(2);
    expect(lines.find((l) => l.level === 50)).toMatchObject({ err: { message: 'injected fault in turn' } });
    store.close();
  });

  it('an exception in a timer ends that round; the next ones are played', () => {
    const { h, store } = table();
    spyOnce(h.table, 'closeJoinWindow');
    playOn(h, 4);
    store.flush();
    expect(store.listMatches({ game: 'mia', status: 'aborted' }).map((m) => m.result)).toContainEqual(expect.objectContaining({ round: 1, reason: INTERNAL_ERROR }));
    expect(store.listMatches({ game: 'mia', status: 'finished' }).length).toBeGreaterThanOrEqual(2);
    store.close();
  });

  it('an exception in the round cycle itself: the table tries again and plays on', () => {
    const { h, store } = table();
    quickRound(h); // round 1; round 2 is offered at once
    // round 3 cannot start after round 2, nor at the next attempt
    spyOnce(h.table, 'newRound').mockImplementationOnce(() => {
      throw new Error('injected fault in newRound, again');
    });
    h.clock.advance(250); // nobody joins round 2
    playOn(h, 3);
    store.flush();
    expect(store.listMatches({ game: 'mia', status: 'finished' }).length).toBeGreaterThanOrEqual(3);
    store.close();
  });
});
