// `npm run soak -- chaos` (issue #31): the chaos soak. On a PostgreSQL server of its own, a
// distributed tournament (a coordinator and 3 workers, real processes of the built CLI
// `node dist/cli.js …`, our bots as entrants) and a `serve` with house games on the same database;
// for `--minutes` (default 5) at seeded random intervals it kills -9 a worker, the coordinator or
// serve (each restarted, the coordinator with `tournament resume <id>`) and restarts PostgreSQL
// (`pg_ctl stop -m immediate`, down 2–20 s). Tournaments follow one another (Dame and Mia in turn)
// until the time is up. Then everything is let finish and an integrity report is computed by SQL
// from the database: every scheduled match counted exactly once, nothing left running or active,
// every finished record counted or superseded, no job lost, serve's matches finished or aborted.
// Exit code 1 with the list of violations if there are any.
//
//   npx tsx bench/chaos.ts [--minutes 5] [--seed N] [--keep]      (build first: npm run build)
//
// Needs /usr/lib/postgresql/*/bin (skipped with a line without it) and bubblewrap (workers refuse
// to start without boxes). `--keep` keeps the work directory (logs of every process) and prints it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { firstMatches } from '../src/tournament/coordinator.js';
import type { TournamentSpec } from '../src/tournament/file.js';
import { postgresBin, startOwnPostgres, type OwnPostgres } from '../test/support/own-postgres.js';

const root = fileURLToPath(new URL('..', import.meta.url));
/** The processes run a copy of dist/ taken at the start (`snapshot`): a rebuild meanwhile does not touch them. */
let cli = join(root, 'dist', 'cli.js');

