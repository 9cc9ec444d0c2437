import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { Option } from 'commander';
import { loadSettings, recordsFile, recordsWhere, type Settings } from '../config.js';
import { commandLogLevel } from '../core/command-log.js';
import { UsageError } from '../core/errors.js';
import { createLogger, silentLogger } from '../core/log.js';
import type { Records } from '../core/record-backend.js';
import { RecordStore } from '../core/records.js';
import { GAMES } from '../games/registry.js';
import type { GameModule } from '../games/types.js';
import {
  checkIsolation,
  createTournament,
  DEFAULT_LEASE_SECONDS,
  runTournament,
  tournamentLeader,
  tournamentResults,
  tournamentStandings,
  type TournamentProgress,
} from './coordinator.js';
import { openDatabaseRecords } from '../records-open.js';
import { formatError, formatWarning, parseTournament, type TournamentSpec } from './file.js';
import { parsePortRange, type PortRange } from '../core/ports.js';
import { preflight, problemLine } from './preflight.js';
import { registerArchiveCommands } from './archive-cli.js';
import type { LifeLock, MatchQueue } from './queue.js';
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
  /** `tournament --database <url>`: the records (and the match queue) in PostgreSQL. */
  database?: string;
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
  if (global.database !== undefined) flags.database = { url: global.database };
  return loadSettings({ flags, file: global.config }).config;
}

/**
 * The record store of the settings: SQLite in the data directory, or PostgreSQL when
 * `database.url` (or `--database`, SPIELHALLE_DATABASE_URL) is set.
 */
async function openStore(cmd: Command, mode: 'read' | 'write' | 'serve'): Promise<Records> {
  const settings = settingsOf(cmd);
  // run and resume wait for a database that is not there yet; the reading commands exit 75.
  if (settings.database.url !== '') return openDatabaseRecords(settings, mode, { wait: mode !== 'read' });
  const file = recordsFile(settings);
  if (mode === 'read' && !existsSync(file)) throw new UsageError(noStoreMessage(file));
  return new RecordStore(file, { mode });
}

/**
 * No SQLite file where the settings point: a wrong data directory, or records that are in
 * PostgreSQL, which this command was not told about (a tournament run with --database or with a
 * settings file that another command here did not get).
 */
function noStoreMessage(file: string): string {
  return `no record store at ${file}: wrong --data-dir? If the tournament's records are in PostgreSQL, say where: tournament --database postgres://… (or the settings key database.url, with --config <settings file>, or SPIELHALLE_DATABASE_URL)`;
}

async function withStore<T>(cmd: Command, mode: 'read' | 'write', use: (store: Records) => T | Promise<T>): Promise<T> {
  const store = await openStore(cmd, mode);
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

function parallelOption(value: string | undefined, flag = '--parallel'): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1)
    throw new UsageError(`${flag} must be a positive whole number, got "${value}"`);
  return n;
}

async function existing(store: Records, id: string): Promise<void> {
  if ((await store.getTournament(id)) === null)
    throw new UsageError(`no tournament "${id}" (see: spielhalle tournament list)`);
}

function secondsOption(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1) throw new UsageError(`${flag} must be a positive whole number of seconds, got "${value}"`);
  return n;
}

