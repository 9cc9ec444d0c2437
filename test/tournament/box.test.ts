import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MatchSeat, TournamentMatchOutcome, TournamentMatchRequest, TournamentSupport } from '../../src/core/tournament-match.js';
import { catanTournament } from '../../src/games/catan/tournament.js';
import { connect4Tournament } from '../../src/games/connect4/tournament.js';
import { dameTournament } from '../../src/games/dame/tournament.js';
import { miaTournament } from '../../src/games/mia/tournament.js';
import { ostseeschachTournament } from '../../src/games/ostseeschach/tournament.js';
import { bwrapWorks } from '../../src/sandbox/box.js';
import { cgroupSupport } from '../../src/sandbox/cgroup.js';
import { bot, BoxedMatches } from './boxed-match.js';
import { BOX_DISK_MB, BOX_MAX_PROCESSES, createSandboxLauncher, type Sandbox } from '../../src/tournament/sandbox.js';

/**
 * Issue 30: a hostile entrant program in its box (bubblewrap), with real attacks, not mocks. It
 * tries to read the record store, the settings, the runner's environment and /etc/shadow; to read
 * and write another entrant's directory and outside its own; to reach every port the runner
 * listens on; to kill the runner; to leave a daemon behind; to fork thousands of processes; to fill
 * the disk. Every attempt fails, while its own game endpoint answers. Needs bubblewrap (CI installs
 * it); without it the suite says why and fails, as `isolation: bwrap` refuses to run programs then.
 */

const HOSTILE = path.resolve(import.meta.dirname, '../fixtures/tournament/programs/hostile.mjs');
const root = mkdtempSync(path.join(tmpdir(), 'box-test-'));
const sandboxes: Sandbox[] = [];
let game: Server;
let other: Server;
let gamePort = 0;
let otherPort = 0;

beforeAll(async () => {
  game = createServer((s) => s.on('data', () => s.end('pong\n')));
  other = createServer((s) => s.end('secret service\n'));
  await new Promise<void>((r) => game.listen(0, '127.0.0.1', r));
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
  gamePort = (game.address() as { port: number }).port;
  otherPort = (other.address() as { port: number }).port;
});

afterAll(async () => {
  await Promise.all(sandboxes.map((s) => s.stopAll()));
  game.close();
  other.close();
  rmSync(root, { recursive: true, force: true });
});

/** Processes whose command line holds `marker` (outside any box: the whole machine). */
function processesWith(marker: string): number {
  let n = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(marker)) n++;
    } catch {
      // gone
    }
  }
  return n;
}

