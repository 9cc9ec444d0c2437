import {
  bradleyTerry,
  elo,
  multiplayerRatings,
  type BradleyTerryOptions,
  type PairGame,
  type PlacingGame,
} from './ratings.js';

/**
 * Standings from finished matches, and their CSV/JSON exports. Everything is recomputed from the
 * list of results, so standings never drift from the records they come from.
 */

export type SeatOutcome = 'win' | 'draw' | 'loss';

export interface SeatResult {
  name: string;
  /** 2-player games: the outcome for this seat. */
  outcome?: SeatOutcome;
  /** Multiplayer games: 1 for the winner; equal placings tie. */
  placing?: number;
  /** The game's own points (victory points, match points, chips), 0 if it has none. */
  points: number;
  crashed?: boolean;
  timedOut?: boolean;
}

export interface MatchResult {
  id: string;
  round?: number;
  seed?: number;
  seats: SeatResult[];
  /** Why it ended, in the game's words (e.g. "checkmate", "timeout: anna"). */
  reason?: string;
  /** Where its replay/wire log is, for the export. */
  replay?: string;
}

export interface WinDrawLoss {
  wins: number;
  draws: number;
  losses: number;
}

export interface StandingsRow extends WinDrawLoss {
  rank: number;
  name: string;
  rating: number;
  low: number;
  high: number;
  /** Sequential Elo, for 2-player games only. */
  elo?: number;
  games: number;
  /** placings[k] = how often this entrant finished (k+1)th. */
  placings: number[];
  points: number;
  crashes: number;
  timeouts: number;
}

export interface Standings {
  /** How the rating column was computed. */
  method: 'bradley-terry' | 'openskill';
  rows: StandingsRow[];
  /** headToHead[a][b]: a's games against b, counted from a's side (placed ahead = win). */
  headToHead: Record<string, Record<string, WinDrawLoss>>;
}

export interface StandingsOptions {
  /** Every entrant, so those without a finished game still get a row. */
  entrants?: readonly string[];
  bradleyTerry?: BradleyTerryOptions;
  eloK?: number;
}

/** The placing a seat finished in: given, or derived from a 2-player outcome. */
export function placingOf(seat: SeatResult): number | undefined {
  if (seat.placing !== undefined) return seat.placing;
  switch (seat.outcome) {
    case 'win':
    case 'draw':
      return 1;
    case 'loss':
      return 2;
    case undefined:
      return undefined;
  }
}

const SCORE: Record<SeatOutcome, number> = { win: 1, draw: 0.5, loss: 0 };

export function computeStandings(results: readonly MatchResult[], options: StandingsOptions = {}): Standings {
  const played = results.filter((m) => m.seats.length >= 2);
  const multiplayer = played.some((m) => m.seats.length > 2);
  const seen = new Set(options.entrants ?? []);
  for (const m of results) for (const seat of m.seats) seen.add(seat.name);
  const names = [...seen];
  const rows = new Map<string, StandingsRow>(
    names.map((name) => [
      name,
      {
        rank: 0,
        name,
        rating: 0,
        low: 0,
        high: 0,
        games: 0,
        wins: 0,
        draws: 0,
        losses: 0,
        placings: [],
        points: 0,
        crashes: 0,
        timeouts: 0,
      },
    ]),
  );
  const h2h: Record<string, Record<string, WinDrawLoss>> = {};
  for (const a of names) {
    h2h[a] = {};
    for (const b of names) if (a !== b) h2h[a][b] = { wins: 0, draws: 0, losses: 0 };
  }
  const pairGames: PairGame[] = [];
  const placingGames: PlacingGame[] = [];
  for (const m of results) {
    for (const seat of m.seats) {
      const row = rows.get(seat.name) as StandingsRow;
      row.points += seat.points;
      if (seat.crashed === true) row.crashes++;
      if (seat.timedOut === true) row.timeouts++;
    }
    if (m.seats.length < 2) continue; // a bye: points only
    if (m.seats.length === 2 && m.seats.every((seat) => seat.outcome === 'loss')) {
      // Both forfeited (neither connected, say): a loss for each, and nothing about who is stronger.
      const [a, b] = m.seats as [SeatResult, SeatResult];
      for (const [me, them] of [
        [a, b],
        [b, a],
      ] as const) {
        const row = rows.get(me.name) as StandingsRow;
        row.games++;
        row.losses++;
        row.placings[1] = (row.placings[1] ?? 0) + 1;
        if (me.name !== them.name)
          ((h2h[me.name] as Record<string, WinDrawLoss>)[them.name] as WinDrawLoss).losses++;
      }
      continue;
    }
    const places = m.seats.map(placingOf);
    const best = Math.min(...places.map((p) => p ?? Number.POSITIVE_INFINITY));
    const sharedFirst = places.filter((p) => p === best).length > 1;
    m.seats.forEach((seat, i) => {
      const row = rows.get(seat.name) as StandingsRow;
      row.games++;
      const place = places[i];
      if (place !== undefined) row.placings[place - 1] = (row.placings[place - 1] ?? 0) + 1;
      if (place === undefined) return;
      if (place === best && !sharedFirst) row.wins++;
      else if (place === best) row.draws++;
      else row.losses++;
      m.seats.forEach((other, j) => {
        const theirs = places[j];
        if (j === i || theirs === undefined || other.name === seat.name) return;
        const cell = (h2h[seat.name] as Record<string, WinDrawLoss>)[other.name] as WinDrawLoss;
        if (place < theirs) cell.wins++;
        else if (place === theirs) cell.draws++;
        else cell.losses++;
      });
    });
    const [a, b] = m.seats;
    if (m.seats.length === 2 && a && b && a.outcome !== undefined)
      pairGames.push({ a: a.name, b: b.name, score: SCORE[a.outcome] });
    if (places.every((p) => p !== undefined))
      placingGames.push({ placings: m.seats.map((s, i) => ({ name: s.name, place: places[i] as number })) });
  }
  let maxPlace = 2;
  if (multiplayer) {
    maxPlace = 0;
    for (const m of played) maxPlace = Math.max(maxPlace, m.seats.length);
  }
  for (const row of rows.values()) {
    row.placings = Array.from(
      { length: Math.max(maxPlace, row.placings.length) },
      (_, k) => row.placings[k] ?? 0,
    );
  }
  let method: Standings['method'];
  if (multiplayer) {
    method = 'openskill';
    for (const r of multiplayerRatings(placingGames))
      Object.assign(rows.get(r.name) as StandingsRow, { rating: r.mu, low: r.low, high: r.high });
    for (const row of rows.values())
      if (row.games === 0)
        Object.assign(row, { rating: 25, low: 25 - 1.959964 * (25 / 3), high: 25 + 1.959964 * (25 / 3) });
  } else {
    method = 'bradley-terry';
    const base = 1500;
    for (const r of bradleyTerry(pairGames, { base, ...options.bradleyTerry }))
      Object.assign(rows.get(r.name) as StandingsRow, { rating: r.rating, low: r.low, high: r.high });
    for (const row of rows.values())
      if (row.games === 0)
        Object.assign(row, { rating: base, low: Number.NEGATIVE_INFINITY, high: Number.POSITIVE_INFINITY });
    const elos = elo(pairGames, options.eloK === undefined ? {} : { k: options.eloK });
    for (const row of rows.values()) row.elo = elos.get(row.name) ?? 1500;
  }
  const sorted = [...rows.values()].sort(
    (x, y) => y.rating - x.rating || y.points - x.points || (x.name < y.name ? -1 : 1),
  );
  sorted.forEach((row, i) => {
    const prev = sorted[i - 1];
    row.rank = prev && prev.rating === row.rating && prev.points === row.points ? prev.rank : i + 1;
  });
  return { method, rows: sorted, headToHead: h2h };
}