/** How run and resume play: in this process, or through the queue for `spielhalle worker`s. */
interface PlayMode {
  parallel: number | undefined;
  force: boolean;
  /** Play in this process even with the records in PostgreSQL. */
  local: boolean;
  leaseSeconds: number | undefined;
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
async function play(cmd: Command, store: Records, id: string, mode: PlayMode): Promise<number> {
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
  let queue: MatchQueue | null = null;
  try {
    if (store.kind === 'postgres' && !mode.local) {
      // Loaded only here: the other commands do not load pg-boss.
      const { jobsSchema, MatchQueue } = await import('./queue.js');
      const { runQueuedTournament } = await import('./distributed.js');
      const t = await store.getTournament(id);
      queue = await MatchQueue.openWhenReachable(
        { url: settings.database.url, schema: jobsSchema(settings.database.schema), applicationName: 'spielhalle coordinator', log },
        t === null ? [] : [t.game],
        stop.signal,
      );
      queue.onError((err) => log.warn({ err }, 'queue maintenance failed'));
      process.stderr.write(
        `the matches are queued in ${recordsWhere(settings)}: \`spielhalle worker\` processes with the same database play them (docs/operations.md)\n`,
      );
      outcome = await runQueuedTournament(store, id, {
        queue,
        url: settings.database.url,
        log,
        games,
        signal: stop.signal,
        onProgress: (p) => reporter.update(p),
        ...(mode.leaseSeconds === undefined ? {} : { leaseSeconds: mode.leaseSeconds }),
      });
    } else {
      outcome = await runTournament(store, id, {
        log,
        games,
        signal: stop.signal,
        onProgress: (p) => reporter.update(p),
        workDir: settings.dataDir,
        ports: portsOf(settings),
        ...(mode.parallel === undefined ? {} : { parallel: mode.parallel }),
        force: mode.force,
      });
    }
  } catch (err) {
    if ((err as Error).name === 'CoordinatedElsewhereError') throw new UsageError((err as Error).message);
    throw err;
  } finally {
    reporter.end();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await queue?.close();
  }
  switch (outcome) {
    case 'finished':
      process.stdout.write(`tournament ${id} finished\n${formatStandings(await tournamentStandings(store, id))}`);
      return 0;
    case 'stopped':
      process.stderr.write(`tournament ${id} stopped; resume with: spielhalle tournament resume ${id}\n`);
      return 130;
    case 'failed':
      process.stderr.write(`tournament ${id} failed: ${(await store.getTournament(id))?.note ?? '?'}\n`);
      return 1;
  }
}

/**
 * Reads and checks a tournament file, then its entrants (preflight.ts): every problem of the file
 * and then of every entrant is printed, and a UsageError (exit 2) says that nothing was started.
 * A relative cwd is the file's neighbour, wherever the run (or a later resume) starts from.
 */
async function checkedFile(cmd: Command, file: string, outcome = 'nothing started'): Promise<{ spec: TournamentSpec; text: string }> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const parsed = parseTournament(text, { file });
  for (const w of parsed.warnings) process.stderr.write(`${formatWarning(w)}\n`);
  if (!parsed.ok) {
    for (const e of parsed.errors) process.stderr.write(`${formatError(e)}\n`);
    throw new UsageError(`${file}: ${parsed.errors.length} problem${parsed.errors.length === 1 ? '' : 's'}, ${outcome}`);
  }
  const base = dirname(resolve(file));
  const spec: TournamentSpec = {
    ...parsed.spec,
    entrants: parsed.spec.entrants.map((e) => (e.kind === 'command' && e.cwd !== undefined ? { ...e, cwd: resolve(base, e.cwd) } : e)),
  };
  if (games.find((g) => g.name === spec.game)?.tournament === undefined)
    throw new UsageError(`${file}: ${spec.game} cannot play tournaments here`);
  // A machine without boxes: one line for all (as the run would say it), not one per entrant.
  checkIsolation(spec, silentLogger);
  const problems = await preflight(spec, { games, ports: portsOf(settingsOf(cmd)) });
  if (problems.length > 0) {
    for (const p of problems) process.stderr.write(`${problemLine(p)}\n`);
    const bad = new Set(problems.map((p) => p.entrant)).size;
    throw new UsageError(`${file}: ${bad} entrant${bad === 1 ? '' : 's'} cannot play, ${outcome}`);
  }
  return { spec, text };
}

/** The settings' `tournaments.ports` as a range (checked when the settings were read). */
function portsOf(settings: Settings): PortRange | null {
  const text = settings.tournaments.ports;
  if (text === '') return null;
  const range = parsePortRange(text);
  if (typeof range === 'string') throw new UsageError(`tournaments.ports: ${range}`);
  return range;
}

