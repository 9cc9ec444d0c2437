import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/log.js';
import { RecordStore } from '../../src/core/records.js';
import { PgRecordStore } from '../../src/core/records-pg.js';
import { createTournament, runTournament, tournamentStandings } from '../../src/tournament/coordinator.js';
import { parseTournament } from '../../src/tournament/file.js';
import { jobsSchema } from '../../src/tournament/queue.js';
import type { Standings } from '../../src/tournament/standings.js';

/**
 * Issue #19 end to end: one coordinator and three `spielhalle worker` processes on this machine
 * play a 10-entrant Dame round robin and a 10-entrant Mia tables tournament through the queue in
 * PostgreSQL (127.0.0.1:5432, database `test`, a schema of its own). One worker is killed with -9
 * while it plays a Dame match, and the Dame coordinator is killed with -9 halfway and started
 * again with `tournament resume`. Both tournaments must finish with every match recorded exactly
 * once (the killed worker's attempt not counted), the killed match played again by another
 * worker, and the same standings as the same tournaments played on one machine with SQLite.
 */

const PG_URL = process.env.SPIELHALLE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SCHEMA = `dist_${process.pid}_${Date.now().toString(36)}`;
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tsx = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const cliScript = join(root, 'src', 'cli.ts');
const work = mkdtempSync(join(tmpdir(), 'spielhalle-dist-'));
const children: ChildProcess[] = [];

const DAME = `name: Dame-10
game: dame
format: round-robin
gamesPerPairing: 2
moveTime: 2
parallel: 12
seed: 11
entrants:
${['d2a:depth2:1', 'd2b:depth2:2', 'd2c:depth2:3', 'gra:greedy:1', 'grb:greedy:2', 'grc:greedy:3', 'rna:random:1', 'rnb:random:2', 'rnc:random:3', 'rnd:random:4']
  .map((e) => e.split(':'))
  .map(([name, bot, seed]) => `  - { name: ${name}, bot: ${bot}, options: { seed: ${seed} } }`)
  .join('\n')}
`;

const MIA = `name: Mia-10
game: mia
format: tables
tableSize: 4
rounds: 4
gamesPerTable: 30
moveTime: 2
parallel: 12
seed: 12
entrants:
${['ra:random:1', 'rb:random:2', 'ha:honest:1', 'hb:honest:2', 'pa:probabilistic:1', 'pb:probabilistic:2', 'pc:probabilistic:3', 'aa:adaptive:1', 'ab:adaptive:2', 'ac:adaptive:3']
  .map((e) => e.split(':'))
  .map(([name, bot, seed]) => `  - { name: ${name}, bot: ${bot}, options: { seed: ${seed} } }`)
  .join('\n')}
`;

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
  if (process.env.KEEP_SCHEMA === '1') return;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await client.query(`DROP SCHEMA IF EXISTS ${jobsSchema(SCHEMA)} CASCADE`);
  await client.end();
});

interface Proc {
  child: ChildProcess;
  exit: Promise<number | null>;
  err: () => string;
}

function cli(args: string[], dataDir: string): Proc {
  const child = spawn(process.execPath, ['--import', tsx, cliScript, '--data-dir', dataDir, ...args], {
    env: { ...process.env, SPIELHALLE_DATABASE_URL: PG_URL, SPIELHALLE_DATABASE_SCHEMA: SCHEMA },
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: work,
  });
  children.push(child);
  let err = '';
  child.stdout.on('data', () => undefined);
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exit, err: () => err };
}

function collect(p: Proc): () => string {
  let out = '';
  p.child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  return () => out;
}

