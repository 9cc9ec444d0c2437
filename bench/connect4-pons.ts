/**
 * `spielhalle solve` against Pascal Pons' C++ solver, measured in the same run (issue 20).
 *
 *   npx tsx bench/connect4-pons.ts [--pons PATH] [--sets all|L3_R1,…] [--set-dir DIR]
 *       [--first N|L1_R3=N,…] [--runs 3] [--threads 1,2,auto] [--tables fixed,grow] [--table-log 24]
 *       [--env stripped|kept|both] [--no-warm] [--no-stats] [--empty] [--startup N] [--keep-env]
 *
 * Pons' solver is not part of the repository: build his final version yourself, outside it, e.g.
 * `g++ -O3 -march=native -std=c++11 -DNDEBUG -o /tmp/pons/c4solver main.cpp Solver.cpp` in a
 * clone of github.com/PascalPons/connect4, and give its path with --pons or PONS_C4SOLVER. Without
 * it the comparison columns stay empty.
 *
 * Per set (the fixtures in test/fixtures/connect4/, all six of Pons' published sets, or those in
 * `--set-dir`; `--first N` takes each set's first N positions, `--first L1_R3=50,L1_R2=300` only
 * those sets' first N; the default is `--first L1_R3=50`, since Begin-Hard's 1000 take Pons' solver
 * alone ~50 min on a 2-vCPU VM; `--first 0` takes every set whole),
 * `--runs` rounds, each running Pons, then ours
 * with every table and thread count (`auto`: as `solve` runs without --threads, two threads whose
 * helper joins only a solve past 2^20 nodes; `2`: --threads 2, the helper joins after 4096), one
 * after the other (interleaved, so that the machine's load hits all of
 * them alike); the table shows the median round:
 * - fresh process: the installed command (`node bin/spielhalle.cjs`, as its shebang runs it) `solve
 *   --no-book --table-log 24 --threads T` (table "fixed": 2^24 slots from the start, exactly Pons'
 *   nodes with one thread) and `solve --no-book --threads T` (table "grow": solve's default, 2^18 slots in
 *   buckets of two, growing to 2^25 within a solve that outgrows it) on the set's moves, one table for the whole set (as Pons'
 *   `c4solver`, which keeps his 2^24-slot table and finds no book in an empty working directory).
 *   Process CPU and wall come from bash's `time` (to the millisecond); "µs/pos" is the process CPU net of the same program on empty input (start-up
 *   and table allocation), divided by the positions — the solving alone, for both programs.
 * - warm: in this process, the set solved once to warm up, the table emptied, then timed.
 * - nodes: the mean negamax calls of our main search (Pons' count; equal to his with one thread)
 *   and of the helper threads.
 * - memory: the peak resident set of each process (GNU time %M, the median round), ours (the
 *   Node runtime, ~45 MB, and the table) against Pons' (nearly all his table of 2^24 five-byte slots).
 * Every score is compared with the set's; the run fails on any difference. `--no-warm` skips the
 * warm passes and `--no-stats` the node-count run (each as long as a round) on the heavy sets.
 *
 * `--empty` also solves the empty board without the book (minutes) with each thread count and
 * with Pons, once each.
 *
 * `--startup N` times one position (`echo 4455 | spielhalle solve`, the defaults: book, a growing
 * table, threads as on this machine; through the installed command and through `node dist/cli.js`)
 * N times, interleaved with `node -e 0`, Pons' solver and the whole program (`solve --help`): wall
 * ms, minimum and median.
 *
 * The machine's load average goes with every row: the wall times are only as good as it was quiet.
 *
 * Our processes run without NODE_EXTRA_CA_CERTS (unless --keep-env or --env kept; --env both runs
 * every variant both ways, a column tells which): with it, Node reads and parses that
 * certificate bundle before it runs anything, ~40–70 ms CPU of every start on the machines
 * measured, whose environment sets it for every process; Pons' solver does not care.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { solverFor } from '../src/games/connect4/solve-command.js';
import { Position } from '../src/games/connect4/solver/index.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'dist', 'cli.js');
/** The installed command (package.json "bin"), as its shebang runs it: `node bin/spielhalle.cjs`. */
const launcher = join(root, 'bin', 'spielhalle.cjs');
const SET_NAMES: Record<string, string> = {
  L3_R1: 'End-Easy',
  L2_R1: 'Middle-Easy',
  L2_R2: 'Middle-Medium',
  L1_R1: 'Begin-Easy',
  L1_R2: 'Begin-Medium',
  L1_R3: 'Begin-Hard',
};
/** Where the sets are: the fixtures, or a folder of Pons' published sets (--set-dir; Test_L1_R2 and Test_L1_R3 are not among the fixtures). */
const setDir = flag('set-dir', join(root, 'test', 'fixtures', 'connect4'));
const setsFlag = flag('sets', 'all');
const sets = (setsFlag === 'all' ? Object.keys(SET_NAMES) : setsFlag.split(',')).filter((s) => existsSync(join(setDir, `Test_${s}`)));
/**
 * The first N positions of each set only: `--first N` for every set, or per set, e.g. `--first
 * L1_R3=50,L1_R2=300` (Begin-Hard costs seconds a position: its 1000 take Pons ~50 min alone).
 */
