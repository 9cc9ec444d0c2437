import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { MatchSeat, TournamentMatchOutcome } from '../../src/core/tournament-match.js';
import { dameTournament } from '../../src/games/dame/tournament.js';
import { bot, BoxedMatches, CLIENTS, plays } from './boxed-match.js';

/**
 * Issue 30: course clients for Dame (a C client in the MNM style, a Java 17 and a Python 3 client,
 * test/fixtures/tournament/clients/dame/) are built as staff would build them, run unchanged in
 * their box, and each plays one whole match of the Dame arena against our random bot, to an end by
 * the game's rules. The clients speak docs/dame.md: the C and Java clients wait for the MOTD and
 * send VERSION 3.1, the Python client sends VERSION 2.3 at once (v2; it skips a MOTD that the
 * server sends when that VERSION comes later than its 100 ms).
 */

const DIR = path.join(CLIENTS, 'dame');
const matches = new BoxedMatches();

afterAll(() => matches.close());

/** The end conditions of the rules (spec §3), not a forfeit: with the loser's name, or a draw. */
const REGULAR_END = /^(no-pieces|no-moves): (client|rnd) loses$|^(repetition|fifty-moves)$/;
const WORD: Record<string, string> = { win: 'won', loss: 'lost', draw: 'draw' };

/**
 * Plays one boxed match with `command` (built in `cwd`) in seat `seat` (0 White, 1 Black) against
 * our random bot, and checks that it ended by the rules, with an outcome for both seats, a record,
 * and a client that played, saw the same result, and exited 0 by itself.
 */
async function playAgainstRandom(command: string, cwd: string, seat: 0 | 1, seed: number): Promise<TournamentMatchOutcome> {
  const client = matches.seat('client', command, cwd);
  const box = matches.sandboxes.at(-1)!;
  const seats: MatchSeat[] = seat === 0 ? [client, bot('rnd', 'random')] : [bot('rnd', 'random'), client];
  const outcome = await matches.play(dameTournament, {
    id: `box-clients/dame/${seat}/${seed}`,
    seed,
    // The clients and the random bot answer at once, so the move time costs nothing here; it only
    // bounds a stall. 200 ms (+ the server's 200 ms grace) was seen to time out a boxed client's
    // first move on this 2-core machine under load (a JVM starting next door, load average 16).
    moveTimeMs: 1000,
    connectTimeoutMs: 20_000,
    seats,
  });
  const why = `${JSON.stringify(outcome)}\n${box.outputs().map((o) => o.stderr).join('\n')}`;
  expect(outcome.aborted, why).toBeUndefined();
  expect(outcome.reason, why).toMatch(REGULAR_END);
  expect(outcome.records, why).toHaveLength(1);
  expect(outcome.seats.map((s) => s.name)).toEqual(seat === 0 ? ['client', 'rnd'] : ['rnd', 'client']);
  for (const s of outcome.seats) {
    expect(['win', 'draw', 'loss'], why).toContain(s.outcome);
    expect(s.crashed ?? s.timedOut ?? s.note, why).toBeUndefined();
  }
  const [a, b] = outcome.seats.map((s) => s.outcome);
  expect(a === 'draw' ? b === 'draw' : a !== b && b !== 'draw', why).toBe(true);
  // The program itself: it played moves, read the GAMEOVER block, and exited 0 on its own.
  const [program] = box.outputs();
  expect(program, why).toBeDefined();
  expect(program!.exit, why).toEqual({ code: 0, signal: null });
  expect(program!.stderr, why).toMatch(/^C: PLAY [A-H][1-8]:[A-H][1-8]$/m);
  expect(program!.stdout, why).toContain(`game over, ${WORD[outcome.seats[seat]!.outcome!]} (player ${seat})`);
  return outcome;
}

/** An entrant directory with the client's sources, built there as staff would (outside the box, not blocking the other matches). */
const entrant = (language: string, build?: readonly string[]): Promise<string> => matches.entrant(path.join(DIR, language), build);

describe.concurrent('course clients for Dame, unchanged, boxed in real matches against our random bot', () => {
  it.skipIf(!plays('c', 'cc', 'c'))('a C client (MNM style, built with cc) plays White to the end', async () => {
    const dir = await entrant('c', ['cc', '-O2', '-o', 'client', 'client.c']);
    await playAgainstRandom('./client {host} {port} {gameId} {player}', dir, 0, 3);
  }, 60_000);

  it.skipIf(!plays('java', 'javac', 'c'))('a Java 17 client (javac, the JVM in the box) plays Black to the end', async () => {
    const dir = await entrant('java', ['javac', 'Client.java']);
    await playAgainstRandom('java -cp . Client {host} {port} {gameId} {player}', dir, 1, 7);
  }, 60_000);

  it.skipIf(!plays('python', 'python3', 'c'))('a Python 3 client (v2 prolog) plays White to the end', async () => {
    const dir = await entrant('python');
    await playAgainstRandom('python3 client.py {host} {port} {gameId} {player}', dir, 0, 11);
  }, 60_000);
});
