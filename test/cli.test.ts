import { spawn, spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RecordStore } from '../src/core/records.js';

/** The `spielhalle` command as a user runs it: exit codes, one-line errors, serve and shutdown. */

const root = join(import.meta.dirname, '..');
// The built CLI (npm test builds before the suites; `npm run build` before running this file alone):
// started through the TypeScript loader, each of the ~40 runs here took 4 s on a 2-core CI machine.
const cli = join(root, 'dist', 'cli.js');
const dataDir = () => mkdtempSync(join(tmpdir(), 'spielhalle-cli-'));
/** A data dir with an empty record store in it. */
function emptyStore(): string {
  const dir = dataDir();
  new RecordStore(join(dir, 'spielhalle.db')).close();
  return dir;
}

function run(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [cli, ...args], {
    cwd: dataDir(),
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// Each case starts a fresh Node: up to a second apiece on a busy machine.
const SLOW = 120_000;

describe('spielhalle CLI', () => {
  it('has --help on every command', () => {
    const top = run(['--help']);
    expect(top.code).toBe(0);
    for (const cmd of ['serve', 'bot', 'replay', 'matches']) expect(top.stdout).toContain(cmd);
    expect(run(['serve', '--help']).stdout).toContain('--no-bots');
    expect(run(['bot', 'mia', '--help']).stdout).toContain('--strategy');
    expect(run(['replay', '--help']).code).toBe(0);
  }, SLOW);

  it('lists the global options in every subcommand\'s --help', () => {
    for (const args of [['serve'], ['matches'], ['replay'], ['prune'], ['bot', 'mia'], ['play', 'connect4']]) {
      const help = run([...args, '--help']);
      expect(help.code, args.join(' ')).toBe(0);
      for (const flag of ['--data-dir <dir>', '--log-level <level>', '--config <file>']) expect(help.stdout, `${args.join(' ')}: ${flag}`).toContain(flag);
    }
  }, SLOW);

  it('reports usage errors as one line with exit code 2', () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['serve', '--bogus'], {}, /unknown option '--bogus'/],
      [['serve', '--mia-port', '99999'], {}, /--mia-port must be a port number/],
      [['serve', '--game', 'chess'], {}, /chess.*invalid|Allowed choices/i],
      [['serve'], { SPIELHALLE_WEB_PORT: 'eighty' }, /SPIELHALLE_WEB_PORT: expected a number/],
      [['serve'], { SPIELHALLE_MIA_ANSWER_TIMEOUT_MS: '0' }, /invalid setting games\.mia\.answerTimeoutMs.*SPIELHALLE_MIA_ANSWER_TIMEOUT_MS/],
      [['bot', 'mia', '--strategy', 'psychic'], {}, /psychic/],
      [['replay', 'no-such-match', '--data-dir', emptyStore()], {}, /no match with id "no-such-match"/],
      [['replay', 'no-such-match', '--data-dir', join(dataDir(), 'nonexistent', 'x')], {}, /no record store at .*nonexistent/],
      [['matches', '--data-dir', join(dataDir(), 'nonexistent')], {}, /no record store at/],
      [['prune', '--older-than', 'soon', '--data-dir', emptyStore()], {}, /--older-than must be an age/],
      [['prune', '--game', 'chess', '--older-than', '1d', '--data-dir', emptyStore()], {}, /unknown game "chess"/],
      [['frobnicate'], {}, /unknown command 'frobnicate'/],
      [['bot', 'mia', '--name', 'a;b'], {}, /--name must be 1 to 20 characters.*"a;b"/],
      [['bot', 'mia', '--name', 'twenty-one-characters'], {}, /--name must be/],
      [['play', 'connect4', '--vs', 'alien'], {}, /'alien' is invalid/],
      [['play', 'connect4', '--bogus'], {}, /unknown option '--bogus'/],
      [['solve', '--best', '9'], {}, /--best "9": not a column/],
      [['solve', '--best', '4444444'], {}, /--best "4444444"/],
      [['matches', '--game', 'chess', '--data-dir', emptyStore()], {}, /unknown game "chess" \(one of catan, mia, connect4, dame, ostseeschach\)/],
    ];
    for (const [args, env, message] of cases) {
      const r = run(args, env);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  }, SLOW);

  it('serves Mia, stops cleanly on SIGTERM, and keeps what it recorded', async () => {
    const dir = dataDir();
    const child = spawn(process.execPath, [cli, 'serve', '--game', 'mia', '--no-web', '--mia-port', '0', '--data-dir', dir, '--log-level', 'warn', '--seed', 'cli'], {
      env: { ...process.env, SPIELHALLE_MIA_HOUSE_BOTS: '3', SPIELHALLE_MIA_START_EARLY: 'true' },
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const port = await new Promise<number>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no start line: ${stderr}`)), 20_000);
      child.stderr.on('data', () => {
        const m = /udp 127\.0\.0\.1:(\d+)/.exec(stderr);
        if (m) {
          clearTimeout(t);
          resolve(Number(m[1]));
        }
      });
    });
    // a spectator sees the house bots play
    const spec = createSocket('udp4');
    const lines: string[] = [];
    spec.on('message', (m) => lines.push(m.toString()));
    await new Promise<void>((r) => spec.bind(0, '127.0.0.1', r));
    spec.send('REGISTER_SPECTATOR;cli-test', port, '127.0.0.1');
    const deadline = Date.now() + 10_000;
    while (!lines.some((l) => l.startsWith('PLAYER LOST')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    spec.close();
    expect(lines).toContain('REGISTERED');
    expect(lines.some((l) => l.startsWith('PLAYER LOST;'))).toBe(true);

    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    const store = new RecordStore(join(dir, 'spielhalle.db'));
    expect(store.listMatches({ game: 'mia', status: 'finished' }).length).toBeGreaterThan(0);
    expect(store.getScores('mia').size).toBeGreaterThanOrEqual(3);
    store.close();

    const listed = run(['matches', '--game', 'mia', '--limit', '3', '--data-dir', dir]);
    expect(listed.code).toBe(0);
    const id = listed.stdout.split(/\s+/)[0]!;
    const finished = new RecordStore(join(dir, 'spielhalle.db'));
    const finishedId = finished.listMatches({ game: 'mia', status: 'finished', limit: 1 })[0]!.id;
    finished.close();
    expect(id).toMatch(/^mia-/);
    const replay = run(['replay', finishedId, '--data-dir', dir]);
    expect(replay.code).toBe(0);
    expect(replay.stdout).toContain(`match ${finishedId} (mia), finished`);
    expect(replay.stdout).toMatch(/\* +<- PLAYER LOST;/);
    // the last line sums the round up, and says that the rules agree with the record
    const summary = replay.stdout.trimEnd().split('\n').at(-1);
    expect(summary).toMatch(/^summary: \d+ moves, round \d+: lost: [\w-]+(, [\w-]+)* \([A-Z_]+\); \+1: .+; rules check: ok$/);
    // every finished round listed names its loser, the reason and who gained a point
    const all = run(['matches', '--game', 'mia', '--limit', '50', '--data-dir', dir]).stdout.split('\n');
    const line = all.find((l) => l.startsWith(`${finishedId} `));
    expect(line).toMatch(/ finished .* round \d+: lost: [\w-]+(, [\w-]+)* \([A-Z_]+\); \+1: /);
  }, SLOW);

  it('lists a Mia round with its loser, reason and points, a canceled one with why', () => {
    const dir = dataDir();
    const store = new RecordStore(join(dir, 'spielhalle.db'));
    const seats = ['alice', 'bob', 'carol'].map((name, seat) => ({ seat, name, kind: 'player' }));
    const played = store.startMatch({ game: 'mia', startedAt: Date.now() - 2000, seats });
    store.finishMatch(played, {
      status: 'finished',
      endedAt: Date.now() - 1000,
      result: { round: 7, order: ['bob', 'alice', 'carol'], losers: ['bob'], reason: 'CAUGHT_BLUFFING', points: { alice: 1, bob: 0, carol: 1 }, moves: [[0, 'roll', '3,1'], [0, 'announce', '5,4'], [1, 'see']] },
    });
    const canceled = store.startMatch({ game: 'mia', startedAt: Date.now() - 500, seats: [] });
    store.finishMatch(canceled, { status: 'aborted', endedAt: Date.now(), result: { round: 8, canceled: 'ONLY_ONE_PLAYER', joined: ['alice'] } });
    store.close();
    const r = run(['matches', '--game', 'mia', '--data-dir', dir]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^${canceled} .* aborted .*round 8: canceled \\(ONLY_ONE_PLAYER\\)$`));
    expect(lines[1]).toMatch(new RegExp(`^${played} .* finished +alice, bob, carol  round 7: lost: bob \\(CAUGHT_BLUFFING\\); \\+1: alice, carol$`));
  }, SLOW);

  it('lists how the other games ended from their results', () => {
    const dir = dataDir();
    const store = new RecordStore(join(dir, 'spielhalle.db'));
    const seats = ['White Player', 'Black Player'].map((name, seat) => ({ seat, name, kind: 'player' }));
    const dame = store.startMatch({ game: 'dame', startedAt: Date.now() - 3000, seats });
    store.finishMatch(dame, { status: 'finished', endedAt: Date.now(), result: { winner: 1, draw: false, reason: 'no-moves', plies: 40 } });
    const c4 = store.startMatch({ game: 'connect4', startedAt: Date.now() - 2000, seats: [] });
    store.finishMatch(c4, { status: 'finished', endedAt: Date.now(), result: { outcome: 'drawn', winner: null, winnerName: null, moves: '4444' } });
    store.close();
    const lines = run(['matches', '--data-dir', dir]).stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/ finished +drawn$/);
    expect(lines[1]).toMatch(/ finished +White Player, Black Player {2}winner: Black Player \(no-moves\)$/);
  }, SLOW);

  it('prunes old matches and wire logs, and counts first with --dry-run', () => {
    const dir = dataDir();
    const store = new RecordStore(join(dir, 'spielhalle.db'));
    const day = 86_400_000;
    const old = store.startMatch({ game: 'dame', startedAt: Date.now() - 40 * day, seats: [] });
    store.addWire({ matchId: old, game: 'dame', conn: 'a', at: Date.now() - 40 * day, dir: 'in', data: 'PLAY 1' });
    store.finishMatch(old, { status: 'finished', endedAt: Date.now() - 40 * day, result: null });
    const recent = store.startMatch({ game: 'dame', startedAt: Date.now() - day, seats: [] });
    store.finishMatch(recent, { status: 'finished', endedAt: Date.now() - day, result: null });
    store.close();
    const dry = run(['prune', '--older-than', '30d', '--dry-run', '--data-dir', dir]);
    expect(dry.stderr).toBe('');
    expect(dry.stdout).toMatch(/^would delete 1 matches and 1 wire log rows/);
    const real = run(['prune', '--older-than', '30d', '--data-dir', dir]);
    expect(real.code).toBe(0);
    expect(real.stdout).toMatch(/^deleted 1 matches and 1 wire log rows/);
    const after = new RecordStore(join(dir, 'spielhalle.db'), { mode: 'read' });
    expect(after.listMatches().map((m) => m.id)).toEqual([recent]);
    after.close();
  }, SLOW);

  it('fails with exit code 1 and one line when the port is taken', async () => {
    const blocker = createSocket('udp4');
    await new Promise<void>((r) => blocker.bind(0, '127.0.0.1', r));
    const port = blocker.address().port;
    const r = run(['serve', '--game', 'mia', '--no-web', '--no-bots', '--mia-port', String(port), '--data-dir', dataDir()]);
    blocker.close();
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(`spielhalle: Mäxchen (Mia): cannot listen on 127.0.0.1:${port} (EADDRINUSE)`);
  }, SLOW);
});
