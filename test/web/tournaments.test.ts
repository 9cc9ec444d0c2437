import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config.js';
import { ConfigError } from '../../src/core/config.js';
import { silentLogger } from '../../src/core/log.js';
import { RecordStore } from '../../src/core/records.js';
import { PgRecordStore } from '../../src/core/records-pg.js';
import { jobsSchema, LifeLock, MatchQueue } from '../../src/tournament/queue.js';
import { runWorker } from '../../src/tournament/worker.js';
import { createWebServer, type WebServer } from '../../src/web/server.js';
import type {
  EntrantView,
  ProgramView,
  TournamentErrors,
  TournamentHistory,
  TournamentMatchView,
  TournamentOptions,
  TournamentSummary,
  TournamentView,
} from '../../src/web/tournament-api.js';
import { fakeGame } from '../fixtures/tournament/fake-game.js';
import { FakeGameServer } from './fixtures.js';

/**
 * The dashboard's tournament API over fastify inject, with the coordinator's fake 2-player game
 * (standing in for Dame): create from JSON with our bots and a registered program (a real process
 * in the sandbox that writes to stderr and fails), watch it finish, read standings, history, the
 * entrant's captured output and the exports; stop and resume; errors per line; the token.
 */

const CRASHER = `node -e "process.stderr.write('kaputt: no move\\\\n'); process.stdout.write('hello'); process.exit(3)"`;

