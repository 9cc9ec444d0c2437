import { execFile, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { RecordStore } from '../../src/core/records.js';
import type { MatchSeat, TournamentMatchOutcome, TournamentMatchRequest, TournamentSupport } from '../../src/core/tournament-match.js';
import { createSandboxLauncher, type Sandbox } from '../../src/tournament/sandbox.js';

/**
 * Boxed matches for the tests of issue 30: entrant programs (our own clients and the C, Java and
 * Python course clients in test/fixtures/tournament/clients/) run in their bubblewrap box and play
 * one real match of a game's tournament arena against our bots.
 */

/** Whether `tool` is on this machine's PATH (a machine without a JDK or a C compiler skips that test, and says so). */
export const has = (tool: string): boolean => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;

/**
 * Whether the course client of `language` plays here: `npm test` plays one language per game
 * (each language in at least one game: C for Catan and Dame, Java for Connect Four and
 * Ostseeschach, Python for Mia), to keep the whole CI run within its time; `npm run soak --
 * clients` (SPIELHALLE_ALL_CLIENTS=1) plays all fifteen. A language whose tool is missing is
 * skipped either way.
 */
export const plays = (language: 'c' | 'java' | 'python', tool: string, inTest: 'c' | 'java' | 'python'): boolean =>
  has(tool) && (process.env.SPIELHALLE_ALL_CLIENTS === '1' || language === inTest);

export const CLIENTS = path.resolve(import.meta.dirname, '../fixtures/tournament/clients');

export class BoxedMatches {
  readonly root = mkdtempSync(path.join(tmpdir(), 'boxed-'));
  readonly sandboxes: Sandbox[] = [];
  private n = 0;

  /**
   * An entrant directory with the fixture files of `fixtureDir` in it, built there by `build`
   * (outside the box, as course staff would build a submission before the tournament). The build
   * does not block the event loop (javac takes seconds): matches already running go on meanwhile.
   */
  async entrant(fixtureDir: string, build?: readonly string[]): Promise<string> {
    const dir = path.join(this.root, `entrant-${++this.n}`);
    mkdirSync(dir, { recursive: true });
    cpSync(fixtureDir, dir, { recursive: true });
    if (build) {
      const failure = await promisify(execFile)(build[0]!, build.slice(1), { cwd: dir, encoding: 'utf8' }).then(
        () => null,
        (e: unknown) => String(e), // the command and its output
      );
      expect(failure, build.join(' ')).toBeNull();
    }
    return dir;
  }

  /** A program seat whose command runs boxed in `cwd` (default: a fresh empty directory), as in a tournament. */
  seat(name: string, command: string, cwd?: string, wallSeconds = 120): MatchSeat {
    const s = createSandboxLauncher({ command, cwd: cwd ?? path.join(this.root, `client-${++this.n}`), limits: { wallSeconds } });
    this.sandboxes.push(s);
    return { name, player: { kind: 'program', launch: s.launch } };
  }

  /** The stderr of every boxed program so far (what a failed assertion shows). */
  stderr(): string {
    return this.sandboxes.flatMap((s) => s.outputs().map((o) => o.stderr)).join('\n');
  }

  explain(outcome: TournamentMatchOutcome): string {
    return `${JSON.stringify(outcome)}\n${this.stderr()}`;
  }

  /** Plays one match of `support`'s arena with `request` and checks that no seat crashed. */
  async play(support: TournamentSupport, request: TournamentMatchRequest): Promise<TournamentMatchOutcome> {
    const store = new RecordStore(':memory:');
    const arena = await support.open({ store, log: silentLogger });
    try {
      const outcome = await arena.play(request);
      expect(outcome.seats.some((s) => s.crashed === true), this.explain(outcome)).toBe(false);
      return outcome;
    } finally {
      await arena.close();
      store.close();
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.sandboxes.map((s) => s.stopAll()));
    rmSync(this.root, { recursive: true, force: true });
  }
}

export const bot = (name: string, b: string, options: Record<string, unknown> = {}): MatchSeat => ({ name, player: { kind: 'bot', bot: b, options } });
