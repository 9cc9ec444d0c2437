import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parsePlayArgs } from '../../../src/games/connect4/play-main.js';
import { wasmPath } from '../../../src/games/connect4/solver/index.js';

/**
 * Issue 20: `spielhalle play connect4` through its quick entry (src/cli.ts → play-main.ts, bundled
 * by the build), which must take exactly what commander would and leave the rest to it.
 */

const PEERS = ['32442', '32443', '32444', '32445', '32446', '32447', '32448', '32449'];

describe('play connect4: the quick entry', () => {
  it('takes the options of play connect4 as commander does', () => {
    expect(parsePlayArgs([], { USER: 'ada' })).toEqual({ opts: { name: 'ada', vs: 'peer', level: 'strong', peerPort: PEERS }, logLevel: 'warn' });
    expect(parsePlayArgs([], {})?.opts.name).toBe('player');
    expect(
      parsePlayArgs(['--vs', 'bot', '--level=perfect', '--bot-first', '--name', 'Bo', '--log-level', 'debug', '--port', '0', '--bind=127.0.0.1'], {}),
    ).toEqual({
      opts: { name: 'Bo', vs: 'bot', level: 'perfect', botFirst: true, port: '0', bind: '127.0.0.1', peerPort: PEERS },
      logLevel: 'debug',
    });
    // --peer-port is variadic: the values up to the next option, more with each repetition.
    expect(parsePlayArgs(['--peer-port', '4000', '4001', '--lan', '--peer-port=4002', '--broadcast', '10.0.0.255'], {})?.opts).toMatchObject({
      peerPort: ['4000', '4001', '4002'],
      lan: true,
      broadcast: '10.0.0.255',
    });
  });

  it('leaves help, global options, unknown options and bad choices to the full program', () => {
    for (const args of [
      ['--help'],
      ['-h'],
      ['--data-dir', '/tmp'],
      ['--config', 'x.yaml'],
      ['--bogus'],
      ['--vs', 'alien'],
      ['--level', 'godlike'],
      ['--log-level', 'loud'],
      ['--name'],
      ['--name', '--vs'],
      ['--peer-port'],
      ['--bot-first=yes'],
      ['stray'],
    ]) {
      expect(parsePlayArgs(args, {}), args.join(' ')).toBeNull();
    }
  });

  const cli = fileURLToPath(new URL('../../../dist/cli.js', import.meta.url));
  const built = existsSync(cli) && existsSync(fileURLToPath(new URL('../../../dist/games/connect4/play-bundle.cjs', import.meta.url))) && wasmPath() !== null;
  it.skipIf(!built)('plays against the bot from the built CLI, and reports errors as the full program does', { timeout: 60_000 }, () => {
    const r = spawnSync(process.execPath, [cli, 'play', 'connect4', '--vs', 'bot', '--level', 'easy', '--name', 'Tester'], { input: '4\n4\n', encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^New game against the bot \(easy\): you are X and move first\./);
    expect(r.stdout.match(/The bot plays [1-7]\./g)).toHaveLength(2);
    expect(r.stdout.trimEnd()).toMatch(/Bye\.$/);
    // The bot moves first: its first move comes from the engine thread the bundle starts.
    const first = spawnSync(process.execPath, [cli, 'play', 'connect4', '--vs', 'bot', '--level', 'perfect', '--bot-first'], { input: '', encoding: 'utf8', timeout: 30_000 });
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/The bot plays 4\./);
    // A bad port from the quick entry: one line, exit code 2, as from commander's path.
    const bad = spawnSync(process.execPath, [cli, 'play', 'connect4', '--port', '99999'], { input: '', encoding: 'utf8', timeout: 30_000 });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe('spielhalle: --port must be a port number (0–65535), got "99999"\n');
  });
});
