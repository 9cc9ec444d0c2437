import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { RecordStore, StoreLockedError } from '../../src/core/records.js';
import { parseAge, retentionPrune, startRetention } from '../../src/core/retention.js';

/** Who recovers what, the serving lock, crash marking and retention of the record store. */

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tsx = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const DAY = 86_400_000;

const file = () => join(mkdtempSync(join(tmpdir(), 'spielhalle-store-')), 'spielhalle.db');

describe('RecordStore modes', () => {
  it('lets only the serving process recover, and tells a crash from a clean stop', () => {
    const f = file();
    const writer = new RecordStore(f);
    const live = writer.startMatch({ game: 'mia', startedAt: 1, seats: [] });
    writer.close();

    // A reader (matches, replay while serve runs) leaves a live match alone and cannot write.
    const reader = new RecordStore(f, { mode: 'read' });
    expect(reader.getMatch(live)!.status).toBe('running');
    expect(() => reader.startMatch({ game: 'mia', startedAt: 2, seats: [] })).toThrow(/read-only/);
    reader.close();
    // So does another writer.
    const writer2 = new RecordStore(f);
    expect(writer2.getMatch(live)!.status).toBe('running');
    writer2.close();

    // The serving process finds it running: cut off by a crash.
    const serving = new RecordStore(f, { mode: 'serve' });
    expect(serving.recovered).toBe(1);
    expect(serving.getMatch(live)).toMatchObject({ status: 'aborted', result: { reason: 'crash' } });
    // What it still has open when it stops cleanly is marked as stopped, not as a crash.
    const open = serving.startMatch({ game: 'dame', startedAt: 3, seats: [] });
    const done = serving.startMatch({ game: 'dame', startedAt: 4, seats: [] });
    serving.finishMatch(done, { status: 'finished', endedAt: 5, result: { winner: 0 } });
    serving.close();
    const after = new RecordStore(f, { mode: 'serve' });
    expect(after.recovered).toBe(0);
    expect(after.getMatch(open)).toMatchObject({ status: 'aborted', result: { reason: 'server stopped' } });
    expect(after.getMatch(done)).toMatchObject({ status: 'finished', result: { winner: 0 } });
    after.close();
  });

  it('refuses a second serving process on the same file until the first lets go', () => {
    const f = file();
    const first = new RecordStore(f, { mode: 'serve' });
    expect(() => new RecordStore(f, { mode: 'serve' })).toThrow(StoreLockedError);
    expect(() => new RecordStore(f, { mode: 'serve' })).toThrow(/in use by another 'spielhalle serve'/);
    // Readers and prune still work beside it.
    const reader = new RecordStore(f, { mode: 'read' });
    reader.close();
    first.close();
    const second = new RecordStore(f, { mode: 'serve' });
    second.close();
  });

  it('refuses to read a store that does not exist instead of creating an empty one', () => {
    expect(() => new RecordStore(join(tmpdir(), 'spielhalle-none', 'x', 'spielhalle.db'), { mode: 'read' })).toThrow(/no record store at/);
  });

  it('on a crash commits what is queued and marks running matches crash', () => {
    const f = file();
    const store = new RecordStore(f, { mode: 'serve' });
    const running = store.startMatch({ game: 'catan', startedAt: 1, seats: [{ seat: 0, name: 'a', kind: 'player' }] });
    const finished = store.startMatch({ game: 'catan', startedAt: 2, seats: [] });
    store.finishMatch(finished, { status: 'finished', endedAt: 3, result: { winner: 'a' } });
    store.crash();
    const reader = new RecordStore(f, { mode: 'read' });
    expect(reader.getMatch(running)).toMatchObject({ status: 'aborted', result: { reason: 'crash' }, seats: [{ name: 'a' }] });
    expect(reader.getMatch(finished)).toMatchObject({ status: 'finished' });
    reader.close();
  });

  it('after kill -9 the lock is gone and the next start marks the leftovers crash', async () => {
    const f = file();
    const script = join(dirname(f), 'serve.mts');
    const records = pathToFileURL(join(root, 'src', 'core', 'records.ts')).href;
    writeFileSync(
      script,
      `import { RecordStore } from ${JSON.stringify(records)};
const store = new RecordStore(${JSON.stringify(f)}, { mode: 'serve' });
const done = store.startMatch({ game: 'mia', startedAt: 1, seats: [] });
store.finishMatch(done, { status: 'finished', endedAt: 2, result: null });
const live = store.startMatch({ game: 'mia', startedAt: 3, seats: [] });
await store.drain();
process.stdout.write(JSON.stringify({ done, live }) + '\\n');
setInterval(() => {}, 1000);
`,
    );
    const child = spawn(process.execPath, ['--import', tsx, script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const ids = await new Promise<{ done: string; live: string }>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(JSON.parse(out) as { done: string; live: string });
      });
      child.on('exit', (code) => reject(new Error(`child exited ${code}`)));
    });
    // While it runs, a second server is refused.
    expect(() => new RecordStore(f, { mode: 'serve' })).toThrow(StoreLockedError);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('exit', resolve));
    const next = new RecordStore(f, { mode: 'serve' });
    expect(next.recovered).toBe(1);
    expect(next.getMatch(ids.done)!.status).toBe('finished');
    expect(next.getMatch(ids.live)).toMatchObject({ status: 'aborted', result: { reason: 'crash' } });
    next.close();
  }, 60_000);
});

