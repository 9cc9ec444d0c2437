import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli.js';
import { RecordStore } from '../../src/core/records.js';
import { useTournamentGames } from '../../src/tournament/cli.js';
import { describeResult, matchLine, progressLine } from '../../src/tournament/report.js';
import { fakeGame } from '../fixtures/tournament/fake-game.js';

/** `spielhalle tournament …`: errors and reports in process; run, Ctrl-C, kill -9 and resume in a child process. */

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tsx = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const script = join(root, 'test', 'fixtures', 'tournament', 'cli-fake.ts');

const FILE = `name: CLI
game: dame
format: round-robin
seed: 3
parallel: 2
moveTime: 0.05
entrants:
  - { name: anna, bot: fixed, options: { strength: 4 } }
  - { name: bert, bot: fixed, options: { strength: 3 } }
  - { name: cleo, bot: fixed, options: { strength: 2 } }
  - { name: dora, bot: fixed, options: { strength: 1 } }
`;

function workspace(text = FILE): { dir: string; data: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'spielhalle-tcli-'));
  writeFileSync(join(dir, 'tournament.yaml'), text);
  return { dir, data: join(dir, 'data'), file: join(dir, 'tournament.yaml') };
}

/** Runs the CLI in this process; returns exit code, stdout and stderr. */
async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = vi
    .spyOn(process.stdout, 'write')
    .mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
  const e = vi
    .spyOn(process.stderr, 'write')
    .mockImplementation((chunk: string | Uint8Array) => ((err += String(chunk)), true));
  try {
    const code = await main(['node', 'spielhalle', ...args]);
    return { code, out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
    process.exitCode = undefined;
  }
}

interface Child {
  code: Promise<number | null>;
  out: () => string;
  err: () => string;
  /** Resolves once stderr has a progress line [n/…] with n ≥ done. */
  progressed(done: number): Promise<void>;
  kill(signal: NodeJS.Signals): void;
}

