import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TournamentMatchOutcome } from '../../src/core/tournament-match.js';
import { catanTournament } from '../../src/games/catan/tournament.js';
import { bot, BoxedMatches, CLIENTS, plays } from './boxed-match.js';

/**
 * Issue 30: course clients for Catan (protocol 0.3; a C client in the MNM style, a Java 17 and a
 * Python 3 client, test/fixtures/tournament/clients/catan/) are built as staff would build them,
 * run unchanged in their box, and each plays one whole game of the Catan arena at a table of three
 * with two of our 'weighted' bots (as box.test.ts's Catan game): setup placements, rolls, discards,
 * robber moves, builds, declined trade offers, to a win by the rules. Each client gives up (exit 2)
 * on any Fehler it did not expect, so an illegal action shows up here as a lost connection.
 *
 * The three games run at once (a game is mostly waiting on loopback round trips), and the clients
 * are built without blocking (javac takes seconds; a spawnSync would stall the other games' server
 * and bots meanwhile, which the per-decision timeout would punish).
 */

const DIR = path.join(CLIENTS, 'catan');
const matches = new BoxedMatches();

afterAll(() => matches.close());

/** A fresh entrant directory with the client's sources, built there by `build` (outside the box, as staff would). */
const entrant = (language: string, build?: readonly string[]): Promise<string> => matches.entrant(path.join(DIR, language), build);

/**
 * Plays one boxed match with `command` (built in `cwd`) in the middle seat between two weighted
 * bots, and checks that it ended with a regular winner, with a placing and points for every seat,
 * a record, and a client that played its part, never needed the server to act for it, and exited 0
 * by itself after reading `Spiel beendet`.
 */
async function playAtTable(command: string, cwd: string, seed: number): Promise<TournamentMatchOutcome> {
  const client = matches.seat('client', command, cwd);
  const box = matches.sandboxes.at(-1)!;
  const outcome = await matches.play(catanTournament, {
    id: `box-clients/catan/${seed}`,
    seed,
    moveTimeMs: 1000,
    connectTimeoutMs: 20_000,
    seats: [bot('anna', 'weighted'), client, bot('bert', 'weighted')],
  });
  const why = matches.explain(outcome);
  expect(outcome.aborted, why).toBeUndefined();
  expect(outcome.reason, why).toMatch(/^Spieler (anna|client|bert) hat das Spiel gewonnen\.$/);
  expect(outcome.records, why).toHaveLength(1);
  expect(outcome.seats.map((s) => s.name)).toEqual(['anna', 'client', 'bert']);
  for (const s of outcome.seats) {
    // No forfeit of any kind: nobody crashed, was put out, or had the server act for it (D10).
    expect(s.crashed ?? s.timedOut ?? s.note, why).toBeUndefined();
    expect(s.placing, why).toBeGreaterThanOrEqual(1);
    expect(s.points, why).toBeGreaterThanOrEqual(2); // the two setup settlements at least
  }
  const winners = outcome.seats.filter((s) => s.placing === 1);
  expect(winners, why).toHaveLength(1);
  expect(winners[0]!.points, why).toBeGreaterThanOrEqual(10);
  expect(outcome.reason).toBe(`Spieler ${winners[0]!.name} hat das Spiel gewonnen.`);
  // The program itself: it placed, rolled and ended turns, read the end, and exited 0 on its own.
  const [run] = box.outputs();
  expect(run, why).toBeDefined();
  expect(run!.exit, why).toEqual({ code: 0, signal: null });
  const sent = run!.stderr.split('\n').filter((l) => l.startsWith('> '));
  expect(sent.filter((l) => l.startsWith('> {"Bauen":{"Typ":"Dorf"')).length, why).toBeGreaterThanOrEqual(2);
  expect(sent.filter((l) => l.startsWith('> {"Bauen":{"Typ":"Strasse"')).length, why).toBeGreaterThanOrEqual(2);
  expect(sent, why).toContain('> {"Wuerfeln":{}}');
  expect(sent, why).toContain('> {"Zug beenden":{}}');
  expect(run!.stderr, why).not.toContain('Fehler');
  expect(run!.stdout, why).toContain(`game over: ${outcome.reason}\n`);
  return outcome;
}

describe.concurrent('course clients for Catan, unchanged, boxed at a table of three with our weighted bots', () => {
  it.skipIf(!plays('c', 'cc', 'c'))('a C client (MNM style, built with cc) plays a whole game to a winner', async () => {
    await playAtTable('./client {host} {port} {name}', await entrant('c', ['cc', '-O2', '-o', 'client', 'client.c']), 11);
  }, 60_000);

  it.skipIf(!plays('java', 'javac', 'c'))('a Java 17 client (javac, the JVM in the box) plays a whole game to a winner', async () => {
    await playAtTable('java -cp . Client {host} {port} {name}', await entrant('java', ['javac', 'Client.java']), 12);
  }, 60_000);

  it.skipIf(!plays('python', 'python3', 'c'))('a Python 3 client plays a whole game to a winner', async () => {
    await playAtTable('python3 client.py {host} {port} {name}', await entrant('python'), 13);
  }, 60_000);
});
