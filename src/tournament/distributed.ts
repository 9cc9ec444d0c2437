import type { Logger } from '../core/log.js';
import type { Records } from '../core/record-backend.js';
import type { TournamentMatchRecord } from '../core/record-types.js';
import { GAMES } from '../games/registry.js';
import type { GameModule } from '../games/types.js';
import {
  checkEntrants,
  DEFAULT_LEASE_SECONDS,
  DEFAULT_RETRY_LIMIT,
  expectedTotal,
  firstMatches,
  pairNextSwissRound,
  tournamentResults,
  tournamentSupport,
  type RunOutcome,
  type TournamentProgress,
} from './coordinator.js';
import type { TournamentSpec } from './file.js';
import { recentlyDown } from '../core/pg-outage.js';
import { LifeLock, OUTAGE_GRACE_MS, pauseFor, type MatchQueue, type QueuedJob } from './queue.js';
import type { MatchResult } from './standings.js';
import { StandingsTracker } from './standings-store.js';

/**
 * The coordinator of a distributed tournament (issue #19, `database: postgres://…`): it puts one
 * job per match to play in the queue and watches the record store while `spielhalle worker`
 * processes play them. Everything is in PostgreSQL, so it can be stopped and started again at
 * any time: on start it queues what has no job (a pending match, or a running one whose worker
 * and job are gone) and leaves alone what is queued or in play. While it runs it hands the job of
 * a worker that died (its life lock free) to the queue again at once, rather than after the
 * job's lease; fails the tournament when a match's job has failed all its tries; pairs the next
 * Swiss round; and ends the tournament once every match is recorded. Stopping it (Ctrl-C, the
 * signal) stops the tournament: queued jobs are cancelled, workers cut off the matches in play,
 * and `resume` queues them again. Standings come from the records only.
 */

export interface QueuedRunOptions {
  queue: MatchQueue;
  /** The PostgreSQL url (the coordinator's life lock takes a connection of its own). */
  url: string;
  log: Logger;
  games?: readonly GameModule[];
  signal?: AbortSignal;
  onProgress?(progress: TournamentProgress): void;
  /** Called once this process coordinates the tournament (it holds its lock). */
  onStarted?(): void;
  /** A job not reported on for this long is failed and retried by pg-boss (default 900 s). */
  leaseSeconds?: number;
  /** Tries of a match after its first, before the tournament fails (default 4). */
  retryLimit?: number;
  /** How often the store is read for progress (default 500 ms). */
  pollMs?: number;
  /** How often dead workers and failed jobs are looked for (default 2000 ms). */
  healMs?: number;
  now?: () => number;
}



/** A job in play this long whose match is unclaimed (or done) was left by a dead worker. */
const STALE_JOB_SECONDS = 10;

export class CoordinatedElsewhereError extends Error {
  override name = 'CoordinatedElsewhereError';
}

