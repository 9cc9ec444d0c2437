#!/usr/bin/env node
// `npm test`: typecheck, lint, build, then every vitest suite (unit, integration over real
// sockets on 127.0.0.1, browser in headless Chromium). Ends with the plain line
// `N passed, N failed`, counting each check and each test.
import { Buffer } from 'node:buffer';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
let passed = 0;
let failed = 0;
const failures = [];

function step(name, cmd, args) {
  process.stdout.write(`\n== ${name}\n`);
  const started = Date.now();
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, FORCE_COLOR: '0' } });
  const ok = r.status === 0;
  process.stdout.write(`== ${name}: ${ok ? 'ok' : 'FAILED'} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  return ok;
}

/**
 * A check run beside others: its output is kept and printed whole when it ends, so that two
 * checks running at once do not interleave their lines.
 */
function quietCheck(name, cmd, args) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
    const out = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => out.push(d));
    const done = (ok) => {
      process.stdout.write(`\n== ${name}\n${Buffer.concat(out).toString()}== ${name}: ${ok ? 'ok' : 'FAILED'} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
      if (ok) passed++;
      else {
        failed++;
        failures.push(name);
      }
      resolve(ok);
    };
    child.on('error', (e) => {
      out.push(Buffer.from(`${e.message}\n`));
      done(false);
    });
    child.on('close', (code) => done(code === 0));
  });
}

// Two cores: lint (the longest, type-aware) on one, the typechecks and the build after each other
// on the other; the tests start when both are done.
await Promise.all([
  quietCheck('lint', bin('eslint'), ['--max-warnings=0', '.']),
  (async () => {
    await quietCheck('typecheck (server, tests, benches)', bin('tsc'), ['-p', 'tsconfig.json']);
    await quietCheck('typecheck (dashboard)', bin('tsc'), ['-p', 'web/tsconfig.json']);
    await quietCheck('build', process.execPath, [join(root, 'scripts', 'build.mjs')]);
  })(),
]);

mkdirSync(join(root, 'test-results'), { recursive: true });
const extra = process.argv.slice(2);
let ran = 0;

/** One vitest run; its tests counted from its JSON report. */
function vitest(name, config, reportName) {
  const report = join(root, 'test-results', reportName);
  rmSync(report, { force: true });
  step(name, bin('vitest'), ['run', '--config', config, '--passWithNoTests', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...extra]);
  if (!existsSync(report)) {
    failed++;
    failures.push(`${name}: vitest wrote no report`);
    return;
  }
  const r = JSON.parse(readFileSync(report, 'utf8'));
  passed += r.numPassedTests;
  failed += r.numFailedTests;
  ran += r.numTotalTests;
  // A suite that fails to load has no tests to count: count it as a failure.
  for (const s of r.testResults ?? []) {
    if (s.status === 'failed' && (s.assertionResults ?? []).every((a) => a.status !== 'failed')) {
      failed++;
      failures.push(`suite ${s.name.replace(root + '/', '')}: ${String(s.message ?? '').split('\n')[0]}`);
    }
    for (const a of s.assertionResults ?? []) if (a.status === 'failed') failures.push(`${s.name.replace(root + '/', '')} › ${a.fullName}`);
  }
}

vitest('tests (vitest)', 'vitest.config.ts', 'vitest.json');
// The suites that load the machine on purpose, alone, after the others (vitest.heavy.config.ts).
vitest('heavy tests (vitest, one at a time)', 'vitest.heavy.config.ts', 'vitest-heavy.json');
if (ran === 0) {
  failed++;
  failures.push('vitest ran no test');
}

if (failures.length) process.stdout.write(`\nFailed:\n${failures.map((f) => `  - ${f}`).join('\n')}\n`);
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(failed === 0 ? 0 : 1);