describe('a hostile entrant in its box (isolation: bwrap)', () => {
  it('this machine gives boxes (bubblewrap with user namespaces)', () => {
    expect(bwrapWorks()).toEqual({ ok: true });
  });

  it('fails at every attack, reaches only its own endpoint, and leaves nothing behind', async () => {
    const data = path.join(root, 'data');
    mkdirSync(data);
    const db = path.join(data, 'spielhalle.db');
    writeFileSync(db, 'the record store');
    const config = path.join(root, 'spielhalle.config.json');
    writeFileSync(config, '{"web":{"adminToken":"t0p"}}');
    const otherDir = path.join(root, 'entrants', 'bob');
    mkdirSync(otherDir, { recursive: true });
    writeFileSync(path.join(otherDir, 'client.c'), 'bob');
    const mine = path.join(root, 'entrants', 'eve');
    mkdirSync(mine, { recursive: true });
    writeFileSync(path.join(mine, 'README'), 'eve');
    const marker = `hostile${process.pid}x${Date.now()}`;
    const task = { host: '127.0.0.1', port: gamePort, runnerPid: process.pid, secrets: [db, config], otherDir, ports: [otherPort, 5432], marker };
    writeFileSync(path.join(mine, 'task.json'), JSON.stringify(task));
    const s = createSandboxLauncher({ command: `node ${HOSTILE} task.json`, cwd: mine, limits: { wallSeconds: 60 } });
    sandboxes.push(s);
    const started = Date.now();
    const exit = await s.launch({ host: '127.0.0.1', port: String(gamePort) }, { tcp: [gamePort], udp: [] }).exited;
    const out = s.outputs()[0]!;
    expect(exit, out.stderr).toEqual({ code: 0, signal: null });
    const r = JSON.parse(out.stdout) as Record<string, unknown> & { ports: Record<string, string>; forksAlive: number };
    // Secrets of the runner: the record store, the settings, /etc/shadow, the runner's environment.
    expect(r.read0).toBe('ENOENT');
    expect(r.read1).toBe('ENOENT');
    expect(r.shadow).toBe('ENOENT');
    expect(r.runnerEnviron).toBe('ENOENT');
    // Its /proc shows its own box: no command line of another process (not even the runner's).
    expect(r.foreignCmdlines).toEqual([]);
    // Another entrant's directory: not there; nothing written outside its own.
    expect(r.readOther).toBe('ENOENT');
    expect(r.writeOther).toBe('ENOENT');
    expect(r.writeUsr).toMatch(/EROFS|EACCES/);
    expect(r.writeTmp).toBe('WROTE'); // into its private /tmp
    expect(existsSync(path.join(tmpdir(), marker))).toBe(false);
    expect(readdirSync(otherDir)).toEqual(['client.c']);
    // Its own directory is a fresh copy: readable, writable, capped, and gone after the match.
    expect(r.fillDisk).toBe('ENOSPC');
    expect(readdirSync(mine).sort()).toEqual(['README', 'task.json']);
    // The runner is not even visible to it.
    expect(r.killRunner).toBe('ESRCH');
    // Processes: at most its uid's share (a fork storm stops there).
    expect(r.forksAlive).toBeLessThan(BOX_MAX_PROCESSES);
    // Network: its own endpoint answers; every other port of the machine is unreachable.
    expect(r.own).toBe('pong');
    expect(r.ports[String(otherPort)]).toBe('ECONNREFUSED');
    expect(r.ports['5432']).toBe('ECONNREFUSED');
    // Nothing outlives the match: the daemon and the sleeping forks died with the box.
    await new Promise((res) => setTimeout(res, 300));
    expect(processesWith(marker)).toBe(0);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(BOX_DISK_MB).toBeLessThan(400);
  }, 60_000);
});