export async function runQueuedTournament(store: Records, id: string, options: QueuedRunOptions): Promise<RunOutcome> {
  const { queue } = options;
  const now = options.now ?? Date.now;
  const log = options.log.child({ tournament: id });
  const pollMs = options.pollMs ?? 500;
  const healMs = options.healMs ?? 2000;
  const jobOptions = {
    leaseSeconds: options.leaseSeconds ?? DEFAULT_LEASE_SECONDS,
    retryLimit: options.retryLimit ?? DEFAULT_RETRY_LIMIT,
  };
  const record = await store.getTournament(id);
  if (!record) throw new Error(`no tournament "${id}"`);
  const spec = record.spec as TournamentSpec;
  const game = spec.game;
  const fail = async (note: string): Promise<RunOutcome> => {
    log.error({ note }, 'tournament failed');
    await store.setTournamentStatus(id, 'failed', now(), note);
    return 'failed';
  };
  try {
    const problems = checkEntrants(spec, tournamentSupport(game, options.games ?? GAMES));
    if (problems.length > 0) return await fail(problems.join('; '));
  } catch (err) {
    return fail((err as Error).message);
  }

  const stop = new AbortController();
  const lost: { err: Error | null } = { err: null };
  // Lost only for good when another coordinator holds it after an outage; an outage alone is ridden
  // out: the store's and the queue's calls wait for the database and the watching goes on after it.
  const lock = await LifeLock.take(
    options.url,
    `coordinator:${id}`,
    (err) => {
      lost.err = err;
      stop.abort();
    },
    10_000,
    { log },
  );
  if (lock === null) throw new CoordinatedElsewhereError(`tournament ${id} is coordinated by another process already`);
  const onAbort = () => stop.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  options.onStarted?.();
  try {
    if ((await store.listTournamentMatches(id)).length === 0) await store.addTournamentMatches(id, firstMatches(spec));
    await store.setTournamentStatus(id, 'running', now());

    /** The jobs of this run (queued now or found queued), by id: failures of older ones do not count. */
    const ours = new Set<string>();
    const liveJobs = async (): Promise<Map<string, QueuedJob[]>> => {
      const byMatch = new Map<string, QueuedJob[]>();
      for (const job of await queue.jobsOf(game, id, ['created', 'retry', 'active'])) {
        const list = byMatch.get(job.match) ?? [];
        list.push(job);
        byMatch.set(job.match, list);
      }
      return byMatch;
    };
    /** Queues every match that is not done and has no job waiting or in play. */
    const queueMissing = async (): Promise<number> => {
      const live = await liveJobs();
      for (const jobs of live.values()) for (const j of jobs) ours.add(j.id);
      const open = (await store.listTournamentMatches(id)).filter((m) => m.status !== 'done' && !live.has(m.id));
      // A running match without a job: its worker died and its job is over. Back to pending.
      for (const m of open) if (m.status === 'running') await store.resetTournamentMatch(id, m.id);
      if (open.length === 0) return 0;
      const sent = await queue.enqueue(game, id, open.map((m) => m.id), jobOptions);
      for (const jobId of sent.values()) ours.add(jobId);
      return open.length;
    };

    const queued = await queueMissing();
    log.info({ queued }, 'tournament queued for workers');

    /** Workers whose life lock is free, with the jobs of their matches failed so they are retried now. */
    const heal = async (): Promise<string | null> => {
      const running = await store.listTournamentMatches(id, { status: 'running' });
      const gone = await queue.goneWorkers([...new Set(running.flatMap((m) => (m.worker === null ? [] : [m.worker])))]);
      if (gone.size > 0) {
        const live = await liveJobs();
        for (const m of running) {
          if (m.worker === null || !gone.has(m.worker)) continue;
          const active = (live.get(m.id) ?? []).filter((j) => j.state === 'active');
          log.warn({ match: m.id, worker: m.worker, jobs: active.map((j) => j.id) }, 'the worker of a running match is gone; its job is retried');
          if (active.length > 0) for (const j of active) await queue.fail(j, `worker ${m.worker} is gone`);
        }
        await queueMissing();
      }
      // A worker that died between taking a job and claiming its match (or between recording the
      // result and completing the job) leaves the job in play with no one on it: the match is
      // still pending (or done already) long after a worker would have claimed it (or completed it).
      // Not just after an outage: a worker that took a job may still be waiting for its claim.
      const stale = recentlyDown(OUTAGE_GRACE_MS) ? [] : await queue.activeSince(game, id, STALE_JOB_SECONDS);
      if (stale.length > 0) {
        const byId = new Map((await store.listTournamentMatches(id)).map((m) => [m.id, m]));
        for (const j of stale) {
          const m = byId.get(j.match);
          if (m?.status === 'pending') {
            log.warn({ match: j.match, job: j.id }, 'a job in play for a match nobody claimed: its worker is gone; retried');
            await queue.fail(j, 'the worker that took it is gone');
          } else if (m?.status === 'done') await queue.complete(j);
        }
      }
      const failed = (await queue.jobsOf(game, id, ['failed'])).filter((j) => ours.has(j.id));
      if (failed.length === 0) return null;
      const done = new Set((await store.listTournamentMatches(id, { status: 'done' })).map((m) => m.id));
      const bad = failed.find((j) => !done.has(j.match));
      return bad === undefined ? null : `match ${bad.match} failed all its tries: ${bad.message ?? 'no reason given'}`;
    };

    /** Swiss: once a round is all done, the next one from the results so far. */
    const nextRound = async (): Promise<boolean> => {
      if (!(await pairNextSwissRound(store, id, spec, await tournamentResults(store, id)))) return false;
      await queueMissing();
      return true;
    };

    const startedAt = now();
    const doneAtStart = record.done;
    let reported = doneAtStart;
    // The live standings (issue 38): the saved ones, then each result the workers record, read by
    // the finish_seq cursor (a page, not every result); saved back at most every second.
    const standings = await StandingsTracker.open(store, id, spec.entrants.map((e) => e.name));
    let lastHeal = 0;
    let running: TournamentMatchRecord[] = [];
    const progress = async (done: number, total: number, finished: MatchResult | undefined, leader: string | null): Promise<TournamentProgress> => {
      const elapsedMs = now() - startedAt;
      const perMinute = elapsedMs > 0 ? ((done - doneAtStart) * 60_000) / elapsedMs : 0;
      const all = spec.format === 'swiss' ? expectedTotal(spec, await store.listTournamentMatches(id)) : total;
      return {
        id,
        done,
        total: all,
        running: running.map((m) => m.id),
        startedAt,
        elapsedMs,
        perMinute,
        etaMs: perMinute > 0 ? ((all - done) / perMinute) * 60_000 : null,
        leader,
        ...(finished === undefined ? {} : { finished }),
      };
    };

    /** The standings into the store: at most every second while it runs, and at its end. */
    const saveStandings = (end: boolean): Promise<void> => standings.saveOrWarn(now(), end, log);

    for (;;) {
      if (stop.signal.aborted) break;
      const t = await store.getTournament(id);
      if (!t) return await fail('the tournament was deleted');
      // Stopped or failed from elsewhere (another node's dashboard): this run ends with it.
      if (t.status === 'stopped' || t.status === 'failed') {
        await cancelQueued();
        log.info({ status: t.status }, 'the tournament was ended elsewhere');
        return t.status;
      }
      if (now() - lastHeal >= healMs) {
        lastHeal = now();
        const failure = await heal();
        if (failure !== null) {
          await cancelQueued();
          return await fail(failure);
        }
        running = await store.listTournamentMatches(id, { status: 'running' });
      }
      if (t.done !== reported) {
        const fresh = await standings.catchUp();
        reported = t.done;
        // One leader for the lot: the standings after all of them (a fit per result would be wasted).
        const leader = standings.live.results > 0 ? standings.live.leader() : null;
        try {
          if (fresh.length === 0) options.onProgress?.(await progress(t.done, t.total, undefined, leader));
          for (const [i, r] of fresh.entries())
            options.onProgress?.(await progress(t.done - fresh.length + i + 1, t.total, r, leader));
        } catch (err) {
          log.warn({ err }, 'onProgress threw');
        }
        await saveStandings(false);
      }
      if (t.done >= t.total && !(await nextRound())) {
        await saveStandings(true);
        await store.setTournamentStatus(id, 'finished', now());
        log.info('tournament finished');
        return 'finished';
      }
      await pauseFor(pollMs, stop.signal);
    }
    if (lost.err !== null) {
      log.error({ err: lost.err }, 'lost the coordinator lock (another coordinator holds it now); the workers go on');
      return 'failed';
    }
    await cancelQueued();
    await saveStandings(true);
    await store.setTournamentStatus(id, 'stopped', now(), 'stopped');
    log.info('tournament stopped; the workers cut off its matches in play');
    return 'stopped';
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    await lock.release();
  }

  /** Jobs that wait are cancelled (a resume queues their matches again); those in play the workers cut off. */
  async function cancelQueued(): Promise<void> {
    try {
      const waiting = await queue.jobsOf(game, id, ['created', 'retry']);
      await queue.cancel(game, waiting.map((j) => j.id));
    } catch (err) {
      log.warn({ err }, 'could not cancel the queued jobs');
    }
  }
}
