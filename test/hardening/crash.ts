import Database from 'better-sqlite3';
import { GAMES, ServeProcess, sleep, type ServeOptions } from './serve.js';

/**
 * kill -9 of `spielhalle serve` and what the record store must look like afterwards: every match
 * the file held as finished is still there and finished, `PRAGMA integrity_check` is `ok`, and
 * every match the file held as running is `aborted` with `reason: 'crash'` once the server has
 * started again on the same data directory.
 */

export interface StoreState {
  integrity: string;
  status: Map<string, string>;
  reason: Map<string, unknown>;
}

/** The record store file as it is now, opened read-only. */
export function readStore(file: string, check = true): StoreState {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const integrity = check
      ? (db.pragma('integrity_check') as { integrity_check: string }[])
          .map((r) => r.integrity_check)
          .join('; ')
      : 'unchecked';
    const rows = db.prepare('SELECT id, status, result FROM matches').all() as {
      id: string;
      status: string;
      result: string | null;
    }[];
    const status = new Map(rows.map((r) => [r.id, r.status]));
    const reason = new Map(
      rows.map((r) => {
        let parsed: unknown = null;
        try {
          parsed = r.result === null ? null : (JSON.parse(r.result) as unknown);
        } catch {
          parsed = r.result;
        }
        return [
          r.id,
          parsed !== null && typeof parsed === 'object' ? (parsed as { reason?: unknown }).reason : parsed,
        ];
      }),
    );
    return { integrity, status, reason };
  } finally {
    db.close();
  }
}

const idsWith = (s: StoreState, status: string): string[] =>
  [...s.status].filter(([, st]) => st === status).map(([id]) => id);

export interface KillResult {
  /** Seconds from ready to the kill. */
  killedAfterS: number;
  finishedBefore: number;
  runningAtKill: number;
  /** The ids of those. */
  runningIds: string[];
  /** Finished before the kill, not finished after the restart. */
  lost: string[];
  /** Running at the kill, not `aborted` with reason `crash` after the restart (with what they are instead). */
  notMarked: string[];
  integrityAfterKill: string;
  integrityAfterRestart: string;
  rssKiB: number | null;
  failures: string[];
}

/**
 * Starts serve on `dataDir` (or takes `running`, already serving it), lets it run until at least `minFinished` house games have finished
 * since the start and a match is running (and at least `minRunMs`), kills it with SIGKILL,
 * starts it again and checks the file. The restarted process is returned running.
 */
export async function killAndRestart(
  dataDir: string,
  o: { minFinished: number; minRunMs: number; timeoutMs: number; serveOptions?: ServeOptions },
  running?: ServeProcess,
): Promise<{ result: KillResult; serve: ServeProcess }> {
  const failures: string[] = [];
  let serve = running ?? (await ServeProcess.start({ ...o.serveOptions, dataDir }));
  const readyAt = Date.now();
  const finishedAtStart = idsWith(readStore(serve.dbFile, false), 'finished').length;
  let observed = readStore(serve.dbFile, false);
  for (;;) {
    const finishedNow = idsWith(observed, 'finished').length - finishedAtStart;
    const runningNow = idsWith(observed, 'running').length;
    if (
      (finishedNow >= o.minFinished && runningNow > 0 && Date.now() - readyAt >= o.minRunMs) ||
      Date.now() - readyAt > o.timeoutMs ||
      !serve.alive
    )
      break;
    await sleep(100);
    observed = readStore(serve.dbFile, false);
  }
  if (!serve.alive)
    failures.push(
      `serve exited on its own before the kill: ${JSON.stringify(serve.exit)}\n${serve.stderrTail(15)}`,
    );
  const rssKiB = serve.rssKiB();
  await serve.kill9();
  const killedAfterS = (Date.now() - readyAt) / 1000;
  // What the file holds at the kill: exactly what the next start must deal with.
  const atKill = readStore(serve.dbFile);
  const finishedBefore = new Set([...idsWith(observed, 'finished'), ...idsWith(atKill, 'finished')]);
  const runningAtKill = idsWith(atKill, 'running');
  if (runningAtKill.length === 0)
    failures.push('no match was running at the kill (the check would be empty)');

  serve = await ServeProcess.start({ ...o.serveOptions, dataDir });
  const after = readStore(serve.dbFile);
  const lost = [...finishedBefore].filter((id) => after.status.get(id) !== 'finished');
  const notMarked = runningAtKill
    .filter((id) => !(after.status.get(id) === 'aborted' && after.reason.get(id) === 'crash'))
    .map((id) => `${id}: ${String(after.status.get(id))}, reason ${JSON.stringify(after.reason.get(id))}`);
  if (atKill.integrity !== 'ok') failures.push(`integrity_check after the kill: ${atKill.integrity}`);
  if (after.integrity !== 'ok') failures.push(`integrity_check after the restart: ${after.integrity}`);
  if (lost.length > 0)
    failures.push(
      `${lost.length} of ${finishedBefore.size} finished matches lost: ${lost.slice(0, 5).join(', ')}`,
    );
  if (notMarked.length > 0)
    failures.push(
      `${notMarked.length} of ${runningAtKill.length} matches running at the kill not marked aborted/crash: ${notMarked.slice(0, 5).join('; ')}`,
    );
  return {
    result: {
      killedAfterS,
      finishedBefore: finishedBefore.size,
      runningAtKill: runningAtKill.length,
      runningIds: runningAtKill,
      lost,
      notMarked,
      integrityAfterKill: atKill.integrity,
      integrityAfterRestart: after.integrity,
      rssKiB,
      failures,
    },
    serve,
  };
}

/** After a clean stop (SIGTERM) nothing is left running, and nothing is marked as a crash that was not one. */
export async function cleanStop(serve: ServeProcess, crashedBefore: ReadonlySet<string>): Promise<string[]> {
  const failures: string[] = [];
  const code = await serve.stop();
  if (code !== 0) failures.push(`serve exited with ${String(code)} on SIGTERM\n${serve.stderrTail(15)}`);
  const s = readStore(serve.dbFile);
  const running = idsWith(s, 'running');
  if (running.length > 0)
    failures.push(
      `${running.length} matches still running after a clean stop: ${running.slice(0, 5).join(', ')}`,
    );
  const wronglyCrashed = [...s.reason]
    .filter(([id, reason]) => reason === 'crash' && !crashedBefore.has(id))
    .map(([id]) => id);
  if (wronglyCrashed.length > 0)
    failures.push(
      `${wronglyCrashed.length} matches of a clean stop marked 'crash': ${wronglyCrashed.slice(0, 5).join(', ')}`,
    );
  if (s.integrity !== 'ok') failures.push(`integrity_check after the clean stop: ${s.integrity}`);
  return failures;
}

export const finishedPerGame = (s: StoreState): string => {
  const n = Object.fromEntries(GAMES.map((g) => [g, 0])) as Record<string, number>;
  for (const [id, st] of s.status)
    if (st === 'finished') n[id.slice(0, id.indexOf('-'))] = (n[id.slice(0, id.indexOf('-'))] ?? 0) + 1;
  return JSON.stringify(n);
};
