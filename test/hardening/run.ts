import { attackReached, describeStats, type Attack, type Scale, type Scenario } from './attacks.js';
import {
  GAMES,
  HealthMonitor,
  ServeProcess,
  sleep,
  type Counts,
  type Game,
  type ServeOptions,
} from './serve.js';

/**
 * A group of scenarios against one target (or the TCP games together), as `npm test` runs it:
 * each attack starts in turn and runs for a short burst; a holding attack keeps what it built up
 * until the next holding attack starts (two would only compete for the attacker host's share),
 * the last one until the group ends. The serve process must stay up and `/healthz` answer 200
 * throughout, and every game NOT attacked must finish at least one house game in the window.
 * While a holding attack holds its state, the attacked game's own house games (clients from
 * 127.0.0.1) must still finish one: the attacker must not lock the others out.
 */

export interface GroupResult {
  failures: string[];
  /** One line per scenario: what the attack did. */
  lines: string[];
  /** Finished house games per game during the window. */
  counts: Counts;
  windowMs: number;
  serve: ServeProcess;
}

export interface GroupOptions {
  burstMs: number;
  /** How long a holding attack builds up before the lock-out check. */
  holdMs: number;
  /** How long to wait, while it holds, for the attacked game to finish a house game. */
  lockoutWaitMs: number;
  /** How long to wait, after the last burst, for every other game to finish a house game. */
  maxWaitMs: number;
  scale: Scale;
  serveOptions?: ServeOptions;
}

const exitText = (s: ServeProcess): string =>
  `serve exited (${JSON.stringify(s.exit)}); its last output:\n${s.stderrTail(15)}`;

export async function runGroup(
  serve: ServeProcess,
  scenarios: readonly Scenario[],
  o: GroupOptions,
): Promise<GroupResult> {
  const targets = new Set<Game>(scenarios.flatMap((s) => s.targets));
  const others = GAMES.filter((g) => !targets.has(g));
  const failures: string[] = [];
  const lines: string[] = [];
  const held: Attack[] = [];
  let t0 = Date.now();
  let monitor = new HealthMonitor(serve);
  const restart = async (): Promise<void> => {
    await monitor.stop();
    await serve.kill9();
    serve = await ServeProcess.start(o.serveOptions);
    monitor = new HealthMonitor(serve);
    t0 = Date.now();
  };
  try {
    for (const scenario of scenarios) {
      if (!serve.alive) await restart();
      monitor.label = scenario.id;
      if (scenario.hold) await Promise.all(held.splice(0).map((a) => a.stop()));
      const attack = scenario.start(serve.ports, o.scale);
      await sleep(scenario.hold ? o.holdMs : o.burstMs);
      if (scenario.hold) {
        held.push(attack);
        // Games that started once the attack had built up its state, not one that was already on.
        const builtUp = Date.now();
        const own = await serve.waitFinished(scenario.targets, builtUp, o.lockoutWaitMs, builtUp);
        for (const g of scenario.targets) {
          if (own[g] === 0 && serve.alive) {
            failures.push(
              `${scenario.id}: ${g} started and finished no house game of its own in ${((Date.now() - builtUp) / 1000).toFixed(0)} s while the attack held its state (locked out)`,
            );
          }
        }
      } else await attack.stop();
      lines.push(`${scenario.id}: ${describeStats(attack)}`);
      if (!serve.alive) failures.push(`${scenario.id}: ${exitText(serve)}`);
      else if (!attackReached(attack)) failures.push(`${scenario.id}: the attack never reached the server`);
    }
    monitor.label = `after ${scenarios.map((s) => s.id).join(', ')}`;
    const counts = await serve.waitFinished(others, t0, o.maxWaitMs);
    const windowMs = Date.now() - t0;
    if (!serve.alive) failures.push(`${[...targets].join('+')}: ${exitText(serve)}`);
    for (const g of others) {
      if (counts[g] < 1)
        failures.push(
          `${g} finished no house game in ${(windowMs / 1000).toFixed(0)} s of attacks on ${[...targets].join('+')} (finished: ${JSON.stringify(counts)})`,
        );
    }
    return { failures, lines, counts, windowMs, serve };
  } finally {
    await Promise.all(held.map((a) => a.stop()));
    await monitor.stop();
    for (const b of monitor.bad)
      failures.push(`${b.label}: /healthz answered ${b.status === 0 ? 'nothing within 5 s' : b.status}`);
  }
}
