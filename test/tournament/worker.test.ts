import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli-program.js';
import { silentLogger } from '../../src/core/log.js';
import type { PortRange } from '../../src/core/ports.js';
import { PgRecordStore } from '../../src/core/records-pg.js';
import { createTournament } from '../../src/tournament/coordinator.js';
import { runQueuedTournament } from '../../src/tournament/distributed.js';
import { GAMES } from '../../src/games/registry.js';
import { useTournamentGames } from '../../src/tournament/cli.js';
import { parseTournament } from '../../src/tournament/file.js';
import { jobsSchema, LifeLock, MatchQueue } from '../../src/tournament/queue.js';
import { runWorker, type WorkerOptions } from '../../src/tournament/worker.js';
import { fakeGame } from '../fixtures/tournament/fake-game.js';

/**
 * The worker and the queued coordinator (issue #19) with the fake game, in this process, on
 * PostgreSQL: a result that comes in after the match was taken over is discarded; a match whose
 * arena throws is retried through the queue; one that fails every try fails the tournament; the
 * `spielhalle worker` command opens its arenas in the port range of the settings or of the file.
 */

const PG_URL = process.env.SPIELHALLE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const RUN = `wk${process.pid}_${Date.now().toString(36)}`;
const schemas: string[] = [];
const dir = mkdtempSync(join(tmpdir(), 'spielhalle-worker-'));

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  for (const s of schemas) {
    await client.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
    await client.query(`DROP SCHEMA IF EXISTS ${jobsSchema(s)} CASCADE`);
  }
  await client.end();
});

const file = (entrants: string) => `name: W
game: dame
format: round-robin
gamesPerPairing: 2
moveTime: 1
seed: 5
entrants:
${entrants}`;

async function setup(text: string, delayMs: number) {
  const schema = `${RUN}_${schemas.length}`;
  schemas.push(schema);
  const store = await PgRecordStore.open({ url: PG_URL, schema, mode: 'serve' });
  const queue = await MatchQueue.open({ url: PG_URL, schema: jobsSchema(schema) }, ['dame']);
  const game = fakeGame({ delayMs });
  const parsed = parseTournament(text, { file: 'w.yaml' });
  if (!parsed.ok) throw new Error('bad file');
  const id = await createTournament(store, parsed.spec, text, Date.now(), [game]);
  const events: { match: string; outcome: string }[] = [];
  const workers: { stop: AbortController; done: Promise<void>; lock: LifeLock | null }[] = [];
  const worker = async (name: string, extra: Partial<WorkerOptions> = {}) => {
    const stop = new AbortController();
    const lock = await LifeLock.take(PG_URL, `worker:${name}`, () => undefined);
    const done = runWorker({
      store,
      queue,
      worker: name,
      games: [game],
      concurrency: 1,
      workDir: dir,
      log: silentLogger,
      signal: stop.signal,
      pollMs: 20,
      statusMs: 100,
      onMatch: (e) => events.push({ match: e.match, outcome: e.outcome }),
      ...extra,
    });
    workers.push({ stop, done, lock });
  };
  const close = async () => {
    for (const w of workers) w.stop.abort();
    for (const w of workers) {
      await w.done;
      await w.lock?.release();
    }
    await queue.close();
    await store.close();
  };
  return { store, queue, game, id, events, worker, close };
}

