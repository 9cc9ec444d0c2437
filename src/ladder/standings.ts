import { interval95, isEstablished } from './ratings.js';
import type { StandingsRow } from './store.js';

/**
 * The standings as staff and students read them (the dashboard's table and CSV, `spielhalle
 * ladder standings`): place, rating rounded with its 95 % interval, established or provisional.
 */

export interface StandingsLine {
  place: number;
  name: string;
  group: string;
  rating: number;
  rd: number;
  low: number;
  high: number;
  games: number;
  established: boolean;
  wins: number;
  draws: number;
  losses: number;
  lastPlayedAt: number | null;
}

export function standingsLines(rows: readonly StandingsRow[], minGames: number): StandingsLine[] {
  return rows.map((r, i) => {
    const [low, high] = interval95(r.rating);
    return {
      place: i + 1,
      name: r.entry.name,
      group: r.entry.group,
      rating: Math.round(r.rating.rating),
      rd: Math.round(r.rating.rd),
      low: Math.round(low),
      high: Math.round(high),
      games: r.rating.games,
      established: isEstablished(r.rating, minGames),
      wins: r.wins,
      draws: r.draws,
      losses: r.losses,
      lastPlayedAt: r.lastPlayedAt,
    };
  });
}
