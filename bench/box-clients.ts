// `npm run soak -- clients`: all fifteen course clients (C, Java 17, Python 3 for each game) boxed
// in real matches; `npm test` plays one language per game (test/tournament/boxed-match.ts `plays`).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const r = spawnSync(
  fileURLToPath(new URL('../node_modules/.bin/vitest', import.meta.url)),
  ['run', 'test/tournament/box-clients-catan.test.ts', 'test/tournament/box-clients-connect4.test.ts', 'test/tournament/box-clients-dame.test.ts', 'test/tournament/box-clients-mia.test.ts', 'test/tournament/box-clients-ostseeschach.test.ts'],
  { cwd: root, stdio: 'inherit', env: { ...process.env, SPIELHALLE_ALL_CLIENTS: '1' } },
);
process.exit(r.status ?? 1);
