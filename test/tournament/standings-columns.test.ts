import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { RecordStore } from '../../src/core/records.js';
import { createTournament, runTournament, tournamentStandings } from '../../src/tournament/coordinator.js';
import type { Entrant, GameName, TournamentSpec } from '../../src/tournament/file.js';
import { formatStandings } from '../../src/tournament/report.js';
import { standingsCsv, type Standings } from '../../src/tournament/standings.js';

/**
 * Issue 33 item 3: every standings column that is shown means something in its game. A tiny
 * tournament of our bots per game is played for real (no fakes: the points come from the game's
 * own arena), and the columns that must vary between a winner and a loser do vary — in the CLI's
 * table, the CSV for grading and the JSON rows. docs/tournaments.md "Standings columns".
 */

const work = mkdtempSync(join(tmpdir(), 'spielhalle-columns-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const bot = (name: string, botName: string, options: Record<string, unknown> = {}): Entrant => ({ name, kind: 'bot', bot: botName, options });

async function play(game: GameName, over: Partial<TournamentSpec>): Promise<Standings> {
  const store = new RecordStore(':memory:');
  try {
    const spec: TournamentSpec = {
      name: `columns-${game}`,
      game,
      format: 'round-robin',
      entrants: [],
      gamesPerPairing: 2,
      rounds: 1,
      tableSize: 2,
      gamesPerTable: 20,
      moveTime: 0.2,
      seed: 33,
      parallel: 2,
      ...over,
    };
    const id = await createTournament(store, spec, null, Date.UTC(2026, 10, 29));
    expect(await runTournament(store, id, { log: silentLogger, workDir: work })).toBe('finished');
    return await tournamentStandings(store, id);
  } finally {
    store.close();
  }
}

/** The CSV as columns by header name. */
function csvColumns(s: Standings): Map<string, string[]> {
  const [header, ...lines] = standingsCsv(s).trimEnd().split('\r\n').map((l) => l.split(','));
  return new Map((header ?? []).map((h, i) => [h, lines.map((l) => l[i] ?? '')]));
}

/** The columns that must not be the same for everyone once someone won and someone lost. */
function expectVaries(s: Standings, columns: readonly string[]): void {
  const csv = csvColumns(s);
  for (const c of columns) {
    const values = csv.get(c);
    expect(values, `CSV column ${c}`).toBeDefined();
    expect(new Set(values).size, `CSV column ${c}: ${values?.join(' ')}`).toBeGreaterThan(1);
  }
  // The JSON export has the same rows: the points differ there too, and are not all zero.
  const points = s.rows.map((r) => r.points);
  expect(new Set(points).size, `points ${points.join(' ')}`).toBeGreaterThan(1);
  expect(points.some((p) => p !== 0)).toBe(true);
  // The CLI's table shows the same points.
  const table = formatStandings(s);
  for (const r of s.rows) expect(table).toMatch(new RegExp(`\\b${r.name}\\b.*\\s${Math.round(r.points * 100) / 100}\\s+${r.crashes}\\s+${r.timeouts}$`, 'm'));
}

describe('standings columns mean something in every game', () => {
  it('dame: points are the game points 1, ½, 0 (a win scores 1)', async () => {
    const s = await play('dame', { entrants: [bot('strong', 'depth2'), bot('weak', 'random')] });
    expectVaries(s, ['rating', 'wins', 'losses', 'points']);
    for (const r of s.rows) expect(r.points).toBe(r.wins + r.draws / 2);
  }, 60_000);

  it('connect4: points are the game points 1, ½, 0', async () => {
    const s = await play('connect4', { entrants: [bot('perfect', 'perfect'), bot('easy', 'easy')] });
    expectVaries(s, ['rating', 'points']);
    for (const r of s.rows) expect(r.points).toBe(r.wins + r.draws / 2);
  }, 60_000);

  it('ostseeschach: points are the Software-Challenge game points 2, 1, 0', async () => {
    const s = await play('ostseeschach', { entrants: [bot('deep', 'depth2'), bot('rand', 'random')], moveTime: 0.3 });
    expectVaries(s, ['rating', 'points']);
    for (const r of s.rows) expect(r.points).toBe(2 * r.wins + r.draws);
  }, 60_000);

  it('mia: points are the table score; placings columns vary', async () => {
    const s = await play('mia', {
      format: 'tables',
      entrants: [bot('adaptive', 'adaptive'), bot('random', 'random'), bot('honest', 'honest')],
      tableSize: 3,
      rounds: 2,
      gamesPerTable: 8,
      moveTime: 0.1,
    });
    expect(s.method).toBe('openskill');
    expectVaries(s, ['rating', 'points']);
  }, 60_000);

  it('catan: points are victory points', async () => {
    const s = await play('catan', {
      format: 'seatings',
      entrants: [bot('builder', 'builder'), bot('weighted', 'weighted'), bot('random', 'random')],
      tableSize: 3,
      rounds: 1,
      moveTime: 0.2,
    });
    expectVaries(s, ['points']);
    // Every seat of a finished Catan game holds at least its two start settlements.
    for (const r of s.rows) expect(r.points).toBeGreaterThanOrEqual(2 * r.games);
  }, 120_000);
});
