import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { noteLostConnection } from '../../src/core/pg-outage.js';
import { PgRecordStore } from '../../src/core/records-pg.js';
import { createTournament } from '../../src/tournament/coordinator.js';
import { runQueuedTournament } from '../../src/tournament/distributed.js';
import { parseTournament } from '../../src/tournament/file.js';
import { jobsSchema, LifeLock, MatchQueue } from '../../src/tournament/queue.js';
import { runWorker } from '../../src/tournament/worker.js';
import { fakeGame } from '../fixtures/tournament/fake-game.js';
import { postgresBin, useOwnPostgres } from '../support/own-postgres.js';

/**
 * Issue #31: a PostgreSQL outage is an outage, not a crash. A PostgreSQL server of the test's own
 * is stopped with `pg_ctl stop -m immediate` in the middle of a distributed tournament (a
 * coordinator and two workers, each with its own record store, queue and life lock, as separate
 * processes have) and started again 5 s later. Nothing may die; the matches in play go on and are
 * recorded once the database is back; the workers take jobs again and the coordinator finishes
 * the tournament by itself; every match is played and counted exactly once.
 */

const bin = postgresBin();
if (bin === null) console.log('skipped: no PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb) to start and stop one of our own');

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tsx = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const cliScript = join(root, 'src', 'cli.ts');

type Line = { level: number; msg: string; downForMs?: number; component?: string };

function capture(): { log: pino.Logger; lines: Line[] } {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n')) if (l !== '') lines.push(JSON.parse(l) as Line);
      done();
    },
  });
  return { log: pino({ level: 'info' }, stream), lines };
}

/** The outage: 5 s here; `npm run soak -- pg-outage` runs it with 20 s (bench/pg-outage.ts). */
const OUTAGE_MS = Number(process.env.SPIELHALLE_OUTAGE_SECONDS ?? '5') * 1000;

const ENTRANTS = [1, 2, 3, 4].map((n) => `  - { name: e${n}, bot: fixed, options: { strength: ${n} } }`).join('\n');
const TEXT = `name: Outage\ngame: dame\nformat: round-robin\ngamesPerPairing: 2\nmoveTime: 1\nseed: 3\nentrants:\n${ENTRANTS}\n`;

