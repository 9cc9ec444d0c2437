import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BoundedOutput,
  createSandboxLauncher,
  killLeftoverGroups,
  sandboxSupport,
  type Sandbox,
  type SandboxOptions,
} from '../../src/tournament/sandbox.js';

const PROBE = path.resolve(import.meta.dirname, '../fixtures/tournament/programs/probe');
const NODE = process.execPath;
const root = mkdtempSync(path.join(tmpdir(), 'sandbox-test-'));
const sandboxes: Sandbox[] = [];
const VIA = sandboxSupport().prlimit ? (['prlimit', 'ulimit'] as const) : (['ulimit'] as const);

afterAll(async () => {
  await Promise.all(sandboxes.map((s) => s.stopAll()));
  rmSync(root, { recursive: true, force: true });
});

let dirs = 0;
function sandbox(command: string, more: Partial<SandboxOptions> = {}): Sandbox {
  // The mechanics without a box (isolation: none); test/tournament/box.test.ts runs them boxed.
  const s = createSandboxLauncher({ command, cwd: path.join(root, `run-${++dirs}`), limits: {}, isolation: 'none', ...more });
  sandboxes.push(s);
  return s;
}

function probe(args: string): string {
  return `"${NODE}" "${PROBE}" ${args}`;
}

/** Running: kill(pid, 0) succeeds and it is no zombie (a zombie is dead, waiting for PID 1 to reap it). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('sandbox without a box (isolation: none)', () => {
  it('reports what this machine enforces', () => {
    expect(sandboxSupport()).toEqual({
      prlimit: existsSync('/usr/bin/prlimit'),
      pdeathsig: existsSync('/usr/bin/setpriv'),
    });
  });

  it('fills placeholders as whole words, runs in cwd with a clean environment', async () => {
    process.env.SPIELHALLE_SECRET = 'do-not-leak';
    try {
      const s = sandbox(probe('show -n {name} -p {port} x{port}y'), { env: { EXTRA: 'yes' } });
      const run = s.launch({ name: 'anna maria "the bot"', port: '4711' });
      expect(run.pid).toBeGreaterThan(0);
      const exit = await run.exited;
      expect(exit).toEqual({ code: 0, signal: null });
      expect(run.done).toBe(true);
      const [out] = s.outputs();
      const shown = JSON.parse(out!.stdout) as { args: string[]; cwd: string; env: Record<string, string> };
      expect(shown.args).toEqual(['-n', 'anna maria "the bot"', '-p', '4711', 'x4711y']);
      const cwd = path.join(root, `run-${dirs}`);
      expect(shown.cwd).toBe(cwd);
      expect(readFileSync(path.join(cwd, 'probe-was-here.txt'), 'utf8')).toBe('hello\n');
      expect(shown.env).toMatchObject({
        HOME: cwd,
        TMPDIR: path.join(cwd, 'tmp'),
        LANG: 'C.UTF-8',
        LC_ALL: 'C.UTF-8',
        EXTRA: 'yes',
      });
      expect(existsSync(path.join(cwd, 'tmp'))).toBe(true);
      expect(Object.keys(shown.env).filter((k) => k.startsWith('SPIELHALLE'))).toEqual([]);
      expect(Object.keys(shown.env).sort()).toEqual(
        [
          'EXTRA',
          'HOME',
          'LANG',
          'LC_ALL',
          'PATH',
          'TMPDIR',
          'TZ',
          ...(process.env.JAVA_HOME ? ['JAVA_HOME'] : []),
        ].sort(),
      );
      expect(out!.exit).toEqual(exit);
    } finally {
      delete process.env.SPIELHALLE_SECRET;
    }
  });

  it.each(VIA)('sets RLIMIT_CPU (soft, hard one second above) and RLIMIT_CORE 0 through %s', async (via) => {
    const s = sandbox(probe('show'), { limits: { cpuSeconds: 7 }, cpuLimitVia: via });
    expect(await s.launch({}).exited).toEqual({ code: 0, signal: null });
    const shown = JSON.parse(s.outputs()[0]!.stdout) as { limits: string[] };
    expect(shown.limits).toEqual(['Max cpu time 7 8 seconds', 'Max core file size 0 0 bytes']);
  });

  it('keeps the first and the last half of the output bound and counts the rest', async () => {
    const small = sandbox(probe('print abcdefghijklmnopqrstuvwxyz short'), { maxOutputBytes: 10 });
    await small.launch({}).exited;
    const [a] = small.outputs();
    expect(a!.stdout).toBe('abcde\n[… 16 bytes dropped …]\nvwxyz');
    expect(a!.stderr).toBe('short');
    expect(a!.truncated).toBe(16);

    const total = 10 * 1024 * 1024;
    const big = sandbox(probe(`flood ${total}`));
    await big.launch({}).exited;
    const [b] = big.outputs();
    const [head, tail] = b!.stdout.split(`\n[… ${total - 65536} bytes dropped …]\n`);
    expect(Buffer.byteLength(head!)).toBe(32768);
    expect(Buffer.byteLength(tail!)).toBe(32768);
    // The probe writes 160 blocks of 64 KiB, each the digits 0–9 repeated from the block's start.
    const block = Array.from({ length: 65536 }, (_, i) => String(i % 10)).join('');
    expect(head).toBe(block.slice(0, 32768));
    expect(tail).toBe(block.slice(32768));
    expect(b!.stderr).toBe('flood done\n');
    expect(b!.truncated).toBe(total - 65536);
  });

  it('bounds output that arrives in chunks of any size', () => {
    const out = new BoundedOutput(8);
    for (const piece of ['ab', 'cdefghij', 'k', 'lmnopqrstuvw', 'xy', 'z']) out.push(Buffer.from(piece));
    expect(out.text()).toBe('abcd\n[… 18 bytes dropped …]\nwxyz');
    expect(out.truncated).toBe(18);
    const exact = new BoundedOutput(8);
    exact.push(Buffer.from('12345678'));
    expect(exact.text()).toBe('12345678');
    expect(exact.truncated).toBe(0);
  });

  it('kills at the wall-clock limit', async () => {
    const s = sandbox(probe('sleep'), { limits: { wallSeconds: 0.5 } });
    const started = Date.now();
    const run = s.launch({});
    const exit = await run.exited;
    const took = Date.now() - started;
    expect(exit).toEqual({ code: null, signal: 'SIGKILL', limit: 'wall' });
    expect(took).toBeGreaterThanOrEqual(490);
    expect(took).toBeLessThan(1000);
  });

  it('ends a busy loop at the CPU limit', async () => {
    // The kernel's SIGXCPU (RLIMIT_CPU) normally comes first; the group poll's SIGKILL otherwise.
    const s = sandbox(probe('spin'), { limits: { cpuSeconds: 1 } });
    const exit = await s.launch({}).exited;
    expect(exit.limit).toBe('cpu');
    expect(exit.code).toBeNull();
    expect(['SIGXCPU', 'SIGKILL']).toContain(exit.signal);
  });

  it('counts the CPU time of the whole process group', async () => {
    // Three busy children: the group reaches 0.5 s long before any child reaches its own RLIMIT_CPU (1 s).
    const spin = probe('spin');
    const s = sandbox(`sh -c '${spin} & ${spin} & ${spin} & wait'`, { limits: { cpuSeconds: 0.5 } });
    const exit = await s.launch({}).exited;
    // Per-process RLIMIT_CPU would end each child with SIGXCPU and let sh exit normally instead.
    expect(exit).toEqual({ code: null, signal: 'SIGKILL', limit: 'cpu' });
  });

  it('kills a program above the memory limit', async () => {
    // The probe touches 300 MB and then holds it, never ending by itself; only the group's
    // sampled resident memory (every POLL_MS) can end it. Whether it gets to print "holding 300
    // MB" first depends on how fast this machine faults the pages in against the first samples
    // (a loaded CI run once did), so that is not asserted.
    const s = sandbox(probe('alloc 300'), { limits: { memoryMb: 100 } });
    const started = Date.now();
    const exit = await s.launch({}).exited;
    expect(exit).toEqual({ code: null, signal: 'SIGKILL', limit: 'memory' });
    // Well within the default wall limit: the sampler, not a timer, ended it.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('stop() kills the whole process group, grandchildren included', async () => {
    const s = sandbox(`sh -c 'sleep 1000 & echo $!; sleep 1000'`);
    const run = s.launch({});
    await until(() => s.outputs()[0]!.stdout.includes('\n'));
    const grandchild = Number(s.outputs()[0]!.stdout.trim());
    const leader = run.pid!;
    expect(running(leader) && running(grandchild)).toBe(true);
    const exit = await run.stop();
    expect(exit.signal).toBe('SIGTERM');
    expect(exit.limit).toBeUndefined();
    expect(running(leader)).toBe(false);
    await until(() => !running(grandchild), 1000);
    expect(await run.stop()).toBe(exit);
  });

  it('leaves nothing running when the runner itself is killed with -9', async () => {
    // A runner process (as `tournament run` is) starts a program that forks a grandchild; then
    // the runner is killed. The leader dies with it (parent-death signal); the grandchild is
    // found through the noted group by the next run's killLeftoverGroups.
    const pidDir = path.join(root, 'pids');
    const runner = path.join(root, 'runner.ts');
    const sandboxModule = path.resolve(import.meta.dirname, '../../src/tournament/sandbox.ts');
    writeFileSync(
      runner,
      [
        `import { createSandboxLauncher } from ${JSON.stringify(sandboxModule)};`,
        `const s = createSandboxLauncher({ command: ${JSON.stringify(`sh -c 'sleep 1000 & echo $!; sleep 1000'`)}, cwd: ${JSON.stringify(path.join(root, 'runner-cwd'))}, limits: {}, isolation: 'none', pidDir: ${JSON.stringify(pidDir)} });`,
        `const run = s.launch({});`,
        `const t = setInterval(() => { const out = s.outputs()[0]!.stdout; if (out.includes('\\n')) { process.stdout.write(run.pid + ' ' + out); clearInterval(t); } }, 20);`,
        `setInterval(() => undefined, 1000);`,
      ].join('\n'),
    );
    const { spawn } = await import('node:child_process');
    const child = spawn(NODE, ['--import', 'tsx', runner], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    await until(() => out.trim().split(/\s+/).length === 2, 20_000);
    const [leader, grandchild] = out.trim().split(/\s+/).map(Number) as [number, number];
    expect(running(leader) && running(grandchild)).toBe(true);
    child.kill('SIGKILL');
    if (sandboxSupport().pdeathsig) await until(() => !running(leader), 2000);
    expect(running(grandchild)).toBe(true);
    expect(killLeftoverGroups(pidDir)).toBeGreaterThanOrEqual(1);
    await until(() => !running(grandchild) && !running(leader), 2000);
    // The notes are gone, and a second sweep finds nothing.
    expect(killLeftoverGroups(pidDir)).toBe(0);
  }, 30_000);

  it('kills what a leader leaves behind when it exits', async () => {
    const s = sandbox(`sh -c 'sleep 1000 & echo $!; exit 3'`);
    const exit = await s.launch({}).exited;
    expect(exit).toEqual({ code: 3, signal: null });
    const orphan = Number(s.outputs()[0]!.stdout.trim());
    await until(() => !running(orphan), 1000);
  });

  it('sends SIGKILL after the grace period when SIGTERM is ignored', async () => {
    const s = sandbox(`sh -c 'trap "" TERM; echo ready; sleep 1000'`, { stopGraceMs: 200 });
    const run = s.launch({});
    await until(() => s.outputs()[0]!.stdout.includes('ready'));
    const started = Date.now();
    const exit = await run.stop();
    expect(exit).toEqual({ code: null, signal: 'SIGKILL' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('resolves a failed start with an error and never throws', async () => {
    const notExecutable = path.join(root, 'not-executable');
    writeFileSync(notExecutable, '#!/bin/sh\necho hi\n');
    chmodSync(notExecutable, 0o644);
    const cases: [string, Record<string, string>, RegExp][] = [
      [
        'no-such-program-spielhalle -p {port}',
        { port: '1' },
        /no such program on PATH: no-such-program-spielhalle/,
      ],
      ['./missing/client {port}', { port: '1' }, /no such program: .*missing\/client/],
      [`"${notExecutable}"`, {}, /not executable: .*not-executable/],
      [root, {}, /not a program file/],
      [`java -jar 'unterminated`, {}, /unterminated single quote/],
      ['client {gameId}', {}, /no value for placeholder \{gameId\}/],
    ];
    for (const [command, values, error] of cases) {
      const s = sandbox(command);
      const run = s.launch(values);
      expect(run.pid).toBeUndefined();
      const exit = await run.exited;
      expect(exit.code).toBeNull();
      expect(exit.error).toMatch(error);
      expect(run.done).toBe(true);
      expect(await run.stop()).toBe(exit);
      expect(s.outputs()[0]!.exit).toBe(exit);
    }
  });
});
