import { spawn } from 'node:child_process';
import type { ProgramExit, ProgramLauncher, ProgramRun } from '../../src/core/tournament-match.js';

/**
 * A plain ProgramLauncher for tests of a game's tournament arena: spawns `argv` (each `{key}`
 * replaced from the values) in its own process group, no limits, output kept in `output`.
 * The real one, with limits and capture into the record, is src/tournament/sandbox.ts.
 */
export interface TestLauncher {
  launch: ProgramLauncher;
  runs: ProgramRun[];
  /** stdout + stderr of every run so far, for failure messages. */
  output: string[];
  stopAll(): Promise<void>;
}

export function testLauncher(argv: readonly string[]): TestLauncher {
  const runs: ProgramRun[] = [];
  const output: string[] = [];
  const launch: ProgramLauncher = (values) => {
    const words = argv.map((w) =>
      w.replace(/\{(\w+)\}/g, (whole, key: string) => {
        const v = values[key];
        if (v === undefined) throw new Error(`no value for ${whole}`);
        return v;
      }),
    );
    const child = spawn(words[0] as string, words.slice(1), {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const index = output.push('') - 1;
    const keep = (chunk: Buffer) => {
      const kept = output[index] ?? '';
      if (kept.length < 100_000) output[index] = kept + chunk.toString();
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let done = false;
    const exited = new Promise<ProgramExit>((resolve) => {
      child.once('error', (err) => {
        done = true;
        resolve({ code: null, signal: null, error: err.message });
      });
      child.once('exit', (code, signal) => {
        done = true;
        resolve({ code, signal });
      });
    });
    const run: ProgramRun = {
      pid: child.pid,
      exited,
      get done() {
        return done;
      },
      async stop() {
        if (!done && child.pid !== undefined) {
          try {
            process.kill(-child.pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
        return exited;
      },
    };
    runs.push(run);
    return run;
  };
  return {
    launch,
    runs,
    output,
    async stopAll() {
      await Promise.all(runs.map((r) => r.stop()));
    },
  };
}
