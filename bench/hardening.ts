// The hardening soak (`npm run soak -- hardening`): every malicious-client scenario of
// test/hardening/attacks.ts at full size against `spielhalle serve` with all five games, each on a
// fresh process: warm-up, then the attack for a window, then a quiet spell. Passes when the
// process stays up, /healthz answers 200 throughout, and every game NOT attacked finishes house
// games at ≥ 80 % of its quiet rate. Prints the table for docs/benchmarks.md ("Hardening").
//
//   npx tsx bench/hardening.ts [--window-s 120] [--quiet-s 240] [--warmup-s 15] [--after-s 15]
//                              [--requiet-every 8] [--only <text>,…] [--out <file.md>]
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { attackReached, describeStats, SCENARIOS, type Scenario } from '../test/hardening/attacks.js';
import {
  buildServer,
  GAMES,
  HealthMonitor,
  ServeProcess,
  sleep,
  type Counts,
  type Game,
} from '../test/hardening/serve.js';

const { values } = parseArgs({
  options: {
    'window-s': { type: 'string', default: '120' },
    'quiet-s': { type: 'string', default: '240' },
    'warmup-s': { type: 'string', default: '15' },
    'after-s': { type: 'string', default: '15' },
    'requiet-every': { type: 'string', default: '8' },
    only: { type: 'string' },
    out: { type: 'string' },
  },
});
const windowS = Number(values['window-s']);
const quietS = Number(values['quiet-s']);
const warmupS = Number(values['warmup-s']);
const afterS = Number(values['after-s']);
const requietEvery = Number(values['requiet-every']);
const only = values.only?.split(',').map((s) => s.trim().toLowerCase()) ?? [];
const THRESHOLD = 0.8;

const MiB = (kib: number | null): string => (kib === null ? '–' : (kib / 1024).toFixed(0));
const perMin = (n: number, s: number): number => (n * 60) / s;
const log = (line: string): void => void process.stderr.write(line + '\n');

interface Window {
  counts: Counts;
  seconds: number;
  rssBefore: number | null;
  rssPeak: number | null;
  rssAfter: number | null;
  cpuPerS: number | null;
  bad: string[];
  alive: boolean;
  exitCode: number | null;
  logMiB: number;
  /** Growth of the record store (file and WAL) during the window. */
  storeMiB: number;
}

/** A fresh serve: warm-up, then `during` (the attack, or nothing) for `seconds`, then `afterS` quiet. */
async function measure(
  seconds: number,
  scenario: Scenario | null,
): Promise<Window & { attack: string; after: Counts }> {
  const serve = await ServeProcess.start();
  try {
    await sleep(warmupS * 1000);
    const monitor = new HealthMonitor(serve);
    monitor.label = scenario?.id ?? 'quiet';
    const rssBefore = serve.rssKiB();
    let rssPeak = rssBefore;
    const cpu0 = serve.cpuSeconds();
    const store0 = serve.storeBytes();
    const t0 = Date.now();
    const attack = scenario?.start(serve.ports, 'soak') ?? null;
    while (Date.now() - t0 < seconds * 1000 && serve.alive) {
      await sleep(1000);
      rssPeak = Math.max(rssPeak ?? 0, serve.rssKiB() ?? 0);
    }
    const t1 = Date.now();
    const cpu1 = serve.cpuSeconds();
    const storeMiB = (serve.storeBytes() - store0) / 1048576;
    const counts = serve.finished(t0, t1);
    const stats = attack ? describeStats(attack) : '';
    const reached = attack ? attackReached(attack) : true;
    await attack?.stop();
    monitor.label = `${scenario?.id ?? 'quiet'} (after)`;
    await sleep(afterS * 1000);
    const after = serve.finished(t1);
    await monitor.stop();
    const bad = monitor.bad.map(
      (b) => `${b.label}: /healthz ${b.status === 0 ? 'no answer in 5 s' : b.status}`,
    );
    if (!reached) bad.push('the attack never reached the server');
    const alive = serve.alive;
    if (!alive) bad.push(`serve exited ${JSON.stringify(serve.exit)}: ${serve.stderrTail(5)}`);
    const rssAfter = serve.rssKiB();
    const logMiB = serve.logBytes() / 1048576;
    const exitCode = await serve.stop();
    if (alive && exitCode !== 0) bad.push(`exit code ${String(exitCode)} on SIGTERM`);
    return {
      counts,
      after,
      seconds: (t1 - t0) / 1000,
      rssBefore,
      rssPeak,
      rssAfter,
      cpuPerS: cpu0 !== null && cpu1 !== null ? (cpu1 - cpu0) / ((t1 - t0) / 1000) : null,
      bad,
      alive,
      exitCode,
      logMiB,
      storeMiB,
      attack: stats,
    };
  } finally {
    await serve.kill9();
  }
}

