import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** `spielhalle check-client` as a student runs it (the built CLI): exit codes, report, JUnit file. */

const root = join(import.meta.dirname, '..', '..');
const CLIENT = ['node', join(root, 'test/fixtures/conformance/dame/client.mjs'), '{host}', '{port}', '{gameId}', '{player}'];

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, 'dist/cli.js'), 'check-client', ...args], { cwd: root });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('spielhalle check-client', () => {
  it('exits 0 when every chosen scenario passes, 1 with a report and a JUnit file when one fails, 2 on usage errors', async () => {
    const junit = join(mkdtempSync(join(tmpdir(), 'check-client-')), 'report.xml');
    const [ok, json, failed, noCommand, badScenario, badGame, badPlaceholder] = await Promise.all([
      run(['dame', '--scenario', 'prolog-v2', '--scenario', 'error-no-free-player', '--', ...CLIENT]),
      run(['dame', '--json', '--scenario', 'prolog-v3', '--', ...CLIENT]),
      run(['dame', '--scenario', 'prolog-v3', '--scenario', 'prolog-v2', '--junit', junit, '--', ...CLIENT, 'motd-never']),
      run(['dame']),
      run(['dame', '--scenario', 'nope', '--', 'true']),
      run(['chess', '--', 'true']),
      run(['dame', '--', 'client', '{gameid}']),
    ]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^pass\s+prolog-v2/m);
    expect(ok.stdout).toContain('dame: 2 passed of 2 scenarios');

    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as { ok: boolean; scenarios: { id: string; status: string }[] };
    expect(report.ok).toBe(true);
    expect(report.scenarios).toMatchObject([{ id: 'prolog-v3', status: 'pass' }]);

    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/^FAIL\s+prolog-v3/m);
    expect(failed.stdout).toContain('rule:  A v3 server sends a MOTD line after the greeting');
    expect(failed.stdout).toMatch(/S: \+ MNM Gameserver v3\.1 accepting connections\n.*C: VERSION 3\.1/);
    expect(failed.stdout).toContain('dame: 1 passed, 1 failed of 2 scenarios');
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<testsuite name="dame" tests="2" failures="1" errors="0"');
    expect(xml).toMatch(/<failure message="the client|<failure message="sent/);

    for (const r of [noCommand, badScenario, badGame, badPlaceholder]) expect(r.code).toBe(2);
    expect(badPlaceholder.stderr).toContain('unknown placeholder {gameid}');
    expect(noCommand.stderr).toContain("give the client's command after --");
    expect(badScenario.stderr).toContain('unknown scenario nope');
    expect(badGame.stderr).toContain('unknown game "chess"');
  }, 60_000);
});
