import { readdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../core/log.js';
import { formatPortRange, type PortRange } from '../core/ports.js';
import type { Records, TournamentClaim } from '../core/record-backend.js';
import type { TournamentRecord } from '../core/record-types.js';
import type { TournamentArena, TournamentSupport } from '../core/tournament-match.js';
import type { GameModule } from '../games/types.js';
import type { TournamentSpec } from './file.js';
import { annotateRecords, arenaPorts, byeResult, openArena, playScheduledMatch, supersedeEarlier, type MatchContext, type PlayedMatch } from './play-match.js';
import { sandboxPrograms, type ProgramFactory } from './programs.js';
import { backoffMs, isConnectionError } from '../core/pg-outage.js';
import { pauseFor, type FetchedJob, type MatchQueue } from './queue.js';
import { killLeftoverGroups } from './sandbox.js';
import { requireBoxes } from '../sandbox/box.js';
import { cgroupSupport } from '../sandbox/cgroup.js';

/**
 * `spielhalle worker` (issue #19): takes match jobs from the queue (queue.ts) and plays each
 * exactly as the single-machine tournament does — the game's arena with its real server on
 * loopback, entrants' programs in their sandbox — then records the result under its claim and
 * completes the job. `concurrency` matches at a time. A match whose claim was taken over while it
 * played (this worker was presumed dead) is recorded by the other worker only; this one marks
 * its game records `discarded`. A match whose tournament is stopped while it plays is cut off and
 * goes back to pending; on a stop of the worker itself the matches in flight are cut off and
 * their jobs handed back to the queue.
 */

export interface WorkerOptions {
  store: Records;
  queue: MatchQueue;
  /** This worker's id (`host:pid:random`), kept with every match it plays. */
  worker: string;
  /** The games it plays (each with tournament support). */
  games: readonly GameModule[];
  concurrency: number;
  /** The data directory: programs without a `cwd` run in `<workDir>/tournaments/<id>/<entrant>`. */
  workDir: string;
  /**
   * Ports the arenas listen on (settings `tournaments.ports`) unless a tournament's file names its
   * own, as in a tournament run on one machine; null: any.
   */
  ports?: PortRange | null;
  log: Logger;
  /** Aborting stops the worker: no more jobs; matches in flight are cut off and handed back. */
  signal: AbortSignal;
  /** How often an idle worker asks for a job (ms). */
  pollMs?: number;
  /** How often the tournaments of the matches in flight are checked for a stop (ms). */
  statusMs?: number;
  /** How external programs are started (default: the sandbox). */
  programs?: (tournament: string) => ProgramFactory;
  now?: () => number;
  /** Told of each match this worker ended (tests, the CLI's lines). */
  onMatch?(event: { tournament: string; match: string; outcome: 'done' | 'discarded' | 'failed' | 'cut' | 'skipped' }): void;
}


const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * Programs a killed worker on this host left running: each worker notes its programs' process
 * groups under `<workDir>/workers/<host>-<pid>/`; the directories of workers whose pid is gone are
 * cleaned up by the next worker that starts.
 */
export function workerPidDir(workDir: string, pid = process.pid): string {
  return join(workDir, 'workers', `${hostname()}-${pid}`);
}

function killLeftoversOfDeadWorkers(workDir: string): number {
  const base = join(workDir, 'workers');
  let killed = 0;
  let dirs: string[];
  try {
    dirs = readdirSync(base);
  } catch {
    return 0;
  }
  const prefix = `${hostname()}-`;
  for (const dir of dirs) {
    if (!dir.startsWith(prefix)) continue;
    const pid = Number(dir.slice(prefix.length));
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
      continue;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EPERM') continue;
    }
    for (const tournament of readdirSync(join(base, dir)))
      killed += killLeftoverGroups(join(base, dir, tournament));
  }
  return killed;
}

