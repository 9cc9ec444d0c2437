import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import type { Settings } from '../config.js';
import { UsageError } from '../core/errors.js';
import type { Records } from '../core/record-backend.js';
import { ArchiveError, importArchive, writeArchiveFile } from './archive.js';

/**
 * `tournament archive | delete | import` (issue 37): a tournament's records are kept by every
 * automatic retention until it is archived (its file written, docs/operations.md "Retention") or
 * deleted on purpose; both ask for a confirmation.
 */

/** Where `tournament archive` writes by default: `<dataDir>/archives/<id>.tournament.jsonl.gz`. */
export const archivePath = (settings: Settings, id: string): string => join(settings.dataDir, 'archives', `${id}.tournament.jsonl.gz`);

/** True when the person at the terminal typed the id back, or `--yes` was given; refuses without a terminal. */
async function confirmed(id: string, what: string, yes: boolean | undefined): Promise<boolean> {
  if (yes === true) return true;
  if (!process.stdin.isTTY) throw new UsageError(`${what}: add --yes to confirm (no terminal to ask)`);
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${what}. Type the tournament id (${id}) to confirm: `);
    return answer.trim() === id;
  } finally {
    rl.close();
  }
}

export function registerArchiveCommands(
  tournament: Command,
  o: { settingsOf: (cmd: Command) => Settings; withStore: <T>(cmd: Command, mode: 'read' | 'write', use: (store: Records) => T | Promise<T>) => Promise<T> },
): void {
  tournament
    .command('archive')
    .description("write the tournament to one file (standings, matches, every record with its wire log, program output); retention may then take its records")
    .argument('<id>')
    .option('--out <file>', 'the archive file (default: <dataDir>/archives/<id>.tournament.jsonl.gz)')
    .option('--keep', 'write the file only: retention keeps the records as before')
    .option('--yes', 'do not ask for a confirmation')
    .action(async (id: string, opts: { out?: string; keep?: boolean; yes?: boolean }, cmd: Command) => {
      const file = opts.out ?? archivePath(o.settingsOf(cmd), id);
      await o.withStore(cmd, 'write', async (store) => {
        const t = await store.getTournament(id);
        if (!t) throw new UsageError(`no tournament ${id} in the record store`);
        if (t.status === 'running') throw new UsageError(`${id} is running: stop it before archiving it`);
        const release = opts.keep !== true;
        if (release && !(await confirmed(id, `archive ${id}: from then on retention may delete its ${t.done} matches' records (the file keeps them)`, opts.yes))) {
          process.stderr.write('not archived\n');
          process.exitCode = 1;
          return;
        }
        const r = await writeArchiveFile(store, id, file);
        if (release) await store.archiveTournament(id, Date.now());
        process.stdout.write(`archived ${id}: ${r.matches} matches, ${r.records} records in ${file}\n`);
        if (r.missing.length > 0) process.stderr.write(`${r.missing.length} records were not in the store (pruned before): ${r.missing.slice(0, 5).join(', ')}${r.missing.length > 5 ? ', …' : ''}\n`);
      });
    });

  tournament
    .command('delete')
    .description('delete a tournament with all its matches and game records (archive it first to keep them)')
    .argument('<id>')
    .option('--yes', 'do not ask for a confirmation')
    .action(async (id: string, opts: { yes?: boolean }, cmd: Command) => {
      await o.withStore(cmd, 'write', async (store) => {
        const t = await store.getTournament(id);
        if (!t) throw new UsageError(`no tournament ${id} in the record store`);
        if (t.status === 'running') throw new UsageError(`${id} is running: stop it before deleting it`);
        const archived = t.archivedAt === null ? 'it was never archived' : `archived on ${new Date(t.archivedAt).toISOString()}`;
        if (!(await confirmed(id, `delete ${id} (${t.name}, ${t.done} matches; ${archived}) and every game record of it`, opts.yes))) {
          process.stderr.write('not deleted\n');
          process.exitCode = 1;
          return;
        }
        const r = await store.deleteTournament(id, Date.now());
        process.stdout.write(`deleted ${id} and ${r?.records ?? 0} game records\n`);
      });
    });

  tournament
    .command('import')
    .description('read a tournament archive back into the record store (standings, matches, records and wire logs)')
    .argument('<file>')
    .action(async (file: string, _opts: unknown, cmd: Command) => {
      if (!existsSync(file)) throw new UsageError(`no file ${file}`);
      try {
        const { r, name } = await o.withStore(cmd, 'write', async (store) => {
          const r = await importArchive(store, file);
          return { r, name: (await store.getTournament(r.id))?.name ?? '' };
        });
        process.stdout.write(`imported ${r.id} (${name}): ${r.matches} matches, ${r.records} records\n`);
      } catch (err) {
        if (err instanceof ArchiveError) throw new UsageError(err.message);
        throw err;
      }
    });
}
