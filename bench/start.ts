/**
 * `npm start` on a fresh clone: from a clean build directory (no dist/, no web/dist/, node_modules
 * as `npm ci` leaves it) until the dashboard answers GET /healthz. Each run copies the repository
 * to a scratch directory (bench/start-copy.ts) and runs `npm start` there on free ports with a
 * fresh data directory; then, in the same copy, a second `npm start` with everything built (warm).
 * Goal (issue 16): the dashboard answers within 30 s of `npm ci` on a quiet machine. Printed as
 * markdown.
 *
 *   npx tsx bench/start.ts [--runs 3] [--build-script <another scripts/build.mjs to compare with>]
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { allGamesOnFreePorts } from '../test/support/serve-probe.js';
import { freshCopy, timeStart } from './start-copy.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}
const runs = Number(flag('runs', '3'));
const buildScript = flag('build-script', '');
const LIMIT_MS = 300_000;

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');
console.log(
  `start: ${runs} runs of \`npm start\` from a clean build directory until /healthz answers (all games, house bots, dashboard)` +
    `${buildScript ? `, build script ${buildScript}` : ''}; ${cpus().length} × ${cpus()[0]?.model ?? '?'}, Node ${process.version}, ` +
    `load ${load()}, ${new Date().toISOString()}\n`,
);
console.log('| run | build done (s) | /healthz, clean (s) | /healthz, warm (s) |');
console.log('|---|---:|---:|---:|');

const s = (ms: number | null): string => (ms === null ? 'never' : (ms / 1000).toFixed(1));
const cold: number[] = [];
let failed = 0;
for (let i = 1; i <= runs; i++) {
  const copy = freshCopy();
  if (buildScript) copyFileSync(resolve(buildScript), join(copy, 'scripts', 'build.mjs'));
  const times: (number | null)[] = [];
  let built: number | null = null;
  for (const pass of ['clean', 'warm']) {
    const { args, ports } = await allGamesOnFreePorts();
    const data = mkdtempSync(join(tmpdir(), 'spielhalle-start-data-'));
    const webPort = ports.find((p) => p.name === 'dashboard')?.port ?? 0;
    const run = await timeStart({
      cwd: copy,
      command: 'npm',
      args: ['start', '--', ...args, '--data-dir', data, '--log-level', 'warn'],
      webPort,
      limitMs: LIMIT_MS,
    });
    rmSync(data, { recursive: true, force: true });
    if (pass === 'clean') built = run.built;
    times.push(run.healthy);
    if (run.healthy === null) {
      failed++;
      process.stderr.write(`start: run ${i} (${pass}) never answered /healthz:\n${run.stderr}\n`);
    }
  }
  rmSync(copy, { recursive: true, force: true });
  if (times[0] !== null && times[0] !== undefined) cold.push(times[0]);
  console.log(`| ${i} | ${s(built)} | **${s(times[0] ?? null)}** | ${s(times[1] ?? null)} |`);
}

cold.sort((a, b) => a - b);
const median = cold[Math.floor(cold.length / 2)];
console.log(
  `\nclean start to /healthz: median ${median === undefined ? '–' : s(median)} s, min ${s(cold[0] ?? null)} s, max ${s(cold[cold.length - 1] ?? null)} s` +
    `${failed ? `; ${failed} starts never answered` : ''}; load after ${load()}`,
);
process.exit(failed ? 1 : 0);
