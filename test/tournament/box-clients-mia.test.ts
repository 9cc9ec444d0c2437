import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { RecordStore } from '../../src/core/records.js';
import type { TournamentMatchOutcome } from '../../src/core/tournament-match.js';
import { miaTournament } from '../../src/games/mia/tournament.js';
import { bot, BoxedMatches, CLIENTS, plays } from './boxed-match.js';

/**
 * Issue 30: course-style Mia clients in C, Java 17 and Python 3 (test/fixtures/tournament/clients/
 * mia/), built outside the box as staff would, each play one table of Mia's tournament arena in
 * their box against our random bot: registered under {name}, joining every round, rolling,
 * announcing and seeing within the move time, and exiting 0 once the table unregisters them.
 */

const MIA = path.join(CLIENTS, 'mia');
const ROUNDS = 5;
/** How a round may end for the client by the rules of the game; anything else is a broken client. */
const FAIR_LOSSES = ['SEE_FAILED', 'CAUGHT_BLUFFING', 'MIA'];

interface RoundResult {
  order?: string[];
  losers?: string[];
  reason?: string;
  moves?: unknown[];
}

describe('course Mia clients (C, Java 17, Python 3), boxed, play a table against our random bot', () => {
  const boxed = new BoxedMatches();
  afterAll(() => boxed.close());

  /** Plays one table of `ROUNDS` rounds, the boxed client at seat 0 and our random bot at seat 1, and checks it all. */
  const table = async (id: string, name: string, command: string, cwd: string): Promise<void> => {
    const seat = boxed.seat(name, command, cwd, 60);
    // As boxed.play(), but with the store kept open until every round's record is read.
    const store = new RecordStore(':memory:');
    const arena = await miaTournament.open({ store, log: silentLogger });
    try {
      const outcome: TournamentMatchOutcome = await arena.play({
        id: `box-clients/mia/${id}`,
        // Seed 3 deals rounds where the client rolls, sees, must bluff, and loses to a Mia.
        seed: 3,
        // The table waits only for late answers: a prompt client plays as fast at 1000 ms as at the
        // course's 250, but a cold JVM's first ANNOUNCE on a loaded machine took over 200 ms here.
        moveTimeMs: 1000,
        rounds: ROUNDS,
        connectTimeoutMs: 20_000,
        seats: [seat, bot('rnd', 'random')],
      });
      const why = boxed.explain(outcome);
      // The table ended by its rules: every round played, nobody out of time or crashed, all placed.
      expect(outcome.aborted, why).toBeUndefined();
      expect(outcome.reason, why).toMatch(new RegExp(`^${ROUNDS} rounds played: `));
      for (const s of outcome.seats) {
        expect(s.crashed, why).toBeUndefined();
        expect(s.timedOut, why).toBeUndefined();
        expect(s.placing, why).toBeGreaterThanOrEqual(1);
      }
      const [mine, theirs] = outcome.seats;
      expect(mine!.placing, why).toBe(mine!.points >= theirs!.points ? 1 : 2);
      expect(theirs!.placing, why).toBe(theirs!.points >= mine!.points ? 1 : 2);
      // Every round is recorded, finished (not canceled: the client joined it) with both at the
      // table and one loser; whenever the client lost, it lost a fair game, never by breaking a rule.
      expect(outcome.records, why).toHaveLength(ROUNDS);
      let turns = 0;
      for (const recordId of outcome.records) {
        const record = store.getMatch(recordId);
        const result = record?.result as RoundResult | undefined;
        const round = `${recordId}: ${JSON.stringify(record?.result)}\n${why}`;
        expect(record?.status, round).toBe('finished');
        expect([...(result?.order ?? [])].sort(), round).toEqual([name, 'rnd']);
        expect(result?.losers, round).toHaveLength(1);
        if (result?.losers?.[0] === name) expect(FAIR_LOSSES, round).toContain(result.reason);
        turns += (result?.moves ?? []).filter((m) => Array.isArray(m) && m[0] === result?.order?.indexOf(name)).length;
      }
      expect(turns, why).toBeGreaterThan(0);
      // One point per round for whoever did not lose it.
      expect(mine!.points + theirs!.points, why).toBe(ROUNDS);
      // The client itself exited 0 on the table's UNREGISTERED, and its own tally agrees with the table.
      const run = boxed.sandboxes.at(-1)!.outputs()[0]!;
      expect(run.exit, why).toEqual({ code: 0, signal: null });
      const tally = /^done (\S+) rounds=(\d+) turns=(\d+) score=(\d+)$/m.exec(run.stdout);
      expect(tally, why).not.toBeNull();
      expect(tally!.slice(1).map((x, i) => (i === 0 ? x : Number(x))), why).toEqual([name, ROUNDS, expect.any(Number), mine!.points]);
    } finally {
      await arena.close();
      store.close();
    }
  };

  it.skipIf(!plays('c', 'cc', 'python'))('C (cc, POSIX sockets)', async () => {
    const dir = await boxed.entrant(path.join(MIA, 'c'), ['cc', '-O2', '-o', 'client', 'client.c']);
    await table('c', 'c-client', './client {host} {port} {name}', dir);
  }, 60_000);

  it.skipIf(!plays('java', 'javac', 'python'))('Java 17 (the JVM in the box)', async () => {
    const dir = await boxed.entrant(path.join(MIA, 'java'), ['javac', 'Client.java']);
    await table('java', 'java-client', 'java -cp . Client {host} {port} {name}', dir);
  }, 60_000);

  it.skipIf(!plays('python', 'python3', 'python'))('Python 3', async () => {
    const dir = await boxed.entrant(path.join(MIA, 'python'));
    await table('python', 'py-client', 'python3 client.py {host} {port} {name}', dir);
  }, 60_000);
});
