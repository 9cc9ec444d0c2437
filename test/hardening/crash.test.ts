import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { cleanStop, killAndRestart } from './crash.js';
import { buildServer } from './serve.js';

/**
 * kill -9 of `spielhalle serve` while house games run: no finished match is lost, the record
 * store passes `PRAGMA integrity_check`, and the matches that were running are marked `aborted`
 * with `reason: 'crash'` when the server starts again on the same data directory; a clean stop
 * afterwards leaves nothing running and marks nothing as a crash. `npm run soak -- hardening`
 * kills at ten random moments (bench/hardening-crash.ts).
 */

it('kill -9 loses no finished match, keeps the file intact and marks the running ones as crashed', async () => {
  buildServer();
  const dir = mkdtempSync(join(tmpdir(), 'spielhalle-crash-'));
  const { result, serve } = await killAndRestart(dir, { minFinished: 20, minRunMs: 5000, timeoutMs: 60_000 });
  const failures = [...result.failures];
  try {
    expect(result.finishedBefore).toBeGreaterThan(0);
    expect(result.runningAtKill).toBeGreaterThan(0);
  } finally {
    failures.push(...(await cleanStop(serve, new Set(result.runningIds))));
    rmSync(dir, { recursive: true, force: true });
  }
  expect(failures).toEqual([]);
}, 150_000);