/**
 * One CSV field per RFC 4180: quoted when it holds a comma, quote, CR or LF; quotes doubled. A
 * semicolon is quoted too: German spreadsheets split on it when they open a CSV.
 */
export function csvField(value: string | number | boolean | null | undefined): string {
  const text =
    value === undefined || value === null ? '' : typeof value === 'number' && !Number.isFinite(value) ? '' : String(value);
  return /[",;\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function csv(lines: readonly (readonly (string | number | boolean | undefined)[])[]): string {
  return lines.map((line) => line.map(csvField).join(',')).join('\r\n') + '\r\n';
}

function round2(x: number): number | undefined {
  return Number.isFinite(x) ? Math.round(x * 100) / 100 : undefined;
}

export function standingsCsv(standings: Standings): string {
  const places = Math.max(0, ...standings.rows.map((r) => r.placings.length));
  const multi = standings.method === 'openskill';
  const header = [
    'rank',
    'name',
    'rating',
    'low',
    'high',
    ...(multi ? [] : ['elo']),
    'games',
    'wins',
    'draws',
    'losses',
  ];
  if (multi) for (let k = 1; k <= places; k++) header.push(`place${k}`);
  header.push('points', 'crashes', 'timeouts');
  const lines = standings.rows.map((r) => [
    r.rank,
    r.name,
    round2(r.rating),
    round2(r.low),
    round2(r.high),
    ...(multi ? [] : [round2(r.elo ?? Number.NaN)]),
    r.games,
    r.wins,
    r.draws,
    r.losses,
    ...(multi ? Array.from({ length: places }, (_, k) => r.placings[k] ?? 0) : []),
    r.points,
    r.crashes,
    r.timeouts,
  ]);
  return csv([header, ...lines]);
}

/** Every match, one line each, seats as seat1_name, seat1_outcome, … up to the largest table. */
export function matchesCsv(results: readonly MatchResult[]): string {
  const seats = Math.max(0, ...results.map((m) => m.seats.length));
  const header: string[] = ['id', 'round', 'seed', 'reason', 'replay'];
  for (let s = 1; s <= seats; s++)
    header.push(
      ...['name', 'outcome', 'placing', 'points', 'crashed', 'timedOut'].map((f) => `seat${s}_${f}`),
    );
  const lines = results.map((m) => {
    const line: (string | number | boolean | undefined)[] = [m.id, m.round, m.seed, m.reason, m.replay];
    for (let s = 0; s < seats; s++) {
      const seat = m.seats[s];
      line.push(
        seat?.name,
        seat?.outcome,
        seat?.placing,
        seat?.points,
        seat ? seat.crashed === true : undefined,
        seat ? seat.timedOut === true : undefined,
      );
    }
    return line;
  });
  return csv([header, ...lines]);
}

/** JSON export; infinite interval ends (an entrant without games) become null. */
export function standingsJson(standings: Standings, results?: readonly MatchResult[]): string {
  return JSON.stringify(
    { ...standings, ...(results ? { matches: results } : {}) },
    (_key, value: unknown) => (typeof value === 'number' && !Number.isFinite(value) ? null : value),
    2,
  );
}