/** dist/ and bin/ copied into `dir` (with package.json and a link to node_modules), checked to load. */
function snapshot(dir: string): string {
  mkdirSync(dir);
  cpSync(join(root, 'dist'), join(dir, 'dist'), { recursive: true });
  cpSync(join(root, 'bin'), join(dir, 'bin'), { recursive: true });
  copyFileSync(join(root, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  const entry = join(dir, 'dist', 'cli.js');
  const r = spawnSync(process.execPath, [entry, 'tournament', 'list', '--help'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`the built CLI does not load (rebuild: npm run build): ${r.stderr}`);
  return entry;
}

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const minutes = Number(flag('--minutes') ?? '5');
const seed = Number(flag('--seed') ?? String(Date.now() % 2 ** 31));
const keep = process.argv.includes('--keep');
if (!Number.isFinite(minutes) || minutes <= 0 || !Number.isInteger(seed)) {
  process.stderr.write('usage: chaos.ts [--minutes <m>] [--seed <integer>] [--keep]\n');
  process.exit(2);
}

/** mulberry32: the chaos is the seed's (the processes' own timing is not). */
function rng(s: number): () => number {
  let a = s >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = rng(seed);
const between = (lo: number, hi: number): number => lo + random() * (hi - lo);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const started = Date.now();
const say = (line: string) => process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);

const SCHEMA = 'chaos';
const JOBS = `${SCHEMA}_pgboss`;
/** A job nobody reports on for this long is retried by pg-boss (matches here take seconds). */
const LEASE_SECONDS = 45;
const WORKERS = 3;

const TOURNAMENTS: Record<'dame' | 'mia', (name: string, seed: string) => string> = {
  dame: (name, s) => `name: ${name}
game: dame
format: round-robin
gamesPerPairing: 2
moveTime: 0.2
seed: ${s}
entrants:
  - { name: d1, bot: random }
  - { name: d2, bot: greedy }
  - { name: d3, bot: depth2 }
  - { name: d4, bot: random, options: { seed: 4 } }
  - { name: d5, bot: greedy, options: { seed: 5 } }
`,
  mia: (name, s) => `name: ${name}
game: mia
format: tables
tableSize: 3
rounds: 3
gamesPerTable: 10
moveTime: 0.05
seed: ${s}
entrants:
  - { name: m1, bot: random }
  - { name: m2, bot: honest }
  - { name: m3, bot: probabilistic }
  - { name: m4, bot: adaptive }
  - { name: m5, bot: random, options: { seed: 5 } }
  - { name: m6, bot: honest, options: { seed: 6 } }
`,
};

/** One kind of process under chaos: started again after each kill, its output in a log file per start. */
class Proc {
  child: ChildProcess | null = null;
  starts = 0;
  kills = 0;
  /** Set just before we kill it: its exit is then expected. */
  private killing = false;
  private exited: Promise<void> = Promise.resolve();

  constructor(
    readonly name: string,
    private readonly work: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly onExit: (p: Proc, code: number | null, signal: NodeJS.Signals | null, killedByUs: boolean) => void,
  ) {}

  get running(): boolean {
    return this.child !== null;
  }

  start(args: string[]): void {
    this.starts++;
    const logFile = join(this.work, 'logs', `${this.name}.${this.starts}.log`);
    const fd = openSync(logFile, 'a');
    const child = spawn(process.execPath, [cli, '--data-dir', join(this.work, this.name), ...args], { env: this.env, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    this.child = child;
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        const ours = this.killing;
        this.killing = false;
        this.child = null;
        resolve();
        this.onExit(this, code, signal, ours);
      }),
    );
  }

  /** kill -9. */
  async kill(): Promise<void> {
    if (this.child === null) return;
    this.kills++;
    this.killing = true;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** A clean stop (SIGTERM); kill -9 after `ms`. Returns how it ended. */
  async stop(ms = 30_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const child = this.child;
    if (child === null) return { code: null, signal: null };
    this.killing = true;
    const ended = { code: null as number | null, signal: null as NodeJS.Signals | null };
    child.once('exit', (code, signal) => Object.assign(ended, { code, signal }));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    await this.exited;
    clearTimeout(timer);
    return ended;
  }

  lastLog(): string {
    const file = join(this.work, 'logs', `${this.name}.${this.starts}.log`);
    return existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-8).join('\n') : '';
  }
}

interface Tournament {
  name: string;
  game: 'dame' | 'mia';
  file: string;
  id: string | null;
  finished: boolean;
}

async function main(): Promise<number> {
  if (postgresBin() === null) {
    process.stdout.write('skipped: no PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb) to start and stop one of our own\n');
    return 0;
  }
  if (!existsSync(cli)) {
    process.stderr.write(`no ${cli}: build first (npm run build, or npm run soak -- chaos)\n`);
    return 2;
  }
  say(`chaos soak: ${minutes} min, seed ${seed} (again: npx tsx bench/chaos.ts --minutes ${minutes} --seed ${seed})`);
  const work = mkdtempSync(join(tmpdir(), 'spielhalle-chaos-'));
  mkdirSync(join(work, 'logs'));
  try {
    cli = snapshot(join(work, 'app'));
  } catch (err) {
    rmSync(work, { recursive: true, force: true });
    throw err;
  }
  const db: OwnPostgres = await startOwnPostgres();
  say(`PostgreSQL of our own at ${db.url} (${db.dir}); work directory ${work}`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SPIELHALLE_DATABASE_URL: db.url,
    SPIELHALLE_DATABASE_SCHEMA: SCHEMA,
    SPIELHALLE_MIA_START_EARLY: 'true',
    SPIELHALLE_DAME_HOUSE_MOVE_TIME_MS: '200',
    SPIELHALLE_DAME_HOUSE_PAUSE_MS: '500',
  };
  const violations: string[] = [];
  const counts = { workerKills: 0, coordinatorKills: 0, serveKills: 0, outages: 0, downMs: 0, unexpectedExits: 0 };
  let stopping = false;
  let pgUp = true;
  const procs: Proc[] = [];
  const restart = new Set<Promise<void>>();
  const later = (ms: number, fn: () => void): void => {
    const p = sleep(ms).then(fn);
    restart.add(p);
    void p.finally(() => restart.delete(p));
  };

  // One client for our own queries; a lost connection (the outages) is replaced at the next query.
  let client: pg.Client | null = null;
  const query = async <R extends pg.QueryResultRow>(sql: string, args: unknown[] = []): Promise<R[]> => {
    for (let tries = 0; ; tries++) {
      try {
        if (client === null) {
          const c = new pg.Client({ connectionString: db.url });
          c.on('error', () => undefined);
          await c.connect();
          await c.query(`SET search_path TO ${SCHEMA}`);
          client = c;
        }
        return (await client.query<R>(sql, args)).rows;
      } catch (err) {
        const c = client;
        client = null;
        await c?.end().catch(() => undefined);
        if (tries >= 120) throw err;
        await sleep(500);
      }
    }
  };

  // ---- the processes ----
  const workerArgs = ['--log-level', 'warn', 'worker', '--concurrency', '2', '--games', 'dame,mia'];
  const serveArgs = (n: number) => ['serve', '--game', 'mia', 'dame', '--mia-port', '0', '--dame-port', '0', '--web-port', '0', '--seed', `chaos-${seed}-${n}`];
  const unexpected = (p: Proc, code: number | null, signal: NodeJS.Signals | null): void => {
    counts.unexpectedExits++;
    violations.push(`${p.name} (start ${p.starts}) exited by itself: code ${code} signal ${signal}\n      ${p.lastLog().replace(/\n/g, '\n      ')}`);
    say(`!! ${p.name} exited by itself (code ${code}, signal ${signal})`);
  };
  const onServiceExit = (args: () => string[]) => (p: Proc, code: number | null, signal: NodeJS.Signals | null, ours: boolean) => {
    if (stopping) return;
    if (!ours) unexpected(p, code, signal);
    later(between(500, 3000), () => {
      if (!stopping && !p.running) p.start(args());
    });
  };
  const workers = Array.from({ length: WORKERS }, (_, i) => new Proc(`worker-${i + 1}`, work, env, onServiceExit(() => workerArgs)));
  const serve: Proc = new Proc('serve', work, env, onServiceExit(() => serveArgs(serve.starts + 1)));
  procs.push(...workers, serve);

  // The coordinator: tournaments one after another, Dame and Mia in turn, until the time is up.
  const tournaments: Tournament[] = [];
  let current = null as Tournament | null;
  let deadline = Date.now() + minutes * 60_000;
  const idOf = async (t: Tournament): Promise<string | null> => {
    if (t.id === null) t.id = (await query<{ id: string }>('SELECT id FROM tournaments WHERE name = $1', [t.name]))[0]?.id ?? null;
    return t.id;
  };
  const coordinatorArgs = async (t: Tournament): Promise<string[]> => {
    const id = await idOf(t);
    // Killed before it created the tournament: created anew; else the documented resume command.
    return id === null
      ? ['tournament', 'run', t.file, '--lease', String(LEASE_SECONDS)]
      : ['tournament', 'resume', id, '--lease', String(LEASE_SECONDS)];
  };
  const nextTournament = (): void => {
    const n = tournaments.length + 1;
    const game = n % 2 === 1 ? 'dame' : 'mia';
    const name = `chaos-${seed}-${n}-${game}`;
    const file = join(work, `${name}.yaml`);
    writeFileSync(file, TOURNAMENTS[game](name, `${seed}-${n}`));
    const t: Tournament = { name, game, file, id: null, finished: false };
    tournaments.push(t);
    current = t;
    say(`tournament ${n}: ${game} (${name})`);
    coordinator.start(['tournament', 'run', file, '--lease', String(LEASE_SECONDS)]);
  };
  const coordinator: Proc = new Proc('coordinator', work, env, (p, code, signal, ours) => {
    const t = current;
    if (t === null) return;
    if (!ours && code === 0) {
      t.finished = true;
      current = null;
      if (!stopping && Date.now() < deadline) nextTournament();
      return;
    }
    if (!ours) {
      // Refused because the killed one's lock was not free yet: not a fault, tried again.
      if (code === 2 && /coordinated by another process/.test(p.lastLog())) say(`coordinator: ${t.name} still locked by the killed one; again`);
      else unexpected(p, code, signal);
    }
    later(between(500, 3000), () => {
      if (current !== t || p.running) return;
      void coordinatorArgs(t).then((args) => {
        if (current === t && !p.running) p.start(args);
      });
    });
  });
  procs.push(coordinator);

  let code = 1;
  let outageEnds: Promise<void> = Promise.resolve();
  const cleanup = async () => {
    stopping = true;
    for (const p of procs) await p.kill();
    await client?.end().catch(() => undefined);
    db.destroy();
    if (!keep && code === 0) rmSync(work, { recursive: true, force: true });
    else say(`logs kept in ${work}/logs`);
  };
  const onSignal = () => {
    say('interrupted: killing every process we started');
    code = 130;
    void cleanup().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    for (const w of workers) w.start(workerArgs);
    serve.start(serveArgs(1));
    nextTournament();
    // Everything up and a match recorded before the chaos begins.
    for (const end = Date.now() + 120_000; ; ) {
      const [r] = await query<{ n: number }>("SELECT count(*)::int AS n FROM tournament_matches WHERE status = 'done'").catch(() => [{ n: 0 }]);
      if ((r?.n ?? 0) > 0) break;
      if (Date.now() > end) throw new Error('no tournament match was recorded within 2 minutes of the start');
      await sleep(500);
    }
    deadline = Date.now() + minutes * 60_000;
    say(`chaos for ${minutes} min`);

    // ---- the chaos ----
    while (Date.now() < deadline) {
      await sleep(Math.min(between(3000, 12_000), Math.max(0, deadline - Date.now())));
      if (Date.now() >= deadline) break;
      const roll = random();
      if (roll < 0.35) {
        const w = workers[Math.floor(random() * workers.length)]!;
        if (!w.running) continue;
        counts.workerKills++;
        say(`kill -9 ${w.name} (pid ${w.child?.pid})`);
        await w.kill();
      } else if (roll < 0.55) {
        if (!coordinator.running) continue;
        counts.coordinatorKills++;
        say(`kill -9 coordinator of ${current?.name ?? '?'} (pid ${coordinator.child?.pid})`);
        await coordinator.kill();
      } else if (roll < 0.75) {
        if (!serve.running) continue;
        counts.serveKills++;
        say(`kill -9 serve (pid ${serve.child?.pid})`);
        await serve.kill();
      } else {
        if (!pgUp) continue;
        const downMs = Math.round(between(2000, 20_000));
        counts.outages++;
        counts.downMs += downMs;
        say(`PostgreSQL stop -m immediate, down for ${(downMs / 1000).toFixed(1)} s`);
        pgUp = false;
        db.stop('immediate');
        // Kills go on during the outage.
        outageEnds = sleep(downMs).then(() => {
          db.start();
          pgUp = true;
          say('PostgreSQL started again');
        });
      }
    }

    // ---- let everything finish ----
    say('chaos over: letting everything finish');
    await outageEnds;
    while (restart.size > 0) await Promise.all([...restart]);
    for (const end = Date.now() + 300_000; tournaments.some((t) => !t.finished); ) {
      if (Date.now() > end) {
        violations.push(`tournament ${current?.name ?? '?'} did not finish within 5 minutes after the chaos`);
        break;
      }
      await sleep(500);
    }
    // Jobs of done matches that a killed worker left in play expire after their lease and are completed then.
    let live: { state: string; n: number }[] = [];
    for (const end = Date.now() + (LEASE_SECONDS + 60) * 1000; ; ) {
      live = await query<{ state: string; n: number }>(
        `SELECT state::text AS state, count(*)::int AS n FROM ${JOBS}.job WHERE name LIKE 'spielhalle.%' AND state::text IN ('created', 'retry', 'active') GROUP BY 1`,
      );
      if (live.length === 0 || Date.now() > end) break;
      await sleep(1000);
    }
    stopping = true;
    for (const p of [...workers, serve]) {
      const exit = await p.stop();
      const expected = p === serve ? 0 : 130;
      // Ended by the signal itself: it was still loading (restarted just before), before its handler was there.
      if (exit.code !== expected && exit.signal !== 'SIGTERM')
        violations.push(`${p.name} did not stop cleanly on SIGTERM (exit ${exit.code ?? exit.signal}, expected ${expected})`);
    }

    // ---- the integrity report ----
    const report = await integrity(query, tournaments, live);
    violations.push(...report.violations);
    const kills = `kills: ${counts.workerKills} workers, ${counts.coordinatorKills} coordinators, ${counts.serveKills} serve; PostgreSQL outages: ${counts.outages} (${(counts.downMs / 1000).toFixed(1)} s down in all)`;
    process.stdout.write(`\n== integrity report (seed ${seed}, ${minutes} min of chaos)\n${kills}\nstarts: ${procs.map((p) => `${p.name} ${p.starts}`).join(', ')}\n${report.lines.join('\n')}\n`);
    if (violations.length === 0) {
      process.stdout.write('violations: none\n');
      code = 0;
    } else {
      process.stdout.write(`violations: ${violations.length}\n${violations.map((v) => `  - ${v}`).join('\n')}\n`);
      code = 1;
    }
  } catch (err) {
    process.stderr.write(`chaos soak broke: ${(err as Error).stack ?? String(err)}\n`);
    code = 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await cleanup();
  }
  return code;
}

type Query = <R extends pg.QueryResultRow>(sql: string, args?: unknown[]) => Promise<R[]>;

/** Everything the report says, by SQL against the database; `violations` empty when all is well. */
async function integrity(query: Query, tournaments: readonly Tournament[], liveJobs: readonly { state: string; n: number }[]): Promise<{ lines: string[]; violations: string[] }> {
  const violations: string[] = [];
  const lines: string[] = [];
  const countedBy = new Map<string, string>();
  let scheduled = 0;
  let counted = 0;
  let superseded = 0;
  let abortedAttempts = 0;
  let replayed = 0;
  let canceledRounds = 0;
  for (const t of tournaments) {
    const [row] = await query<{ id: string; status: string; spec: string }>('SELECT id, status, spec FROM tournaments WHERE name = $1', [t.name]);
    if (row === undefined) {
      violations.push(`${t.name}: no tournament in the database`);
      continue;
    }
    const id = row.id;
    if (row.status !== 'finished') violations.push(`${id}: tournament ${row.status}, not finished`);
    const expected = firstMatches(JSON.parse(row.spec) as TournamentSpec).map((m) => m.id);
    scheduled += expected.length;
    const matches = await query<{ id: string; status: string; records: string; attempts: number; worker: string | null; result: string | null; bye: number }>(
      'SELECT id, status, records, attempts, worker, result, bye FROM tournament_matches WHERE tournament_id = $1',
      [id],
    );
    const byId = new Map(matches.map((m) => [m.id, m]));
    for (const m of expected) if (!byId.has(m)) violations.push(`${id}/${m}: scheduled but not in tournament_matches (lost)`);
    for (const m of matches) if (!expected.includes(m.id)) violations.push(`${id}/${m.id}: in tournament_matches but not scheduled`);
    // Every game record of this tournament's matches (a worker names it in meta.tournamentMatch).
    const records = await query<{ id: string; status: string; tm: string; reason: string | null; canceled: string | null }>(
      `SELECT id, status, meta::jsonb->>'tournamentMatch' AS tm, result::jsonb->>'reason' AS reason, result::jsonb->>'canceled' AS canceled FROM matches WHERE meta::jsonb->>'tournamentMatch' LIKE $1`,
      [`${id}/%`],
    );
    const recordsOf = new Map<string, typeof records>();
    for (const r of records) recordsOf.set(r.tm, [...(recordsOf.get(r.tm) ?? []), r]);
    for (const m of matches) {
      const key = `${id}/${m.id}`;
      if (m.status !== 'done') {
        violations.push(`${key}: left ${m.status} (attempts ${m.attempts}, worker ${m.worker ?? '-'})`);
        continue;
      }
      if (m.attempts > 1) replayed++;
      if (m.result === null) violations.push(`${key}: done without a result`);
      const ids = JSON.parse(m.records) as string[];
      if (ids.length === 0 && m.bye === 0) violations.push(`${key}: done without game records`);
      counted++;
      const mine = recordsOf.get(key) ?? [];
      for (const rid of ids) {
        const other = countedBy.get(rid);
        if (other !== undefined) violations.push(`${key}: counts record ${rid}, which ${other} counts too`);
        countedBy.set(rid, key);
        const r = mine.find((x) => x.id === rid);
        // A Mia table's canceled rounds (ROUND CANCELED: too few joined in time) are aborted records it counts.
        if (r?.status === 'aborted' && r.canceled !== null) canceledRounds++;
        else if (r?.status !== 'finished') violations.push(`${key}: counted record ${rid} is ${r === undefined ? 'missing' : `${r.status} (${r.reason ?? '?'})`}, not finished`);
      }
      for (const r of mine) {
        if (ids.includes(r.id)) continue;
        if (r.status === 'finished') violations.push(`${key}: record ${r.id} finished but neither counted nor superseded (stale)`);
        else if (r.status === 'running') violations.push(`${key}: record ${r.id} of an earlier attempt left running`);
        else if (r.status === 'superseded') superseded++;
        else abortedAttempts++;
      }
      // The counted attempt names itself once, and it is the match row's last attempt and worker.
      const first = ids[0];
      if (first !== undefined) {
        const marks = await query<{ data: string }>("SELECT data FROM events WHERE match_id = $1 AND type = 'tournament'", [first]);
        const data = marks.map((e) => JSON.parse(e.data) as { tournament: string; match: string; worker: string; attempt: number });
        if (data.length !== 1) violations.push(`${key}: its counted record ${first} has ${data.length} 'tournament' events, not 1`);
        else if (data[0]!.tournament !== id || data[0]!.match !== m.id || data[0]!.attempt !== m.attempts || data[0]!.worker !== m.worker)
          violations.push(`${key}: its counted record says ${JSON.stringify(data[0])}, the match row attempt ${m.attempts} by ${m.worker ?? '-'}`);
      }
    }
    // Jobs: none left waiting or in play, none that failed for good.
    const jobs = await query<{ state: string; n: number; matches: number }>(
      `SELECT state::text AS state, count(*)::int AS n, count(DISTINCT data->>'match')::int AS matches FROM ${JOBS}.job WHERE data->>'tournament' = $1 GROUP BY 1 ORDER BY 1`,
      [id],
    );
    const completed = jobs.find((j) => j.state === 'completed')?.matches ?? 0;
    if (completed < matches.filter((m) => m.bye === 0).length) violations.push(`${id}: only ${completed} of its ${matches.length} matches have a completed job`);
    for (const j of jobs) if (['created', 'retry', 'active'].includes(j.state)) violations.push(`${id}: ${j.n} job(s) left ${j.state}`);
    lines.push(`${id}: ${row.status}, ${matches.filter((m) => m.status === 'done').length}/${expected.length} matches done, jobs ${jobs.map((j) => `${j.state} ${j.n}`).join(', ')}`);
  }
  for (const j of liveJobs) violations.push(`${j.n} job(s) still ${j.state} at the end`);
  // Nothing running anywhere; serve's matches (served_by, no tournament match: workers' records have one) finished or aborted.
  const running = await query<{ id: string; served_by: string | null; tm: string | null }>(
    "SELECT id, served_by, meta::jsonb->>'tournamentMatch' AS tm FROM matches WHERE status = 'running'",
  );
  for (const r of running) violations.push(`record ${r.id} (${r.served_by === null ? `tournament ${r.tm ?? '?'}` : `serve ${r.served_by}`}) left running`);
  const served = await query<{ status: string; reason: string | null; n: number }>(
    `SELECT status, CASE WHEN status = 'aborted' THEN COALESCE(result::jsonb->>'reason', CASE WHEN result::jsonb ? 'canceled' THEN 'Mia round canceled' END) END AS reason,
            count(*)::int AS n FROM matches WHERE served_by IS NOT NULL AND meta::jsonb->>'tournamentMatch' IS NULL GROUP BY 1, 2 ORDER BY 3 DESC`,
  );
  const serves = await query<{ n: number }>("SELECT count(DISTINCT served_by)::int AS n FROM matches WHERE served_by IS NOT NULL AND meta::jsonb->>'tournamentMatch' IS NULL");
  lines.push(
    `tournament matches: ${scheduled} scheduled, ${counted} counted once each, ${replayed} played again after a kill or outage; their earlier attempts left ${superseded} records superseded, ${abortedAttempts} aborted; ${canceledRounds} canceled Mia rounds among the counted records`,
    `serve (${serves[0]?.n ?? 0} processes that recorded): ${served.map((s) => `${s.status}${s.reason === null ? '' : ` (${s.reason})`} ${s.n}`).join(', ')}`,
  );
  return { lines, violations };
}

process.exit(await main());
