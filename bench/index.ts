// `npm run bench`: every benchmark, one after the other, each in a process of its own.
// Copy the printed tables into docs/benchmarks.md with the machine and date they show.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const benches: [string, string[]][] = [
  ['mia-server.ts', ['--bots', '50', '--seconds', '20']],
  ['mia-strength.ts', ['--rounds', '10000']],
];

let failed = 0;
for (const [file, args] of benches) {
  const path = fileURLToPath(new URL(`./${file}`, import.meta.url));
  process.stderr.write(`\n== bench/${file} ${args.join(' ')}\n`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', path, ...args], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    process.stderr.write(`== bench/${file} failed (exit ${String(r.status)})\n`);
  }
}
process.exit(failed ? 1 : 0);
