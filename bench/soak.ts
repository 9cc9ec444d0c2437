// `npm run soak [-- <game>…]`: the long runs, one after the other.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const runs: [game: string, file: string, args: string[]][] = [
  ['mia', 'mia-server.ts', ['--soak']],
  ['mia', 'mia-flood.ts', ['--seconds', '20']],
  ['connect4', 'connect4-solver.ts', ['--empty', '--max-minutes', '600']],
  ['dame', 'dame-strength.ts', ['--games', '200', '--ms', '1000', '--scaling', '200', '--endgames', '1000']],
  ['catan', 'catan-server.ts', ['--leak-games', '1000']],
  ['fuzz', 'fuzz.ts', ['--messages', '1000000']],
  ['hardening', 'hardening.ts', []],
  ['hardening', 'hardening-crash.ts', ['--kills', '10']],
  ['pg-outage', 'pg-outage.ts', ['--seconds', '20']],
  ['clients', 'box-clients.ts', []],
  ['chaos', 'chaos.ts', ['--minutes', '5']],
  ['ladder', 'ladder.ts', ['--clients', '200', '--seconds', '600']],
];

const only = process.argv.slice(2);
let failed = 0;
for (const [game, file, args] of runs) {
  if (only.length > 0 && !only.includes(game)) continue;
  process.stderr.write(`\n== bench/${file} ${args.join(' ')}\n`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(`./${file}`, import.meta.url)), ...args], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
