import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  computeStandings,
  csvField,
  matchesCsv,
  standingsCsv,
  standingsJson,
  type MatchResult,
  type SeatOutcome,
} from '../../src/tournament/standings.js';

function duel(
  id: string,
  a: string,
  b: string,
  outcome: SeatOutcome,
  extra: Partial<MatchResult> = {},
): MatchResult {
  const other: Record<SeatOutcome, SeatOutcome> = { win: 'loss', draw: 'draw', loss: 'win' };
  return {
    id,
    seats: [
      { name: a, outcome, points: outcome === 'win' ? 1 : outcome === 'draw' ? 0.5 : 0 },
      { name: b, outcome: other[outcome], points: outcome === 'loss' ? 1 : outcome === 'draw' ? 0.5 : 0 },
    ],
    ...extra,
  };
}

/** Parses RFC 4180 CSV (for checking the exporter from the other side). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  return rows;
}

describe('2-player standings', () => {
  const results: MatchResult[] = [
    duel('1-0', 'ada', 'bob', 'win'),
    duel('1-1', 'bob', 'ada', 'loss'),
    duel('2-0', 'ada', 'cy', 'draw'),
    duel('2-1', 'cy', 'ada', 'win'),
    duel('3-0', 'bob', 'cy', 'win'),
    {
      id: '3-1',
      seats: [
        { name: 'cy', outcome: 'win', points: 1 },
        { name: 'bob', outcome: 'loss', points: 0, crashed: true },
      ],
      reason: 'bob crashed',
    },
    {
      id: '4-0',
      seats: [
        { name: 'bob', outcome: 'loss', points: 0, timedOut: true },
        { name: 'ada', outcome: 'win', points: 1 },
      ],
      reason: 'timeout',
    },
  ];

  it('counts W/D/L, points, crashes, timeouts and the head-to-head matrix', () => {
    const s = computeStandings(results, { entrants: ['ada', 'bob', 'cy', 'dee'] });
    expect(s.method).toBe('bradley-terry');
    const ada = s.rows.find((r) => r.name === 'ada')!;
    expect(ada).toMatchObject({
      games: 5,
      wins: 3,
      draws: 1,
      losses: 1,
      points: 3.5,
      crashes: 0,
      timeouts: 0,
      placings: [4, 1],
    });
    const bob = s.rows.find((r) => r.name === 'bob')!;
    expect(bob).toMatchObject({ games: 5, wins: 1, draws: 0, losses: 4, crashes: 1, timeouts: 1 });
    expect(s.headToHead['ada']?.['bob']).toEqual({ wins: 3, draws: 0, losses: 0 });
    expect(s.headToHead['bob']?.['ada']).toEqual({ wins: 0, draws: 0, losses: 3 });
    expect(s.headToHead['ada']?.['cy']).toEqual({ wins: 0, draws: 1, losses: 1 });
    const dee = s.rows.find((r) => r.name === 'dee')!;
    expect(dee.games).toBe(0);
    expect(dee.high).toBe(Number.POSITIVE_INFINITY);
  });

  it('ranks by the Bradley–Terry rating with intervals around it', () => {
    const s = computeStandings(results);
    expect(s.rows.map((r) => r.name)).toEqual(['ada', 'cy', 'bob']);
    expect(s.rows.map((r) => r.rank)).toEqual([1, 2, 3]);
    for (const r of s.rows) {
      expect(r.low).toBeLessThan(r.rating);
      expect(r.high).toBeGreaterThan(r.rating);
      expect(r.elo).toBeDefined();
    }
  });

  it('gives equal entrants the same rank', () => {
    const s = computeStandings([duel('1-0', 'x', 'y', 'win'), duel('1-1', 'y', 'x', 'win')]);
    expect(s.rows.map((r) => r.rank)).toEqual([1, 1]);
  });

  it('keeps a bye out of the games but counts its points', () => {
    const s = computeStandings([...results, { id: '5-0', seats: [{ name: 'cy', points: 2 }] }]);
    const cy = s.rows.find((r) => r.name === 'cy')!;
    expect(cy.games).toBe(4);
    expect(cy.points).toBe(4.5);
  });

  it('conserves games: wins + draws + losses = games, and the matrix is antisymmetric', () => {
    const names = ['a', 'b', 'c', 'd'];
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 3 }),
            fc.integer({ min: 1, max: 3 }),
            fc.constantFrom<SeatOutcome>('win', 'draw', 'loss'),
          ),
        ),
        (games) => {
          const list = games.map(([i, d, o], k) => duel(`${k}`, names[i]!, names[(i + d) % 4]!, o));
          const s = computeStandings(list, { entrants: names });
          expect(s.rows.reduce((t, r) => t + r.games, 0)).toBe(2 * list.length);
          for (const r of s.rows) expect(r.wins + r.draws + r.losses).toBe(r.games);
          for (const a of names)
            for (const b of names) {
              if (a === b) continue;
              const ab = s.headToHead[a]![b]!;
              const ba = s.headToHead[b]![a]!;
              expect([ab.wins, ab.draws, ab.losses]).toEqual([ba.losses, ba.draws, ba.wins]);
            }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('multiplayer standings', () => {
  it('uses openskill and counts placings', () => {
    const table = (id: string, order: string[]): MatchResult => ({
      id,
      seats: order.map((name, i) => ({ name, placing: i + 1, points: 10 - 2 * i })),
    });
    const s = computeStandings([
      table('1-0', ['p', 'q', 'r']),
      table('1-1', ['q', 'r', 'p']),
      table('1-2', ['p', 'r', 'q']),
      table('2-0', ['p', 'q', 'r']),
    ]);
    expect(s.method).toBe('openskill');
    const p = s.rows[0]!;
    expect(p.name).toBe('p');
    expect(p.placings).toEqual([3, 0, 1]);
    expect(p).toMatchObject({ wins: 3, draws: 0, losses: 1, points: 36 });
    expect(p.elo).toBeUndefined();
    expect(s.headToHead['p']?.['q']).toEqual({ wins: 3, draws: 0, losses: 1 });
  });
});

describe('exports', () => {
  it('quotes CSV fields per RFC 4180', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('Müller; Ben')).toBe('"Müller; Ben"');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(undefined)).toBe('');
    expect(csvField(Number.POSITIVE_INFINITY)).toBe('');
  });

  it('writes standings and matches CSV that parse back to the same values', () => {
    const results: MatchResult[] = [
      duel('1-0', 'ada, the first', 'bob "b"', 'win', {
        reason: 'checkmate\nin 3',
        replay: '/matches/17',
        round: 1,
        seed: 99,
      }),
      duel('1-1', 'bob "b"', 'ada, the first', 'draw', { round: 1, seed: 99 }),
    ];
    const s = computeStandings(results);
    const rows = parseCsv(standingsCsv(s));
    expect(rows[0]).toEqual([
      'rank',
      'name',
      'rating',
      'low',
      'high',
      'elo',
      'games',
      'wins',
      'draws',
      'losses',
      'points',
      'crashes',
      'timeouts',
    ]);
    expect(rows[1]?.slice(0, 2)).toEqual(['1', 'ada, the first']);
    expect(rows[2]?.[1]).toBe('bob "b"');
    expect(rows[1]?.slice(6)).toEqual(['2', '1', '1', '0', '1.5', '0', '0']);
    const m = parseCsv(matchesCsv(results));
    expect(m[0]?.slice(0, 7)).toEqual([
      'id',
      'round',
      'seed',
      'reason',
      'replay',
      'seat1_name',
      'seat1_outcome',
    ]);
    expect(m[1]).toEqual([
      '1-0',
      '1',
      '99',
      'checkmate\nin 3',
      '/matches/17',
      'ada, the first',
      'win',
      '',
      '1',
      'false',
      'false',
      'bob "b"',
      'loss',
      '',
      '0',
      'false',
      'false',
    ]);
    expect(m).toHaveLength(3);
  });

  it('writes JSON with null for an open interval', () => {
    const s = computeStandings([duel('1-0', 'a', 'b', 'win')], { entrants: ['a', 'b', 'c'] });
    const json = JSON.parse(standingsJson(s, [duel('1-0', 'a', 'b', 'win')])) as {
      rows: { name: string; high: number | null }[];
      matches: unknown[];
    };
    expect(json.rows.find((r) => r.name === 'c')?.high).toBeNull();
    expect(json.matches).toHaveLength(1);
  });
});

describe('a double forfeit', () => {
  it('is a loss for both, and tells the ratings nothing', () => {
    const games = [
      duel('1', 'a', 'b', 'win'),
      duel('2', 'b', 'a', 'loss'),
      duel('3', 'a', 'c', 'win'),
      duel('4', 'b', 'c', 'draw'),
    ];
    const forfeit: MatchResult = {
      id: '5',
      seats: [
        { name: 'b', outcome: 'loss', points: 0, crashed: true },
        { name: 'c', outcome: 'loss', points: 0, crashed: true },
      ],
    };
    const without = computeStandings(games);
    const withIt = computeStandings([...games, forfeit]);
    const row = (s: typeof without, name: string) => s.rows.find((r) => r.name === name)!;
    for (const name of ['b', 'c']) {
      expect(row(withIt, name).losses).toBe(row(without, name).losses + 1);
      expect(row(withIt, name).draws).toBe(row(without, name).draws);
      expect(row(withIt, name).crashes).toBe(1);
      expect(row(withIt, name).rating).toBeCloseTo(row(without, name).rating, 9);
      expect(row(withIt, name).elo).toBeCloseTo(row(without, name).elo!, 9);
    }
    expect(withIt.headToHead.b!.c).toEqual({ wins: 0, draws: 1, losses: 1 });
    expect(withIt.headToHead.c!.b).toEqual({ wins: 0, draws: 1, losses: 1 });
  });
});
