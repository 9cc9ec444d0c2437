// The crash soak (`npm run soak -- hardening`): `spielhalle serve` with all five games and their
// house games is killed with SIGKILL at a random moment, started again on the same data
// directory, and the record store checked (test/hardening/crash.ts), ten times over the same
// file; then a clean stop. No finished match may be lost, `PRAGMA integrity_check` must say `ok`
// every time, and every match running at a kill must come back `aborted` with reason `crash`.
//
//   npx tsx bench/hardening-crash.ts [--kills 10] [--min-s 3] [--max-s 40]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { cleanStop, killAndRestart, readStore } from '../test/hardening/crash.js';
import { buildServer, type ServeProcess } from '../test/hardening/serve.js';

const { values } = parseArgs({
  options: {
    kills: { type: 'string', default: '10' },
    'min-s': { type: 'string', default: '3' },
    'max-s': { type: 'string', default: '40' },
  },
});
const kills = Number(values.kills);
const minS = Number(values['min-s']);
const maxS = Number(values['max-s']);

buildServer();
const dir = mkdtempSync(join(tmpdir(), 'spielhalle-crash-soak-'));
const rows: string[] = [];
const failures: string[] = [];
const crashed = new Set<string>();
let serve: ServeProcess | null = null;
for (let k = 1; k <= kills; k++) {
  const runMs = Math.round((minS + Math.random() * (maxS - minS)) * 1000);
  // Each kill hits the process that the previous round started again.
  const r = await killAndRestart(
    dir,
    { minFinished: 1, minRunMs: runMs, timeoutMs: runMs + 60_000 },
    serve ?? undefined,
  );
  serve = r.serve;
  const x = r.result;
  for (const id of x.runningIds) crashed.add(id);
  failures.push(...x.failures.map((f) => `kill ${k}: ${f}`));
  rows.push(
    `| ${k} | ${x.killedAfterS.toFixed(1)} | ${x.finishedBefore} | ${x.runningAtKill} | ${x.lost.length} | ${x.runningAtKill - x.notMarked.length} of ${x.runningAtKill} | ${x.integrityAfterKill} / ${x.integrityAfterRestart} | ${x.rssKiB === null ? '–' : (x.rssKiB / 1024).toFixed(0)} | ${x.failures.length ? 'FAIL' : 'ok'} |`,
  );
  process.stderr.write(
    `kill ${k} after ${x.killedAfterS.toFixed(1)} s: ${x.finishedBefore} finished, ${x.runningAtKill} running, ${x.lost.length} lost, ${x.notMarked.length} not marked, integrity ${x.integrityAfterRestart}\n`,
  );
}
if (serve) failures.push(...(await cleanStop(serve, crashed)).map((f) => `clean stop: ${f}`));
const end = readStore(join(dir, 'spielhalle.db'));
process.stdout.write(
  [
    '',
    `| kill | after s | finished before | running at kill | finished lost | marked aborted/crash | integrity (kill / restart) | RSS MiB at kill | result |`,
    `|---:|---:|---:|---:|---:|---|---|---:|---|`,
    ...rows,
    '',
    `After a clean stop: ${end.status.size} matches, ${[...end.status.values()].filter((s) => s === 'running').length} running, integrity ${end.integrity}.`,
    '',
  ].join('\n'),
);
if (process.env.SPIELHALLE_HARDENING_KEEP === undefined) rmSync(dir, { recursive: true, force: true });
if (failures.length) process.stdout.write(`Failures:\n${failures.map((f) => `- ${f}`).join('\n')}\n`);
process.exit(failures.length ? 1 : 0);
