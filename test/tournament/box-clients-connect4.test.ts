import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TournamentMatchOutcome } from '../../src/core/tournament-match.js';
import { workerUrl } from '../../src/core/worker-url.js';
import { connect4Tournament } from '../../src/games/connect4/tournament.js';
import { bot, BoxedMatches, CLIENTS, plays } from './boxed-match.js';

/**
 * Issue 30: course clients of Connect Four (4 Gewinnt, UDP peer to peer) in C, Java 17 and
 * Python 3, unchanged, in their bubblewrap box: each plays one boxed match of the tournament arena
 * (the referee) against our easy bot from each seat. At seat 0 the client invites the referee at
 * {invite} and moves first; at seat 1 the referee invites it at {port} (the client's own invitation
 * crosses it) and it moves second. The match must end by the rules (four in a row or a full board),
 * not by a forfeit, and the client must agree with the referee on the result and exit 0 by itself.
 */

const DIR = path.join(CLIENTS, 'connect4');

describe('Connect Four course clients, unchanged, boxed against our easy bot', () => {
  const boxed = new BoxedMatches();
  afterAll(() => boxed.close());
  // From the TypeScript sources the bots' solver worker is bundled with esbuild at its first use
  // (~0.5 s, only in tests): done here, so that it does not eat the bot's first move time.
  beforeAll(() => workerUrl(new URL('../../src/games/connect4/engine.ts', import.meta.url).href, 'engine-worker'), 30_000);

  /** One match with the client at `seat`; checks a regular end that the client saw the same way, and its exit 0. */
  const match = async (lang: string, command: string, cwd: string, seat: 0 | 1): Promise<TournamentMatchOutcome> => {
    const client = boxed.seat(lang, command, cwd, 60);
    const sandbox = boxed.sandboxes.at(-1)!;
    const seats = seat === 0 ? [client, bot('easy', 'easy')] : [bot('easy', 'easy'), client];
    // moveTimeMs 1000 (a limit of 2 s): the clients answer in milliseconds and the easy bot needs no
    // time to think, but its first move also starts the arena's solver worker, which on a loaded
    // machine took more than the 1.3 s of moveTimeMs 300 (the bot then lost on time).
    const outcome = await boxed.play(connect4Tournament, { id: `box/c4-${lang}-${seat}`, seed: 4, moveTimeMs: 1000, connectTimeoutMs: 20_000, seats });
    const why = boxed.explain(outcome);
    // A regular end: four in a row or a full board, a record, and no seat that forfeited.
    expect(outcome.reason, why).toMatch(/^(four in a row: (easy|c|java|python)|draw: the board is full)$/);
    expect(outcome.aborted, why).toBeUndefined();
    expect(outcome.records, why).toHaveLength(1);
    for (const s of outcome.seats) {
      expect(s.outcome, why).toMatch(/^(win|draw|loss)$/);
      expect(s.note, why).toBeUndefined();
      expect(s.timedOut, why).toBeUndefined();
    }
    expect(outcome.seats.reduce((sum, s) => sum + s.points, 0)).toBe(1);
    // The client ended by itself, with code 0, and its own board says what the referee says.
    const out = sandbox.outputs()[0]!;
    expect(out.exit, why).toEqual({ code: 0, signal: null });
    const mine = outcome.seats[seat]!.outcome!;
    expect(out.stdout, why).toMatch(new RegExp(`^game over: ${mine} as player ${seat + 1}, moves [1-7]{7,42}\\n$`));
    return outcome;
  };

  /** Both seats at once (each match has its own referee and a fresh copy of the entrant's directory). */
  const bothSeats = (lang: string, command: string, cwd: string) => Promise.all([match(lang, command, cwd, 0), match(lang, command, cwd, 1)]);

  it.skipIf(!plays('c', 'cc', 'java'))('a C client (POSIX sockets) invites at seat 0 and accepts at seat 1', async () => {
    const dir = await boxed.entrant(path.join(DIR, 'c'), ['cc', '-O2', '-o', 'client', 'client.c']);
    await bothSeats('c', './client {host} {port} {invite} c-client', dir);
  }, 60_000);

  it.skipIf(!plays('java', 'javac', 'java'))('a Java 17 client (DatagramSocket, the JVM in the box) invites at seat 0 and accepts at seat 1', async () => {
    const dir = await boxed.entrant(path.join(DIR, 'java'), ['javac', 'Client.java']);
    await bothSeats('java', 'java -cp . Client {host} {port} {invite} java-client', dir);
  }, 60_000);

  it.skipIf(!plays('python', 'python3', 'java'))('a Python 3 client (socket, json) invites at seat 0 and accepts at seat 1', async () => {
    const dir = await boxed.entrant(path.join(DIR, 'python'));
    await bothSeats('python', 'python3 client.py {host} {port} {invite} py-client', dir);
  }, 60_000);
});