describe('retention', () => {
  function seeded() {
    const store = new RecordStore(':memory:');
    const now = Date.now();
    const ids: Record<string, string> = {};
    const add = (name: string, game: string, ageDays: number, wire: number, status: 'finished' | 'running' = 'finished') => {
      const at = now - ageDays * DAY;
      const id = store.startMatch({ game, startedAt: at, seats: [{ seat: 0, name, kind: 'player' }] });
      store.addEvent(id, { at, type: 'move' });
      for (let i = 0; i < wire; i++) store.addWire({ matchId: id, game, conn: 'c', at, dir: 'in', data: 'x'.repeat(100) });
      if (status === 'finished') store.finishMatch(id, { status, endedAt: at, result: null });
      ids[name] = id;
    };
    add('ancient', 'mia', 400, 5);
    add('old', 'dame', 40, 5);
    add('oldRunning', 'dame', 50, 5, 'running');
    add('recent', 'mia', 1, 5);
    store.addWire({ matchId: null, game: 'catan', conn: 'x', at: now - 60 * DAY, dir: 'in', data: 'garbage' });
    return { store, ids, now };
  }

  it('deletes matches by age, wire logs by age, by game, never a running match', async () => {
    const { store, ids, now } = seeded();
    const dry = await store.prune({ matchesBefore: now - 30 * DAY, dryRun: true });
    // A match's messages are packed into one row.
    expect(dry).toMatchObject({ matches: 2, wireRows: 2 });
    expect(store.countMatches()).toBe(4);

    const byGame = await store.prune({ matchesBefore: now - 30 * DAY, game: 'dame' });
    expect(byGame).toMatchObject({ matches: 1, wireRows: 1 });
    expect(store.getMatch(ids.old!)).toBeNull();
    expect(store.getMatch(ids.ancient!)).not.toBeNull();
    expect(store.getMatch(ids.oldRunning!)!.wire).toHaveLength(5);

    const wire = await store.prune({ wireBefore: now - 30 * DAY });
    // ancient's packed row and the loose connection line; the match itself stays with its events.
    expect(wire).toMatchObject({ matches: 0, wireRows: 2 });
    const ancient = store.getMatch(ids.ancient!)!;
    expect(ancient.wire).toHaveLength(0);
    expect(ancient.events).toHaveLength(1);
    expect(store.getMatch(ids.recent!)!.wire).toHaveLength(5);
    store.close();
  });

  it('deletes the oldest matches until the size cap holds', async () => {
    const store = new RecordStore(':memory:');
    for (let i = 0; i < 400; i++) {
      const id = store.startMatch({ game: 'mia', startedAt: i, seats: [], house: true });
      // Lines that do not deflate to nothing: the matches, not the empty tables, fill the store.
      for (let j = 0; j < 20; j++) store.addWire({ matchId: id, game: 'mia', conn: 'c', at: i, dir: 'out', data: randomBytes(100).toString('hex') });
      store.finishMatch(id, { status: 'finished', endedAt: i, result: null });
    }
    await store.drain();
    const before = store.usedBytes();
    const cap = Math.floor(before / 2);
    const r = await store.prune({ maxBytes: cap });
    expect(r.bytesBefore).toBe(before);
    expect(r.bytesAfter).toBeLessThanOrEqual(cap);
    expect(r.matches).toBeGreaterThan(100);
    // The newest are the ones kept.
    const kept = store.listMatches({ limit: 1000 });
    expect(kept.length).toBe(400 - r.matches);
    expect(Math.min(...kept.map((m) => m.startedAt))).toBe(r.matches);
    store.close();
  });

  it('turns the settings into prune options and runs them on its timer', async () => {
    expect(parseAge('30d')).toBe(30 * DAY);
    expect(parseAge('12h')).toBe(12 * 3_600_000);
    expect(parseAge('7')).toBe(7 * DAY);
    expect(parseAge('soon')).toBeNull();
    expect(retentionPrune({ keepDays: 0, houseKeepDays: 0, wireKeepDays: 0, maxMegabytes: 0, pruneEveryMinutes: 60 }, 0)).toEqual({
      matchesBefore: undefined,
      houseBefore: undefined,
      wireBefore: undefined,
      maxBytes: undefined,
    });
    const { store, ids } = seeded();
    const retention = startRetention(store, { keepDays: 365, houseKeepDays: 3, wireKeepDays: 30, maxMegabytes: 0, pruneEveryMinutes: 60 }, silentLogger, { firstDelayMs: 10 });
    const deadline = Date.now() + 5000;
    while (store.getMatch(ids.ancient!) !== null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await retention.stop();
    expect(store.getMatch(ids.ancient!)).toBeNull();
    expect(store.getMatch(ids.old!)!.wire).toHaveLength(0);
    expect(store.getMatch(ids.recent!)!.wire).toHaveLength(5);
    store.close();
  });
});