export function registerTournamentCommands(program: Command): void {
  const tournament = program
    .command('tournament')
    .description('run tournaments between our bots and external programs, and show their standings')
    .option(
      '--database <url>',
      'records (and the match queue) in PostgreSQL, postgres://… (default: the database.url setting; none: SQLite in the data directory)',
    );

  tournament
    .command('run')
    .description('create a tournament from a tournament file (YAML or JSON) and play it')
    .argument('<file>', 'the tournament file (docs/tournaments.md)')
    .option('--parallel <n>', "matches at a time (default: the file's parallel)")
    .option('--local', 'with the records in PostgreSQL: play the matches in this process instead of queueing them for workers')
    .option('--lease <seconds>', `queued matches: a job nobody reports on for this long is retried (default ${DEFAULT_LEASE_SECONDS})`)
    .action(async (file: string, opts: { parallel?: string; local?: boolean; lease?: string }, cmd: Command) => {
      const mode: PlayMode = {
        parallel: parallelOption(opts.parallel),
        force: false,
        local: opts.local === true,
        leaseSeconds: secondsOption(opts.lease, '--lease'),
      };
      const { spec, text } = await checkedFile(cmd, file);
      const store = await openStore(cmd, 'write');
      try {
        let id: string;
        try {
          id = await createTournament(store, spec, text, Date.now(), games);
        } catch (err) {
          throw new UsageError((err as Error).message);
        }
        const t = await store.getTournament(id);
        process.stderr.write(
          `tournament ${id}: ${spec.name}, ${spec.game} ${spec.format}, ${spec.entrants.length} entrants, ${t?.total ?? 0} matches${spec.format === 'swiss' ? ` in round 1 of ${spec.rounds}` : ''} (Ctrl-C stops it; resume with: spielhalle tournament resume ${id})\n`,
        );
        process.exitCode = await play(cmd, store, id, mode);
      } finally {
        await store.close();
      }
    });

  tournament
    .command('check')
    .description("check a tournament file and its entrants (programs found and executable, a short smoke start) without playing: exit 0 when it can run, 2 when not")
    .argument('<file>', 'the tournament file (docs/tournaments.md)')
    .action(async (file: string, _opts: unknown, cmd: Command) => {
      const { spec } = await checkedFile(cmd, file, 'the tournament cannot run');
      const programs = spec.entrants.filter((e) => e.kind === 'command').length;
      process.stdout.write(
        `${file}: ok: ${spec.game} ${spec.format}, ${spec.entrants.length} entrants (${programs} program${programs === 1 ? '' : 's'} found and started)\n`,
      );
    });

  tournament
    .command('resume')
    .description('go on with a stopped (or cut-off) tournament: plays only the matches not done yet')
    .argument('<id>', 'as shown by `tournament list`')
    .option('--parallel <n>', 'matches at a time (default: the tournament’s parallel)')
    .option('--force', 'take over matches that a process on this machine, which seems alive, left running')
    .option('--local', 'with the records in PostgreSQL: play the matches in this process instead of queueing them for workers')
    .option('--lease <seconds>', `queued matches: a job nobody reports on for this long is retried (default ${DEFAULT_LEASE_SECONDS})`)
    .action(async (id: string, opts: { parallel?: string; force?: boolean; local?: boolean; lease?: string }, cmd: Command) => {
      const mode: PlayMode = {
        parallel: parallelOption(opts.parallel),
        force: opts.force === true,
        local: opts.local === true,
        leaseSeconds: secondsOption(opts.lease, '--lease'),
      };
      const settings = settingsOf(cmd);
      if (settings.database.url === '' && !existsSync(recordsFile(settings)))
        throw new UsageError(noStoreMessage(recordsFile(settings)));
      const store = await openStore(cmd, 'write');
      try {
        await existing(store, id);
        const t = await store.getTournament(id);
        process.stderr.write(`resuming tournament ${id}: ${t?.done ?? 0}/${t?.total ?? 0} matches done\n`);
        process.exitCode = await play(cmd, store, id, mode);
      } finally {
        await store.close();
      }
    });

  tournament
    .command('status')
    .description('how far a tournament is, its status and the matches being played')
    .argument('<id>')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      await withStore(cmd, 'read', async (store) => {
        await existing(store, id);
        const t = await store.getTournament(id);
        if (!t) return;
        const leader = t.done > 0 ? await tournamentLeader(store, id) : null;
        process.stdout.write(formatStatus(t, await store.listTournamentMatches(id, { status: 'running' }), leader));
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
        await existing(store, id);
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
        await existing(store, id);
        // Every result only for --matches: the standings come from the saved live standings.
        const results = opts.matches === true ? await tournamentResults(store, id) : undefined;
        if (opts.format === 'json') return `${standingsJson(await tournamentStandings(store, id), results)}\n`;
        return results !== undefined ? matchesCsv(results) : standingsCsv(await tournamentStandings(store, id));
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
      await withStore(cmd, 'read', async (store) => {
        for (const t of await store.listTournaments({ game: opts.game, limit })) {
          const when = new Date(t.createdAt).toISOString();
          process.stdout.write(
            `${t.id}  ${when}  ${t.status.padEnd(8)}  ${`${t.done}/${t.total}`.padStart(9)}  ${t.game} ${t.format}  ${t.name}${t.archivedAt === null ? '' : '  (archived)'}\n`,
          );
        }
      });
    });

  registerArchiveCommands(tournament, { settingsOf, withStore });
}

/**
 * `spielhalle worker`: plays queued tournament matches (issue #19, docs/operations.md). Needs the
 * records in PostgreSQL; any number of workers on any machines that reach that database.
 */
