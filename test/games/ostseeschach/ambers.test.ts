import { describe, expect, it } from 'vitest';
import { scriptedScenario, type GameConformance } from '../../../src/core/conformance.js';
import type { ScenarioResult } from '../../../src/conformance/runner.js';
import { ostseeschachConformance } from '../../../src/games/ostseeschach/conformance/index.js';
import { RESERVATIONS, ROOM_ID, runOstseeschachSession } from '../../../src/games/ostseeschach/conformance/session.js';
import { fromPosition } from '../../../src/games/ostseeschach/setup.js';
import type { Team } from '../../../src/games/ostseeschach/board.js';
import { explain, runPool } from '../../support/conformance.js';

/**
 * Issue 32: the `ambers` scenario starts at turn 0 (as every official game does). A client that
 * rebuilds its board from the turn-0 memento and plays each <lastMove> under the full rules — the
 * way of the public Software-Challenge 2022 bots — passes it, and failed the scenario's former
 * set-up start at turn 21; a client that keeps its own board without the amber rule still fails.
 * Needs dist/ (the fixture clients take the rules from there).
 */

const CLIENT = ['node', 'test/fixtures/conformance/ostseeschach/client.mjs', '{host}', '{port}', '{reservation}'];

/** The former `ambers` scenario: a set-up position at turn 21, the opponent's capture on ONE's start line first. */
function turn21(): GameConformance {
  const piece = (x: number, y: number, type: 'Herzmuschel' | 'Moewe' | 'Seestern' | 'Robbe', team: Team, count = 1) => ({ coordinates: { x, y }, piece: { type, team, count } });
  const start = () => {
    const s = fromPosition({
      turn: 21,
      pieces: [
        piece(0, 6, 'Robbe', 'ONE'),
        piece(1, 0, 'Herzmuschel', 'ONE'),
        piece(2, 2, 'Seestern', 'ONE'),
        piece(4, 2, 'Robbe', 'ONE', 2),
        piece(6, 3, 'Moewe', 'ONE'),
        piece(1, 5, 'Herzmuschel', 'TWO'),
        piece(7, 7, 'Robbe', 'TWO'),
        piece(7, 1, 'Moewe', 'TWO'),
        piece(5, 6, 'Seestern', 'TWO'),
        piece(6, 6, 'Herzmuschel', 'TWO'),
      ],
      ambers: { ONE: 0, TWO: 0 },
      lastMove: { from: { x: 3, y: 2 }, to: { x: 4, y: 2 } },
    });
    if (!s.ok) throw new Error(s.error.message);
    return s.value;
  };
  const scenario = scriptedScenario(
    { id: 'ambers-turn-21', title: 'the former set-up start', rule: 'r', section: 's', hint: 'h' },
    { reservation: RESERVATIONS.ONE, room: ROOM_ID },
    'an Ostseeschach game',
    () => runOstseeschachSession({ team: 'ONE', join: 'any', start, opening: ['15-06'], cut: { afterClientMoves: 4, at: 'ownMove', then: { kind: 'left', cause: 'LOST_CONNECTION' } } }),
  );
  return { ...ostseeschachConformance, scenarios: [scenario] };
}

const byId = (results: readonly ScenarioResult[], id: string): ScenarioResult => results.find((r) => r.id === id)!;
const mementoTurns = (r: ScenarioResult): number[] =>
  r.wire.filter((e) => e.dir === 'sent').flatMap((e) => [...e.text.matchAll(/<state class="state" turn="(\d+)"/g)].map((m) => Number(m[1])));

describe('check-client ostseeschach: ambers from turn 0', () => {
  it('a client that keeps its board from the turn-0 memento passes; one without the amber rule fails with the ghost square named', async () => {
    const only = ['ambers', 'full-game-two', 'paused-game', 'split-reads'];
    const [correct, fromTurn0, ignores] = await runPool(
      'ostseeschach',
      ostseeschachConformance,
      [
        { command: CLIENT, only: ['ambers'] },
        { command: [...CLIENT, 'board-from-turn-0'], only },
        { command: [...CLIENT, 'ignores-ambers'], only: ['ambers'] },
      ],
      6,
    );
    const [former] = await runPool('ostseeschach', turn21(), [{ command: [...CLIENT, 'board-from-turn-0'], only: null }], 1);

    expect(explain(correct!)).toBe('');
    expect(explain(fromTurn0!)).toBe('');
    expect(fromTurn0!).toHaveLength(only.length);

    // Official games start at turn 0, and this one shows every turn from there.
    const ambers = byId(fromTurn0!, 'ambers');
    const turns = mementoTurns(ambers);
    expect(turns[0]).toBe(0);
    turns.forEach((t, i) => expect(t).toBe(i));
    // The client scored at least once (otherwise the scenario could not see its board).
    expect(ambers.wire.some((e) => e.dir === 'note' && /^the client moves .* and scores an amber$/.test(e.text))).toBe(true);

    const bug = byId(ignores!, 'ambers');
    expect(bug.status).toBe('fail');
    expect(bug.message).toMatch(/^sent the illegal move Zug von \[\d\|\d\] zu \[\d\|\d\] \(Nur eigene Spielfiguren können gezogen werden\)/);
    expect(bug.judgement?.hint).toMatch(/^\[\d\|\d\] is empty: the piece that moved there scored an amber and left the board/);
    expect(mementoTurns(bug)[0]).toBe(0);

    // The false alarm of the issue: the former start at turn 21 failed this client.
    expect(former![0]!.status).toBe('fail');
    expect(former![0]!.stderr).toMatch(/cannot play the last move/);
  }, 30_000);
});
