import { existsSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { loadSettings, recordsFile, recordsWhere, type Settings } from './config.js';
import { ConfigError } from './core/config.js';
import { EXIT_UNAVAILABLE, UnavailableError, UsageError } from './core/errors.js';
import { installCrashHandlers } from './core/guard.js';
import { RecordStore, type MatchDetail, type MatchRecord } from './core/records.js';
import type { Records } from './core/record-backend.js';
import { describePruned } from './core/record-keep.js';
import { parseAge } from './core/retention.js';
import { findGame, GAMES } from './games/registry.js';
import { openDatabaseRecords } from './records-open.js';
import { serve, startBanner, StartError } from './serve.js';
import { registerTournamentCommands, registerWorkerCommand } from './tournament/cli.js';
import { registerCheckClientCommand } from './conformance/cli.js';
import { registerLadderCommands } from './ladder/cli.js';

/**
 * `spielhalle <command>`: the whole program (src/cli.ts, the entry, loads it for every command but
 * the plain forms of `solve`). Exit codes: 0 ok, 1 failure, 2 usage error.
 */

function port(value: string, flag: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new UsageError(`${flag} must be a port number (0–65535), got "${value}"`);
  return n;
}

interface GlobalOptions {
  config?: string;
  dataDir?: string;
  logLevel?: string;
  logFile?: string;
  logFormat?: string;
}

function settingsFrom(global: GlobalOptions, flags: Record<string, unknown> = {}): Settings {
  const top: Record<string, unknown> = { ...flags };
  if (global.dataDir !== undefined) top.dataDir = global.dataDir;
  if (global.logLevel !== undefined) top.logLevel = global.logLevel;
  if (global.logFile !== undefined) top.logFile = global.logFile;
  if (global.logFormat !== undefined) top.logFormat = global.logFormat;
  return loadSettings({ flags: top, file: global.config }).config;
}

/** Read commands open the store read-only: they never recover (abort) a running server's matches. */
function openStore(global: GlobalOptions, mode: 'read' | 'write' = 'read'): RecordStore {
  const file = recordsFile(settingsFrom(global));
  if (!existsSync(file)) throw new UsageError(`no record store at ${file} (wrong --data-dir?)`);
  return new RecordStore(file, { mode });
}

/** The records to read, wherever the settings keep them: SQLite, or PostgreSQL with `database.url`. */
async function openRecords(global: GlobalOptions): Promise<Records> {
  const settings = settingsFrom(global);
  if (settings.database.url === '') return openStore(global);
  return openDatabaseRecords(settings, 'read');
}

/** `--game <name>` of the record commands: a game we do not serve is a usage error, not an empty list. */
function knownGame(name: string | undefined): string | undefined {
  if (name !== undefined && !findGame(name)) throw new UsageError(`unknown game "${name}" (one of ${GAMES.map((g) => g.name).join(', ')})`);
  return name;
}

/** How a recorded match ended, in one line: the game's own wording, else the common result fields. */
export function summarizeMatch(m: MatchRecord): { result: string; moves: number | null } {
  const own = findGame(m.game)?.summarize?.(m);
  if (own) return own;
  const r = (typeof m.result === 'object' && m.result !== null ? m.result : {}) as Record<string, unknown>;
  const seatName = (seat: unknown): string | undefined => m.seats.find((s) => s.seat === seat)?.name;
  const parts: string[] = [];
  const winner = typeof r.winnerName === 'string' ? r.winnerName : seatName(r.winner);
  if (winner !== undefined) parts.push(`winner: ${winner}`);
  else if (r.outcome === 'drawn' || r.draw === true) parts.push('drawn');
  else if (r.winner === null && m.status === 'finished') parts.push('no winner');
  else parts.push(typeof r.outcome === 'string' ? r.outcome : m.status);
  // The reason only where it adds something: never "aborted (aborted)".
  if (typeof r.reason === 'string' && r.reason !== '' && r.reason !== parts[parts.length - 1]) parts.push(`(${r.reason})`);
  let moves: number | null = null;
  if ('events' in m) moves = (m as MatchDetail).events.filter((e) => e.type === 'move').length || null;
  if (moves === null) moves = typeof r.plies === 'number' ? r.plies : typeof r.moves === 'string' ? r.moves.length : null;
  return { result: parts.join(' '), moves };
}

export function buildProgram(): Command {
  const program = new Command('spielhalle')
    .description('Servers, bots and a dashboard for five turn-based network games over their original course protocols')
    .version('0.1.0')
    .option('--config <file>', 'settings file (default: ./spielhalle.config.json when present)')
    .option('--data-dir <dir>', 'where the record store lives (default ./data)')
    .option('--log-level <level>', 'fatal|error|warn|info|debug|trace|silent (debug logs every wire message)')
    .option('--log-file <file>', 'write logs as JSON lines to this file instead of stderr')
    .option('--log-format <format>', 'auto|pretty|json: readable lines or JSON on stderr (auto: readable on a terminal)')
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(text.trimEnd().replace(/^error: /, 'spielhalle: ') + '\n') })
    // Every subcommand's --help lists --config, --data-dir, --log-level, --log-file and --log-format too.
    .configureHelp({ showGlobalOptions: true })
    .showSuggestionAfterError(true);

  const serveCmd = program
    .command('serve')
    .description('start the game servers, the dashboard and house bots (all games, or the ones named with --game)')
    .addOption(new Option('--game <name...>', 'only these games').choices(GAMES.map((g) => g.name)))
    .option('--host <host>', 'address the game servers listen on (default 127.0.0.1)')
    .option('--web-port <port>', 'dashboard port (default 8080)')
    .option('--web-host <host>', 'dashboard address (default 127.0.0.1)')
    .option('--no-web', 'do not start the dashboard')
    .option('--no-bots', 'start no house bots')
    .option('--seed <seed>', 'seed for dice, shuffles and boards (default: new each start)');
  for (const g of GAMES) serveCmd.option(`--${g.name}-port <port>`, `${g.title} port`);
  serveCmd.action(async (opts: Record<string, unknown>, cmd: Command) => {
    const global = cmd.optsWithGlobals<GlobalOptions>();
    const flags: Record<string, unknown> = { web: {}, games: {} };
    const web = flags.web as Record<string, unknown>;
    const games = flags.games as Record<string, Record<string, unknown>>;
    if (typeof opts.host === 'string') flags.host = opts.host;
    if (typeof opts.seed === 'string') flags.seed = opts.seed;
    if (opts.bots === false) flags.bots = false;
    if (opts.web === false) web.enabled = false;
    if (typeof opts.webPort === 'string') web.port = port(opts.webPort, '--web-port');
    if (typeof opts.webHost === 'string') web.host = opts.webHost;
    for (const g of GAMES) {
      const p = opts[`${g.name}Port`];
      if (typeof p === 'string') games[g.name] = { port: port(p, `--${g.name}-port`) };
    }
    const settings = settingsFrom(global, flags);
    const running = await serve(settings, (opts.game as string[] | undefined) ?? []);
    running.lifecycle.handleSignals();
    // The last resort: an exception no error boundary caught saves the records and exits 70, so
    // that a supervisor restarts the server (docs/operations.md).
    installCrashHandlers({ log: running.log, onCrash: () => running.crash() });
    // Last, once every server listens (house bots' routine goes to debug, docs/operations.md "Logs").
    process.stderr.write(startBanner(running, settings));
  });

  const bot = program.command('bot').description('run one of our bots against any server of that game');
  const play = new Command('play').description('play a game yourself in the terminal');
  // `.command()` passes the program's settings on; a command made apart must copy them, or its
  // errors exit 1 with commander's own wording and its help lacks the global options.
  play.copyInheritedSettings(program);
  for (const g of GAMES) g.registerCommands?.({ bot, play, program });
  // Added only when a game offers terminal play: an empty parent would only confuse `--help`.
  if (play.commands.length > 0) program.addCommand(play);

  program
    .command('replay')
    .description('show a recorded match: seats, events, the wire log, and a check against the rules')
    .argument('<match-id>', 'id as shown in the dashboard or by `spielhalle matches`')
    .option('--json', 'print the whole record as JSON')
    .action(async (id: string, opts: { json?: boolean }, cmd: Command) => {
      const store = await openRecords(cmd.optsWithGlobals<GlobalOptions>());
      try {
        const match = await store.getMatch(id);
        if (!match) {
          const pruned = await store.prunedNote(id);
          throw new UsageError(`no match with id "${id}" in ${recordsWhere(settingsFrom(cmd.optsWithGlobals<GlobalOptions>()))}${pruned ? `: ${describePruned(pruned)}` : ''}`);
        }
        if (opts.json) process.stdout.write(JSON.stringify(match, null, 2) + '\n');
        else process.stdout.write(formatReplay(match));
        const check = findGame(match.game)?.verify?.(match);
        const failed = check?.checked === true && check.problems.length > 0;
        // The last line says how it ended and whether the rules agree (on stderr with --json, so stdout stays JSON).
        const summary = replaySummary(match, check ? (failed ? 'FAILED' : check.checked ? 'ok' : uncheckedWhy(match)) : 'not available for this game');
        if (opts.json) process.stderr.write(summary + '\n');
        else process.stdout.write(summary + '\n');
        if (failed) {
          process.stderr.write(`spielhalle: the record does not replay: ${check.problems.join('; ')}\n`);
          process.exitCode = 1;
        }
      } finally {
        await store.close();
      }
    });

  program
    .command('matches')
    .description('list recorded matches, newest first')
    .option('--game <name>', 'only this game')
    .option('--player <name>', 'only matches with a seat of this name (an entrant, a bot, a client)')
    .option('--limit <n>', 'how many', '20')
    .action(async (opts: { game?: string; player?: string; limit: string }, cmd: Command) => {
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive number, got "${opts.limit}"`);
      const game = knownGame(opts.game);
      const store = await openRecords(cmd.optsWithGlobals<GlobalOptions>());
      try {
        for (const m of await store.listMatches({ game, player: opts.player, limit })) {
          const when = new Date(m.startedAt).toISOString();
          const outcome = m.status === 'running' ? '' : `  ${summarizeMatch(m).result}`;
          process.stdout.write(`${m.id}  ${when}  ${m.status.padEnd(10)}  ${m.seats.map((s) => s.name).join(', ')}${outcome}\n`);
        }
      } finally {
        await store.close();
      }
    });
  program
    .command('doctor')
    .description('say what this machine gives tournament programs: isolation (bubblewrap boxes) and limits')
    .action(async () => {
      const { doctorLines } = await import('./sandbox/doctor.js');
      const { ok, lines } = doctorLines();
      process.stdout.write(`${lines.join('\n')}\n`);
      if (!ok) process.exitCode = 1;
    });
  program
    .command('prune')
    .description("delete old records: matches (and their wire logs) older than --older-than, or only wire logs; a tournament's records only with --include-tournaments")
    .option('--older-than <age>', 'age such as 30d, 12h or 90m (default: the records.keepDays setting)')
    .option('--wire-only', 'keep the matches, delete only their wire logs (default age: records.wireKeepDays)')
    .option('--max-mb <n>', 'then delete matches until the store uses at most this many MB: house games first, then played, then ladder games, each oldest first')
    .option('--game <name>', 'only this game')
    .option('--include-tournaments', "tournament games too (kept otherwise until the tournament is archived or deleted: spielhalle tournament archive|delete)")
    .option('--dry-run', 'count what would be deleted, delete nothing')
    .option('--vacuum', 'afterwards shrink the file to what is in use (blocks writers for a while)')
    .action(async (opts: { olderThan?: string; wireOnly?: boolean; maxMb?: string; game?: string; includeTournaments?: boolean; dryRun?: boolean; vacuum?: boolean }, cmd: Command) => {
      const global = cmd.optsWithGlobals<GlobalOptions>();
      const settings = settingsFrom(global);
      knownGame(opts.game);
      const days = opts.wireOnly ? settings.records.wireKeepDays : settings.records.keepDays;
      let age = days > 0 ? days * 86_400_000 : null;
      if (opts.olderThan !== undefined) {
        age = parseAge(opts.olderThan);
        if (age === null) throw new UsageError(`--older-than must be an age such as 30d, 12h or 90m, got "${opts.olderThan}"`);
      }
      let maxBytes: number | undefined;
      if (opts.maxMb !== undefined) {
        const n = Number(opts.maxMb);
        if (!Number.isFinite(n) || n < 0) throw new UsageError(`--max-mb must be a number of megabytes, got "${opts.maxMb}"`);
        maxBytes = n * 1024 * 1024;
      }
      if (age === null && maxBytes === undefined) throw new UsageError('nothing to prune: give --older-than or --max-mb (the retention settings are 0)');
      const before = age === null ? undefined : Date.now() - age;
      if (settings.database.url !== '') {
        // Records in PostgreSQL: by age only; its own (auto)vacuum gives the space back.
        if (maxBytes !== undefined || opts.vacuum) throw new UsageError('--max-mb and --vacuum are for the SQLite store; with PostgreSQL prune by age (its autovacuum reuses the space)');
        const { PgRecordStore } = await import('./core/records-pg.js');
        const pgStore = await PgRecordStore.open({ url: settings.database.url, schema: settings.database.schema, mode: 'write' });
        try {
          const r = await pgStore.prune({
            matchesBefore: opts.wireOnly ? undefined : before,
            wireBefore: opts.wireOnly ? before : undefined,
            game: opts.game,
            includeTournaments: opts.includeTournaments === true,
            dryRun: opts.dryRun === true,
            reason: 'prune',
          });
          process.stdout.write(`${opts.dryRun ? 'would delete' : 'deleted'} ${r.matches} matches and ${r.wireRows} wire log rows in ${recordsWhere(settings)}\n`);
        } finally {
          await pgStore.close();
        }
        return;
      }
      const store = openStore(global, 'write');
      try {
        const r = await store.prune({
          matchesBefore: opts.wireOnly ? undefined : before,
          wireBefore: opts.wireOnly ? before : undefined,
          maxBytes,
          game: opts.game,
          includeTournaments: opts.includeTournaments === true,
          dryRun: opts.dryRun === true,
          reason: 'prune',
        });
        const mb = (b: number) => (b / 1048576).toFixed(1);
        const verb = opts.dryRun ? 'would delete' : 'deleted';
        process.stdout.write(`${verb} ${r.matches} matches and ${r.wireRows} wire log rows: ${mb(r.bytesBefore)} MB in use, ${opts.dryRun ? 'about ' : ''}${mb(r.bytesAfter)} MB after\n`);
        if (r.capUnmet === true)
          process.stderr.write(`still above ${opts.maxMb} MB: the rest belongs to tournaments (archive or delete them, or add --include-tournaments)\n`);
        if (opts.vacuum && !opts.dryRun) {
          store.vacuum();
          process.stdout.write(`vacuumed: the file now holds ${mb(store.usedBytes())} MB\n`);
        }
      } finally {
        store.close();
      }
    });

  registerTournamentCommands(program);
  registerWorkerCommand(program);
  registerCheckClientCommand(program);
  registerLadderCommands(program, (cmd) => settingsFrom(cmd.optsWithGlobals<GlobalOptions>()));
  return program;
}

/**
 * Why a record was not checked against the rules, in words: the games check a finished game from
 * its start to its recorded end, so a match cut off before its end (a stopped tournament, a
 * server stop: `aborted`) or still running has no end to check; otherwise the record lacks what a
 * replay needs (an old record without its start position, say).
 */
export function uncheckedWhy(m: MatchRecord): string {
  if (m.status !== 'finished')
    return `not possible: the match is ${m.status}${m.status === 'aborted' ? ' (cut off before its end)' : ''}, and only a finished game is replayed to its recorded end`;
  return 'not possible: the record lacks what a replay needs (its start position or its result)';
}

/** `replay`'s last line: `summary: 12 moves, lost: bob (CAUGHT_BLUFFING); +1: alice, carol; rules check: ok`. */
export function replaySummary(m: MatchDetail, check: string): string {
  const { result, moves } = summarizeMatch(m);
  return `summary: ${moves === null ? '' : `${moves} moves, `}${result}; rules check: ${check}`;
}

export function formatReplay(m: MatchDetail): string {
  const out: string[] = [];
  out.push(`match ${m.id} (${m.game}), ${m.status}, started ${new Date(m.startedAt).toISOString()}${m.seed !== null ? `, seed ${m.seed}` : ''}`);
  out.push(`seats: ${m.seats.map((s) => `${s.seat}:${s.name}${s.address ? `@${s.address}` : ''}`).join('  ')}`);
  out.push(`result: ${JSON.stringify(m.result)}`);
  out.push('', 'events:');
  for (const e of m.events) out.push(`  +${String(e.at - m.startedAt).padStart(5)}ms  ${e.seat === null ? '   ' : `#${e.seat} `} ${e.type}${e.data === null ? '' : ' ' + JSON.stringify(e.data)}`);
  out.push('', 'wire (in = client to server, out = server to client, * = to every client):');
  // One entry may hold the lines a server wrote at once (Catan): one output line each.
  for (const w of m.wire) for (const data of w.data.split('\n')) out.push(`  +${String(w.at - m.startedAt).padStart(5)}ms  ${w.conn.padEnd(21)} ${w.dir === 'in' ? '->' : '<-'} ${data}`);
  return out.join('\n') + '\n';
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof UnavailableError) {
      process.stderr.write(`spielhalle: ${err.message}\n`);
      return EXIT_UNAVAILABLE;
    }
    if (err instanceof UsageError || err instanceof ConfigError) {
      process.stderr.write(`spielhalle: ${err.message}\n`);
      return 2;
    }
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`spielhalle: ${message}\n`);
    if (process.env.SPIELHALLE_DEBUG && err instanceof Error && !(err instanceof StartError)) process.stderr.write(`${err.stack ?? ''}\n`);
    return 1;
  }
}
