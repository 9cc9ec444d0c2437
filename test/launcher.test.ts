import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fixture } from './games/connect4/fixtures.js';

/**
 * Issue 20: the installed `spielhalle` command is bin/spielhalle.cjs, a CommonJS launcher (no ES
 * module loader to set up: a fresh `solve` starts ~5 ms sooner). It runs the quick entries' bundles
 * itself and hands everything else to dist/cli.js, so it must answer exactly as `node dist/cli.js`.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const launcher = join(root, 'bin', 'spielhalle.cjs');
const cli = join(root, 'dist', 'cli.js');
const built = existsSync(cli) && existsSync(join(root, 'dist', 'games', 'connect4', 'solve-bundle.cjs'));

interface Launcher {
  quick(argv: readonly string[], dist: string): Promise<number | null>;
}

describe('the installed command', () => {
  it('is the launcher, an executable CommonJS file run by node', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: Record<string, string>; files: string[] };
    expect(pkg.bin.spielhalle).toBe('bin/spielhalle.cjs');
    expect(pkg.files).toContain('bin');
    expect(readFileSync(launcher, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    expect(() => accessSync(launcher, constants.X_OK)).not.toThrow();
  });

  it('leaves to the whole program what has no quick entry, or no bundle in the build', async () => {
    const { quick } = createRequire(import.meta.url)(launcher) as Launcher;
    const dist = mkdtempSync(join(tmpdir(), 'launcher-'));
    try {
      expect(await quick(['node', 'spielhalle', 'serve'], dist)).toBeNull();
      expect(await quick(['node', 'spielhalle', 'play', 'mia'], dist)).toBeNull();
      expect(await quick(['node', 'spielhalle', 'solve', '4455'], dist)).toBeNull();
      // A bundle that is there runs, with the arguments after its command; its errors are its own.
      mkdirSync(join(dist, 'games', 'connect4'), { recursive: true });
      writeFileSync(join(dist, 'games', 'connect4', 'solve-bundle.cjs'), 'exports.solveMain = async (args) => args.length;\n');
      writeFileSync(join(dist, 'games', 'connect4', 'play-bundle.cjs'), "require('./not-there');\n");
      expect(await quick(['node', 'spielhalle', 'solve', '4455', '--stats'], dist)).toBe(2);
      await expect(quick(['node', 'spielhalle', 'play', 'connect4'], dist)).rejects.toThrow(/not-there/);
    } finally {
      rmSync(dist, { recursive: true, force: true });
    }
  });

  it.skipIf(!built)('answers as `node dist/cli.js` does, through its own shebang', { timeout: 60_000 }, () => {
    const lines = fixture('Test_L3_R1').slice(0, 20);
    const cases: { args: string[]; input?: string; status: number }[] = [
      { args: ['solve'], input: lines.map(([m]) => m).join('\n') + '\n', status: 0 },
      { args: ['solve', '4455', '4x'], status: 1 },
      { args: ['solve', '--threads', '0', '4'], status: 2 },
      { args: ['solve', '--help'], status: 0 },
      { args: ['--version'], status: 0 },
      { args: ['play', 'connect4', '--port', '99999'], status: 2 },
    ];
    for (const { args, input, status } of cases) {
      const options = { input: input ?? '', encoding: 'utf8' as const, timeout: 30_000 };
      const installed = spawnSync(launcher, args, options);
      const direct = spawnSync(process.execPath, [cli, ...args], options);
      const what = args.join(' ');
      expect(installed.status, what).toBe(status);
      expect({ stdout: installed.stdout, stderr: installed.stderr }, what).toEqual({ stdout: direct.stdout, stderr: direct.stderr });
    }
    const solved = spawnSync(launcher, ['solve'], { input: lines.map(([m]) => m).join('\n') + '\n', encoding: 'utf8' });
    expect(solved.stdout.trim().split('\n')).toEqual(lines.map(([m, s]) => `${m} ${s}`));
    expect(spawnSync(launcher, ['--version'], { encoding: 'utf8' }).stdout.trim()).toBe('0.1.0');
  });
});
