// `npm run bench [-- <game>…]`: every benchmark (or those of the named games), one after the
// other, each in a process of its own. Copy the printed tables into docs/benchmarks.md with the
// machine and date they show. The long runs are in `npm run soak`.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** `a,b` → `ext:a,ext:b`. */
function publicBots(list: string): string {
  return list
    .split(',')
    .filter((p) => p !== '')
    .map((p) => `ext:${p}`)
    .join(',');
}

const benches: [game: string, file: string, args: string[]][] = [
  ['serve', 'serve-startup.ts', ['--runs', '7']],
  ['serve', 'start.ts', ['--runs', '3']],
  ['mia', 'mia-server.ts', ['--bots', '50', '--seconds', '20']],
  ['mia', 'mia-strength.ts', ['--rounds', '10000']],
  ['connect4', 'connect4-solver.ts', ['--set', 'all']],
  ['connect4', 'connect4-solver.ts', ['--selfplay', '--games', '100']],
  // Against Pons' C++ solver when PONS_C4SOLVER names a build of it (see the file); else ours only.
  ['connect4', 'connect4-pons.ts', ['--sets', 'all', '--runs', '3', '--startup', '15']],
  // The empty board without the book: minutes per program (Pons, `solve` as it runs by default, one thread).
  ['connect4', 'connect4-pons.ts', ['--sets', 'none', '--runs', '1', '--empty', '--tables', 'grow', '--threads', 'auto,1']],
  ['dame', 'dame-perft.ts', ['--depth', '9']],
  ['dame', 'dame-strength.ts', ['--games', '100', '--ms', '1000', '--vs', 'random,depth2', '--opening']],
  ['ostseeschach', 'ostseeschach-perft.ts', ['--depth', '5']],
  ['ostseeschach', 'ostseeschach-search.ts', ['--ms', '1700']],
  // Time per move as the server sees it, two CPU hogs beside (issue 35).
  ['ostseeschach', 'ostseeschach-time.ts', ['--games', '4', '--hogs', '2']],
  // Against the engine before issue 35 and the simple bots, Elo with 95 % intervals.
  ['ostseeschach', 'ostseeschach-gauntlet.ts', ['--games', '40', '--ms', '200']],
  // Against public SC2022 bots when OSTSEESCHACH_PUBLIC_BOTS names bridges to them (comma-separated
  // programs built outside the repository; the line protocol is in the file's header).
  ...(process.env.OSTSEESCHACH_PUBLIC_BOTS
    ? ([
        ['ostseeschach', 'ostseeschach-gauntlet.ts', ['--games', '40', '--ms', '200', '--opponents', publicBots(process.env.OSTSEESCHACH_PUBLIC_BOTS)]],
        ['ostseeschach', 'ostseeschach-gauntlet.ts', ['--games', '20', '--ms', '1000', '--opponents', publicBots(process.env.OSTSEESCHACH_PUBLIC_BOTS)]],
      ] as [string, string, string[]][])
    : []),
  ['ostseeschach', 'ostseeschach-strength.ts', ['--games', '100', '--ms', '500', '--opponents', 'random,depth2']],
  ['ostseeschach', 'ostseeschach-server.ts', ['--games', '200', '--concurrency', '2', '--ms', '25']],
  ['catan', 'catan-rules.ts', ['--games', '1000']],
  ['catan', 'catan-server.ts', ['--games', '200']],
  ['catan', 'catan-server.ts', ['--games', '200', '--think-ms', '500', '--seconds', '90']],
  ['catan', 'catan-strength.ts', ['--games', '1000', '--vs', 'search:weighted,search:random,weighted:random']],
  ['catan', 'catan-wire.ts', ['--games', '100', '--parallel', '4']],
  ['tournament', 'tournament.ts', []],
  ['tournament', 'sandbox.ts', ['--runs', '30']],
  // Standings at season scale (issue 38): 200 entrants, 80,000 results, SQLite and PostgreSQL.
  ['tournament', 'standings.ts', ['--entrants', '200', '--results', '80000', '--requests', '20']],
  ['records', 'record-backends.ts', ['--games', '200', '--rounds', '3']],
  ['records', 'distributed.ts', ['--workers', '1,2,4', '--overhead-runs', '2']],
  // Die Liga (issue 34): 200 clients for a minute here; the 10 minutes are in `npm run soak -- ladder`.
  ['ladder', 'ladder.ts', ['--clients', '200', '--seconds', '60']],
  ['ladder', 'ladder-anchors.ts', ['--games', '30']],
  ['ladder', 'ladder-anchors.ts', ['--game', 'ostseeschach', '--games', '40']],
  ['ladder', 'ladder-anchors.ts', ['--game', 'connect4', '--games', '40']],
];

const only = process.argv.slice(2);
const unknown = only.filter((g) => !benches.some(([game]) => game === g));
if (unknown.length > 0) {
  process.stderr.write(`bench: no benchmarks for ${unknown.join(', ')}; games: ${[...new Set(benches.map(([g]) => g))].join(', ')}\n`);
  process.exit(2);
}

let failed = 0;
for (const [game, file, args] of benches) {
  if (only.length > 0 && !only.includes(game)) continue;
  const path = fileURLToPath(new URL(`./${file}`, import.meta.url));
  process.stderr.write(`\n== bench/${file} ${args.join(' ')}\n`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', path, ...args], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    process.stderr.write(`== bench/${file} failed (exit ${String(r.status)})\n`);
  }
}
process.exit(failed ? 1 : 0);
