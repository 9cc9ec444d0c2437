import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCENARIOS } from './attacks.js';
import { runGroup } from './run.js';
import { buildServer, GAMES, ServeProcess, type Game } from './serve.js';

/**
 * Issue 15, across the games: malicious clients (all from 127.0.0.2) against ONE `spielhalle serve`
 * with all five games and their house games. For each target (Mia, Catan, Dame, Ostseeschach, and
 * the TCP games together for the 1000+ idle connections) the attacks run in turn as short bursts;
 * the process must stay up, `/healthz` must answer 200 throughout, every game that is not
 * attacked must still finish house games, and while an attack holds connections, seats, rooms or
 * registrations, the attacked game's own house games (from 127.0.0.1) must still finish. `npm run soak -- hardening` measures the rates properly
 * (bench/hardening.ts, docs/benchmarks.md "Hardening").
 */

const GROUPS: { name: string; targets: readonly Game[] }[] = [
  { name: 'Mia', targets: ['mia'] },
  { name: 'Catan', targets: ['catan'] },
  { name: 'Dame', targets: ['dame'] },
  { name: 'Ostseeschach', targets: ['ostseeschach'] },
  { name: 'the TCP games together', targets: ['dame', 'ostseeschach', 'catan'] },
];

const same = (a: readonly Game[], b: readonly Game[]): boolean =>
  a.length === b.length && a.every((g) => b.includes(g));

let serve: ServeProcess;

beforeAll(async () => {
  buildServer();
  serve = await ServeProcess.start();
  // Every game's house games run before the first attack.
  const counts = await serve.waitFinished(GAMES, 0, 60_000);
  expect(
    GAMES.filter((g) => counts[g] === 0),
    'games without a finished house game before any attack',
  ).toEqual([]);
}, 120_000);

afterAll(async () => {
  await serve.stop();
}, 30_000);

describe('hardening: malicious clients against one serve process', () => {
  for (const group of GROUPS) {
    const scenarios = SCENARIOS.filter((s) => same(s.targets, group.targets));
    it(`attacks on ${group.name} (${scenarios.map((s) => s.attack).join(', ')}) leave the process up, /healthz 200, the other games playing`, async () => {
      if (!serve.alive) serve = await ServeProcess.start();
      const r = await runGroup(serve, scenarios, {
        burstMs: 2000,
        holdMs: 5000,
        lockoutWaitMs: 20_000,
        maxWaitMs: 40_000,
        scale: 'fast',
      });
      serve = r.serve;
      console.log(
        `${group.name}: ${(r.windowMs / 1000).toFixed(1)} s, finished ${JSON.stringify(r.counts)}\n  ${r.lines.join('\n  ')}`,
      );
      // Isolation: a target that stays stuck after its attackers left would fail the next group
      // for the wrong reason, so it gets a fresh process (and a note).
      let stuck: Game[] = [];
      if (serve.alive) {
        const after = await serve.waitFinished(group.targets, Date.now(), 20_000);
        stuck = group.targets.filter((g) => after[g] === 0);
        if (stuck.length > 0)
          console.warn(`${stuck.join(', ')} finished no house game in the 20 s after the attackers left`);
      }
      if (!serve.alive || r.failures.length > 0 || stuck.length > 0) {
        await serve.kill9();
        serve = await ServeProcess.start();
      }
      expect(r.failures).toEqual([]);
    }, 180_000);
  }
});
