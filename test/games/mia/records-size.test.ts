import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.js';
import { silentLogger } from '../../../src/core/log.js';
import { RecordStore } from '../../../src/core/records.js';
import { parseClient } from '../../../src/games/mia/protocol.js';
import { addressKey, MiaTable, type Address } from '../../../src/games/mia/table.js';

/**
 * What one recorded round costs on disk: four in-process players (real UUID tokens, addresses as
 * the house bots have them, every answer a millisecond later) play rounds into a file-backed
 * record store; the growth of the database file divided by the rounds played is the figure
 * docs/benchmarks.md reports (5,448 bytes before issue 15, when every message was a row and every
 * move an event).
 */

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Plays `rounds` 4-player rounds on a virtual clock; returns the rounds actually finished. */
function play(store: RecordStore, rounds: number): number {
  const clock = new VirtualClock(1_750_000_000_000);
  const inbox: [Address, string][] = [];
  const table = new MiaTable({
    answerTimeoutMs: 250,
    heartbeatMs: 2000,
    minPlayers: 2,
    waitRecheckMs: 500,
    startEarly: true,
    maxClients: 100,
    seed: 'size',
    port: 9000,
    clock,
    log: silentLogger,
    store,
    send: (to, line) => {
      for (const a of to) inbox.push([a, line]);
    },
    tokens: randomUUID,
  });
  const players = ['house-adaptive', 'house-probabilistic', 'house-honest', 'house-random'].map((name, i) => ({
    name,
    addr: { address: '127.0.0.1', port: 40_001 + i * 7919 },
    last: null as string | null,
    turns: 0,
  }));
  const say = (a: Address, datagram: string) => {
    const parsed = parseClient(datagram);
    if (parsed.ok) table.receive(parsed.message, a, datagram);
  };
  table.start();
  for (const p of players) say(p.addr, `REGISTER;${p.name}`);
  let t = 0;
  while (table.snapshot().roundsPlayed < rounds && t++ < rounds * 10_000) {
    // Each batch of answers arrives a millisecond after what it answers.
    for (const [a, line] of inbox.splice(0)) {
      const p = players.find((x) => addressKey(x.addr) === addressKey(a))!;
      const fields = line.split(';');
      if (line.startsWith('ANNOUNCED;')) p.last = fields[2]!;
      else if (line.startsWith('ROUND STARTED;')) p.last = null;
      else if (line.startsWith('ROUND STARTING;')) say(a, `JOIN;${fields[1]!}`);
      else if (line.startsWith('YOUR TURN;')) say(a, `${p.last !== null && p.turns++ % 3 === 2 ? 'SEE' : 'ROLL'};${fields[1]!}`);
      else if (line.startsWith('ROLLED;')) say(a, `ANNOUNCE;${fields[1]!};${fields[2]!}`);
    }
    clock.advance(1);
  }
  table.stop();
  return table.snapshot().roundsPlayed;
}

function fileBytes(file: string): number {
  return statSync(file).size + (statSync(file + '-wal', { throwIfNoEntry: false })?.size ?? 0);
}

describe('Mia records size', () => {
  it('stores a 4-player round in at most 2 KB', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mia-size-'));
    dirs.push(dir);
    const file = join(dir, 'size.db');
    let store = new RecordStore(file);
    play(store, 20); // warm-up: tables and pages exist
    store.close();
    const before = fileBytes(file);
    store = new RecordStore(file);
    const n = play(store, 400);
    store.close();
    const perRound = (fileBytes(file) - before) / n;
    console.log(`mia: ${n} rounds, ${Math.round(perRound)} bytes per round`);
    expect(n).toBe(400);
    expect(perRound).toBeLessThanOrEqual(2048);
    // ... and nothing a student needs is missing: every message of the round, with its time.
    store = new RecordStore(file, { mode: 'read' });
    const round = store.getMatch(store.listMatches({ game: 'mia', status: 'finished', limit: 1 })[0]!.id)!;
    expect(round.seats).toHaveLength(4);
    expect(round.wire.filter((w) => w.dir === 'in' && w.data.startsWith('JOIN;'))).toHaveLength(4);
    expect(round.wire.filter((w) => w.conn !== '*' && w.data.startsWith('ROUND STARTING;'))).toHaveLength(4);
    expect(round.wire.at(-1)).toMatchObject({ conn: '*', dir: 'out', data: expect.stringMatching(/^SCORE;house-adaptive:\d+,/) as unknown });
    expect(round.result).toMatchObject({ order: expect.any(Array) as unknown, moves: expect.any(Array) as unknown });
    store.close();
  });
});
