/**
 * What retention may take (issue 37). Every match record has a class, set when it starts:
 * - `tournament`: a game of a tournament match (`meta.tournamentMatch`, `<tournament>/<match>`),
 *   superseded attempts included. No automatic retention touches it (age, size, wire logs) until
 *   the tournament is archived or deleted on purpose; `prune` only with `--include-tournaments`.
 * - `archived`: a tournament game whose tournament was archived (`tournament archive`): its file
 *   holds it now, so it is pruned like a played game.
 * - `ladder`: a game of the ladder (`meta.ladder`); pruned like a played game, last under the cap.
 * - `played`: a game someone played (a client from outside, the browser) and everything not known
 *   to be a house game.
 * - `house`: a game the serving process plays on its own, between its house bots only. It goes
 *   first (records.houseKeepDays, and first under the size cap).
 * A pruned record leaves a note behind, so that a link to it says when and why it went: one row
 * per record, except house games (thousands an hour: Mia plays a round every few hundred ms),
 * which leave one mark per game, the newest start pruned.
 */

import type { KeepClass, PruneReason, PrunedNote } from './record-types.js';

export type { KeepClass, PruneReason, PrunedNote };

/** The class and, for a tournament's game, the tournament a new record belongs to. */
export function keepOf(input: { house?: boolean | undefined; meta?: unknown }): { keep: KeepClass; tournamentId: string | null } {
  const meta = input.meta;
  if (meta !== null && typeof meta === 'object') {
    const tm = (meta as { tournamentMatch?: unknown }).tournamentMatch;
    if (typeof tm === 'string' && tm.includes('/')) return { keep: 'tournament', tournamentId: tm.slice(0, tm.indexOf('/')) };
    const ladder = (meta as { ladder?: unknown }).ladder;
    if (ladder !== null && typeof ladder === 'object') return { keep: 'ladder', tournamentId: null };
  }
  return { keep: input.house === true ? 'house' : 'played', tournamentId: null };
}

/** The classes a size cap deletes, in order (tournament games only when asked). */
export const CAP_ORDER = [['house'], ['played', 'archived'], ['ladder'], ['tournament']] as const;

/** The `keep` condition of what a prune may take: tournament games only when asked. */
export const prunable = (o: { includeTournaments?: boolean | undefined }): string => (o.includeTournaments === true ? '' : " AND keep <> 'tournament'");

/** The start time and game in a record id `<game>-<start in base 36>-<8 hex>` (newMatchId), or null. */
export function idStart(id: string): { game: string; startedAt: number } | null {
  const m = /^([a-z0-9]+)-([0-9a-z]{1,12})-[0-9a-f]{8}$/.exec(id);
  if (!m) return null;
  const startedAt = parseInt(m[2]!, 36);
  return Number.isSafeInteger(startedAt) ? { game: m[1]!, startedAt } : null;
}

/** One line for a pruned record: `pruned on 2026-11-29 14:02 UTC by retention (house games are kept …)`. */
export function describePruned(n: PrunedNote): string {
  const when = new Date(n.prunedAt).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
  const by = n.reason === 'retention' ? 'by retention' : n.reason === 'prune' ? 'by `spielhalle prune`' : `when tournament ${n.tournamentId ?? ''} was deleted`;
  return n.exact ? `pruned on ${when} ${by}` : `not in the store: house games of that age were pruned on ${when} ${by}`;
}

/**
 * The schema of issue 37, SQLite and PostgreSQL alike except for reading JSON in the backfill:
 * the class of every record (old records: tournament and ladder games by their meta, the rest
 * `played`, kept the longer), the notes on pruned records, and the archive mark of a tournament.
 */
export function keepMigration(dialect: 'sqlite' | 'postgres'): string {
  const tm = dialect === 'sqlite' ? "json_extract(meta, '$.tournamentMatch')" : "(meta::jsonb ->> 'tournamentMatch')";
  const ladder = dialect === 'sqlite' ? "json_type(meta, '$.ladder') = 'object'" : "jsonb_typeof(meta::jsonb -> 'ladder') = 'object'";
  const head = dialect === 'sqlite' ? `substr(${tm}, 1, instr(${tm}, '/') - 1)` : `split_part(${tm}, '/', 1)`;
  const valid = dialect === 'sqlite' ? 'json_valid(meta)' : "meta LIKE '{%'";
  return `ALTER TABLE matches ADD COLUMN keep TEXT NOT NULL DEFAULT 'played';
   ALTER TABLE matches ADD COLUMN tournament_id TEXT;
   UPDATE matches SET keep = 'tournament', tournament_id = ${head}
     WHERE meta LIKE '%"tournamentMatch":"%/%' AND ${valid} AND ${tm} LIKE '%/%';
   UPDATE matches SET keep = 'ladder' WHERE keep = 'played' AND meta LIKE '%"ladder":{%' AND ${valid} AND ${ladder};
   CREATE INDEX matches_keep_started ON matches (keep, started_at);
   CREATE INDEX matches_tournament ON matches (tournament_id) WHERE tournament_id IS NOT NULL;
   CREATE TABLE pruned (
     id TEXT PRIMARY KEY,
     game TEXT NOT NULL,
     keep TEXT NOT NULL,
     tournament_id TEXT,
     started_at BIGINT NOT NULL,
     pruned_at BIGINT NOT NULL,
     reason TEXT NOT NULL
   )${dialect === 'sqlite' ? ' WITHOUT ROWID' : ''};
   CREATE TABLE pruned_house (
     game TEXT PRIMARY KEY,
     started_before BIGINT NOT NULL,
     pruned_at BIGINT NOT NULL,
     reason TEXT NOT NULL
   );
   ALTER TABLE tournaments ADD COLUMN archived_at BIGINT;`;
}

/** The note on a pruned record from the store's rows: its own, else a house mark covering its start. */
export function prunedNoteOf(
  id: string,
  own: { pruned_at: number; reason: string; keep: string; tournament_id: string | null } | undefined,
  mark: { started_before: number; pruned_at: number; reason: string } | undefined,
): PrunedNote | null {
  if (own) return { id, prunedAt: own.pruned_at, reason: own.reason as PruneReason, exact: true, keep: own.keep as KeepClass, tournamentId: own.tournament_id };
  const start = idStart(id);
  if (mark && start && start.startedAt <= mark.started_before)
    return { id, prunedAt: mark.pruned_at, reason: mark.reason as PruneReason, exact: false, keep: 'house', tournamentId: null };
  return null;
}