describe('tournament API', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spielhalle-tournaments-'));
  let store: RecordStore;
  let web: WebServer;
  let game = fakeGame();

  const open = (options: { delayMs?: number; requireToken?: boolean } = {}) => {
    store = new RecordStore(':memory:');
    game = fakeGame({ delayMs: options.delayMs ?? 0 });
    web = createWebServer({
      servers: [new FakeGameServer('dame', {})],
      store,
      log: silentLogger,
      host: '127.0.0.1',
      port: 0,
      ...(options.requireToken ? { requireToken: true, token: 'a-test-token-0123456789' } : {}),
      tournaments: {
        dataDir: dir,
        games: [game],
        programs: [
          { name: 'crasher', game: 'dame', command: CRASHER, limits: { wallSeconds: 20 } },
          { name: 'other-game', game: 'mia', command: 'true' },
        ],
      },
    });
  };

  const get = async <T>(url: string) => {
    const res = await web.app.inject({ method: 'GET', url });
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json<T>();
  };
  const post = (url: string, payload: unknown = {}, headers: Record<string, string> = {}) =>
    web.app.inject({ method: 'POST', url, payload: payload as object, headers });

  const waitFor = async (id: string, status: string, timeoutMs = 15_000) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const view = await get<TournamentView>(`/api/tournaments/${id}`);
      if (view.status === status && !view.live) return view;
      if (Date.now() > until) throw new Error(`${id} is ${view.status}, not ${status}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  const strong = (name: string, strength: number) => ({ name, bot: 'fixed', options: { strength } });

  afterEach(async () => {
    await web.stop();
    store.close();
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('creates and runs a tournament, with standings, history, matches, entrant output and exports', async () => {
    open();
    const options = await get<TournamentOptions>('/api/tournaments/options');
    expect(options.games).toEqual([
      {
        game: 'dame',
        formats: ['round-robin', 'swiss'],
        bots: expect.arrayContaining([{ name: 'fixed', description: 'plays at option strength' }]) as unknown,
      },
    ]);
    // Registered programs by game, never with their command.
    expect(await get<ProgramView[]>('/api/tournaments/programs?game=dame')).toEqual([
      { name: 'crasher', game: 'dame' },
    ]);
    expect(JSON.stringify(await get('/api/tournaments/programs'))).not.toContain('node');

    const res = await post('/api/tournaments', {
      name: 'Kurs',
      game: 'dame',
      format: 'round-robin',
      gamesPerPairing: 2,
      seed: 7,
      parallel: 2,
      entrants: [strong('stark', 3), strong('mittel', 2), { program: 'crasher' }],
    });
    expect(res.statusCode, res.body).toBe(201);
    const { id } = res.json<{ id: string }>();
    expect(id).toMatch(/^t-\d{8}-\d{6}-dame/);

    const view = await waitFor(id, 'finished');
    expect(view.progress).toMatchObject({ done: 6, total: 6 });
    expect(view.standings.rows.map((r) => r.name)).toEqual(['stark', 'mittel', 'crasher']);
    expect(view.standings.rows.find((r) => r.name === 'crasher')).toMatchObject({
      games: 4,
      losses: 4,
      crashes: 4,
    });
    expect(view.entrants).toEqual([
      { name: 'stark', kind: 'bot', bot: 'fixed', options: { strength: 3 } },
      { name: 'mittel', kind: 'bot', bot: 'fixed', options: { strength: 2 } },
      { name: 'crasher', kind: 'program' },
    ]);
    // The command line never leaves the server.
    expect(JSON.stringify(view)).not.toContain('kaputt');

    const list = await get<TournamentSummary[]>('/api/tournaments');
    expect(list).toMatchObject([
      { id, name: 'Kurs', status: 'finished', done: 6, total: 6, leader: 'stark', live: false },
    ]);
    expect(list[0]).not.toHaveProperty('spec');

    const matches = await get<TournamentMatchView[]>(`/api/tournaments/${id}/matches`);
    expect(matches).toHaveLength(6);
    for (const m of matches) {
      expect(m.status).toBe('done');
      expect(m.records).toHaveLength(1);
      expect(store.getMatch(m.records[0]!)?.status).toBe('finished');
    }

    const history = await get<TournamentHistory>(`/api/tournaments/${id}/history`);
    expect(history.method).toBe('bradley-terry');
    expect(history.points.map((p) => p.done)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(history.points[0]!.ratings).toEqual({ stark: 1500, mittel: 1500, crasher: 1500 });
    const last = history.points.at(-1)!.ratings;
    expect(last.stark).toBeCloseTo(view.standings.rows[0]!.rating, 6);

    const entrant = await get<EntrantView>(`/api/tournaments/${id}/entrants/crasher`);
    expect(entrant.matches).toHaveLength(4);
    for (const m of entrant.matches) {
      expect(m.result).toMatchObject({ crashed: true, outcome: 'loss', note: 'exited with an error' });
      expect(m.output).toMatchObject({ stderr: 'kaputt: no move\n', stdout: 'hello', exit: { code: 3 } });
    }
    const bot = await get<EntrantView>(`/api/tournaments/${id}/entrants/stark`);
    expect(bot.row).toMatchObject({ rank: 1, wins: 4 });
    expect(bot.matches.every((m) => m.output === null)).toBe(true);
    expect((await web.app.inject(`/api/tournaments/${id}/entrants/nobody`)).statusCode).toBe(404);

    const csv = await web.app.inject(`/api/tournaments/${id}/export.csv?kind=standings`);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.headers['content-disposition']).toBe(`attachment; filename="${id}-standings.csv"`);
    expect(csv.body.split('\r\n')[1]).toMatch(/^1,stark,/);
    const matchCsv = await web.app.inject(`/api/tournaments/${id}/export.csv?kind=matches`);
    expect(matchCsv.body.trim().split('\r\n')).toHaveLength(7);
    expect(matchCsv.body).toContain(`/matches/${matches[0]!.records[0]!}`);
    const json = await web.app.inject(`/api/tournaments/${id}/export.json`);
    expect(json.headers['content-disposition']).toBe(`attachment; filename="${id}.json"`);
    expect(json.json<{ rows: unknown[]; matches: unknown[] }>()).toMatchObject({ method: 'bradley-terry' });
    expect(json.json<{ matches: unknown[] }>().matches).toHaveLength(6);

    expect((await web.app.inject('/api/tournaments/t-none')).statusCode).toBe(404);
    expect((await post(`/api/tournaments/${id}/resume`)).statusCode).toBe(409);
  });

  it('answers a bad tournament with every problem, one line each', async () => {
    open();
    const res = await post('/api/tournaments', {
      name: 'Falsch',
      game: 'dame',
      format: 'tables',
      gamesPerPairing: 3,
      entrants: [strong('a', 1), { name: 'b', bot: 'nope' }, { program: 'other-game' }, strong('a', 2)],
    });
    expect(res.statusCode).toBe(400);
    const body = res.json<TournamentErrors>();
    const lines = body.errors.map((e) => e.line);
    expect(lines).toContain('entrants[1].bot: unknown fake bot "nope"');
    expect(lines).toContain('entrants[2].program: no registered dame program other-game');
    // The tournament file's own checks, each at its field's path (the form shows it there, issue #33).
    expect(lines).toContain('format: dame cannot be played as tables (allowed: round-robin, swiss)');
    expect(lines).toContain('entrants[3].name: duplicate name a (also entrants[0])');
    expect(lines.some((l) => /tournament\.json:\d+/.test(l))).toBe(false);
    expect(body.errors.find((e) => e.path === 'gamesPerPairing')?.message).toBe('not used by tables');
    expect(await get<unknown[]>('/api/tournaments')).toEqual([]);

    const shape = await post('/api/tournaments', {
      name: 'x',
      game: 'dame',
      format: 'round-robin',
      entrants: [{ command: 'rm -rf /' }],
    });
    expect(shape.statusCode).toBe(400);
    expect(shape.json<TournamentErrors>().errors.length).toBeGreaterThan(0);
    const noGame = await post('/api/tournaments', {
      name: 'x',
      game: 'catan',
      format: 'seatings',
      entrants: [],
    });
    expect(noGame.json<TournamentErrors>().errors.map((e) => e.line)).toContain(
      'game: catan cannot be played in a tournament here',
    );
  });

  it('stops a running tournament and resumes it to the end, no match played twice', async () => {
    open({ delayMs: 150 });
    const res = await post('/api/tournaments', {
      name: 'Lang',
      game: 'dame',
      format: 'round-robin',
      gamesPerPairing: 4,
      parallel: 2,
      entrants: [strong('a', 1), strong('b', 2), strong('c', 3)],
    });
    const { id } = res.json<{ id: string }>();
    const running = await get<TournamentView>(`/api/tournaments/${id}`);
    expect(running).toMatchObject({ status: 'running', live: true, resumable: false });
    await new Promise((r) => setTimeout(r, 400));
    const stopped = await post(`/api/tournaments/${id}/stop`);
    expect(stopped.statusCode, stopped.body).toBe(200);
    const view = await get<TournamentView>(`/api/tournaments/${id}`);
    expect(view).toMatchObject({ status: 'stopped', live: false, resumable: true });
    expect(view.progress.done).toBeGreaterThan(0);
    expect(view.progress.done).toBeLessThan(12);
    const doneBefore = (await get<TournamentMatchView[]>(`/api/tournaments/${id}/matches?status=done`)).map(
      (m) => m.id,
    );
    expect((await post(`/api/tournaments/${id}/stop`)).statusCode).toBe(409);

    expect((await post(`/api/tournaments/${id}/resume`)).statusCode).toBe(200);
    const finished = await waitFor(id, 'finished');
    expect(finished.progress).toMatchObject({ done: 12, total: 12 });
    expect(finished.standings.rows.map((r) => r.name)).toEqual(['c', 'b', 'a']);
    // Each match played once to its end: the ones done before the stop were not played again.
    const played = game.plays.map((p) => p.slice(id.length + 1));
    for (const m of doneBefore) expect(played.filter((p) => p === m)).toHaveLength(1);
  });

  it('offers the archive, archives and deletes only with the id typed back, and its records then say why they are gone (issue 37)', async () => {
    open();
    const res = await post('/api/tournaments', { name: 'Note', game: 'dame', format: 'round-robin', entrants: [strong('a', 1), strong('b', 2)] });
    const { id } = res.json<{ id: string }>();
    await waitFor(id, 'finished');
    const records = (await get<TournamentMatchView[]>(`/api/tournaments/${id}/matches`)).flatMap((m) => m.records);
    expect(records).toHaveLength(2);

    const download = await web.app.inject(`/api/tournaments/${id}/archive`);
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-disposition']).toBe(`attachment; filename="${id}.tournament.jsonl.gz"`);
    const { gunzipSync } = await import('node:zlib');
    const lines = gunzipSync(download.rawPayload).toString('utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { kind: string });
    expect(lines.map((l) => l.kind)).toEqual(['header', 'match', 'match', 'record', 'record', 'end']);
    expect((await web.app.inject('/api/tournaments/t-none/archive')).statusCode).toBe(404);

    // Without the id typed back: nothing happens.
    expect((await post(`/api/tournaments/${id}/archive`)).statusCode).toBe(400);
    expect((await post(`/api/tournaments/${id}/delete`, { confirm: 'yes' })).statusCode).toBe(400);
    expect((await get<TournamentView>(`/api/tournaments/${id}`)).archivedAt).toBeNull();
    const archived = await post(`/api/tournaments/${id}/archive`, { confirm: id });
    expect(archived.statusCode, archived.body).toBe(200);
    expect(archived.json()).toMatchObject({ id, file: join(dir, 'archives', `${id}.tournament.jsonl.gz`), matches: 2, records: 2, missing: 0 });
    expect((await get<TournamentView>(`/api/tournaments/${id}`)).archivedAt).toEqual(expect.any(Number));

    const deleted = await post(`/api/tournaments/${id}/delete`, { confirm: id });
    expect(deleted.json()).toEqual({ id, records: 2 });
    expect((await web.app.inject(`/api/tournaments/${id}`)).statusCode).toBe(404);
    const gone = await web.app.inject(`/api/matches/${records[0]}?wire=0`);
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toMatchObject({ error: `no match with id ${records[0]}`, pruned: { reason: 'tournament deleted', tournamentId: id, exact: true } });
    expect(await get(`/api/matches/${records[1]}/pruned`)).toMatchObject({ pruned: { reason: 'tournament deleted', tournamentId: id } });
    expect(await get('/api/matches/dame-nothing/pruned')).toEqual({ pruned: null });
  });

  it('needs the dashboard token to create, stop or resume when it listens beyond loopback', async () => {
    open({ requireToken: true });
    const body = {
      name: 'T',
      game: 'dame',
      format: 'round-robin',
      entrants: [strong('a', 1), strong('b', 2)],
    };
    expect((await post('/api/tournaments', body)).statusCode).toBe(401);
    expect((await post('/api/tournaments/x/stop')).statusCode).toBe(401);
    expect((await post('/api/tournaments/x/delete', { confirm: 'x' })).statusCode).toBe(401);
    expect((await post('/api/tournaments/x/archive', { confirm: 'x' })).statusCode).toBe(401);
    expect((await web.app.inject('/api/tournaments')).statusCode).toBe(200);
    const ok = await post('/api/tournaments', body, { authorization: 'Bearer a-test-token-0123456789' });
    expect(ok.statusCode).toBe(201);
    await waitFor(ok.json<{ id: string }>().id, 'finished');
  });

  it('reads registered programs from the settings file, and nothing else about them', () => {
    web = createWebServer({
      servers: [],
      store: (store = new RecordStore(':memory:')),
      log: silentLogger,
      host: '127.0.0.1',
      port: 0,
    });
    const file = join(dir, 'spielhalle.config.json');
    const program = {
      name: 'anna',
      game: 'dame',
      command: 'java -jar a.jar -g {gameId}',
      limits: { memoryMb: 512 },
    };
    writeFileSync(file, JSON.stringify({ tournaments: { programs: [program] } }));
    expect(loadSettings({ file, env: {} }).config.tournaments.programs).toEqual([program]);
    expect(loadSettings({ env: {}, cwd: join(dir, 'nowhere') }).config.tournaments.programs).toEqual([]);
    writeFileSync(
      file,
      JSON.stringify({
        tournaments: { programs: [{ name: 'anna', game: 'dame', command: 'x', shell: true }] },
      }),
    );
    expect(() => loadSettings({ file, env: {} })).toThrow(ConfigError);
    writeFileSync(
      file,
      JSON.stringify({ tournaments: { programs: [{ name: 'an na', game: 'dame', command: 'x' }] } }),
    );
    expect(() => loadSettings({ file, env: {} })).toThrow(/tournaments\.programs\.0\.name/);
  });
});

/**
 * Records in PostgreSQL (issue #19): a tournament created on the dashboard is queued, a worker
 * (here in this process) plays it, and the dashboard shows who plays each running match with a
 * link to watch its record; a stop from the dashboard cancels what waits, a resume queues it again.
 */
describe('tournament API with the records in PostgreSQL and a worker', () => {
  const PG_URL = process.env.SPIELHALLE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `webq_${process.pid}_${Date.now().toString(36)}`;
  const dir = mkdtempSync(join(tmpdir(), 'spielhalle-tournaments-pg-'));

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.query(`DROP SCHEMA IF EXISTS ${jobsSchema(schema)} CASCADE`);
    await client.end();
  });

  it('queues a dashboard tournament for workers, shows each running match on its worker with a live record, stops and resumes it', async () => {
    const store = await PgRecordStore.open({ url: PG_URL, schema, mode: 'serve' });
    const game = fakeGame({ delayMs: 300 });
    const web = createWebServer({
      servers: [new FakeGameServer('dame', {})],
      store,
      log: silentLogger,
      host: '127.0.0.1',
      port: 0,
      tournaments: { dataDir: dir, games: [game], queue: { url: PG_URL, schema } },
    });
    const queue = await MatchQueue.open({ url: PG_URL, schema: jobsSchema(schema) }, ['dame']);
    const stopWorker = new AbortController();
    const worker = 'test-host:1:abcdef';
    const lock = await LifeLock.take(PG_URL, `worker:${worker}`, () => undefined);
    const working = runWorker({ store, queue, worker, games: [game], concurrency: 2, workDir: dir, log: silentLogger, signal: stopWorker.signal, pollMs: 50 });
    const get = async <T>(url: string) => {
      const res = await web.app.inject({ method: 'GET', url });
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
      return res.json<T>();
    };
    const post = (url: string) => web.app.inject({ method: 'POST', url, payload: {} });
    try {
      const created = await web.app.inject({
        method: 'POST',
        url: '/api/tournaments',
        payload: {
          name: 'Verteilt',
          game: 'dame',
          format: 'round-robin',
          gamesPerPairing: 2,
          entrants: [1, 2, 3, 4].map((n) => ({ name: `s${n}`, bot: 'fixed', options: { strength: n } })),
        },
      });
      expect(created.statusCode, created.body).toBe(201);
      const { id } = created.json<{ id: string }>();
      const until = async <T>(probe: () => Promise<T | undefined>): Promise<T> => {
        const end = Date.now() + 20_000;
        for (;;) {
          const v = await probe();
          if (v !== undefined) return v;
          if (Date.now() > end) throw new Error('timed out');
          await new Promise((r) => setTimeout(r, 25));
        }
      };
      const running = await until(async () =>
        (await get<TournamentMatchView[]>(`/api/tournaments/${id}/matches?status=running`)).find((m) => m.records.length > 0),
      );
      expect(running.worker).toBe(worker);
      const live = await get<{ status: string; meta: unknown }>(`/api/matches/${running.records[0]}?wire=0`);
      expect(live).toMatchObject({ status: 'running', meta: { tournamentMatch: `${id}/${running.id}` } });

      // Stopped from the dashboard: the worker cuts off what it plays, nothing more is played.
      expect((await post(`/api/tournaments/${id}/stop`)).statusCode).toBe(200);
      await until(async () => ((await get<TournamentMatchView[]>(`/api/tournaments/${id}/matches?status=running`)).length === 0 ? true : undefined));
      const stopped = await get<TournamentView>(`/api/tournaments/${id}`);
      expect(stopped).toMatchObject({ status: 'stopped', resumable: true });
      expect(stopped.progress.done).toBeLessThan(12);
      const played = game.plays.length;
      await new Promise((r) => setTimeout(r, 400));
      expect(game.plays.length).toBe(played);

      expect((await post(`/api/tournaments/${id}/resume`)).statusCode).toBe(200);
      const finished = await until(async () => {
        const v = await get<TournamentView>(`/api/tournaments/${id}`);
        return v.status === 'finished' ? v : undefined;
      });
      expect(finished.progress).toMatchObject({ done: 12, total: 12 });
      expect(finished.standings.rows.map((r) => r.name)).toEqual(['s4', 's3', 's2', 's1']);
      const matches = await get<TournamentMatchView[]>(`/api/tournaments/${id}/matches`);
      expect(matches.every((m) => m.status === 'done' && m.worker === worker && m.records.length === 1)).toBe(true);
    } finally {
      stopWorker.abort();
      await working;
      await lock?.release();
      await queue.close();
      await web.stop();
      await store.close();
    }
  }, 60_000);
});