describe.skipIf(bin === null)('a distributed tournament through a PostgreSQL outage (issue #31)', () => {
  const db = useOwnPostgres();
  const work = mkdtempSync(join(tmpdir(), 'spielhalle-outage-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it(`goes on through a ${OUTAGE_MS / 1000} s outage: nobody dies, the tournament finishes by itself, every match once`, async () => {
    const schema = 'outage_t';
    const { log, lines } = capture();
    const game = fakeGame({ delayMs: 1500 });
    const coordStore = await PgRecordStore.open({ url: db.url, schema, mode: 'write', log: log.child({ component: 'coordinator' }) });
    const coordQueue = await MatchQueue.open({ url: db.url, schema: jobsSchema(schema), log: log.child({ component: 'coordinator' }) }, ['dame']);
    coordQueue.onError((err) => log.warn({ err }, 'queue maintenance failed'));
    const parsed = parseTournament(TEXT, { file: 'o.yaml' });
    if (!parsed.ok) throw new Error('bad file');
    const id = await createTournament(coordStore, parsed.spec, TEXT, Date.now(), [game]);

    const died: unknown[] = [];
    const workers = await Promise.all(
      ['host-a:1:aaaaaa', 'host-b:2:bbbbbb'].map(async (name) => {
        const wlog = log.child({ component: name });
        const store = await PgRecordStore.open({ url: db.url, schema, mode: 'serve', log: wlog });
        const queue = await MatchQueue.open({ url: db.url, schema: jobsSchema(schema), log: wlog }, ['dame']);
        queue.onError((err) => wlog.warn({ err }, 'queue maintenance failed'));
        const lock = await LifeLock.take(db.url, `worker:${name}`, (err) => died.push(err), 10_000, { log: wlog });
        const stop = new AbortController();
        const done = runWorker({ store, queue, worker: name, games: [game], concurrency: 2, workDir: work, log: wlog, signal: stop.signal, pollMs: 50, statusMs: 200 });
        done.catch((err: unknown) => died.push(err));
        return { name, store, queue, lock, stop, done };
      }),
    );

    const outcome = runQueuedTournament(coordStore, id, { queue: coordQueue, url: db.url, log, games: [game], pollMs: 200, healMs: 500 });
    outcome.catch((err: unknown) => died.push(err));
    try {
      // Some matches done, four in play: then the database goes.
      const inPlay = await (async () => {
        for (const end = Date.now() + 30_000; Date.now() < end; ) {
          const t = await coordStore.getTournament(id);
          const running = await coordStore.listTournamentMatches(id, { status: 'running' });
          if ((t?.done ?? 0) >= 2 && running.length >= 3) return running.map((m) => m.id);
          await new Promise((r) => setTimeout(r, 50));
        }
        throw new Error('no matches in play');
      })();
      const playsBefore = game.plays.length;
      db.stop('immediate');
      const downAt = Date.now();
      await new Promise((r) => setTimeout(r, OUTAGE_MS));
      // Meanwhile the matches in play ended (1.5 s each) and wait to be recorded; nobody died.
      expect(died).toEqual([]);
      db.start();
      const upAt = Date.now();

      const result = await Promise.race([outcome, new Promise<'late'>((r) => setTimeout(() => r('late'), 45_000))]);
      expect(result, JSON.stringify(lines.filter((l) => l.level >= 40).slice(-20))).toBe('finished');
      expect(died).toEqual([]);

      const t = await coordStore.getTournament(id);
      expect(t).toMatchObject({ status: 'finished' });
      expect(t?.done).toBe(12);
      const matches = await coordStore.listTournamentMatches(id);
      expect(matches).toHaveLength(12);
      expect(matches.every((m) => m.status === 'done')).toBe(true);
      // Played once each: no match was taken for dead and played again, not even those in play at the outage.
      expect(game.plays.length).toBe(12);
      expect(new Set(game.plays).size).toBe(12);
      expect(matches.every((m) => m.attempts === 1)).toBe(true);
      for (const m of matches.filter((x) => inPlay.includes(x.id))) expect(m.records).toHaveLength(1);
      // Each counted match's game record is finished and names its worker and attempt once.
      const records = matches.flatMap((m) => m.records);
      expect(new Set(records).size).toBe(12);
      for (const m of matches) {
        const detail = await coordStore.getMatch(m.records[0]!);
        expect(detail?.status, m.id).toBe('finished');
        expect(detail?.events.filter((e) => e.type === 'tournament').map((e) => e.data)).toEqual([{ tournament: id, match: m.id, worker: m.worker, attempt: 1 }]);
      }
      // Matches were played after the outage (the workers took jobs again by themselves).
      expect(game.plays.length).toBeGreaterThan(playsBefore);
      // The log says what happened: gone (error), back (with how long) — for records, queue and life locks.
      expect(lines.some((l) => l.level === 50 && /PostgreSQL unreachable \(records\)/.test(l.msg))).toBe(true);
      const back = lines.filter((l) => /PostgreSQL back/.test(l.msg));
      expect(back.some((l) => /life lock worker:host-a/.test(l.msg))).toBe(true);
      expect(back.some((l) => /life lock worker:host-b/.test(l.msg))).toBe(true);
      for (const l of back) expect(l.downForMs).toBeGreaterThanOrEqual(upAt - downAt - 1500);
    } finally {
      for (const w of workers) w.stop.abort();
      for (const w of workers) {
        await w.done.catch(() => undefined);
        await w.lock?.release();
        await w.queue.close();
        await w.store.close();
      }
      await outcome.catch(() => undefined);
      await coordQueue.close();
      await coordStore.close();
    }
  }, 90_000 + OUTAGE_MS);

  it('does not take a free life lock for a dead worker just after an outage (the live ones take theirs again first)', async () => {
    const queue = await MatchQueue.open({ url: db.url, schema: jobsSchema('outage_grace') }, ['dame']);
    try {
      // A worker that holds its lock is never gone; one that does not is, but not within the grace.
      const lock = await LifeLock.take(db.url, 'worker:alive:1:aaaaaa', () => undefined);
      noteLostConnection();
      expect(await queue.goneWorkers(['alive:1:aaaaaa', 'dead:2:bbbbbb'], 800)).toEqual(new Set());
      await new Promise((r) => setTimeout(r, 900));
      expect(await queue.goneWorkers(['alive:1:aaaaaa', 'dead:2:bbbbbb'], 800)).toEqual(new Set(['dead:2:bbbbbb']));
      await lock?.release();
    } finally {
      await queue.close();
    }
  }, 30_000);

  it('a worker started while PostgreSQL is down waits for it; a reading command says 75, not 2', async () => {
    const url = db.url;
    db.stop('immediate');
    try {
      const run = (args: string[]) => {
        const child = spawn(process.execPath, ['--import', tsx, cliScript, '--data-dir', join(work, 'cli'), ...args], {
          env: { ...process.env, SPIELHALLE_DATABASE_URL: url, SPIELHALLE_DATABASE_SCHEMA: 'outage_cli' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let err = '';
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.stdout.on('data', () => undefined);
        const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
        return { child, exit, err: () => err };
      };
      // Both at once: loading the program takes most of the time here.
      const matches = run(['matches']);
      const worker = run(['worker', '--concurrency', '1', '--games', 'dame', '--log-level', 'warn']);
      expect(await matches.exit, matches.err()).toBe(75);
      expect(matches.err()).toMatch(/cannot open the records/);

      // It says it waits (the program takes some seconds to load here), and is still there 3 s later.
      const said = Date.now() + 40_000;
      while (!/PostgreSQL unreachable/.test(worker.err()) && worker.child.exitCode === null && Date.now() < said) await new Promise((r) => setTimeout(r, 100));
      expect(worker.err()).toMatch(/PostgreSQL unreachable/);
      const early = await Promise.race([worker.exit, new Promise<'alive'>((r) => setTimeout(() => r('alive'), 3000))]);
      expect(early, worker.err()).toBe('alive');
      db.start();
      const ready = Date.now() + 30_000;
      while (!/^worker \S+: dame, 1 at a time/m.test(worker.err()) && Date.now() < ready) await new Promise((r) => setTimeout(r, 100));
      expect(worker.err()).toMatch(/^worker \S+: dame, 1 at a time/m);
      worker.child.kill('SIGTERM');
      expect(await worker.exit).toBe(130);
    } finally {
      try {
        db.start();
      } catch {
        // running already
      }
    }
  }, 90_000);
});
