import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { Option } from 'commander';
import { loadSettings, recordsFile, type Settings } from '../config.js';
import { commandLogLevel } from '../core/command-log.js';
import { UsageError } from '../core/errors.js';
import { createLogger } from '../core/log.js';
import { RecordStore } from '../core/records.js';
import { GAMES } from '../games/registry.js';
import type { GameModule } from '../games/types.js';
import {
  createTournament,
  runTournament,
  tournamentResults,
  tournamentStandings,
  type TournamentProgress,
} from './coordinator.js';
import { formatError, parseTournament } from './file.js';
import { formatStandings, formatStatus, matchLine, progressLine } from './report.js';
import { matchesCsv, standingsCsv, standingsJson } from './standings.js';

/**
 * `spielhalle tournament run|resume|status|standings|export|list`. The store is opened in `write`
 * mode by run and resume (a running `spielhalle serve` on the same data directory shows the
 * tournament live from the same file), read-only by the others.
 */

interface GlobalOptions {
  config?: string;
  dataDir?: string;
  logLevel?: string;
  logFile?: string;
}

let games: readonly GameModule[] = GAMES;

/** The games the commands play (tests put a fake game in; a child process calls this before main). */
export function useTournamentGames(list: readonly GameModule[]): void {
  games = list;
}

function settingsOf(cmd: Command): Settings {
  const global = cmd.optsWithGlobals<GlobalOptions>();
  const flags: Record<string, unknown> = {};
  if (global.dataDir !== undefined) flags.dataDir = global.dataDir;
  if (global.logFile !== undefined) flags.logFile = global.logFile;
  return loadSettings({ flags, file: global.config }).config;
}

function openStore(cmd: Command, mode: 'read' | 'write'): RecordStore {
  const file = recordsFile(settingsOf(cmd));
  if (mode === 'read' && !existsSync(file))
    throw new UsageError(`no record store at ${file} (wrong --data-dir?)`);
  return new RecordStore(file, { mode });
}

async function withStore<T>(cmd: Command, mode: 'read' | 'write', use: (store: RecordStore) => T | Promise<T>): Promise<T> {
  const store = openStore(cmd, mode);
  try {
    return await use(store);
  } finally {
    store.close();
  }
}

function parallelOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1)
    throw new UsageError(`--parallel must be a positive whole number, got "${value}"`);
  return n;
}

function existing(store: RecordStore, id: string): void {
  if (store.getTournament(id) === null)
    throw new UsageError(`no tournament "${id}" (see: spielhalle tournament list)`);
}

/** Shows progress: one redrawn line on a terminal, else one line per finished match. */
function progressReporter(out: NodeJS.WriteStream): { update(p: TournamentProgress): void; end(): void } {
  if (out.isTTY) {
    let last: TournamentProgress | null = null;
    let lastAt = 0;
    // Between matches the clock goes on: elapsed time up, ETA down.
    const draw = () => {
      if (!last) return;
      const since = Date.now() - lastAt;
      const now = {
        ...last,
        elapsedMs: last.elapsedMs + since,
        etaMs: last.etaMs === null ? null : Math.max(0, last.etaMs - since),
      };
      out.write(`\r\x1b[K${progressLine(now).slice(0, Math.max(20, (out.columns || 100) - 1))}`);
    };
    const ticker = setInterval(draw, 1000);
    ticker.unref();
    return {
      update(p) {
        last = p;
        lastAt = Date.now();
        draw();
      },
      end() {
        clearInterval(ticker);
        if (last) out.write('\n');
      },
    };
  }
  return {
    update(p) {
      const line = matchLine(p);
      if (line !== null) out.write(`${line}\n`);
    },
    end() {},
  };
}