buildServer();
const scenarios = SCENARIOS.filter(
  (s) => only.length === 0 || only.some((o) => s.id.toLowerCase().includes(o)),
);
log(
  `hardening soak: ${scenarios.length} scenarios, window ${windowS} s, quiet ${quietS} s; ${cpus().length} CPUs, load ${loadavg()[0]!.toFixed(1)}`,
);

let quiet = null as Window | null;
const rows: string[] = [];
const failures: string[] = [];

async function measureQuiet(): Promise<void> {
  const q = await measure(quietS, null);
  quiet = q;
  const rates = GAMES.map((g) => perMin(q.counts[g], q.seconds).toFixed(1));
  log(`quiet: ${JSON.stringify(q.counts)} in ${q.seconds.toFixed(0)} s, load ${loadavg()[0]!.toFixed(1)}`);
  rows.push(
    `| quiet (${q.seconds.toFixed(0)} s, load ${loadavg()[0]!.toFixed(1)}) | ${rates.join(' | ')} | ${MiB(q.rssBefore)} → ${MiB(q.rssPeak)} → ${MiB(q.rssAfter)} | ${q.cpuPerS?.toFixed(2) ?? '–'} | | ${q.storeMiB.toFixed(0)} | ${q.logMiB.toFixed(1)} | ${q.bad.length ? 'FAIL' : 'ok'} |`,
  );
  if (q.bad.length) failures.push(...q.bad.map((b) => `quiet: ${b}`));
  for (const g of GAMES)
    if (q.counts[g] === 0) failures.push(`quiet: ${g} finished no house game in ${q.seconds.toFixed(0)} s`);
}

for (let i = 0; i < scenarios.length; i++) {
  if (quiet === null || (requietEvery > 0 && i > 0 && i % requietEvery === 0)) await measureQuiet();
  const scenario = scenarios[i]!;
  const w = await measure(windowS, scenario);
  const base = quiet!;
  const cells = GAMES.map((g: Game) => {
    const q = perMin(base.counts[g], base.seconds);
    const d = perMin(w.counts[g], w.seconds);
    const ratio = q > 0 ? d / q : 0;
    const attacked = scenario.targets.includes(g);
    if (!attacked && ratio < THRESHOLD)
      failures.push(
        `${scenario.id}: ${g} at ${(ratio * 100).toFixed(0)} % of its quiet rate (${d.toFixed(1)} vs ${q.toFixed(1)}/min)`,
      );
    const text = `${d.toFixed(1)} (${(ratio * 100).toFixed(0)} %)`;
    return attacked ? `*${text}*` : ratio < THRESHOLD ? `**${text}**` : text;
  });
  failures.push(...w.bad.map((b) => `${scenario.id}: ${b}`));
  const targetAfter = scenario.targets.map((g) => `${g} ${w.after[g]}`).join(', ');
  const pass = w.bad.length === 0 && !failures.some((f) => f.startsWith(`${scenario.id}:`));
  rows.push(
    `| ${scenario.attack} → ${scenario.targets.join(', ')} | ${cells.join(' | ')} | ${MiB(w.rssBefore)} → ${MiB(w.rssPeak)} → ${MiB(w.rssAfter)} | ${w.cpuPerS?.toFixed(2) ?? '–'} | ${targetAfter} | ${w.storeMiB.toFixed(0)} | ${w.logMiB.toFixed(1)} | ${pass ? 'pass' : 'FAIL'} |`,
  );
  log(
    `${scenario.id}: ${JSON.stringify(w.counts)}, after ${targetAfter}, RSS ${MiB(w.rssBefore)} → ${MiB(w.rssPeak)} → ${MiB(w.rssAfter)} MiB, ${pass ? 'pass' : 'FAIL'}; ${w.attack}`,
  );
}

const table = [
  `Each row: a fresh \`serve\`, ${warmupS} s warm-up, the attack for ${windowS} s, then ${afterS} s without it. Cells: house games finished per minute during the attack (share of the quiet rate); *italic*: the attacked game (not judged), **bold**: below 80 %. RSS in MiB: before the attack → peak → ${afterS} s after it. CPU: cores the serve process used during the window. "after": house games the attacked game finished in the ${afterS} s after the attack. "store": growth of the record store (file + WAL) during the window; "log": the warn-level log file at the end.`,
  '',
  `| scenario | ${GAMES.join(' | ')} | RSS MiB | CPU | after | store +MiB | log MiB | result |`,
  `|---|${GAMES.map(() => '---:').join('|')}|---:|---:|---|---:|---:|---|`,
  ...rows,
].join('\n');
process.stdout.write(`\n${table}\n`);
if (failures.length) process.stdout.write(`\nFailures:\n${failures.map((f) => `- ${f}`).join('\n')}\n`);
if (values.out)
  writeFileSync(
    values.out,
    table + '\n' + (failures.length ? `\nFailures:\n${failures.map((f) => `- ${f}`).join('\n')}\n` : ''),
  );
process.exit(failures.length ? 1 : 0);