const firstFlag = flag('first', 'L1_R3=50');
const firstOf = (set: string): number => {
  if (/^\d+$/.test(firstFlag)) return Number(firstFlag);
  const given = firstFlag.split(',').find((part) => part.startsWith(`${set}=`));
  return given === undefined ? 0 : Number(given.slice(set.length + 1));
};
/** --no-warm: skip the in-process warm passes (two more solves of the set per variant); --no-stats: skip the node-count run. */
const warmPasses = !process.argv.includes('--no-warm');
const statsRun = !process.argv.includes('--no-stats');
const runs = Number(flag('runs', '3'));
/** Thread counts to run; `auto` runs `solve` without --threads (two threads, helpers only after 2^20 nodes). */
const threadCounts = flag('threads', '1,2,auto').split(',').map((t) => (t === 'auto' ? ('auto' as const) : Number(t)));
const tableLog = Number(flag('table-log', '24'));
type Table = 'fixed' | 'grow';
const tables = flag('tables', 'fixed,grow').split(',').filter((t): t is Table => t === 'fixed' || t === 'grow');
/**
 * Our processes' environment: `stripped` (the default) without NODE_EXTRA_CA_CERTS, `kept` as this
 * process has it (also --keep-env), `both` every variant twice; Pons' solver always as it is.
 */
const envFlag = process.argv.includes('--keep-env') ? 'kept' : flag('env', 'stripped');
const envs = (envFlag === 'both' ? ['stripped', 'kept'] : [envFlag]).filter((e): e is EnvKind => e === 'stripped' || e === 'kept');
type EnvKind = 'stripped' | 'kept';
const variants = envs.flatMap((env) =>
  tables.flatMap((table) =>
    threadCounts.filter((threads) => table === 'grow' || threads !== 'auto').map((threads) => ({ table, threads, env, key: `${table}${threads}${env}` })),
  ),
);
const strippedEnv = { ...process.env };
delete strippedEnv.NODE_EXTRA_CA_CERTS;
const childEnv = envs[0] === 'kept' ? { ...process.env } : strippedEnv;
const envOf = (env: EnvKind): NodeJS.ProcessEnv => (env === 'kept' ? process.env : strippedEnv);
const ponsFlag = flag('pons', process.env.PONS_C4SOLVER ?? '');
const pons = ponsFlag !== '' && existsSync(ponsFlag) ? ponsFlag : null;
const work = mkdtempSync(join(tmpdir(), 'c4-pons-'));

if (!existsSync(cli)) {
  process.stderr.write('bench: dist/cli.js is missing (npm run build)\n');
  process.exit(2);
}
if (pons === null) process.stderr.write('bench: no Pons solver (--pons PATH or PONS_C4SOLVER): our figures only\n');

interface Run {
  wallMs: number;
  cpuMs: number;
  /** Peak resident memory of the process, KiB (GNU time %M). */
  maxRssKb: number;
  stdout: string;
  stderr: string;
}

