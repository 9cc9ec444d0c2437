/**
 * Hints about a tournament's settings that stop nothing (issue #33, item 8), made in one place for
 * the CLI's `warning:` lines (file.ts), the dashboard's API (web/tournaments.ts) and its form
 * (web/src/components/NewTournament.tsx, which shows them as the fields are filled in). Pure and
 * without imports: the browser app imports this file too.
 */

/** Rounds of Mäxchen each Mia table plays when a file names no `gamesPerTable`. */
export const DEFAULT_GAMES_PER_TABLE = 20;

export interface TournamentHint {
  /** Which hint: the dashboard's text is `tournaments.hint.<code>` with `values`. */
  code: 'miaRounds';
  /** The key (form field) it is about. */
  key: 'rounds';
  values: { rounds: number; gamesPerTable: number };
  /** In English, as `tournament run` prints it after `warning: rounds: `. */
  message: string;
}

/**
 * Mia: `rounds` are tournament rounds (each a round of tables), the rounds of Mäxchen a table
 * plays are `gamesPerTable`; settings with `rounds` and no `gamesPerTable` may mean the latter
 * (docs/mia.md once called them `rounds`), so they get a hint. Writing both silences it.
 */
export function tournamentHints(settings: { game?: unknown; rounds?: unknown; gamesPerTable?: unknown }): TournamentHint[] {
  const { game, rounds, gamesPerTable } = settings;
  if (game !== 'mia' || typeof rounds !== 'number' || gamesPerTable !== undefined) return [];
  return [
    {
      code: 'miaRounds',
      key: 'rounds',
      values: { rounds, gamesPerTable: DEFAULT_GAMES_PER_TABLE },
      message: `rounds: ${rounds} means ${rounds} tournament rounds (each a round of tables); the rounds of Mäxchen each table plays are gamesPerTable (default ${DEFAULT_GAMES_PER_TABLE}). If you meant those, write gamesPerTable: ${rounds} instead; writing both keys silences this hint`,
    },
  ];
}