export async function runWorker(options: WorkerOptions): Promise<void> {
  const { store, queue, worker, log, signal } = options;
  const now = options.now ?? Date.now;
  const pollMs = options.pollMs ?? 500;
  const statusMs = options.statusMs ?? 2000;
  const concurrency = Math.max(1, Math.floor(options.concurrency));
  const supports = new Map<string, TournamentSupport>();
  for (const g of options.games) if (g.tournament) supports.set(g.name, g.tournament);
  const gameNames = [...supports.keys()];
  if (gameNames.length === 0) throw new Error('the worker has no game with tournaments to play');
  // Every tournament's programs may come here: boxes as on a single machine, or no start at all.
  if (options.programs === undefined) {
    requireBoxes('this worker');
    log.info({ isolation: 'bwrap', cgroups: cgroupSupport().kind }, 'entrant programs run in boxes');
  }
  const leftovers = killLeftoversOfDeadWorkers(options.workDir);
  if (leftovers > 0) log.warn({ processes: leftovers }, 'killed programs left behind by a worker that was killed');
  const programsOf =
    options.programs ?? ((tournament: string) => sandboxPrograms(join(workerPidDir(options.workDir), tournament)));

  // One arena per game and port range: tournaments that listen in the same range share it, one
  // whose file names another range gets its own (opened with its first match, closed at the end).
  const arenas = new Map<string, Promise<TournamentArena>>();
  const arenaFor = (spec: TournamentSpec): Promise<TournamentArena> => {
    const range = arenaPorts(spec, options.ports);
    const key = `${spec.game} ${range === null ? 'any' : formatPortRange(range)}`;
    let arena = arenas.get(key);
    if (!arena) {
      const support = supports.get(spec.game);
      if (!support) return Promise.reject(new Error(`this worker does not play ${spec.game}`));
      arena = openArena(support, spec, { store, log, ports: options.ports });
      arenas.set(key, arena);
      // A server that did not start is tried again with the next job.
      arena.catch(() => arenas.delete(key));
    }
    return arena;
  };

  /** Tournaments as read lately: a job reads its tournament's row at most once a second. */
  const tournaments = new Map<string, { at: number; record: TournamentRecord | null }>();
  const tournamentOf = async (id: string): Promise<TournamentRecord | null> => {
    const cached = tournaments.get(id);
    if (cached && now() - cached.at < 1000) return cached.record;
    const record = await store.getTournament(id);
    tournaments.set(id, { at: now(), record });
    return record;
  };
  /** Notes added to game records after the match counted: they do not hold up the next match. */
  const notes = new Set<Promise<void>>();
  const later = (work: () => Promise<void>): void => {
    const p: Promise<void> = work()
      .catch((err: unknown) => log.warn({ err }, 'could not annotate the match records'))
      .finally(() => notes.delete(p));
    notes.add(p);
  };

  /** The cut-off controllers of the matches in flight, by tournament. */
  const playing = new Map<string, Set<AbortController>>();
  const contexts = new Map<string, MatchContext>();

  const handle = async (job: FetchedJob): Promise<void> => {
    const { tournament, match } = job.data;
    const skip = async (why: string, then: 'complete' | 'cancel' | 'fail') => {
      log.info({ tournament, match, job: job.id, why }, 'job not played');
      if (then === 'complete') await queue.complete(job);
      else if (then === 'cancel') await queue.cancel(job.game, [job.id]);
      else await queue.fail(job, why);
      options.onMatch?.({ tournament, match, outcome: 'skipped' });
    };
    const t = await tournamentOf(tournament);
    if (!t) return skip(`no tournament ${tournament}`, 'fail');
    // A stopped tournament's queued jobs are cancelled; one that slipped through is cancelled here.
    if (t.status !== 'running') return skip(`tournament is ${t.status}`, 'cancel');
    const m = await store.getTournamentMatch(tournament, match);
    if (!m) return skip(`no match ${match} in ${tournament}`, 'fail');
    const claim = await store.claimTournamentMatch(tournament, match, now(), worker);
    if (claim === null) return skip('done already', 'complete');
    const spec = t.spec as TournamentSpec;
    const log1 = log.child({ tournament, match, attempt: claim.attempt });
    if (claim.attempt > 1) {
      // An earlier attempt's worker died mid-match: its game records say so instead of `running`.
      const aborted = await store.abortLiveRecordsOf(`${tournament}/${match}`, now(), 'worker gone: the match was played again');
      if (aborted > 0) log1.info({ records: aborted }, 'marked the game records of an earlier attempt aborted');
    }

    const record = async (played: Extract<PlayedMatch, { kind: 'done' }>): Promise<void> => {
      const { result, records, output } = played;
      const at = now();
      // The game records complete, and the first one naming who played it, before the result
      // counts: a worker killed in between leaves a whole record of an attempt that did not count.
      await store.drain();
      await annotateRecords(store, records.slice(0, 1), { at, type: 'tournament', data: { tournament, match, worker, attempt: claim.attempt } }, log1);
      if (await store.finishClaimedTournamentMatch(tournament, match, claim, { at, result, records, output })) {
        await queue.complete(job);
        // Finished game records of earlier attempts (a worker killed or cut off by an outage after
        // a game of the match had ended) did not count: they say so.
        if (claim.attempt > 1) await supersedeEarlier(store, `${tournament}/${match}`, records, at, log1);
        if (output.length > 0)
          later(() => annotateRecords(store, records.slice(0, 1), { at, type: 'program-output', data: output }, log1));
        log1.info({ seats: m.seats, reason: result.reason }, 'tournament match done');
        options.onMatch?.({ tournament, match, outcome: 'done' });
      } else {
        // Taken over while it played: the other worker's result is the one that counts (once it has
        // one). Its records say why, then are superseded (a later attempt's finish finds none left).
        later(async () => {
          await annotateRecords(
            store,
            records,
            { at, type: 'discarded', data: { worker, attempt: claim.attempt, reason: 'the match was given to another worker while this one played it; this result does not count' } },
            log1,
          );
          const counted = await store.getTournamentMatch(tournament, match);
          await supersedeEarlier(store, `${tournament}/${match}`, counted?.status === 'done' ? counted.records : [], at, log1);
        });
        log1.warn('the match was taken over by another worker; this result is discarded');
        options.onMatch?.({ tournament, match, outcome: 'discarded' });
      }
    };

    if (m.bye) {
      await record({ kind: 'done', result: byeResult(m, spec), records: [], output: [] });
      return;
    }
    const giveBack = async (claimed: TournamentClaim, why: string, then: 'fail' | 'cancel'): Promise<void> => {
      if (!(await store.releaseTournamentMatch(tournament, match, claimed))) return;
      if (then === 'cancel') await queue.cancel(job.game, [job.id]);
      else await queue.fail(job, why);
    };
    let arena: TournamentArena;
    try {
      arena = await arenaFor(spec);
    } catch (err) {
      log1.error({ err }, `the ${spec.game} server did not start`);
      await giveBack(claim, `the ${spec.game} server did not start on ${worker}: ${message(err)}`, 'fail');
      options.onMatch?.({ tournament, match, outcome: 'failed' });
      return;
    }
    let context = contexts.get(tournament);
    if (!context) {
      context = { tournamentId: tournament, spec, workDir: options.workDir, programs: programsOf(tournament), log };
      contexts.set(tournament, context);
    }
    const cut = new AbortController();
    const cutOnStop = () => cut.abort('worker stopped');
    signal.addEventListener('abort', cutOnStop, { once: true });
    let set = playing.get(tournament);
    if (!set) playing.set(tournament, (set = new Set()));
    set.add(cut);
    let played: PlayedMatch;
    try {
      played = await playScheduledMatch(context, arena, m, cut.signal);
    } finally {
      signal.removeEventListener('abort', cutOnStop);
      set.delete(cut);
      if (set.size === 0) playing.delete(tournament);
    }
    if (played.kind === 'done') return record(played);
    if (played.kind === 'failed') {
      log1.error({ err: played.why }, 'tournament match failed');
      await giveBack(claim, `match ${match} (${m.seats.join(' vs ')}) failed on ${worker}: ${played.why}`, 'fail');
      options.onMatch?.({ tournament, match, outcome: 'failed' });
      return;
    }
    // Cut off: by a stop of its tournament (cancelled; a resume queues it again), of this worker
    // (back to the queue, another worker plays it), or by the arena itself (a failed try).
    const why = cut.signal.aborted ? String(cut.signal.reason) : `cut off: ${played.reason}`;
    log1.warn({ why }, 'tournament match cut off');
    await giveBack(claim, `match ${match} on ${worker}: ${why}`, why === 'tournament stopped' ? 'cancel' : 'fail');
    options.onMatch?.({ tournament, match, outcome: 'cut' });
  };

  // Matches of a tournament that was stopped (or failed) meanwhile are cut off.
  // One look at a time: during a database outage a look waits for its return, and looks do not pile up.
  let looking = false;
  const watcher = setInterval(() => {
    if (looking) return;
    looking = true;
    void (async () => {
      for (const [tournament, set] of playing) {
        const t = await store.getTournament(tournament);
        if (t !== null && t.status === 'running') continue;
        for (const c of set) c.abort('tournament stopped');
      }
    })()
      .catch((err: unknown) => log.warn({ err }, 'could not check the tournaments in play'))
      .finally(() => (looking = false));
  }, statusMs);
  watcher.unref();

  const inFlight = new Set<Promise<void>>();
  let turn = 0;
  log.info({ worker, games: gameNames, concurrency }, 'worker ready');
  try {
    while (!signal.aborted) {
      if (inFlight.size >= concurrency) {
        await Promise.race([...inFlight, pauseFor(60_000, signal)]);
        continue;
      }
      // Each game's queue first in turn, so one game's backlog does not starve another's.
      const order = gameNames.map((_, i) => gameNames[(turn + i) % gameNames.length] as string);
      turn++;
      let job: FetchedJob | null;
      try {
        job = await queue.fetch(order);
      } catch (err) {
        // A database outage is logged by the queue (gone, still gone every 10 s, back after how long);
        // the matches in play go on meanwhile and this worker asks again with backoff.
        if (!isConnectionError(err)) log.error({ err }, 'could not take a job from the queue');
        await pauseFor(isConnectionError(err) ? backoffMs(queue.down.failures, 5000) : pollMs * 4, signal);
        continue;
      }
      if (job === null) {
        await pauseFor(pollMs, signal);
        continue;
      }
      const fetched = job;
      const task: Promise<void> = handle(fetched)
        .catch((err: unknown) => {
          log.error({ err, job: fetched.id, ...fetched.data }, 'the job broke; it is left to its lease');
        })
        .finally(() => inFlight.delete(task));
      inFlight.add(task);
    }
    await Promise.all(inFlight);
  } finally {
    await Promise.all(notes);
    clearInterval(watcher);
    for (const arena of arenas.values()) {
      await arena.then(
        (a) => a.close(),
        () => undefined,
      ).catch((err: unknown) => log.warn({ err }, 'an arena did not close cleanly'));
    }
  }
  log.info({ worker }, 'worker stopped');
}