export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('play the matches of tournaments queued in PostgreSQL (run any number, on any machines)')
    .option('--database <url>', 'postgres://… (default: the database.url setting, SPIELHALLE_DATABASE_URL)')
    .option('--concurrency <n>', 'matches at a time', String(Math.max(1, availableParallelism())))
    .option('--games <names>', `only these games, comma-separated (default: all of ${games.filter((g) => g.tournament).map((g) => g.name).join(', ')})`)
    .action(async (opts: { database?: string; concurrency: string; games?: string }, cmd: Command) => {
      const concurrency = parallelOption(opts.concurrency, '--concurrency');
      const flags: Record<string, unknown> = {};
      const global = cmd.optsWithGlobals<GlobalOptions>();
      if (global.dataDir !== undefined) flags.dataDir = global.dataDir;
      if (global.logFile !== undefined) flags.logFile = global.logFile;
      if (opts.database !== undefined) flags.database = { url: opts.database };
      const settings = loadSettings({ flags, file: global.config }).config;
      if (settings.database.url === '')
        throw new UsageError('a worker needs the records in PostgreSQL: --database postgres://… or the database.url setting');
      // The arenas listen in the settings' range as a tournament run on one machine does (issue #33).
      const ports = portsOf(settings);
      const playable = games.filter((g) => g.tournament);
      let chosen = playable;
      if (opts.games !== undefined) {
        const names = opts.games.split(',').map((n) => n.trim()).filter((n) => n !== '');
        const unknown = names.filter((n) => !playable.some((g) => g.name === n));
        if (unknown.length > 0 || names.length === 0)
          throw new UsageError(`--games: ${unknown.length > 0 ? `unknown ${unknown.join(', ')}` : 'none given'} (games: ${playable.map((g) => g.name).join(', ')})`);
        chosen = playable.filter((g) => names.includes(g.name));
      }
      const log = createLogger({ level: commandLogLevel(cmd, 'warn'), file: settings.logFile || undefined });
      // Before anything else: a worker that cannot box programs must not take their matches.
      const { requireBoxes } = await import('../sandbox/box.js');
      requireBoxes('this worker');
      const { cgroupSupport } = await import('../sandbox/cgroup.js');
      const { jobsSchema, LifeLock, MatchQueue, newWorkerId } = await import('./queue.js');
      const { runWorker } = await import('./worker.js');
      const worker = newWorkerId();
      const stop = new AbortController();
      let exitCode = 0;
      const onSignal = (signal: NodeJS.Signals) => {
        if (stop.signal.aborted) {
          process.stderr.write(`\n${signal} again: leaving now; the queue gives this worker's matches to others after their lease\n`);
          process.exit(130);
        }
        process.stderr.write(`\n${signal}: stopping worker ${worker} (its matches in play go back to the queue) …\n`);
        exitCode = 130;
        stop.abort();
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      // A database that is not there yet is waited for (logged, with backoff), not an exit (issue #31).
      let store: Records;
      try {
        store = await openDatabaseRecords(settings, 'serve', { wait: true, log, signal: stop.signal });
      } catch (err) {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        if (stop.signal.aborted) {
          process.exitCode = 130;
          return;
        }
        throw err;
      }
      let queue: MatchQueue | null = null;
      let lock: LifeLock | null = null;
      try {
        queue = await MatchQueue.openWhenReachable(
          { url: settings.database.url, schema: jobsSchema(settings.database.schema), applicationName: `spielhalle worker ${worker}`.slice(0, 63), log },
          chosen.map((g) => g.name),
          stop.signal,
        );
        queue.onError((err) => log.warn({ err }, 'queue maintenance failed'));
        // Lost in an outage, the life lock is taken again once the database is back; only someone
        // else holding it then (impossible for a worker id) ends the worker.
        lock = await LifeLock.takeWhenReachable(
          settings.database.url,
          `worker:${worker}`,
          (err) => {
            log.error({ err }, 'lost the life lock for good: the coordinator gives this worker’s matches to others');
            process.stderr.write(`worker ${worker}: lost its PostgreSQL life lock (${err.message}); stopping\n`);
            exitCode = 1;
            stop.abort();
          },
          {
            log,
            onDown: (err) => process.stderr.write(`worker ${worker}: PostgreSQL gone (${err.message}); matches in play go on, waiting for it\n`),
            onBack: (ms) => process.stderr.write(`worker ${worker}: PostgreSQL back after ${(ms / 1000).toFixed(1)} s\n`),
          },
          stop.signal,
        );
        process.stderr.write(
          `worker ${worker}: ${chosen.map((g) => g.name).join(', ')}, ${concurrency} at a time, records in ${recordsWhere(settings)}, programs in boxes (cgroup limits: ${cgroupSupport().kind}) (Ctrl-C stops it)\n`,
        );
        await runWorker({
          store,
          queue,
          worker,
          games: chosen,
          concurrency: concurrency ?? 1,
          workDir: settings.dataDir,
          ports,
          log,
          signal: stop.signal,
          onMatch: (e) => {
            if (e.outcome !== 'skipped') process.stderr.write(`${e.outcome}: ${e.tournament} ${e.match}\n`);
          },
        });
      } catch (err) {
        // Stopped while it waited for the database at start: a stop, not a failure.
        if (!stop.signal.aborted) throw err;
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        await queue?.close();
        await lock?.release();
        await store.close();
      }
      process.exitCode = exitCode;
    });
}
