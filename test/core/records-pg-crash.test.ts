import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PgRecordStore } from '../../src/core/records-pg.js';

/**
 * Issue 31: `serve` on PostgreSQL marks the matches a crash left running aborted (`crash`), as the
 * SQLite store does — without touching the matches of serving processes that still live. A real
 * serving store in a child process is killed with -9 while its match runs; the next serving store
 * to open marks that match, and leaves a live one's alone. Needs PostgreSQL at 127.0.0.1:5432
 * (SPIELHALLE_TEST_DATABASE_URL points elsewhere), as the other record-store tests.
 */

const PG_URL = process.env.SPIELHALLE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SCHEMA = `crash_${process.pid}`;
const DIST = path.resolve(import.meta.dirname, '../../dist/core/records-pg.js');
const seats = [{ seat: 0, name: 'a', kind: 'bot' as const }];

/** A serving store in a process of its own: starts a match, says its id, then waits to be killed. */
const CHILD = `
const { PgRecordStore } = await import(${JSON.stringify(DIST)});
const store = await PgRecordStore.open({ url: process.argv[1], schema: process.argv[2], mode: 'serve' });
const id = store.startMatch({ game: 'dame', startedAt: Date.now(), seats: [{ seat: 0, name: 'a', kind: 'bot' }] });
await store.drain();
process.stdout.write(id + '\\n');
setInterval(() => {}, 1000);
`;

afterAll(async () => {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await c.end();
});

describe('serve on PostgreSQL after a crash (issue 31)', () => {
  it('marks the running matches of a killed serving process aborted (crash), and no live one', async () => {
    const live = await PgRecordStore.open({ url: PG_URL, schema: SCHEMA, mode: 'serve' });
    const livesOn = live.startMatch({ game: 'dame', startedAt: Date.now(), seats });
    await live.drain();
    // Written by a store that is not serving (a worker, the tournament runner): never swept.
    const writer = await PgRecordStore.open({ url: PG_URL, schema: SCHEMA, mode: 'write' });
    const workerMatch = writer.startMatch({ game: 'dame', startedAt: Date.now(), seats, meta: { tournamentMatch: 't/1-0' } });
    await writer.drain();

    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, PG_URL, SCHEMA], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    for (const end = Date.now() + 20_000; !out.includes('\n'); ) {
      if (Date.now() > end) throw new Error('the serving child did not start its match');
      await new Promise((r) => setTimeout(r, 50));
    }
    const crashed = out.trim();
    expect((await live.getMatch(crashed))?.status).toBe('running');
    child.kill('SIGKILL');
    await once(child, 'exit');

    const next = await PgRecordStore.open({ url: PG_URL, schema: SCHEMA, mode: 'serve' });
    try {
      // The dead process's session (and its lock) goes with it a moment after the kill.
      for (const end = Date.now() + 10_000; (await next.getMatch(crashed))?.status === 'running' && Date.now() < end; ) {
        await new Promise((r) => setTimeout(r, 200));
        await (next as unknown as { markCrashedServes(): Promise<void> }).markCrashedServes();
      }
      expect(await next.getMatch(crashed)).toMatchObject({ status: 'aborted', result: { reason: 'crash' } });
      expect((await next.getMatch(livesOn))?.status).toBe('running');
      expect((await next.getMatch(workerMatch))?.status).toBe('running');
    } finally {
      await next.close();
      await writer.close();
      await live.close();
    }
    // A clean stop marks its own (server stopped), as before.
    const check = await PgRecordStore.open({ url: PG_URL, schema: SCHEMA, mode: 'read' });
    expect((await check.getMatch(livesOn))?.status).toBe('aborted');
    await check.close();
  }, 60_000);
});
