import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { PgRecordStore } from '../../src/core/records-pg.js';
import { postgresBin, useOwnPostgres } from '../support/own-postgres.js';

/**
 * Issue #31: the PostgreSQL record store rides out an outage. A server of the test's own is
 * stopped with `pg_ctl stop -m immediate` (every connection dropped, as in a crash) while games
 * write; what they write meanwhile is held in memory and arrives, in order, once it is back. Past
 * the buffer's bound, wire rows are given up and the match says so (event `records-lost`).
 */

const bin = postgresBin();
if (bin === null) console.log('skipped: no PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb) to start and stop one of our own');

function capture(): { log: pino.Logger; lines: () => { level: number; msg: string; [k: string]: unknown }[] } {
  const out: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      out.push(...chunk.toString().split('\n').filter((l) => l !== ''));
      done();
    },
  });
  return { log: pino({ level: 'info' }, stream), lines: () => out.map((l) => JSON.parse(l) as { level: number; msg: string }) };
}

describe.skipIf(bin === null)('PgRecordStore through a PostgreSQL outage (issue #31)', () => {
  const db = useOwnPostgres();

  it('keeps what is written while the database is gone and writes it, in order, when it is back', async () => {
    const { log, lines } = capture();
    const store = await PgRecordStore.open({ url: db.url, schema: 'outage_a', mode: 'serve', log });
    const before = store.startMatch({ game: 'mia', seed: 1, startedAt: 1000, seats: [{ seat: 0, name: 'a', kind: 'bot' }] });
    store.addEvent(before, { at: 1001, type: 'roll', data: { n: 1 } });
    store.addWire({ matchId: before, game: 'mia', conn: 'c1', at: 1001, dir: 'out', data: 'ROUND STARTING' });
    await store.drain();

    db.stop('immediate');
    // Games go on: nothing throws, nothing blocks.
    for (let i = 2; i <= 40; i++) {
      store.addEvent(before, { at: 1000 + i, type: 'roll', data: { n: i } });
      store.addWire({ matchId: before, game: 'mia', conn: 'c1', at: 1000 + i, dir: 'in', data: `ANNOUNCE ${i}` });
    }
    store.finishMatch(before, { status: 'finished', endedAt: 2000, result: { winner: 'a' } });
    const during = store.startMatch({ game: 'mia', seed: 2, startedAt: 3000, seats: [{ seat: 0, name: 'b', kind: 'bot' }] });
    store.addEvent(during, { at: 3001, type: 'roll', data: { n: 1 } });
    store.finishMatch(during, { status: 'finished', endedAt: 3500, result: { winner: 'b' } });
    let drained = false;
    const drain = store.drain().then(() => (drained = true));
    await new Promise((r) => setTimeout(r, 2500));
    expect(drained).toBe(false);
    expect(store.databaseState().up).toBe(false);

    db.start();
    await drain;
    const a = await store.getMatch(before);
    expect(a?.status).toBe('finished');
    expect(a?.events.map((e) => (e.data as { n: number }).n)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(a?.wire.map((w) => w.data)).toEqual(['ROUND STARTING', ...Array.from({ length: 39 }, (_, i) => `ANNOUNCE ${i + 2}`)]);
    const b = await store.getMatch(during);
    expect(b).toMatchObject({ status: 'finished', result: { winner: 'b' } });
    expect(store.databaseState().up).toBe(true);
    // Said in the log: gone (error), back with how long.
    expect(lines().some((l) => l.level === 50 && /PostgreSQL unreachable \(records\)/.test(l.msg))).toBe(true);
    const back = lines().find((l) => /PostgreSQL back \(records\)/.test(l.msg)) as { downForMs?: number } | undefined;
    expect(back?.downForMs).toBeGreaterThan(2000);
    await store.close();
  }, 60_000);

  it('past its bound gives up wire rows, says so at error level and marks the match', async () => {
    const { log, lines } = capture();
    const store = await PgRecordStore.open({ url: db.url, schema: 'outage_b', mode: 'serve', log, maxBufferedBytes: 64 * 1024 });
    const id = store.startMatch({ game: 'catan', seed: 1, startedAt: 1000, seats: [{ seat: 0, name: 'a', kind: 'bot' }] });
    await store.drain();
    db.stop('immediate');
    const line = 'x'.repeat(200);
    // The bound holds once a write has found the database gone (a burst while it is up waits, as before).
    store.addEvent(id, { at: 999, type: 'start' });
    for (const end = Date.now() + 10_000; store.databaseState().up && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
    // The match's own wire log next (held oldest: given up first), then loose rows.
    for (let i = 0; i < 50; i++) store.addWire({ matchId: id, game: 'catan', conn: 'c', at: 1000 + i, dir: 'out', data: line });
    store.addEvent(id, { at: 1000, type: 'move', data: { i: -1 } });
    await new Promise((r) => setTimeout(r, 150));
    // ~1000 loose wire rows of ~520 bytes each: far past 64 KiB.
    for (let i = 0; i < 1000; i++) store.addWire({ matchId: null, game: 'catan', conn: 'c', at: 1000 + i, dir: 'out', data: line });
    for (let i = 0; i < 300; i++) store.addEvent(id, { at: 1000 + i, type: 'move', data: { i, pad: line } });
    store.finishMatch(id, { status: 'finished', endedAt: 5000, result: { winner: 'a' } });
    await new Promise((r) => setTimeout(r, 1000));
    expect(store.databaseState().bufferedBytes).toBeLessThan(64 * 1024 + 4096);
    db.start();
    await store.drain();
    const m = await store.getMatch(id);
    // The end is never given up; the match says what it lost.
    expect(m?.status).toBe('finished');
    const lost = m?.events.filter((e) => e.type === 'records-lost') ?? [];
    expect(lost.length).toBeGreaterThan(0);
    const lostEvents = lost.reduce((n, e) => n + (e.data as { events: number }).events, 0);
    expect(lostEvents + (m?.events.filter((e) => e.type === 'move').length ?? 0)).toBe(301);
    expect(m?.events[0]?.type).toBe('start');
    expect(lostEvents).toBeGreaterThan(0);
    const lostWire = lost.reduce((n, e) => n + (e.data as { wireRows: number }).wireRows, 0);
    expect(lostWire).toBeGreaterThan(0);
    expect(lostWire + (m?.wire.length ?? 0)).toBe(50);
    const errors = lines().filter((l) => l.level === 50 && /records given up/.test(l.msg));
    expect(errors.length).toBeGreaterThan(0);
    await store.close();
  }, 60_000);
});