/**
 * Times `cmd args` in bash (its `time` keyword: wall, user and system time of the command and its
 * threads to the millisecond, where /usr/bin/time gives 10 ms steps — a quarter of a fresh End-Easy
 * run), the command's stderr kept apart; in an empty working directory.
 */
const TIMED = 'err=$1; out=$2; mem=$3; shift 3; TIMEFORMAT="%3R %3U %3S"; { time /usr/bin/time -f %M -o "$mem" "$@" 2>"$err"; } 2>"$out"';

/** One program on one input file, timed (see TIMED). */
function timed(cmd: string, args: string[], inputFile: string, env: NodeJS.ProcessEnv = childEnv): Run {
  const timeFile = join(work, 'time');
  const errFile = join(work, 'stderr');
  const memFile = join(work, 'maxrss');
  const r = spawnSync('bash', ['-c', TIMED, 'timed', errFile, timeFile, memFile, cmd, ...args], { cwd: work, env, input: readFileSync(inputFile), encoding: 'utf8', maxBuffer: 1 << 26 });
  const stderr = readFileSync(errFile, 'utf8');
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${stderr}${r.stderr}`);
  const [wall = NaN, user = NaN, sys = NaN] = readFileSync(timeFile, 'utf8').trim().split(/\s+/).slice(-3).map(Number);
  // GNU time's %M: the child's peak resident set in KiB (its threads included); its last line.
  const maxRssKb = Number(readFileSync(memFile, 'utf8').trim().split('\n').pop());
  return { wallMs: wall * 1000, cpuMs: (user + sys) * 1000, maxRssKb, stdout: r.stdout, stderr };
}

/** Our command; `--stats` only for the node counts, in a run of its own: timed runs print what Pons prints. */
const ours = (table: Table, threads: number | 'auto', stats = false): string[] => [
  launcher,
  'solve',
  '--no-book',
  ...(table === 'fixed' ? ['--table-log', String(tableLog)] : []),
  ...(threads === 'auto' ? [] : ['--threads', String(threads)]),
  ...(stats ? ['--stats'] : []),
];

function checkScores(out: string, cases: [string, number][], who: string): number {
  const lines = out.trim().split('\n');
  let exact = 0;
  cases.forEach(([moves, score], i) => {
    if (lines[i] === `${moves} ${score}`) exact++;
  });
  if (exact !== cases.length) throw new Error(`${who}: ${cases.length - exact} wrong scores`);
  return exact;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const fmt = (x: number, digits = 0): string => (Number.isFinite(x) ? x.toFixed(digits) : '–');

const empty = join(work, 'empty.in');
writeFileSync(empty, '');
/** Start-up of each program (median of 3): subtracted from the process CPU for µs/pos. */
const startCpu = new Map<string, number>();
for (const who of [...(pons ? [null] : []), ...variants]) {
  const samples: number[] = [];
  for (let i = 0; i < 3; i++) samples.push(who === null ? timed(pons!, [], empty).cpuMs : timed(process.execPath, ours(who.table, who.threads), empty, envOf(who.env)).cpuMs);
  startCpu.set(who?.key ?? 'pons', median(samples));
}

const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const load1 = () => loadavg()[0]!.toFixed(1);
const header = `${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? '?'} × ${cpus().length}, Node ${process.version}, load average at start ${load()}`;
process.stderr.write(`${header}\nstart-up CPU ms: ${[...startCpu].map(([k, v]) => `${k} ${fmt(v)}`).join(', ')}\n`);

const rows: string[] = [];
for (const set of sets) {
  const file = join(setDir, `Test_${set}`);
  const all = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l): [string, number] => {
      const [m = '', s = ''] = l.split(' ');
      return [m, Number(s)];
    });
  const first = firstOf(set);
  const cases = first > 0 ? all.slice(0, first) : all;
  const movesFile = join(work, `${set}.in`);
  writeFileSync(movesFile, cases.map(([m]) => m).join('\n') + '\n');
  const results = new Map<string, Run[]>();
  const nodes = new Map<string, { main: number; helper: number }>();
  for (let r = 0; r < runs; r++) {
    if (pons) {
      const run = timed(pons, [], movesFile);
      checkScores(run.stdout, cases, `Pons on ${set}`);
      results.set('pons', [...(results.get('pons') ?? []), run]);
    }
    for (const v of variants) {
      const run = timed(process.execPath, ours(v.table, v.threads), movesFile, envOf(v.env));
      checkScores(run.stdout, cases, `ours (${v.table} table, ${v.threads} threads, env ${v.env}) on ${set}`);
      results.set(v.key, [...(results.get(v.key) ?? []), run]);
    }
    process.stderr.write(`${set}: round ${r + 1} of ${runs} done (load ${load()})\n`);
  }
  // The node counts, from one more run with --stats (not timed).
  for (const v of statsRun ? variants : []) {
    const run = timed(process.execPath, ours(v.table, v.threads, true), movesFile, envOf(v.env));
    checkScores(run.stdout, cases, `ours (${v.table} table, ${v.threads} threads, --stats) on ${set}`);
    const total = /stats: total \d+ positions, (\d+) nodes, (\d+) helper nodes/.exec(run.stderr);
    nodes.set(v.key, { main: Number(total?.[1]), helper: Number(total?.[2]) });
  }
  const ponsRuns = results.get('pons') ?? [];
  const ponsCpu = median(ponsRuns.map((x) => x.cpuMs));
  const ponsWall = median(ponsRuns.map((x) => x.wallMs));
  const ponsMb = median(ponsRuns.map((x) => x.maxRssKb)) / 1024;
  // Within the noise of his start-up (clearing 80 MB, ±2 ms): too small to divide by.
  const ponsNet = ponsCpu - (startCpu.get('pons') ?? NaN);
  const ponsPer = ponsNet >= 5 ? (ponsNet * 1000) / cases.length : NaN;
  for (const { table, threads: t, key, env } of variants) {
    const own = results.get(key)!;
    const cpu = median(own.map((x) => x.cpuMs));
    const wall = median(own.map((x) => x.wallMs));
    const mb = median(own.map((x) => x.maxRssKb)) / 1024;
    const per = ((cpu - startCpu.get(key)!) * 1000) / cases.length;
    // Warm: this process, after a pass over the set, the table emptied.
    // The solver `solve` makes for the same flags.
    let warmWall = NaN;
    let warmCpu = NaN;
    if (warmPasses && env === envs[0]) {
      const solver = solverFor({ book: false, ...(table === 'fixed' ? { tableLog: String(tableLog) } : {}), ...(t === 'auto' ? {} : { threads: String(t) }) });
      const positions = cases.map(([m]) => Position.ofMoves(Array.from(m, Number)));
      for (const p of positions) solver.solve(p);
      solver.reset();
      const c0 = process.cpuUsage();
      const w0 = performance.now();
      for (const p of positions) solver.solve(p);
      const c1 = process.cpuUsage(c0);
      warmWall = ((performance.now() - w0) * 1000) / cases.length;
      warmCpu = (c1.user + c1.system) / cases.length;
      solver.close();
    }
    const n = nodes.get(key) ?? { main: NaN, helper: NaN };
    rows.push(
      `| ${SET_NAMES[set]} (${set}) | ${table} | ${t} | ${env === 'kept' ? 'kept' : 'no'} | ${cases.length} | ${cases.length} | ${fmt(n.main / cases.length)} | ${fmt(n.helper / cases.length)} | ` +
        `${fmt(cpu)} / ${fmt(wall)} | ${fmt(per, 1)} | ${fmt(warmCpu, 1)} / ${fmt(warmWall, 1)} | ` +
        `${fmt(ponsCpu)} / ${fmt(ponsWall)} | ${fmt(ponsPer, 1)} | ${fmt(cpu / ponsCpu, 2)} | ${fmt(wall / ponsWall, 2)} | ${fmt(per / ponsPer, 2)} | ` +
        `${fmt(mb)} | ${fmt(ponsMb)} | ${fmt(mb / ponsMb, 2)} | ${load1()} |`,
    );
  }
}

const lines = [
  header,
  `ours: spielhalle solve (node bin/spielhalle.cjs) --no-book [--table-log ${tableLog}: table fixed] --threads T (fresh process per set; node counts from one more run with --stats; one table per set; NODE_EXTRA_CA_CERTS: "no" = stripped from our environment, "kept" = as this shell has it${process.env.NODE_EXTRA_CA_CERTS === undefined ? ' (unset here)' : ''}); Pons: ${pons ?? '(not given)'}; median of ${runs} interleaved rounds; peak memory: GNU time %M (maximum resident set)`,
  '',
  '| set | table | threads | NODE_EXTRA_CA_CERTS | positions | exact | mean nodes | mean helper nodes | ours process CPU / wall ms | ours µs/pos (CPU, net of start) | ours warm µs/pos CPU / wall | Pons process CPU / wall ms | Pons µs/pos | CPU ratio | wall ratio | µs/pos ratio | ours peak MB | Pons peak MB | memory ratio | load |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows,
];

if (process.argv.includes('--empty')) {
  lines.push('', '| empty board, no book | score | main nodes | helper nodes | process CPU s | wall s | wall / Pons |', '|---|---|---|---|---|---|---|');
  const boardFile = join(work, 'board.in');
  writeFileSync(boardFile, '\n');
  let ponsWall = NaN;
  if (pons) {
    const run = timed(pons, [], boardFile);
    ponsWall = run.wallMs;
    lines.push(`| Pons | ${run.stdout.trim()} | | | ${fmt(run.cpuMs / 1000, 1)} | ${fmt(run.wallMs / 1000, 1)} | 1.00 |`);
  }
  for (const { table, threads: t } of variants) {
    const run = timed(process.execPath, [...ours(table, t, true), ''], empty);
    const s = /stats: - (\d+) (\d+)/.exec(run.stderr);
    lines.push(`| ours, ${table} table, ${t} thread(s) | ${run.stdout.trim()} | ${s?.[1] ?? '?'} | ${s?.[2] ?? '?'} | ${fmt(run.cpuMs / 1000, 1)} | ${fmt(run.wallMs / 1000, 1)} | ${fmt(run.wallMs / ponsWall, 2)} |`);
  }
}

const startups = Number(flag('startup', '0'));
if (startups > 0) {
  const one = join(work, 'one.in');
  writeFileSync(one, '4455\n');
  const programs: [string, string, string[], NodeJS.ProcessEnv][] = [
    ['ours: `echo 4455 \\| spielhalle solve` (the installed command, `node bin/spielhalle.cjs`)', process.execPath, [launcher, 'solve'], childEnv],
    ['ours: `echo 4455 \\| node dist/cli.js solve` (the ES module entry)', process.execPath, [cli, 'solve'], childEnv],
    ['`node -e 0`', process.execPath, ['-e', '0'], childEnv],
    ...(pons ? [["Pons' c4solver, one position", pons, [], childEnv] as [string, string, string[], NodeJS.ProcessEnv]] : []),
    ['the whole program: `node dist/cli.js solve --help`', process.execPath, [cli, 'solve', '--help'], childEnv],
  ];
  // Where this machine's environment names a certificate bundle, the same with it (Node reads it first).
  if (process.env.NODE_EXTRA_CA_CERTS !== undefined && childEnv.NODE_EXTRA_CA_CERTS === undefined) {
    programs.push(['ours (installed command), with NODE_EXTRA_CA_CERTS', process.execPath, [launcher, 'solve'], process.env]);
    programs.push(['`node -e 0`, with NODE_EXTRA_CA_CERTS', process.execPath, ['-e', '0'], process.env]);
  }
  const walls = programs.map((): number[] => []);
  const loads: number[] = [];
  for (let i = 0; i < startups; i++) {
    programs.forEach(([, cmd, args, env], k) => walls[k]!.push(timed(cmd, args, one, env).wallMs));
    loads.push(loadavg()[0]!);
  }
  lines.push('', `| one position, ${startups} interleaved runs | wall ms min | wall ms median | load during |`, '|---|---|---|---|');
  programs.forEach(([name], k) => {
    const w = walls[k]!;
    lines.push(`| ${name} | ${fmt(Math.min(...w))} | ${fmt(median(w))} | ${fmt(Math.min(...loads), 1)}–${fmt(Math.max(...loads), 1)} |`);
  });
}

lines.push('', `load average at the end: ${load()}`);
process.stdout.write(lines.join('\n') + '\n');
