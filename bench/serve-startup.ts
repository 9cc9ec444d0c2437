/**
 * How long `spielhalle serve` takes until its ports answer: `node dist/cli.js serve` (built by
 * `npm run bench`) with every game, its house bots and the dashboard, each run on fresh free ports
 * and a fresh data directory. Timed from the spawn until a TCP port accepts a connection, or a UDP
 * port stops answering "port unreachable" (test/support/serve-probe.ts). Goal: every port within
 * 1 s on a quiet machine (issue 15). Printed as markdown.
 *
 *   npx tsx bench/serve-startup.ts [--runs 7] [--no-bots] [--cli <other build>/dist/cli.js]
 */
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { allGamesOnFreePorts, measureStartup, type StartupRun } from '../test/support/serve-probe.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}
const runs = Number(flag('runs', '7'));
const bots = !process.argv.includes('--no-bots');
// --cli: another build to compare with (say, of an earlier commit).
const cli = flag('cli', fileURLToPath(new URL('../dist/cli.js', import.meta.url)));
if (!existsSync(cli)) {
  process.stderr.write('serve-startup: dist/cli.js is missing: run `node scripts/build.mjs --server-only` first\n');
  process.exit(2);
}

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');
console.log(
  `serve-startup: ${runs} runs of \`node dist/cli.js serve\` (all games${bots ? ', house bots' : ', --no-bots'}, dashboard); ` +
    `${cpus().length} × ${cpus()[0]?.model ?? '?'}, Node ${process.version}, load ${load()}, ${new Date().toISOString()}\n`,
);

const names = ['mia', 'connect4', 'dame', 'ostseeschach', 'catan', 'dashboard'];
console.log(`| run | ${names.join(' | ')} | all ports | \`listening\` lines |`);
console.log(`|---|${names.map(() => '---:').join('|')}|---:|---:|`);
const results: StartupRun[] = [];
let failed = 0;
for (let i = 1; i <= runs; i++) {
  const { args, ports } = await allGamesOnFreePorts();
  // Connect Four's port is its house bot's: nothing listens there without house bots.
  const probed = bots ? ports : ports.filter((p) => p.name !== 'connect4');
  const run = await measureStartup({ cli, args: [...args, '--log-level', 'info', ...(bots ? [] : ['--no-bots'])], ports: probed, limitMs: 30_000 });
  results.push(run);
  if (run.all === null) failed++;
  const ms = (v: number | null | undefined): string => (v === undefined ? '–' : v === null ? 'never' : `${Math.round(v)}`);
  console.log(`| ${i} | ${names.map((n) => ms(run.ready[n])).join(' | ')} | **${ms(run.all)}** | ${run.listening.length} |`);
}

const alls = results.flatMap((r) => (r.all === null ? [] : [r.all])).sort((a, b) => a - b);
const median = alls[Math.floor(alls.length / 2)];
console.log(
  `\nall ports answering, ms from spawn: median ${median === undefined ? '–' : Math.round(median)}, ` +
    `min ${Math.round(alls[0] ?? NaN)}, max ${Math.round(alls[alls.length - 1] ?? NaN)}${failed ? `; ${failed} runs with a port that never answered` : ''}; load after ${load()}`,
);
process.exit(failed ? 1 : 0);