function child(data: string, args: string[], delayMs: number): Child {
  const p = spawn(process.execPath, ['--import', tsx, script, '--data-dir', data, 'tournament', ...args], {
    env: { ...process.env, FAKE_DELAY_MS: String(delayMs) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiters: { done: number; resolve: () => void }[] = [];
  const check = () => {
    const counts = [...err.matchAll(/^\[(\d+)\/\d+\]/gm)].map((m) => Number(m[1]));
    const best = Math.max(0, ...counts);
    for (const w of waiters.splice(0))
      if (best >= w.done) w.resolve();
      else waiters.push(w);
  };
  p.stdout.on('data', (d: Buffer) => (out += d.toString()));
  p.stderr.on('data', (d: Buffer) => {
    err += d.toString();
    check();
  });
  const code = new Promise<number | null>((resolve) => p.on('exit', (c) => resolve(c)));
  return {
    code,
    out: () => out,
    err: () => err,
    progressed: (done) =>
      new Promise<void>((resolve, reject) => {
        waiters.push({ done, resolve });
        check();
        void code.then(() => reject(new Error(`exited before ${done} matches:\n${err}`)));
      }),
    kill: (signal) => p.kill(signal),
  };
}

afterEach(() => useTournamentGames([fakeGame()]));

describe('spielhalle tournament (in process)', () => {
  it('prints every error of a bad file with its line and exits 2, and refuses unknown bots and ids', async () => {
    useTournamentGames([fakeGame()]);
    const bad = workspace(FILE.replace('parallel: 2', 'parallel: two').replace('moveTime', 'movetime'));
    const r = await cli('--data-dir', bad.data, 'tournament', 'run', bad.file);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${bad.file}:5:11: parallel: must be a number (got "two")`);
    expect(r.err).toMatch(new RegExp(`${bad.file}:6:11: movetime: unknown key`));
    expect(r.err).toContain('2 problems, nothing started');

    const unknown = workspace(FILE.replace('bot: fixed, options: { strength: 1 }', 'bot: nobody'));
    const u = await cli('--data-dir', unknown.data, 'tournament', 'run', unknown.file);
    expect(u.code).toBe(2);
    expect(u.err).toContain('entrant dora: unknown fake bot "nobody"');

    // Refused before anything was recorded (issue #33): there is no store, and status says where to look.
    expect((await cli('--data-dir', unknown.data, 'tournament', 'status', 'nope')).err).toContain(
      'no record store at',
    );
    expect((await cli('--data-dir', join(unknown.dir, 'none'), 'tournament', 'list')).code).toBe(2);
    expect(
      (await cli('--data-dir', unknown.data, 'tournament', 'run', unknown.file, '--parallel', '0')).err,
    ).toContain('--parallel must be');
  });

  it('refuses a worker without PostgreSQL, with unknown games, or with a bad concurrency', async () => {
    useTournamentGames([fakeGame()]);
    const saved = process.env.SPIELHALLE_DATABASE_URL;
    delete process.env.SPIELHALLE_DATABASE_URL;
    try {
      const none = await cli('worker');
      expect(none.code).toBe(2);
      expect(none.err).toContain('a worker needs the records in PostgreSQL');
      const games = await cli('worker', '--database', 'postgres://nobody@127.0.0.1:1/x', '--games', 'dame,go');
      expect(games.code).toBe(2);
      expect(games.err).toContain('--games: unknown go (games: dame)');
      const zero = await cli('worker', '--database', 'postgres://nobody@127.0.0.1:1/x', '--concurrency', '0');
      expect(zero.code).toBe(2);
      expect(zero.err).toContain('--concurrency must be a positive whole number, got "0"');
    } finally {
      if (saved !== undefined) process.env.SPIELHALLE_DATABASE_URL = saved;
    }
  });

  it('runs to the end with one line per match, then shows status, standings and exports', async () => {
    useTournamentGames([fakeGame()]);
    const w = workspace();
    const r = await cli('--data-dir', w.data, 'tournament', 'run', w.file);
    expect(r.code).toBe(0);
    const id = /tournament (t-\S+):/.exec(r.err)![1]!;
    const lines = r.err.split('\n').filter((l) => l.startsWith('['));
    expect(lines).toHaveLength(12);
    expect(lines.at(-1)).toMatch(/^\[12\/12\] \d+-\d \w+ beat \w+ \(\w+ is stronger\) · leader anna$/);
    expect(r.out).toMatch(
      /^tournament t-\S+ finished\n#\s+name\s+rating\s+95 %\s+Elo\s+games\s+W\/D\/L\s+points\s+crashes\s+timeouts\n1\s+anna\s+\d+\s+\[\d+–\d+\]\s+\d+\s+6\s+6\/0\/0/,
    );

    const status = await cli('--data-dir', w.data, 'tournament', 'status', id);
    expect(status.out).toContain('status:   finished');
    expect(status.out).toContain('progress: 12/12 matches done (100 %)');
    expect(status.out).toContain('leader:   anna');
    const list = await cli('--data-dir', w.data, 'tournament', 'list');
    expect(list.out).toMatch(new RegExp(`^${id}  \\S+  finished\\s+12/12  dame round-robin  CLI\\n$`));
    const out = join(w.dir, 'matches.json');
    expect(
      (
        await cli(
          '--data-dir',
          w.data,
          'tournament',
          'export',
          id,
          '--format',
          'json',
          '--matches',
          '--out',
          out,
        )
      ).code,
    ).toBe(0);
    const json = JSON.parse(readFileSync(out, 'utf8')) as {
      rows: { name: string }[];
      matches: { id: string; replay: string }[];
    };
    expect(json.rows.map((row) => row.name)).toEqual(['anna', 'bert', 'cleo', 'dora']);
    expect(json.matches).toHaveLength(12);
    expect(json.matches.every((m) => m.replay.startsWith('/matches/dame-'))).toBe(true);
  });

  it('keeps a tournament from prune, archives it, deletes it, says so at its records, and imports it back (issue 37)', async () => {
    useTournamentGames([fakeGame()]);
    const w = workspace();
    const id = /tournament (t-\S+):/.exec((await cli('--data-dir', w.data, 'tournament', 'run', w.file)).err)![1]!;
    const standings = (await cli('--data-dir', w.data, 'tournament', 'standings', id, '--json')).out;
    const store = new RecordStore(join(w.data, 'spielhalle.db'), { mode: 'read' });
    const records = store.listTournamentMatches(id).flatMap((m) => m.records);
    store.close();
    expect(records).toHaveLength(12);

    const kept = await cli('--data-dir', w.data, 'prune', '--older-than', '0s');
    expect(kept.out).toMatch(/^deleted 0 matches/);
    expect((await cli('--data-dir', w.data, 'replay', records[0]!)).code).toBe(0);

    // No terminal to ask: refused without --yes.
    const asked = await cli('--data-dir', w.data, 'tournament', 'archive', id);
    expect(asked.code).toBe(2);
    expect(asked.err).toContain('add --yes to confirm');
    const archived = await cli('--data-dir', w.data, 'tournament', 'archive', id, '--yes');
    const file = join(w.data, 'archives', `${id}.tournament.jsonl.gz`);
    expect(archived.out).toBe(`archived ${id}: 12 matches, 12 records in ${file}\n`);
    expect((await cli('--data-dir', w.data, 'tournament', 'list')).out).toMatch(/ {2}CLI {2}\(archived\)\n$/);
    const deleted = await cli('--data-dir', w.data, 'tournament', 'delete', id, '--yes');
    expect(deleted.out).toBe(`deleted ${id} and 12 game records\n`);
    expect((await cli('--data-dir', w.data, 'tournament', 'standings', id)).code).toBe(2);
    const gone = await cli('--data-dir', w.data, 'replay', records[0]!);
    expect(gone.code).toBe(2);
    expect(gone.err).toMatch(new RegExp(`no match with id "${records[0]}" in .*: pruned on \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC when tournament ${id} was deleted`));

    const imported = await cli('--data-dir', w.data, 'tournament', 'import', file);
    expect(imported.out).toBe(`imported ${id} (CLI): 12 matches, 12 records\n`);
    // As equal as two Bradley–Terry fits of the same results are: ratings to 10⁻⁶ Elo (docs/tournaments.md).
    const fitted = (json: string) => JSON.stringify(JSON.parse(json), (k, v: unknown) => (['rating', 'low', 'high'].includes(k) && typeof v === 'number' ? v.toFixed(6) : v));
    expect(fitted((await cli('--data-dir', w.data, 'tournament', 'standings', id, '--json')).out)).toBe(fitted(standings));
    expect((await cli('--data-dir', w.data, 'replay', records[0]!)).code).toBe(0);
    expect((await cli('--data-dir', w.data, 'tournament', 'import', file)).err).toContain('is in the store already');
    // Asked for explicitly, prune takes a tournament's records.
    expect((await cli('--data-dir', w.data, 'prune', '--older-than', '0s', '--include-tournaments')).out).toMatch(/^deleted 12 matches/);
  });
});

describe('spielhalle tournament run with a program', () => {
  it('runs a program in its cwd, taken relative to the tournament file (keepState: what one match writes, the next sees)', async () => {
    useTournamentGames([fakeGame()]);
    const w = workspace(`name: Prog
game: dame
format: round-robin
keepState: true
entrants:
  - { name: anna, bot: fixed, options: { strength: 1 } }
  - name: prog
    command: node -e "require('fs').appendFileSync('ran', process.argv[1])" {player}
    cwd: progdir
`);
    // The preflight wants the cwd a file names to exist (issue #33).
    mkdirSync(join(w.dir, 'progdir'));
    const r = await cli('--data-dir', w.data, 'tournament', 'run', w.file);
    expect(r.code).toBe(0);
    expect(readFileSync(join(w.dir, 'progdir', 'ran'), 'utf8')).toBe('11');
    const store = new RecordStore(join(w.data, 'spielhalle.db'), { mode: 'read' });
    const t = store.listTournaments()[0]!;
    expect((t.spec as { entrants: { cwd?: string }[] }).entrants[1]!.cwd).toBe(join(w.dir, 'progdir'));
    expect(t.source).toContain('cwd: progdir');
    store.close();
  });
});

describe('spielhalle tournament (stop, kill -9, resume)', () => {
  it('stops on Ctrl-C (exit 130), survives kill -9 of another process, resumes, and records every match exactly once', async () => {
    const w = workspace();
    // A serving process's store on the same file shows the tournament live (WAL, two processes).
    const serving = new RecordStore(join(w.data, 'spielhalle.db'), { mode: 'serve' });
    try {
      // Ctrl-C in this process, once two matches are done.
      useTournamentGames([fakeGame({ delayMs: 100 })]);
      let stops = 0;
      const watcher = setInterval(() => {
        const err = vi
          .mocked(process.stderr.write)
          .mock.calls.map((c) => String(c[0]))
          .join('');
        if (stops === 0 && /^\[2\/12\]/m.test(err)) {
          stops++;
          process.emit('SIGINT', 'SIGINT');
        }
      }, 10);
      const first = await cli('--data-dir', w.data, 'tournament', 'run', w.file).finally(() =>
        clearInterval(watcher),
      );
      expect(first.code).toBe(130);
      const id = /tournament (t-\S+):/.exec(first.err)![1]!;
      expect(first.err).toContain(
        `tournament ${id} stopped; resume with: spielhalle tournament resume ${id}`,
      );
      const afterStop = serving.getTournament(id)!;
      expect(afterStop).toMatchObject({ status: 'stopped' });
      expect(afterStop.done).toBeGreaterThanOrEqual(2);
      expect(serving.listTournamentMatches(id, { status: 'running' })).toEqual([]);

      // Resumed by another process, which is killed (-9) in the middle.
      const second = child(w.data, ['resume', id], 150);
      await second.progressed(afterStop.done + 2);
      expect(serving.getTournament(id)).toMatchObject({ status: 'running' });
      second.kill('SIGKILL');
      await second.code;
      const cut = serving.getTournament(id)!;
      expect(cut.status).toBe('running');
      expect(cut.done).toBeGreaterThanOrEqual(afterStop.done + 2);
      expect(cut.done).toBeLessThan(12);

      useTournamentGames([fakeGame()]);
      const third = await cli('--data-dir', w.data, 'tournament', 'resume', id);
      expect(third.code).toBe(0);
      expect(third.out).toContain(`tournament ${id} finished`);
      expect(serving.getTournament(id)).toMatchObject({ status: 'finished', done: 12, total: 12 });
      const matches = serving.listTournamentMatches(id);
      expect(matches.every((m) => m.status === 'done')).toBe(true);
      // What kill -9 left running was played again.
      expect(matches.some((m) => m.attempts > 1)).toBe(true);

      const standings = await cli('--data-dir', w.data, 'tournament', 'standings', id, '--json');
      const rows = (
        JSON.parse(standings.out) as { rows: { name: string; games: number; wins: number; losses: number }[] }
      ).rows;
      expect(rows.map((r) => [r.name, r.games, r.wins, r.losses])).toEqual([
        ['anna', 6, 6, 0],
        ['bert', 6, 4, 2],
        ['cleo', 6, 2, 4],
        ['dora', 6, 0, 6],
      ]);
      const csv = await cli('--data-dir', w.data, 'tournament', 'export', id, '--format', 'csv', '--matches');
      const lines = csv.out.trimEnd().split('\r\n');
      expect(lines[0]).toMatch(/^id,round,seed,reason,replay,seat1_name/);
      const ids = lines.slice(1).map((l) => l.split(',')[0]);
      expect(ids).toHaveLength(12);
      expect(new Set(ids).size).toBe(12);
    } finally {
      serving.close();
    }
  }, 60_000);
});

describe('report lines', () => {
  const base = {
    id: 't',
    done: 3,
    total: 8,
    running: ['2-0', '2-1'],
    startedAt: 0,
    elapsedMs: 90_000,
    perMinute: 2,
    etaMs: 150_000,
    leader: 'anna',
  };

  it('says who beat whom, draws, placings and byes', () => {
    const duel = (a: 'win' | 'draw' | 'loss', b: 'win' | 'draw' | 'loss') => ({
      id: '1-0',
      seats: [
        { name: 'anna', outcome: a, points: 0 },
        { name: 'bert', outcome: b, points: 0 },
      ],
      reason: 'timeout: bert',
    });
    expect(matchLine({ ...base, finished: duel('win', 'loss') })).toBe(
      '[3/8] 1-0 anna beat bert (timeout: bert) · leader anna',
    );
    expect(matchLine({ ...base, finished: duel('loss', 'win'), leader: null })).toBe(
      '[3/8] 1-0 bert beat anna (timeout: bert)',
    );
    expect(describeResult(duel('draw', 'draw'))).toBe('anna drew with bert (timeout: bert)');
    expect(describeResult({ id: '2-2', seats: [{ name: 'cleo', points: 2 }], reason: 'bye' })).toBe(
      'cleo has a bye',
    );
    const table = {
      id: '1-1',
      seats: [3, 1, 2].map((placing, i) => ({ name: ['a', 'b', 'c'][i]!, placing, points: 0 })),
    };
    expect(describeResult(table)).toBe('1. b, 2. c, 3. a');
    expect(matchLine(base)).toBeNull();
  });

  it('draws the terminal line with bar, rate, time and leader', () => {
    expect(progressLine(base, 8)).toBe('[###.....] 3/8  2.0/min  1m30s  ETA 2m30s  running 2  leader anna');
    expect(progressLine({ ...base, done: 0, perMinute: 0, etaMs: null, leader: null }, 4)).toBe(
      '[....] 0/8  0.0/min  1m30s  ETA –  running 2',
    );
  });
});
