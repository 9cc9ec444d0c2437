// `npm run soak -- pg-outage`: the distributed tournament of test/tournament/pg-outage.test.ts
// through a 20 s PostgreSQL outage (`pg_ctl stop -m immediate` of a server of its own) instead of
// the test's 5 s (issue #31). Needs /usr/lib/postgresql/*/bin (skipped with a line without it).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const seconds = process.argv.includes('--seconds') ? process.argv[process.argv.indexOf('--seconds') + 1] ?? '20' : '20';
const r = spawnSync(process.execPath, [fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url)), 'run', 'test/tournament/pg-outage.test.ts', '-t', 'outage: nobody dies'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, SPIELHALLE_OUTAGE_SECONDS: seconds },
});
process.exit(r.status ?? 1);
