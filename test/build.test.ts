import { spawnSync } from 'node:child_process';
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshCopy, timeStart } from '../bench/start-copy.js';
import { freePorts } from './support/serve-probe.js';

/**
 * Issue 16, "`npm start` time": the start build (scripts/build.mjs) transpiles the server without
 * checking types — that is `npm test`'s job — builds only what is out of date, and the built
 * program serves. Runs in a copy of the repository with no build in it, as after `npm ci`.
 */

let copy: string;
const build = (...args: string[]) =>
  spawnSync(process.execPath, [join(copy, 'scripts', 'build.mjs'), ...args], {
    cwd: copy,
    encoding: 'utf8',
    timeout: 240_000,
  });

beforeAll(() => {
  copy = freshCopy();
});
afterAll(() => {
  rmSync(copy, { recursive: true, force: true });
});

describe('the start build', () => {
  it('transpiles the server without a type check, so a type error does not hold up npm start', () => {
    // Valid JavaScript once the types are gone, but tsc refuses it.
    writeFileSync(
      join(copy, 'src', 'type-error-for-the-build-test.ts'),
      "export const n: number = 'not a number';\n",
    );
    const r = build('--server-only');
    expect(r.stderr).toContain('build: transpiling the server (esbuild)');
    expect(r.status, r.stderr).toBe(0);
    const version = spawnSync(process.execPath, [join(copy, 'dist', 'cli.js'), '--version'], {
      encoding: 'utf8',
    });
    expect(version.stdout.trim()).toBe('0.1.0');
    rmSync(join(copy, 'src', 'type-error-for-the-build-test.ts'));
  }, 240_000);

  it('builds everything once, then nothing while no input changes', () => {
    const first = build();
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/build: done in [\d.]+ s/);
    const built = statSync(join(copy, 'dist', 'cli.js')).mtimeMs;
    const again = build();
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr.trim()).toBe('build: up to date');
    expect(statSync(join(copy, 'dist', 'cli.js')).mtimeMs).toBe(built);
    for (const out of [
      'dist/wasm/connect4-solver.wasm',
      'web/dist/index.html',
      'dist/core/records.js',
      'dist/games/ostseeschach/house-worker.js',
    ])
      expect(statSync(join(copy, out)).size, out).toBeGreaterThan(0);
  }, 240_000);

  it('serves the dashboard from the built program', async () => {
    const [web, mia, connect4, dame, ostseeschach, catan] = (await freePorts(6)) as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    const ports = { mia, connect4, dame, ostseeschach, catan };
    const args = [
      'serve',
      '--web-port',
      String(web),
      ...Object.entries(ports).flatMap(([g, p]) => [`--${g}-port`, String(p)]),
    ];
    const run = await timeStart({
      cwd: copy,
      command: process.execPath,
      args: [join(copy, 'dist', 'cli.js'), ...args, '--data-dir', join(copy, 'data'), '--log-level', 'warn'],
      webPort: web,
      limitMs: 60_000,
    });
    expect(run.healthy, run.stderr).not.toBeNull();
  }, 120_000);
});