/** Runs (or resumes) until finished (exit 0), stopped by Ctrl-C/SIGTERM (130) or failed (1). */
async function play(
  cmd: Command,
  store: RecordStore,
  id: string,
  parallel: number | undefined,
  force = false,
): Promise<number> {
  const settings = settingsOf(cmd);
  const log = createLogger({ level: commandLogLevel(cmd, 'warn'), file: settings.logFile || undefined });
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (stop.signal.aborted) {
      // A second Ctrl-C: out at once. The store is up to date; resume plays what was in flight.
      process.stderr.write(
        `\n${signal} again: leaving now; resume with: spielhalle tournament resume ${id}\n`,
      );
      process.exit(130);
    }
    process.stderr.write(
      `\n${signal}: stopping tournament ${id} (the matches in flight are played again on resume) …\n`,
    );
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const reporter = progressReporter(process.stderr);
  let outcome;
  try {
    outcome = await runTournament(store, id, {
      log,
      games,
      signal: stop.signal,
      onProgress: (p) => reporter.update(p),
      workDir: settings.dataDir,
      ...(parallel === undefined ? {} : { parallel }),
      force,
    });
  } finally {
    reporter.end();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  switch (outcome) {
    case 'finished':
      process.stdout.write(`tournament ${id} finished\n${formatStandings(await tournamentStandings(store, id))}`);
      return 0;
    case 'stopped':
      process.stderr.write(`tournament ${id} stopped; resume with: spielhalle tournament resume ${id}\n`);
      return 130;
    case 'failed':
      process.stderr.write(`tournament ${id} failed: ${store.getTournament(id)?.note ?? '?'}\n`);
      return 1;
  }
}

export function registerTournamentCommands(program: Command): void {
  const tournament = program
    .command('tournament')
    .description('run tournaments between our bots and external programs, and show their standings');

  tournament
    .command('run')
    .description('create a tournament from a tournament file (YAML or JSON) and play it')
    .argument('<file>', 'the tournament file (docs/tournaments.md)')
    .option('--parallel <n>', "matches at a time (default: the file's parallel)")
    .action(async (file: string, opts: { parallel?: string }, cmd: Command) => {
      const parallel = parallelOption(opts.parallel);
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (err) {
        throw new UsageError(
          `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
        );
      }
      const parsed = parseTournament(text, { file });
      if (!parsed.ok) {
        for (const e of parsed.errors) process.stderr.write(`${formatError(e)}\n`);
        throw new UsageError(
          `${file}: ${parsed.errors.length} problem${parsed.errors.length === 1 ? '' : 's'}, nothing started`,
        );
      }
      // A relative cwd is the file's neighbour, wherever the run (or a later resume) starts from.
      const base = dirname(resolve(file));
      const spec = {
        ...parsed.spec,
        entrants: parsed.spec.entrants.map((e) =>
          e.kind === 'command' && e.cwd !== undefined ? { ...e, cwd: resolve(base, e.cwd) } : e,
        ),
      };
      const store = openStore(cmd, 'write');
      try {
        let id: string;
        try {
          id = await createTournament(store, spec, text, Date.now(), games);
        } catch (err) {
          throw new UsageError((err as Error).message);
        }
        const t = store.getTournament(id);
        process.stderr.write(
          `tournament ${id}: ${parsed.spec.name}, ${parsed.spec.game} ${parsed.spec.format}, ${parsed.spec.entrants.length} entrants, ${t?.total ?? 0} matches${parsed.spec.format === 'swiss' ? ` in round 1 of ${parsed.spec.rounds}` : ''} (Ctrl-C stops it; resume with: spielhalle tournament resume ${id})\n`,
        );
        process.exitCode = await play(cmd, store, id, parallel);
      } finally {
        store.close();
      }
    });

  tournament
    .command('resume')
    .description('go on with a stopped (or cut-off) tournament: plays only the matches not done yet')
    .argument('<id>', 'as shown by `tournament list`')
    .option('--parallel <n>', 'matches at a time (default: the tournament’s parallel)')
    .option('--force', 'take over matches that a process on this machine, which seems alive, left running')
    .action(async (id: string, opts: { parallel?: string; force?: boolean }, cmd: Command) => {
      const parallel = parallelOption(opts.parallel);
      if (!existsSync(recordsFile(settingsOf(cmd))))
        throw new UsageError(`no record store at ${recordsFile(settingsOf(cmd))} (wrong --data-dir?)`);
      const store = openStore(cmd, 'write');
      try {
        existing(store, id);
        const t = store.getTournament(id);
        process.stderr.write(`resuming tournament ${id}: ${t?.done ?? 0}/${t?.total ?? 0} matches done\n`);
        process.exitCode = await play(cmd, store, id, parallel, opts.force === true);
      } finally {
        store.close();
      }
    });

  tournament
    .command('status')
    .description('how far a tournament is, its status and the matches being played')
    .argument('<id>')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      await withStore(cmd, 'read', async (store) => {
        existing(store, id);
        const t = store.getTournament(id);
        if (!t) return;
        const leader = t.done > 0 ? ((await tournamentStandings(store, id)).rows[0]?.name ?? null) : null;
        process.stdout.write(formatStatus(t, store.listTournamentMatches(id, { status: 'running' }), leader));
      });
    });

  tournament
    .command('standings')
    .description(
      'the standings: rank, rating with its interval, Elo, games, W/D/L or placings, points, crashes, timeouts',
    )
    .argument('<id>')
    .option('--json', 'as JSON (with the head-to-head matrix)')
    .action(async (id: string, opts: { json?: boolean }, cmd: Command) => {
      await withStore(cmd, 'read', async (store) => {
        existing(store, id);
        const standings = await tournamentStandings(store, id);
        process.stdout.write(
          opts.json === true ? `${standingsJson(standings)}\n` : formatStandings(standings),
        );
      });
    });

  tournament
    .command('export')
    .description('standings (or every match with --matches) as CSV or JSON, for grading')
    .argument('<id>')
    .addOption(new Option('--format <format>', 'csv or json').choices(['csv', 'json']).default('csv'))
    .option('--matches', 'every match (with its replay link) instead of the standings; with JSON: both')
    .option('--out <file>', 'write to this file instead of stdout')
    .action(async (id: string, opts: { format: 'csv' | 'json'; matches?: boolean; out?: string }, cmd: Command) => {
      const text = await withStore(cmd, 'read', async (store) => {
        existing(store, id);
        const results = await tournamentResults(store, id);
        if (opts.format === 'json')
          return `${standingsJson(await tournamentStandings(store, id), opts.matches === true ? results : undefined)}\n`;
        return opts.matches === true ? matchesCsv(results) : standingsCsv(await tournamentStandings(store, id));
      });
      if (opts.out === undefined) process.stdout.write(text);
      else writeFileSync(opts.out, text);
    });

  tournament
    .command('list')
    .description('the tournaments in the record store, newest first')
    .option('--game <name>', 'only this game')
    .option('--limit <n>', 'how many', '20')
    .action(async (opts: { game?: string; limit: string }, cmd: Command) => {
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1)
        throw new UsageError(`--limit must be a positive number, got "${opts.limit}"`);
      await withStore(cmd, 'read', (store) => {
        for (const t of store.listTournaments({ game: opts.game, limit })) {
          const when = new Date(t.createdAt).toISOString();
          process.stdout.write(
            `${t.id}  ${when}  ${t.status.padEnd(8)}  ${`${t.done}/${t.total}`.padStart(9)}  ${t.game} ${t.format}  ${t.name}\n`,
          );
        }
      });
    });
}
