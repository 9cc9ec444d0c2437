import type { RecordStore } from '../../src/core/records.js';
import { createTournament } from '../../src/tournament/coordinator.js';
import type { TournamentSpec } from '../../src/tournament/file.js';

/**
 * A finished Dame round robin of two of our bots, as a tutor sees it on the Tournaments page:
 * standings, matches with recorded reasons ("no-moves: random-1 loses") and the export links.
 * For the browser tests that walk every page (languages, phone width).
 */
export async function seedTournament(store: RecordStore, at: number): Promise<{ id: string; entrant: string }> {
  const spec: TournamentSpec = {
    name: 'Übungsturnier',
    game: 'dame',
    format: 'round-robin',
    entrants: [
      { name: 'random-1', bot: 'random', options: {} },
      { name: 'greedy-1', bot: 'greedy', options: {} },
    ],
    gamesPerPairing: 2,
    rounds: 1,
    tableSize: 2,
    gamesPerTable: 20,
    moveTime: 1,
    seed: 7,
    parallel: 1,
  } as TournamentSpec;
  const id = await createTournament(store, spec, null, at);
  const matches = store.listTournamentMatches(id);
  const reasons = ['no-moves: random-1 loses', 'timeout: greedy-1 loses'];
  matches.forEach((m, i) => {
    const loser = i % 2 === 0 ? 'random-1' : 'greedy-1';
    store.startTournamentMatch(id, m.id, at + 1000 * i, 'local');
    store.finishTournamentMatch(id, m.id, {
      at: at + 1000 * i + 500,
      result: {
        seats: m.seats.map((name) => ({ name, points: 0, outcome: name === loser ? 'loss' : 'win' })),
        reason: reasons[i % reasons.length],
      },
      records: [],
      output: [],
    });
  });
  store.setTournamentStatus(id, 'finished', at + 10_000);
  return { id, entrant: 'random-1' };
}