describe('limits in a box', () => {
  const PROBE = path.resolve(import.meta.dirname, '../fixtures/tournament/programs/probe');
  let n = 0;
  const boxed = (args: string, limits: { wallSeconds?: number; cpuSeconds?: number; memoryMb?: number }): Sandbox => {
    const s = createSandboxLauncher({ command: `"${process.execPath}" "${PROBE}" ${args}`, cwd: path.join(root, `limits-${++n}`), limits });
    sandboxes.push(s);
    return s;
  };
  const endpoints = { tcp: [], udp: [] };

  it('kills at the wall-clock limit, the whole box with it', async () => {
    const started = Date.now();
    const exit = await boxed('sleep', { wallSeconds: 1 }).launch({}, endpoints).exited;
    expect(exit).toMatchObject({ signal: 'SIGKILL', limit: 'wall' });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('ends a busy loop at the CPU limit', async () => {
    const exit = await boxed('spin', { cpuSeconds: 1 }).launch({}, endpoints).exited;
    expect(exit.limit).toBe('cpu');
    expect(exit.code === null || exit.code > 128).toBe(true);
  });

  it.skipIf(cgroupSupport().kind === 'none')('puts each box in a control group of its own with the memory limit and the process cap, gone after the box', async () => {
    const support = cgroupSupport();
    const parents = support.kind === 'v1' ? [support.memory, support.pids] : support.kind === 'v2' ? [support.parent] : [];
    const ours = (): string[] => parents.flatMap((p) => readdirSync(p).filter((n) => n.startsWith(`spielhalle-box-${process.pid}-`)).map((n) => path.join(p, n)));
    // The boxes of the tests before may still be reaping (their groups go within 5 s): not this box's.
    const before = new Set(ours());
    const groups = (): string[] => ours().filter((g) => !before.has(g));
    const s = boxed('sleep', { wallSeconds: 30, memoryMb: 300 });
    const run = s.launch({}, endpoints);
    const deadline = Date.now() + 10_000;
    // Until the box's program runs (its group holds the box's processes: bwrap, the relay, the program).
    while (Date.now() < deadline && !groups().some((g) => readFileSync(path.join(g, 'cgroup.procs'), 'utf8').trim().split('\n').length >= 3)) await new Promise((r) => setTimeout(r, 50));
    const mine = groups();
    expect(mine).toHaveLength(parents.length);
    const read = (file: string): string => readFileSync(mine.map((g) => path.join(g, file)).find((f) => existsSync(f))!, 'utf8').trim();
    expect(read('pids.max')).toBe(String(BOX_MAX_PROCESSES));
    expect(read(support.kind === 'v1' ? 'memory.limit_in_bytes' : 'memory.max')).toBe(String(300 * 1024 * 1024));
    // Every process of the box is in it: the run's leader (bwrap) among them.
    expect(readFileSync(path.join(mine[0]!, 'cgroup.procs'), 'utf8').split('\n')).toContain(String(run.pid));
    await run.stop();
    const gone = Date.now() + 5000;
    while (Date.now() < gone && groups().length > 0) await new Promise((r) => setTimeout(r, 50));
    expect(groups()).toEqual([]);
  });

  it('kills a program above the memory limit: its box is sampled as one tree', async () => {
    const started = Date.now();
    const exit = await boxed('alloc 300', { memoryMb: 150 }).launch({}, endpoints).exited;
    expect(exit).toMatchObject({ signal: 'SIGKILL', limit: 'memory' });
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('our own clients, unchanged, boxed in real matches of all five games', () => {
  const CLI = path.resolve(import.meta.dirname, '../../dist/cli.js');
  const boxed = new BoxedMatches();
  afterAll(() => boxed.close());
  const boxedSeat = (name: string, command: string): MatchSeat => boxed.seat(name, command);
  const playBoxed = (support: TournamentSupport, request: TournamentMatchRequest): Promise<TournamentMatchOutcome> => boxed.play(support, request);

  it('Dame over TCP: bot dame in its box plays a whole game against our random bot', async () => {
    const outcome = await playBoxed(dameTournament, {
      id: 'box/dame',
      seed: 3,
      moveTimeMs: 200,
      connectTimeoutMs: 20_000,
      seats: [boxedSeat('boxed', `node ${CLI} bot dame --host {host} --port {port} -g {gameId} -p {player} --bot greedy`), bot('rnd', 'random')],
    });
    expect(outcome.seats.map((s) => s.outcome)).not.toContain(undefined);
  }, 120_000);

  it('Ostseeschach over TCP: bot ostseeschach in its box redeems its reservation and plays to the result', async () => {
    const outcome = await playBoxed(ostseeschachTournament, {
      id: 'box/ostseeschach',
      seed: 3,
      moveTimeMs: 300,
      connectTimeoutMs: 20_000,
      seats: [bot('rnd', 'random'), boxedSeat('boxed', `node ${CLI} bot ostseeschach -h {host} -p {port} -r {reservation} --bot random --time-ms 50`)],
    });
    expect(outcome.reason).toMatch(/^REGULAR: /);
  }, 120_000);

  it('Catan over TCP: bot catan in its box plays a whole game at a table of three', async () => {
    const outcome = await playBoxed(catanTournament, {
      id: 'box/catan',
      seed: 11,
      moveTimeMs: 1000,
      connectTimeoutMs: 20_000,
      seats: [bot('anna', 'weighted'), boxedSeat('boxed', `node ${CLI} bot catan --host {host} --port {port} --name {name} --strategy builder`), bot('bert', 'weighted')],
    });
    expect(outcome.seats.filter((x) => x.placing === 1)).toHaveLength(1);
  }, 120_000);

  it('Mia over UDP: bot mia in its box plays the table`s rounds', async () => {
    const outcome = await playBoxed(miaTournament, {
      id: 'box/mia',
      seed: 5,
      moveTimeMs: 200,
      rounds: 6,
      connectTimeoutMs: 20_000,
      seats: [bot('anna', 'random'), boxedSeat('boxed', `node ${CLI} bot mia --host {host} --port {port} --name {name} --log-level warn`)],
    });
    expect(outcome.records.length).toBe(6);
  }, 120_000);

  it('Connect Four over UDP both ways: bot connect4 in its box hears its referee and answers it', async () => {
    const outcome = await playBoxed(connect4Tournament, {
      id: 'box/c4',
      seed: 1,
      moveTimeMs: 300,
      connectTimeoutMs: 20_000,
      seats: [boxedSeat('boxed', `node ${CLI} bot connect4 --port {port} --invite {invite} --once --level easy --seed box`), bot('easy', 'easy')],
    });
    expect(outcome.records.length).toBe(1);
  }, 120_000);
});

describe('spielhalle doctor', () => {
  it('says that this machine gives boxes, and how programs are limited', async () => {
    const { doctorLines } = await import('../../src/sandbox/doctor.js');
    const { ok, lines } = doctorLines();
    expect(ok).toBe(true);
    expect(lines[0]).toMatch(/^isolation: bwrap \(\/usr\/bin\/bwrap\): every program in a box of its own/);
    expect(lines.join('\n')).toMatch(/CPU limit: RLIMIT_CPU/);
    expect(lines.join('\n')).toMatch(/programs die with the runner: yes/);
    expect(lines.join('\n')).toMatch(cgroupSupport().kind === 'none' ? /^cgroup limits: none \(/m : /^cgroup limits: v[12] \(/m);
  });
});

describe('a machine without boxes (SPIELHALLE_BWRAP names no bwrap)', () => {
  const CLI = path.resolve(import.meta.dirname, '../../dist/cli.js');
  const run = (...args: string[]): { code: number | null; err: string; out: string } => {
    const r = spawnSync(process.execPath, [CLI, ...args], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, SPIELHALLE_BWRAP: '/nonexistent/bwrap', SPIELHALLE_DATABASE_URL: '' },
    });
    return { code: r.status, err: r.stderr, out: r.stdout };
  };

  it('spielhalle doctor says that programs cannot be boxed here, and why', () => {
    const r = run('doctor');
    expect(r.code).toBe(1);
    expect(r.out).toContain('isolation: NONE available — SPIELHALLE_BWRAP=/nonexistent/bwrap: no such file');
  });

  it('a worker does not start (its matches would be lost unplayed), before it even looks for PostgreSQL', () => {
    const r = run('--data-dir', path.join(root, 'nobox-worker'), 'worker', '--database', 'postgres://nobody@127.0.0.1:1/x');
    expect(r.code).toBe(2);
    expect(r.err).toContain('this worker cannot box entrant programs: SPIELHALLE_BWRAP=/nonexistent/bwrap: no such file');
  });

  it('a tournament with command entrants does not start unless its file says isolation: none', () => {
    const dir = path.join(root, 'nobox-tournament');
    mkdirSync(dir, { recursive: true });
    const file = (isolation: string): string => {
      const f = path.join(dir, `t-${isolation || 'default'}.yaml`);
      writeFileSync(
        f,
        `name: nobox${isolation}\ngame: dame\nformat: round-robin\nmoveTime: 0.2\n${isolation ? `isolation: ${isolation}\n` : ''}entrants:\n  - { name: prog, command: "node ${CLI} bot dame --host {host} --port {port} -g {gameId} -p {player} --bot random" }\n  - { name: rnd, bot: random }\n`,
      );
      return f;
    };
    const refused = run('--data-dir', path.join(dir, 'data'), 'tournament', 'run', file(''));
    expect(refused.code).toBe(2);
    expect(refused.err).toContain("the entrants' programs cannot be isolated here: SPIELHALLE_BWRAP=/nonexistent/bwrap: no such file");
    const open = run('--data-dir', path.join(dir, 'data'), '--log-level', 'warn', 'tournament', 'run', file('none'));
    expect(open.code, open.err).toBe(0);
    expect(open.err).toMatch(/NOT isolated/);
  }, 90_000);
});
