import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { guard } from '../../src/core/guard.js';
import { RecordStore } from '../../src/core/records.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tsx = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

function capture() {
  const lines: { level: number; msg: string; where?: string; err?: { message: string; stack: string } }[] = [];
  const log = pino({ level: 'debug' }, { write: (s: string) => lines.push(JSON.parse(s) as (typeof lines)[number]) });
  return { log, lines };
}

describe('guard', () => {
  it('logs a throw with its stack at error level and hands it to onError', () => {
    const { log, lines } = capture();
    const seen: unknown[] = [];
    const f = guard(log, 'dame socket data', (n: number) => {
      if (n > 1) throw new Error(`too big: ${n}`);
    }, (err) => seen.push(err));
    f(1);
    expect(lines).toHaveLength(0);
    f(2);
    expect(seen).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, where: 'dame socket data', err: { message: 'too big: 2' } });
    expect(lines[0]!.err!.stack).toContain('guard.test.ts');
  });

  it('catches a rejected promise, and a throwing onError', async () => {
    const { log, lines } = capture();
    const f = guard(log, 'house loop', () => Promise.reject(new Error('later')), () => {
      throw new Error('recovery failed too');
    });
    f();
    await new Promise((r) => setTimeout(r, 10));
    expect(lines.map((l) => l.msg)).toEqual(['house loop: internal error', 'house loop: failed to recover from an internal error']);
  });
});

describe('installCrashHandlers', () => {
  it('marks running matches crash, keeps finished ones, and exits 70 on an exception no boundary caught', () => {
    const dir = mkdtempSync(join(tmpdir(), 'spielhalle-crash-'));
    const file = join(dir, 'spielhalle.db');
    const script = join(dir, 'crash.mts');
    const src = (name: string) => JSON.stringify(pathToFileURL(join(root, 'src', 'core', name)).href);
    writeFileSync(
      script,
      `import { RecordStore } from ${src('records.ts')};
import { installCrashHandlers } from ${src('guard.ts')};
import { silentLogger } from ${src('log.ts')};
const store = new RecordStore(${JSON.stringify(file)}, { mode: 'serve' });
installCrashHandlers({ log: silentLogger, onCrash: () => store.crash() });
const done = store.startMatch({ game: 'dame', startedAt: 1, seats: [] });
store.finishMatch(done, { status: 'finished', endedAt: 2, result: { winner: 0 } });
store.startMatch({ game: 'dame', startedAt: 3, seats: [] });
setTimeout(() => { throw new Error('a bug in a timer'); }, 5);
setInterval(() => {}, 1000);
`,
    );
    const r = spawnSync(process.execPath, ['--import', tsx, script], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(70);
    const store = new RecordStore(file, { mode: 'read' });
    const matches = store.listMatches();
    store.close();
    expect(matches.map((m) => [m.status, m.result])).toEqual([
      ['aborted', { reason: 'crash' }],
      ['finished', { winner: 0 }],
    ]);
    // The lock went with the process: the next server starts.
    new RecordStore(file, { mode: 'serve' }).close();
  }, 60_000);
});