const until = async <T>(probe: () => Promise<T | undefined> | T | undefined): Promise<T> => {
  const end = Date.now() + 20_000;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('spielhalle worker', () => {
  it('discards a result that comes in after the match was taken over, and marks its record so', async () => {
    const t = await setup(file('  - { name: a, bot: fixed, options: { strength: 1 } }\n  - { name: b, bot: fixed, options: { strength: 2 } }\n'), 400);
    try {
      await t.store.setTournamentStatus(t.id, 'running', Date.now());
      const matches = await t.store.listTournamentMatches(t.id);
      await t.queue.enqueue('dame', t.id, [matches[0]!.id], { leaseSeconds: 60, retryLimit: 2 });
      await t.worker('slow-host:1:aaaaaa');
      const m = await until(async () => (await t.store.listTournamentMatches(t.id, { status: 'running' }))[0]);
      expect(m.worker).toBe('slow-host:1:aaaaaa');
      // Presumed dead, the match goes to another worker while the first still plays it.
      const taken = await t.store.claimTournamentMatch(t.id, m.id, Date.now(), 'other-host:2:bbbbbb');
      expect(taken).toEqual({ worker: 'other-host:2:bbbbbb', attempt: 2 });
      await until(() => (t.events.some((e) => e.outcome === 'discarded') ? true : undefined));
      const row = await t.store.getTournamentMatch(t.id, m.id);
      expect(row).toMatchObject({ status: 'running', worker: 'other-host:2:bbbbbb', attempts: 2, records: [] });
      const [record] = await t.store.listMatches({ game: 'dame', limit: 1 });
      // The note is added after the match (it does not hold up the next one).
      const detail = await until(async () => {
        const d = await t.store.getMatch(record!.id);
        return d !== null && d.events.length === 4 ? d : undefined;
      });
      // It did not count: discarded, and its record superseded (issue 31).
      expect(detail.events.map((e) => e.type)).toEqual(['move', 'tournament', 'discarded', 'superseded']);
      // Read again: getMatch reads the row before the events, so the first read may predate the mark.
      expect((await t.store.getMatch(record!.id))?.status).toBe('superseded');
      expect(detail.events[1]?.data).toEqual({ tournament: t.id, match: m.id, worker: 'slow-host:1:aaaaaa', attempt: 1 });
      expect(detail.events[2]?.data).toMatchObject({ worker: 'slow-host:1:aaaaaa', attempt: 1 });
    } finally {
      await t.close();
    }
  });

  it('retries a match whose arena threw on another try, and fails the tournament when every try fails', async () => {
    const flaky = await setup(file('  - { name: a, bot: fixed, options: { strength: 1 } }\n  - { name: f, bot: flaky, options: { fails: 1 } }\n'), 0);
    try {
      await flaky.worker('w1:1:cccccc');
      const outcome = await runQueuedTournament(flaky.store, flaky.id, { queue: flaky.queue, url: PG_URL, log: silentLogger, games: [flaky.game], pollMs: 20, healMs: 100 });
      expect(outcome).toBe('finished');
      const rows = await flaky.store.listTournamentMatches(flaky.id);
      expect(rows.map((r) => [r.status, r.attempts])).toEqual([
        ['done', 2],
        ['done', 2],
      ]);
      expect(flaky.events.filter((e) => e.outcome === 'failed')).toHaveLength(2);
    } finally {
      await flaky.close();
    }

    const broken = await setup(file('  - { name: a, bot: fixed, options: { strength: 1 } }\n  - { name: x, bot: buggy }\n'), 0);
    try {
      await broken.worker('w2:1:dddddd');
      const outcome = await runQueuedTournament(broken.store, broken.id, {
        queue: broken.queue,
        url: PG_URL,
        log: silentLogger,
        games: [broken.game],
        pollMs: 20,
        healMs: 100,
        retryLimit: 1,
      });
      expect(outcome).toBe('failed');
      const t = await broken.store.getTournament(broken.id);
      expect(t?.note).toMatch(/^match \d-\d failed all its tries: match \d-\d \((a vs x|x vs a)\) failed on w2:1:dddddd: x broke the arena$/);
      // What waited was cancelled: nothing of it is left for the workers.
      expect(await broken.queue.jobsOf('dame', broken.id, ['created', 'retry'])).toEqual([]);
    } finally {
      await broken.close();
    }
  });

  it('`spielhalle worker` opens its arenas in the settings\' tournaments.ports, or in the range a tournament file names (issue #33)', async () => {
    const schema = `${RUN}_${schemas.length}`;
    schemas.push(schema);
    const store = await PgRecordStore.open({ url: PG_URL, schema, mode: 'serve' });
    const queue = await MatchQueue.open({ url: PG_URL, schema: jobsSchema(schema) }, ['dame']);
    const opened: (PortRange | null | undefined)[] = [];
    const game = fakeGame({ onOpen: ({ ports }) => opened.push(ports) });
    const entrants = '  - { name: a, bot: fixed, options: { strength: 1 } }\n  - { name: b, bot: fixed, options: { strength: 2 } }\n';
    const matches: { id: string; match: string }[] = [];
    for (const text of [file(entrants), `ports: "41900-41909"\n${file(entrants)}`]) {
      const parsed = parseTournament(text, { file: 'w.yaml' });
      if (!parsed.ok) throw new Error('bad file');
      const id = await createTournament(store, parsed.spec, text, Date.now(), [game]);
      await store.setTournamentStatus(id, 'running', Date.now());
      const [m] = await store.listTournamentMatches(id);
      await queue.enqueue('dame', id, [m!.id], { leaseSeconds: 60, retryLimit: 0 });
      matches.push({ id, match: m!.id });
    }
    const config = join(dir, 'ports.json');
    writeFileSync(config, JSON.stringify({ database: { schema }, tournaments: { ports: '41800-41899' } }));
    useTournamentGames([game]);
    const before = new Set(process.listeners('SIGINT'));
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    let run: Promise<number> | null = null;
    try {
      run = main(['node', 'spielhalle', '--config', config, '--data-dir', dir, 'worker', '--database', PG_URL, '--concurrency', '1']);
      await until(async () => {
        for (const { id, match } of matches) if ((await store.getTournamentMatch(id, match))?.status !== 'done') return undefined;
        return true;
      });
    } finally {
      // The worker's own Ctrl-C handler, called directly (other SIGINT listeners of this process stay out of it).
      for (const l of process.listeners('SIGINT')) if (!before.has(l)) l('SIGINT');
      const code = await run;
      err.mockRestore();
      process.exitCode = undefined;
      useTournamentGames(GAMES);
      await queue.close();
      await store.close();
      expect(code).toBe(130);
    }
    // One arena per range: the settings' for the tournament without ports, the file's for the other.
    expect(opened).toHaveLength(2);
    expect(opened).toEqual(expect.arrayContaining([{ from: 41800, to: 41899 }, { from: 41900, to: 41909 }]));
  });

  it('refuses a second coordinator of the same tournament', async () => {
    const t = await setup(file('  - { name: a, bot: fixed, options: { strength: 1 } }\n  - { name: b, bot: fixed, options: { strength: 2 } }\n'), 50);
    try {
      const stop = new AbortController();
      let started!: () => void;
      const first = new Promise<void>((r) => (started = r));
      const run = runQueuedTournament(t.store, t.id, { queue: t.queue, url: PG_URL, log: silentLogger, games: [t.game], signal: stop.signal, onStarted: started });
      await first;
      await expect(runQueuedTournament(t.store, t.id, { queue: t.queue, url: PG_URL, log: silentLogger, games: [t.game] })).rejects.toThrow(
        /is coordinated by another process already/,
      );
      stop.abort();
      expect(await run).toBe('stopped');
      expect(await t.queue.jobsOf('dame', t.id, ['created', 'retry'])).toEqual([]);
      expect((await t.queue.jobsOf('dame', t.id, ['cancelled'])).length).toBe(2);
    } finally {
      await t.close();
    }
  });
});
