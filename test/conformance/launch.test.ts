import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConformanceScenario, GameConformance } from '../../src/core/conformance.js';
import { findProgram, launchClient } from '../../src/conformance/launch.js';
import { runScenario } from '../../src/conformance/runner.js';

/**
 * How check-client starts a client (src/conformance/launch.ts): a program that cannot start is
 * named with the reason and PATH, once per run; `spielhalle` runs this package's own CLI when it
 * is not on PATH (a checkout), so the dashboard's example commands run as shown. Needs dist/.
 */

const root = join(import.meta.dirname, '..', '..');
const CLI = join(root, 'dist', 'cli.js');

/** A directory with `./plain` (not executable), `./dir/`, `./tool` (executable) and `./bad-interpreter`. */
function workDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'launch-test-'));
  writeFileSync(join(dir, 'plain'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(dir, 'plain'), 0o644);
  mkdirSync(join(dir, 'dir'));
  writeFileSync(join(dir, 'tool'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(dir, 'tool'), 0o755);
  writeFileSync(join(dir, 'bad-interpreter'), '#!/no/such/python9\nprint(1)\n');
  chmodSync(join(dir, 'bad-interpreter'), 0o755);
  return dir;
}

/** PATH without any directory that holds a `spielhalle` (as in a checkout). */
const PATH_WITHOUT_SPIELHALLE = '/usr/bin:/bin';

function runCli(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'check-client', ...args], { cwd: root, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('check-client: starting the client', () => {
  it('names the reason a program cannot start: not on PATH (with PATH), no such file, not executable, a directory', () => {
    const dir = workDir();
    const env = { PATH: '/usr/local/bin:/usr/bin' };
    expect(findProgram(['foo-no-such-program', '{port}'], dir, env)).toEqual({ ok: false, message: 'no program "foo-no-such-program" on PATH (/usr/local/bin:/usr/bin)' });
    expect(findProgram(['./my-client'], dir, env)).toEqual({ ok: false, message: `./my-client: no such file (in ${dir})` });
    expect(findProgram(['/no/such/client'], dir, env)).toEqual({ ok: false, message: '/no/such/client: no such file' });
    expect(findProgram(['./plain'], dir, env)).toEqual({ ok: false, message: './plain: not executable (chmod +x ./plain)' });
    expect(findProgram(['./dir'], dir, env)).toEqual({ ok: false, message: './dir: a directory, not a program' });
    // The usual slip: the program is right here, but a bare name is looked up on PATH only.
    expect(findProgram(['tool'], dir, env)).toEqual({ ok: false, message: `no program "tool" on PATH (/usr/local/bin:/usr/bin); there is a tool in ${dir}: write ./tool to start that one` });
    // No PATH at all: the system's default, as exec searches it.
    expect(findProgram(['sh', '-c', 'true'], dir, {})).toEqual({ ok: true, argv: ['sh', '-c', 'true'], note: null });
    expect(findProgram(['foo-no-such-program'], dir, {})).toEqual({ ok: false, message: 'no program "foo-no-such-program" on PATH (/bin:/usr/bin)' });
    // On PATH (or a path that is fine): started as given.
    expect(findProgram(['./tool', 'x'], dir, env)).toEqual({ ok: true, argv: ['./tool', 'x'], note: null });
    expect(findProgram(['tool', 'x'], '/', { PATH: `/nowhere${delimiter}${dir}` })).toEqual({ ok: true, argv: ['tool', 'x'], note: null });
    expect(findProgram(['plain'], '/', { PATH: dir })).toEqual({ ok: false, message: `"plain" on PATH is not executable: ${join(dir, 'plain')} (chmod +x ${join(dir, 'plain')})` });
  });

  it('runs this package\'s own CLI for `spielhalle` when no spielhalle is on PATH, and the one on PATH when there is', () => {
    const dir = workDir();
    const own = findProgram(['spielhalle', 'bot', 'mia', '--port', '1'], dir, { PATH: PATH_WITHOUT_SPIELHALLE });
    expect(own).toEqual({ ok: true, argv: [process.execPath, CLI, 'bot', 'mia', '--port', '1'], note: expect.stringContaining("spielhalle is not on PATH: runs this package's CLI") as unknown });
    writeFileSync(join(dir, 'spielhalle'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(dir, 'spielhalle'), 0o755);
    expect(findProgram(['spielhalle', 'bot'], '/', { PATH: dir })).toEqual({ ok: true, argv: ['spielhalle', 'bot'], note: null });
  });

  it('launchClient reports the reason instead of spawn ENOENT, and a #! interpreter that is missing', async () => {
    const dir = workDir();
    const missing = launchClient(['no-such-client-here'], { cwd: dir, env: { PATH: '/usr/bin' } });
    await missing.exited;
    expect(missing.spawnError()).toBe('no program "no-such-client-here" on PATH (/usr/bin)');
    await missing.stop();
    const bad = launchClient(['./bad-interpreter'], { cwd: dir });
    await bad.exited;
    expect(bad.spawnError()).toBe('./bad-interpreter: its interpreter /no/such/python9 (the #! line) could not be started (ENOENT)');
    await bad.stop();
  });

  it('a scenario whose client cannot start is an error with that headline', async () => {
    const scenario: ConformanceScenario = { id: 't', title: 'test', rule: 'r', section: '§1', hint: 'h', placeholders: {}, steps: () => [] };
    const game: GameConformance = { placeholders: ['port'], maxLineBytes: 64, scenarios: [scenario] };
    const r = await runScenario('test', game, scenario, { command: ['./no-such-client-here', '{port}'], cwd: root });
    expect(r.status).toBe('error');
    expect(r.message).toBe(`the client could not be started: ./no-such-client-here: no such file (in ${root})`);
  });

  it('the CLI says it once and runs no scenario; a `spielhalle bot …` client runs from a checkout', async () => {
    const env = { ...process.env, PATH: PATH_WITHOUT_SPIELHALLE };
    const [missing, json, checkout] = await Promise.all([
      runCli(['dame', '--', 'no-such-client-here', '-g', '{gameId}'], env),
      runCli(['dame', '--json', '--scenario', 'prolog-v2', '--scenario', 'prolog-v3', '--', './no-such-client-here'], env),
      // What the dashboard's Mia page shows, in a checkout: spielhalle is not on PATH.
      runCli(['mia', '--scenario', 'register', '--', 'spielhalle', 'bot', 'mia', '--host', '{host}', '--port', '{port}', '--name', '{name}'], env),
    ]);
    expect(missing.code).toBe(1);
    const headline = `the client could not be started: no program "no-such-client-here" on PATH (${PATH_WITHOUT_SPIELHALLE})`;
    expect(missing.stdout.split(headline)).toHaveLength(2);
    expect(missing.stdout).toMatch(/^ERROR\s+full-game .*the client could not be started/m);
    expect(missing.stdout).toMatch(/^skip {3}the other \d+ scenarios: not run, the client could not be started$/m);
    expect(missing.stdout).toMatch(/^dame: 0 passed, 1 could not run, \d+ skipped/m);
    expect(missing.stdout).not.toMatch(/^pass|^FAIL/m);

    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as { scenarios: { id: string; status: string; message: string }[] };
    expect(report.scenarios.map((s) => [s.id, s.status])).toEqual([
      ['prolog-v3', 'error'],
      ['prolog-v2', 'skipped'],
    ]);
    expect(report.scenarios[0]!.message).toBe(`the client could not be started: ./no-such-client-here: no such file (in ${root})`);

    expect(checkout.stderr).toBe('');
    expect(checkout.stdout).toMatch(/^pass\s+register/m);
    expect(checkout.code).toBe(0);
  }, 90_000);
});
