import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { MatchSeat } from '../../src/core/tournament-match.js';
import { ostseeschachTournament } from '../../src/games/ostseeschach/tournament.js';
import { bot, BoxedMatches, CLIENTS, plays } from './boxed-match.js';

/**
 * Issue 30: course clients for Ostseeschach (Software-Challenge 2022, XML over TCP) in C, Java 17
 * and Python 3, built outside the box as staff would, run unchanged in their box and play one whole
 * match of the tournament arena against our random bot: `<protocol>`, `joinPrepared` with the
 * reservation, a legal move for every `moveRequest`, goodbye after `<left>`, exit 0.
 */

const DIR = path.join(CLIENTS, 'ostseeschach');
const boxed = new BoxedMatches();
afterAll(() => boxed.close());

/**
 * One boxed match of the client `command` (run in `cwd`) in seat `seat` (0 = ONE, moves first)
 * against bot:random; checks that the game ended by the rules and the client exited 0 knowing the result.
 */
async function playAgainstRandom(id: string, seed: number, seat: 0 | 1, command: string, cwd: string): Promise<void> {
  const client = boxed.seat('course', command, cwd, 60);
  const sandbox = boxed.sandboxes.at(-1)!;
  const seats: MatchSeat[] = seat === 0 ? [client, bot('rnd', 'random')] : [bot('rnd', 'random'), client];
  // Every move of either side takes milliseconds, so the move time costs no wall time; 1000 ms (not
  // 300) only keeps a loaded 2-core machine (other suites beside this one) from a soft timeout.
  const outcome = await boxed.play(ostseeschachTournament, { id, seed, moveTimeMs: 1000, connectTimeoutMs: 20_000, seats });
  const why = boxed.explain(outcome);

  // A regular end: by ambers or the round limit, not a rule violation, a protocol error, a timeout or a leave.
  expect(outcome.reason, why).toMatch(/^REGULAR: /);
  expect(outcome.aborted, why).toBeUndefined();
  for (const s of outcome.seats) {
    expect(s.outcome, why).toBeDefined();
    expect(s.crashed, why).toBeUndefined();
    expect(s.timedOut, why).toBeUndefined();
    expect(s.note, why).toBeUndefined();
  }
  const [mine, theirs] = seat === 0 ? outcome.seats : [outcome.seats[1]!, outcome.seats[0]!];
  expect(mine!.name).toBe('course');
  expect(mine!.points + theirs!.points, why).toBe(2); // Siegpunkte: 2:0 or 1:1
  expect(outcome.records, why).toHaveLength(1);

  // The client read the result and the end of the stream, and exited 0 by itself.
  const run = sandbox.outputs()[0]!;
  expect(run.exit, why).toEqual({ code: 0, signal: null });
  const team = seat === 0 ? 'ONE' : 'TWO';
  const winner = mine!.outcome === 'win' ? team : mine!.outcome === 'loss' ? (seat === 0 ? 'TWO' : 'ONE') : 'none';
  const said = /^game over after turn (\d+): I am (ONE|TWO), winner (ONE|TWO|none)$/.exec(run.stdout.trim());
  expect(said, why).not.toBeNull();
  expect(said!.slice(2), why).toEqual([team, winner]);
  // The game ends after TWO's move: by two ambers, or at the round limit (turn 60).
  const turn = Number(said![1]);
  expect(turn % 2 === 0 && turn >= 2 && turn <= 60, `turn ${turn}\n${why}`).toBe(true);
}

describe('Ostseeschach course clients, boxed, against bot:random', () => {
  it.skipIf(!plays('c', 'cc', 'java'))('a C client (POSIX sockets) plays a whole game as ONE', async () => {
    const dir = await boxed.entrant(path.join(DIR, 'c'), ['cc', '-O2', '-o', 'client', 'client.c']);
    await playAgainstRandom('box/ostseeschach-c', 3, 0, './client -h {host} -p {port} -r {reservation} -s 7', dir);
  }, 60_000);

  it.skipIf(!plays('java', 'javac', 'java'))('a Java 17 client plays a whole game as TWO', async () => {
    // -J-XX:TieredStopAtLevel=1 only speeds up javac's own JVM (a second or two of this test); the class files are the same.
    const dir = await boxed.entrant(path.join(DIR, 'java'), ['javac', '-J-XX:TieredStopAtLevel=1', 'Client.java']);
    await playAgainstRandom('box/ostseeschach-java', 4, 1, 'java -cp . Client -h {host} -p {port} -r {reservation} -s 7', dir);
  }, 60_000);

  it.skipIf(!plays('python', 'python3', 'java'))('a Python 3 client plays a whole game as ONE', async () => {
    const dir = await boxed.entrant(path.join(DIR, 'python'));
    await playAgainstRandom('box/ostseeschach-python', 5, 0, 'python3 client.py -h {host} -p {port} -r {reservation} -s 7', dir);
  }, 60_000);
});
