import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.js';
import { commandLogLevel } from '../../src/core/command-log.js';
import { ConfigError, envName } from '../../src/core/config.js';
import { UsageError } from '../../src/core/errors.js';
import { LineFramer } from '../../src/core/framing.js';
import { RecordStore } from '../../src/core/records.js';
import { nextInt, Rng, rngState } from '../../src/core/rng.js';
import { DEFAULT_SETTINGS, loadSettings } from '../../src/config.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// The child runs in a scratch directory, so the tsx loader is named by its absolute URL.
const tsx = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

describe('LineFramer', () => {
  it('splits lines across chunks and strips CR', () => {
    const f = new LineFramer(100);
    expect(f.push(Buffer.from('ab'))).toEqual([]);
    expect(f.push(Buffer.from('c\r\nde\nf'))).toEqual([
      { kind: 'line', line: 'abc' },
      { kind: 'line', line: 'de' },
    ]);
    expect(f.buffered).toBe(1);
  });

  it('reports an overlong line once and resynchronises at the next newline', () => {
    const f = new LineFramer(10);
    expect(f.push(Buffer.from('x'.repeat(8)))).toEqual([]);
    expect(f.push(Buffer.from('y'.repeat(8)))).toEqual([]);
    expect(f.overflowing).toBe(true);
    expect(f.push(Buffer.from('zz\nok\n'))).toEqual([
      { kind: 'overlong', bytes: 18 },
      { kind: 'line', line: 'ok' },
    ]);
  });

  it('gives the same lines however the stream is cut (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z ]{0,12}$/), { maxLength: 20 }), fc.array(fc.nat(40)), (lines, cuts) => {
        const data = Buffer.from(lines.map((l) => l + '\n').join(''));
        const f = new LineFramer(12);
        const out: string[] = [];
        let at = 0;
        for (const c of [...cuts, data.length]) {
          const end = Math.min(data.length, at + c);
          for (const item of f.push(data.subarray(at, end))) if (item.kind === 'line') out.push(item.line);
          at = end;
        }
        expect(out).toEqual(lines);
      }),
    );
  });
});

describe('rng', () => {
  it('is deterministic per seed and serializable', () => {
    const a = Rng.seeded('x');
    const seq = Array.from({ length: 10 }, () => a.int(1, 6));
    const b = Rng.seeded('x');
    expect(Array.from({ length: 10 }, () => b.int(1, 6))).toEqual(seq);
    const saved = a.state();
    const next = a.int(0, 1000);
    expect(Rng.fromState(JSON.parse(JSON.stringify(saved)) as number[]).int(0, 1000)).toBe(next);
    const [v1, s1] = nextInt(rngState(5), 1, 6);
    const [v2] = nextInt(rngState(5), 1, 6);
    expect(v1).toBe(v2);
    expect(s1).not.toEqual(rngState(5));
  });

  it('draws roughly uniformly', () => {
    const r = Rng.seeded(1);
    const counts = [0, 0, 0, 0, 0, 0];
    for (let i = 0; i < 60000; i++) counts[r.int(0, 5)]!++;
    for (const c of counts) expect(Math.abs(c - 10000)).toBeLessThan(400);
    expect(r.shuffle([1, 2, 3, 4]).sort()).toEqual([1, 2, 3, 4]);
  });
});

describe('VirtualClock', () => {
  it('fires timers in order, intervals repeatedly, and not when cancelled', () => {
    const c = new VirtualClock();
    const log: string[] = [];
    c.setTimeout(() => log.push(`a@${c.now()}`), 30);
    const t = c.setTimeout(() => log.push('never'), 20);
    c.setInterval(() => log.push(`i@${c.now()}`), 25);
    t.cancel();
    c.advance(60);
    expect(log).toEqual(['i@25', 'a@30', 'i@50']);
    expect(c.now()).toBe(60);
  });
});

describe('config', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'spielhalle-config-'));

  it('derives environment names from the settings', () => {
    expect(envName(['games', 'mia', 'answerTimeoutMs'])).toBe('SPIELHALLE_MIA_ANSWER_TIMEOUT_MS');
    expect(envName(['web', 'port'])).toBe('SPIELHALLE_WEB_PORT');
    expect(envName(['dataDir'])).toBe('SPIELHALLE_DATA_DIR');
  });

  it('layers flags over environment over file over defaults', () => {
    const cwd = dir();
    writeFileSync(join(cwd, 'spielhalle.config.json'), JSON.stringify({ web: { port: 8181 }, games: { mia: { port: 9100, heartbeatMs: 1000 } } }));
    const { config, file } = loadSettings({ cwd, env: { SPIELHALLE_MIA_PORT: '9200', SPIELHALLE_BOTS: 'false' }, flags: { games: { mia: { heartbeatMs: 500 } } } });
    expect(file).toBe(join(cwd, 'spielhalle.config.json'));
    expect(config.web.port).toBe(8181);
    expect(config.games.mia.port).toBe(9200);
    expect(config.games.mia.heartbeatMs).toBe(500);
    expect(config.bots).toBe(false);
    expect(config.games.mia.answerTimeoutMs).toBe(DEFAULT_SETTINGS.games.mia.answerTimeoutMs);
  });

  it('names the offending key and where it came from', () => {
    const cwd = dir();
    expect(() => loadSettings({ cwd, env: { SPIELHALLE_MIA_PORT: '70000' } })).toThrow(/games\.mia\.port.*SPIELHALLE_MIA_PORT/);
    expect(() => loadSettings({ cwd, env: { SPIELHALLE_WEB_PORT: 'eighty' } })).toThrow(ConfigError);
    writeFileSync(join(cwd, 'spielhalle.config.json'), JSON.stringify({ games: { mia: { colour: 'red' } } }));
    expect(() => loadSettings({ cwd })).toThrow(/games\.mia.*colour|colour/);
    writeFileSync(join(cwd, 'spielhalle.config.json'), '{ nope');
    expect(() => loadSettings({ cwd })).toThrow(/not valid JSON/);
    expect(() => loadSettings({ cwd, file: 'missing.json' })).toThrow(/not found/);
  });
});