async function until<T>(what: string, probe: () => T | null | undefined | false | Promise<T | null | undefined | false>, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== null && v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** What must be the same on one machine and on many: everything but the order-dependent Elo/OpenSkill drift. */
function comparable(s: Standings, withRating: boolean) {
  return s.rows
    .map((r) => ({
      name: r.name,
      games: r.games,
      wins: r.wins,
      draws: r.draws,
      losses: r.losses,
      placings: r.placings,
      points: r.points,
      crashes: r.crashes,
      timeouts: r.timeouts,
      ...(withRating ? { rating: Math.round(r.rating) } : {}),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

async function singleMachine(text: string): Promise<Standings> {
  const parsed = parseTournament(text, { file: 't.yaml' });
  if (!parsed.ok) throw new Error('bad tournament file');
  const dir = mkdtempSync(join(work, 'single-'));
  const store = new RecordStore(join(dir, 'records.db'), { mode: 'write' });
  try {
    const id = await createTournament(store, parsed.spec, text);
    const outcome = await runTournament(store, id, { log: createLogger({ level: 'silent' }), workDir: dir });
    expect(outcome).toBe('finished');
    return await tournamentStandings(store, id);
  } finally {
    store.close();
  }
}

describe('a tournament on PostgreSQL played by worker processes (issue #19)', () => {
  it('survives a worker and a coordinator killed with -9, records every match once and ranks as one machine does', async () => {
    writeFileSync(join(work, 'dame.yaml'), DAME);
    writeFileSync(join(work, 'mia.yaml'), MIA);
    // The same tournaments on one machine with SQLite, meanwhile.
    const reference = Promise.all([singleMachine(DAME), singleMachine(MIA)]);

    const workers = [1, 2, 3].map((n) => cli(['worker', '--concurrency', '4', '--games', 'dame,mia'], join(work, `w${n}`)));
    await until('three workers ready', () => workers.every((w) => /^worker \S+: mia, dame, 4 at a time/m.test(w.err()))).catch((err: unknown) => {
      throw new Error(`${String(err)}:\n${workers.map((w) => w.err()).join('\n')}`);
    });
    const dameRun = cli(['tournament', 'run', 'dame.yaml'], join(work, 'c'));
    const miaRun = cli(['tournament', 'run', 'mia.yaml'], join(work, 'c'));
    const idOf = (p: Proc) => until('a tournament id', () => /^tournament (t-\S+):/m.exec(p.err())?.[1]);
    const [dameId, miaId] = await Promise.all([idOf(dameRun), idOf(miaRun)]);

    const store = await PgRecordStore.open({ url: PG_URL, schema: SCHEMA, mode: 'read' });
    try {
      // A worker killed with -9 in the middle of a Dame match.
      const victim = await until('a running Dame match of a worker', async () => {
        const running = await store.listTournamentMatches(dameId, { status: 'running' });
        const done = (await store.getTournament(dameId))?.done ?? 0;
        if (done < 5) return null;
        for (const m of running) {
          const pid = Number(m.worker?.split(':')[1]);
          const w = workers.find((x) => x.child.pid === pid);
          if (w) return { match: m.id, worker: m.worker as string, proc: w };
        }
        return null;
      });
      victim.proc.child.kill('SIGKILL');
      expect(await victim.proc.exit).toBeNull();

      // The Dame coordinator killed with -9 halfway, then resumed.
      await until('half the Dame matches', async () => ((await store.getTournament(dameId))?.done ?? 0) >= 45);
      dameRun.child.kill('SIGKILL');
      await dameRun.exit;
      const resumed = cli(['tournament', 'resume', dameId], join(work, 'c'));
      const ended = async (p: Proc, what: string) => {
        const code = await Promise.race([p.exit, new Promise<'late'>((r) => setTimeout(() => r('late'), 150_000))]);
        if (code === 'late') {
          const left = await store.listTournamentMatches(what === 'dame' ? dameId : miaId, { status: 'running' });
          throw new Error(`the ${what} coordinator did not end; running: ${JSON.stringify(left.map((m) => [m.id, m.worker]))}\n${p.err()}\n${workers.map((w) => w.err()).join('\n')}`);
        }
        return code;
      };
      expect(await ended(resumed, 'dame'), resumed.err()).toBe(0);
      expect(await ended(miaRun, 'mia'), miaRun.err()).toBe(0);
      expect(resumed.err()).toMatch(/^\[90\/90\] /m);

      // The workers left stop on SIGTERM (idle now; what they still note on records is written first).
      const alive = workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null);
      expect(alive).toHaveLength(2);
      for (const w of alive) w.child.kill('SIGTERM');
      for (const w of alive) expect(await w.exit).toBe(130);

      const [dameRef, miaRef] = await reference;
      for (const [id, ref, rating] of [
        [dameId, dameRef, true],
        [miaId, miaRef, false],
      ] as const) {
        const t = await store.getTournament(id);
        expect(t).toMatchObject({ status: 'finished' });
        expect(t?.done).toBe(t?.total);
        const matches = await store.listTournamentMatches(id);
        expect(matches.every((m) => m.status === 'done')).toBe(true);
        // Each match's result comes from its own finished game records (a Mia table: one per round),
        // the first of which names the worker and attempt that counted.
        const records = matches.flatMap((m) => m.records);
        expect(new Set(records).size).toBe(records.length);
        for (const m of matches) {
          const tagged = [];
          for (const r of m.records) {
            const detail = await store.getMatch(r);
            expect(detail?.status, `${m.id}: ${r}`).toBe('finished');
            tagged.push(...(detail?.events ?? []).filter((e) => e.type === 'tournament'));
          }
          expect(tagged.map((e) => e.data)).toEqual([{ tournament: id, match: m.id, worker: m.worker, attempt: m.attempts }]);
        }
        expect(comparable(await tournamentStandings(store, id), rating)).toEqual(comparable(ref, rating));
      }
      // The killed worker's match was played again, by another worker.
      const again = await store.getTournamentMatch(dameId, victim.match);
      expect(again?.worker).not.toBe(victim.worker);
      expect(again?.attempts).toBeGreaterThanOrEqual(2);
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      // The killed attempt's game record is marked: aborted when the kill cut its game off,
      // superseded when its game had ended before the kill; the one that counts is finished.
      const attempts = await client.query<{ id: string; status: string; reason: string | null }>(
        `SELECT id, status, result::jsonb->>'reason' AS reason FROM ${SCHEMA}.matches WHERE meta::jsonb->>'tournamentMatch' = $1 ORDER BY row_id`,
        [`${dameId}/${victim.match}`],
      );
      expect(attempts.rows.at(-1)?.status).toBe('finished');
      expect(again?.records).toEqual([attempts.rows.at(-1)?.id]);
      // (None when the worker died before its first write of that game reached the store.)
      for (const row of attempts.rows.slice(0, -1)) {
        expect(['aborted', 'superseded']).toContain(row.status);
        if (row.status === 'aborted') expect(row.reason).toBe('worker gone: the match was played again');
        else expect((await store.getMatch(row.id))?.events.map((e) => e.type)).toContain('superseded');
      }
      // Nothing of either tournament is left in the queue.
      const left = await client.query(
        `SELECT count(*)::int AS n FROM ${jobsSchema(SCHEMA)}.job WHERE data->>'tournament' = ANY($1) AND state < 'completed'`,
        [[dameId, miaId]],
      );
      await client.end();
      expect(left.rows[0]).toEqual({ n: 0 });
    } finally {
      await store.close();
    }

    // The record commands read the same records from PostgreSQL.
    const standings = cli(['tournament', 'standings', dameId], join(work, 'c'));
    const listed = cli(['matches', '--game', 'mia', '--limit', '3'], join(work, 'c'));
    const [standingsOut, listedOut] = [collect(standings), collect(listed)];
    expect(await standings.exit, standings.err()).toBe(0);
    expect(await listed.exit, listed.err()).toBe(0);
    expect(standingsOut()).toMatch(/^ ?1\s+d2/m);
    expect(listedOut().trim().split('\n')).toHaveLength(3);

  }, 300_000);
});
