import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerCheckClientCommand } from '../../src/conformance/cli.js';
import { fillTemplate, prepareLaunch, type ConfigFile } from '../../src/conformance/launch.js';
import { runScenario, type ScenarioResult } from '../../src/conformance/runner.js';
import { UsageError } from '../../src/core/errors.js';
import { dameConformance } from '../../src/games/dame/conformance/index.js';

/**
 * `check-client --config-file client.conf=client.conf.in`: a client that reads host and port from
 * a config file (the LMU course's C clients read `client.conf`) runs without a wrapper. The fixture
 * (test/fixtures/conformance/conf-client.mjs) takes only game id and player on its command line
 * and reads host and port from `client.conf` in its working directory, or from `-c <path>`.
 * Needs dist/ (the fixture plays with dist/games/dame).
 */

const root = join(import.meta.dirname, '..', '..');
const TEMPLATE_PATH = 'test/fixtures/conformance/client.conf.in';
const TEMPLATE: ConfigFile = { name: 'client.conf', template: readFileSync(join(root, TEMPLATE_PATH), 'utf8'), from: TEMPLATE_PATH };
/** Relative to the repository: in its own directory the kit must still find the script. */
const CLIENT = ['node', 'test/fixtures/conformance/conf-client.mjs', '-g', '{gameId}', '-p', '{player}'];
const SCENARIO = dameConformance.scenarios.find((s) => s.id === 'prolog-v2')!;

const play = (command: readonly string[], configFiles: readonly ConfigFile[]): Promise<ScenarioResult> =>
  runScenario('dame', dameConformance, SCENARIO, { command, configFiles, cwd: root, connectTimeoutMs: 30_000 });

const notes = (r: ScenarioResult): string[] => r.wire.filter((e) => e.dir === 'note').map((e) => e.text);

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, 'dist/cli.js'), 'check-client', ...args], { cwd: root });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('check-client --config-file', () => {
  it('fills a template: known placeholders, other braces stay text, an unknown placeholder is an error', () => {
    expect(fillTemplate('hostname = {host}\nportnumber = {port}\n', { host: '127.0.0.1', port: '4711' })).toBe('hostname = 127.0.0.1\nportnumber = 4711\n');
    expect(fillTemplate('{"server": {"host": "{host}", "opts": {}}}', { host: 'h' })).toBe('{"server": {"host": "h", "opts": {}}}');
    expect(() => fillTemplate('port={prot}', { port: '1' }, 'client.conf.in')).toThrow('no value for placeholder {prot} in client.conf.in');
  });

  it('writes the file per scenario into a fresh working directory, or where {config} says; removes it after', () => {
    const values = { host: '127.0.0.1', port: '4711' };
    const inCwd = prepareLaunch(['node', 'test/fixtures/conformance/conf-client.mjs', '-c', 'client.conf', '.', '--flag', 'package.json', 'no-such-file'], values, { cwd: root, configFiles: [TEMPLATE] });
    expect(inCwd.cwd).not.toBe(root);
    expect(readFileSync(join(inCwd.cwd, 'client.conf'), 'utf8')).toContain('hostname = 127.0.0.1\nportnumber = 4711\n');
    // Words that name something where check-client runs keep meaning it; the written file stays relative.
    expect(inCwd.argv).toEqual(['node', join(root, 'test/fixtures/conformance/conf-client.mjs'), '-c', 'client.conf', root, '--flag', join(root, 'package.json'), 'no-such-file']);
    inCwd.cleanup();
    expect(existsSync(inCwd.cwd)).toBe(false);

    const onCommandLine = prepareLaunch(['./client', '-c', '{config}'], values, { cwd: root, configFiles: [TEMPLATE] });
    expect(onCommandLine.cwd).toBe(root);
    const path = onCommandLine.argv[2]!;
    expect(path).toMatch(/\/client\.conf$/);
    expect(readFileSync(path, 'utf8')).toContain('portnumber = 4711');
    onCommandLine.cleanup();
    expect(existsSync(path)).toBe(false);
  });

  it('a client that reads client.conf in its working directory passes; without --config-file it fails with its reason', async () => {
    const [fromCwd, fromPath, without] = await Promise.all([play(CLIENT, [TEMPLATE]), play([...CLIENT, '-c', '{config}'], [TEMPLATE]), play(CLIENT, [])]);
    expect(fromCwd.message).toBeNull();
    expect(fromCwd.status).toBe('pass');
    const wrote = notes(fromCwd).find((n) => n.startsWith('wrote client.conf'))!;
    expect(wrote).toMatch(/^wrote client\.conf into the client's working directory (\S+): # .*hostname = 127\.0\.0\.1 ⏎ portnumber = \d+ ⏎ gamekindname = Checkers$/);
    expect(existsSync(/directory (\S+):/.exec(wrote)![1]!)).toBe(false);

    expect(fromPath.message).toBeNull();
    expect(fromPath.status).toBe('pass');
    expect(notes(fromPath).find((n) => n.startsWith('started:'))).toMatch(/ -c \/\S+\/client\.conf$/);

    expect(without.status).toBe('fail');
    expect(without.message).toMatch(/^exited \(code 1\) before it connected/);
    expect(without.stderr).toContain(`cannot read the configuration ${join(root, 'client.conf')}: ENOENT`);
  }, 60_000);

  it('runs from the CLI; a wrong option, template or placeholder is a usage error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'config-file-'));
    writeFileSync(join(dir, 'typo.in'), 'hostname = {hots}\n');
    const ok = runCli(['dame', '--scenario', 'prolog-v2', '--config-file', `client.conf=${TEMPLATE_PATH}`, '--', ...CLIENT]);
    // The usage errors come before any scenario: the command's own code, without a process around it.
    const usage = async (args: string[]): Promise<string> => {
      const program = new Command().exitOverride();
      registerCheckClientCommand(program);
      const error = await program.parseAsync(['node', 'spielhalle', 'check-client', ...args]).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UsageError);
      return (error as UsageError).message;
    };
    expect(await usage(['dame', '--config-file', 'client.conf', '--', ...CLIENT])).toContain('--config-file wants NAME=TEMPLATE, e.g. --config-file client.conf=client.conf.in');
    expect(await usage(['dame', '--config-file', 'client.conf=no-such-template.in', '--', ...CLIENT])).toContain('cannot read the template no-such-template.in (ENOENT)');
    expect(await usage(['dame', '--config-file', `client.conf=${join(dir, 'typo.in')}`, '--', ...CLIENT])).toMatch(/unknown placeholder \{hots\} in \S+typo\.in/);
    expect(await usage(['dame', '--', ...CLIENT, '-c', '{config}'])).toContain('{config} is the path of a file given with --config-file, and there is none');
    expect(await usage(['dame', '--config-file', `/etc/client.conf=${TEMPLATE_PATH}`, '--', ...CLIENT])).toContain('/etc/client.conf is an absolute path');
    expect(await usage(['dame', '--config-file', `a.conf=${TEMPLATE_PATH}`, '--config-file', `a.conf=${TEMPLATE_PATH}`, '--', ...CLIENT])).toContain('a.conf is given twice');
    const run = await ok;
    expect(run.stdout).toMatch(/^pass\s+prolog-v2/m);
    expect(run.code).toBe(0);
  }, 60_000);
});