describe('RecordStore', () => {
  it('migrates, stores matches with seats, events and wire log, and lists them newest first', () => {
    const file = join(dir2(), 'records.db');
    const store = new RecordStore(file);
    expect(store.schemaVersion).toBe(5);
    const a = store.startMatch({ game: 'mia', seed: 7, startedAt: 1000, seats: [{ seat: 0, name: 'x', kind: 'player' }] });
    store.addEvent(a, { at: 1001, seat: 0, type: 'roll' });
    store.addWire({ matchId: a, game: 'mia', conn: '127.0.0.1:5', at: 1002, dir: 'in', data: 'ROLL;t' });
    store.finishMatch(a, { status: 'finished', endedAt: 1003, result: { winner: 'x' } });
    const b = store.startMatch({ game: 'mia', startedAt: 2000, seats: [] });
    store.close();

    const again = new RecordStore(file, { mode: 'serve' });
    const list = again.listMatches({ game: 'mia' });
    expect(list.map((m) => m.id)).toEqual([b, a]);
    // b was still running when a writer (not a serving process) closed: the next serving process
    // takes it for cut off by a crash.
    expect(list[0]).toMatchObject({ status: 'aborted', result: { reason: 'crash' } });
    const detail = again.getMatch(a)!;
    expect(detail).toMatchObject({ seed: '7', status: 'finished', endedAt: 1003, result: { winner: 'x' } });
    expect(detail.events).toEqual([{ seq: 1, at: 1001, seat: 0, type: 'roll', data: null }]);
    expect(detail.wire).toMatchObject([{ conn: '127.0.0.1:5', dir: 'in', data: 'ROLL;t' }]);
    expect(again.getMatch('nope')).toBeNull();
    again.close();
  });

  it('drains a large backlog to disk without blocking the event loop', async () => {
    const file = join(dir2(), 'records.db');
    const store = new RecordStore(file);
    const id = store.startMatch({ game: 'catan', startedAt: 1, seats: [] });
    for (let i = 0; i < 60_000; i++) store.addWire({ matchId: id, game: 'catan', conn: '*', at: i, dir: 'out', data: `{"Zeile":${i}}` });
    store.finishMatch(id, { status: 'finished', endedAt: 2, result: null });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 1);
    await store.drain();
    clearInterval(ticker);
    // The writer thread committed the rows while this thread kept running timers.
    expect(ticks).toBeGreaterThan(0);
    store.close();
    const again = new RecordStore(file);
    const match = again.getMatch(id)!;
    expect(match.status).toBe('finished');
    expect(match.wire).toHaveLength(60_000);
    again.close();
  });

  it('keeps the process alive until the last of overlapping drains has its rows', () => {
    // A child process queues a backlog, starts a drain, queues a larger one and drains again; the
    // first drain ending must not let the process exit while the second still waits.
    const dir = dir2();
    const file = join(dir, 'records.db');
    const script = join(dir, 'drain.mts');
    const records = pathToFileURL(join(root, 'src', 'core', 'records.ts')).href;
    writeFileSync(
      script,
      `import { RecordStore } from ${JSON.stringify(records)};
const store = new RecordStore(${JSON.stringify(file)});
const id = store.startMatch({ game: 'catan', startedAt: 1, seats: [] });
const wire = (n: number) => { for (let i = 0; i < n; i++) store.addWire({ matchId: id, game: 'catan', conn: '*', at: i, dir: 'out', data: 'x'.repeat(40) + i }); };
wire(2_000);
void store.drain().then(() => process.stdout.write('first\\n'));
wire(60_000);
store.finishMatch(id, { status: 'finished', endedAt: 2, result: null });
void store.drain().then(() => process.stdout.write('second\\n'));
`,
    );
    const r = spawnSync(process.execPath, ['--import', tsx, script], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('first\nsecond\n');
    const again = new RecordStore(file);
    expect(again.getMatch(again.listMatches({ game: 'catan' })[0]!.id)!.wire).toHaveLength(62_000);
    again.close();
  });
});


function dir2() {
  return mkdtempSync(join(tmpdir(), 'spielhalle-records-'));
}

describe('commandLogLevel', () => {
  const levelFor = (argv: string[]): string => {
    let level = '';
    const program = new Command().exitOverride().option('--log-level <level>');
    program
      .command('bot')
      .option('--log-level <level>')
      .action((_opts: unknown, cmd: Command) => {
        level = commandLogLevel(cmd, 'warn');
      });
    program.parse(argv, { from: 'user' });
    return level;
  };

  it('reads --log-level after the subcommand, before it, or falls back', () => {
    expect(levelFor(['bot', '--log-level', 'debug'])).toBe('debug');
    expect(levelFor(['--log-level', 'trace', 'bot'])).toBe('trace');
    expect(levelFor(['bot'])).toBe('warn');
    expect(() => levelFor(['bot', '--log-level', 'loud'])).toThrow(UsageError);
  });
});
