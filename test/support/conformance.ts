import { expect } from 'vitest';
import type { ConformanceScenario, GameConformance } from '../../src/core/conformance.js';
import { runScenario, type RunOptions, type ScenarioResult } from '../../src/conformance/runner.js';

/**
 * What the five check-client proofs (test/games/<game>/conformance.test.ts) share: a pool that
 * runs many clients' scenarios at once on the two shared cores, the failures as readable text,
 * and the check that a fixture bug fails exactly the scenarios meant to catch it.
 */

export interface PoolJob {
  command: readonly string[];
  /** The scenario ids to run; null: all of them. */
  only: readonly string[] | null;
  /** Runner options of this job (a slow-starting CLI: a longer connect time or a time scale). */
  options?: Omit<RunOptions, 'command'>;
}

/**
 * Runs every job's scenarios, at most `pool` client processes at a time; the results per job in
 * the jobs' order. `rank` orders the work (lower first): the longest scenarios first, so that they
 * do not end the run alone.
 */
export async function runPool(
  game: string,
  conformance: GameConformance,
  jobs: readonly PoolJob[],
  pool: number,
  rank: (job: PoolJob, scenario: ConformanceScenario) => number = () => 0,
): Promise<ScenarioResult[][]> {
  const tasks = jobs
    .flatMap((job, j) => (job.only === null ? conformance.scenarios : conformance.scenarios.filter((s) => job.only!.includes(s.id))).map((scenario) => ({ j, job, scenario })))
    .sort((a, b) => rank(a.job, a.scenario) - rank(b.job, b.scenario));
  const results: ScenarioResult[][] = jobs.map(() => []);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const t = tasks[next++]!;
      results[t.j]!.push(await runScenario(game, conformance, t.scenario, { ...t.job.options, command: t.job.command }));
    }
  };
  await Promise.all(Array.from({ length: pool }, worker));
  return results;
}

/** The scenarios that did not pass, with their wire excerpts and stderr ('' when all passed). */
export function explain(results: readonly ScenarioResult[]): string {
  return results
    .filter((r) => r.status !== 'pass')
    .map((r) => `${r.id}: ${r.status} ${r.message ?? ''}\n${r.excerpt.map((e) => `  ${e.atMs} ${e.dir} ${e.text.slice(0, 200)}`).join('\n')}\n${r.stderr}`)
    .join('\n');
}

/** A bug's run fails exactly `fails` (no other scenario), each failure with its rule and the wire it broke on. */
export function expectFailsExactly(bug: string, results: readonly ScenarioResult[], fails: readonly string[]): void {
  const failed = results.filter((x) => x.status !== 'pass').map((x) => x.id).sort();
  const unexpected = results.filter((x) => x.status !== 'pass' && !fails.includes(x.id));
  expect({ bug, failed }, explain(unexpected)).toEqual({ bug, failed: [...fails].sort() });
  for (const x of results.filter((y) => y.status === 'fail')) {
    expect(x.judgement?.rule).toBeTruthy();
    expect(x.excerpt.some((e) => e.dir === 'sent')).toBe(true);
  }
}
