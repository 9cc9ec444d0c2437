import { existsSync, readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { ladderFile, type Settings } from '../config.js';
import { UsageError } from '../core/errors.js';
import { parseRosterCsv } from './roster.js';
import { standingsLines } from './standings.js';
import { csvField } from '../tournament/standings.js';
import { LadderStoreError, openSettingsLadderStore, type LadderStore } from './store.js';
import { LADDER_GAMES, type LadderGame, type RosterEntry } from './types.js';

/**
 * `spielhalle ladder …`: staff manage Die Liga on the server's machine, without the dashboard's
 * token: import a roster, list it with the codes to hand out, revoke or renew a code, the
 * standings (CSV for grading), seasons. It works on `<dataDir>/ladder.db` (or, with `database.url`,
 * on the ladder tables in PostgreSQL) beside a running `serve`,
 * which reads the roster again within seconds.
 */

async function withStore<T>(settings: Settings, create: boolean, fn: (store: LadderStore) => Promise<T>): Promise<T> {
  if (settings.database.url === '') {
    const file = ladderFile(settings);
    if (!create && !existsSync(file)) throw new UsageError(`no ladder store at ${file} (import a roster first, or wrong --data-dir?)`);
  }
  const store = await openSettingsLadderStore(settings);
  try {
    return await fn(store);
  } catch (err) {
    if (err instanceof LadderStoreError) throw new UsageError(err.message);
    throw err;
  } finally {
    await store.close();
  }
}

function gameOf(name: string): LadderGame {
  if (!(LADDER_GAMES as readonly string[]).includes(name)) throw new UsageError(`unknown game "${name}" (one of ${LADDER_GAMES.join(', ')})`);
  return name as LadderGame;
}

/** One entry for staff: what to hand out (codes, page) — tab-separated so it pastes into a sheet. */
const entryLine = (e: RosterEntry): string => [e.name, e.group, e.code, e.reservation, `/liga/${e.pageToken}`, e.revoked ? 'revoked' : ''].join('\t').trimEnd();
const ENTRY_HEAD = ['name', 'group', 'code', 'reservation', 'page'].join('\t');

async function findEntry(store: LadderStore, which: string): Promise<RosterEntry> {
  const byId = await store.getEntry(which);
  if (byId !== null) return byId;
  const matches = (await store.listEntries({ includeRevoked: true })).filter((e) => e.name === which && !e.revoked);
  if (matches.length === 0) throw new UsageError(`no roster entry named or with id "${which}"`);
  return matches[0]!;
}

export function registerLadderCommands(program: Command, settingsOf: (cmd: Command) => Settings): void {
  const ladder = program.command('ladder').description('Die Liga, the rated ladder: roster, codes, standings, seasons (docs/ladder.md)');
  ladder
    .command('import <csv>')
    .description('add the students of a CSV file (columns name and group, or Name and Gruppe; , or ;) and print their codes')
    .action(async (file: string, _opts: unknown, cmd: Command) => {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (err) {
        throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
      const parsed = parseRosterCsv(text);
      if (parsed.errors.length > 0) throw new UsageError(`${file} has errors, nothing imported:\n${parsed.errors.map((e) => `  ${file}:${e.line}: ${e.message}`).join('\n')}`);
      const added = await withStore(settingsOf(cmd), true, (store) => store.addEntries(parsed.rows, Date.now()));
      process.stdout.write(`${ENTRY_HEAD}\n${added.map(entryLine).join('\n')}\n`);
      process.stderr.write(`added ${added.length} entries; give each student their code (Dame: the Game-ID; Ostseeschach: the reservation) and their page\n`);
    });
  ladder
    .command('list')
    .description('the roster with every code and page link')
    .option('--revoked', 'list revoked entries too')
    .action(async (opts: { revoked?: boolean }, cmd: Command) => {
      const entries = await withStore(settingsOf(cmd), false, (store) => store.listEntries({ includeRevoked: opts.revoked === true }));
      process.stdout.write(`${ENTRY_HEAD}\n${entries.map(entryLine).join('\n')}${entries.length ? '\n' : ''}`);
    });
  for (const action of ['revoke', 'renew'] as const) {
    ladder
      .command(`${action} <name-or-id>`)
      .description(action === 'revoke' ? 'refuse this entry’s codes from now on' : 'give this entry new codes and a new page link (the old ones are refused)')
      .action(async (which: string, _opts: unknown, cmd: Command) => {
        const entry = await withStore(settingsOf(cmd), false, async (store) => {
          const e = await findEntry(store, which);
          return action === 'revoke' ? store.revoke(e.id, Date.now()) : store.renew(e.id, Date.now());
        });
        process.stdout.write(`${ENTRY_HEAD}\n${entryLine(entry)}\n`);
      });
  }
  ladder
    .command('standings <game>')
    .description('the current season’s standings: rating with its 95 % interval, games, wins, draws, losses')
    .option('--csv', 'CSV for grading')
    .action(async (name: string, opts: { csv?: boolean }, cmd: Command) => {
      const game = gameOf(name);
      const settings = settingsOf(cmd);
      const rows = standingsLines(await withStore(settings, false, async (store) => store.standings(game, (await store.currentSeason(game)).id)), settings.ladder.minGames);
      const head = ['place', 'name', 'group', 'rating', 'low', 'high', 'games', 'established', 'wins', 'draws', 'losses'] as const;
      const lines = rows.map((r) => head.map((h) => (h === 'established' ? (r.established ? 'yes' : 'no') : r[h])));
      const cell = (v: string | number): string => (opts.csv ? csvField(v) : String(v));
      const sep = opts.csv ? ',' : '\t';
      process.stdout.write([head, ...lines].map((l) => l.map(cell).join(sep)).join('\n') + '\n');
    });
  ladder
    .command('season <game>')
    .description('show the current season, or freeze it, unfreeze it, or start a new one (ratings start fresh)')
    .option('--new <name>', 'archive the current season and start one with this name')
    .option('--freeze', 'take no more games (standings for grading)')
    .option('--unfreeze', 'take games again')
    .action(async (name: string, opts: { new?: string; freeze?: boolean; unfreeze?: boolean }, cmd: Command) => {
      const game = gameOf(name);
      const season = await withStore(settingsOf(cmd), true, async (store) => {
        const now = Date.now();
        if (opts.new !== undefined) return store.startSeason(game, opts.new, now);
        if (opts.freeze) return store.freezeSeason(game, now);
        if (opts.unfreeze) return store.unfreezeSeason(game, now);
        return store.currentSeason(game);
      });
      process.stdout.write(`${game}: ${season.name} (since ${new Date(season.startedAt).toISOString()}${season.frozenAt !== null ? ', frozen' : ''})\n`);
    });
}
