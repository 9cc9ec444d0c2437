import type { Stoppable } from './lifecycle.js';
import type { Logger } from './log.js';
import type { PruneOptions, PruneResult } from './records.js';

/**
 * Retention: the serving process prunes the record store on a timer, so that a server left
 * running for a term keeps a bounded file. House games go at their own, short age; then whole
 * matches by age, wire logs by age, and under the size cap house games first, then played games,
 * then ladder games, oldest first. A tournament's records are never taken until the tournament
 * is archived or deleted on purpose (record-keep.ts, issue 37).
 */

export interface RetentionSettings {
  /** Finished and aborted matches older than this many days are deleted (0: kept). */
  keepDays: number;
  /** House games (the server's bots among themselves) older than this many days are deleted (0: as keepDays). */
  houseKeepDays: number;
  /** Wire logs of matches older than this many days are deleted, the matches stay (0: kept). */
  wireKeepDays: number;
  /** The oldest matches are deleted while the store uses more than this (0: no cap). */
  maxMegabytes: number;
  pruneEveryMinutes: number;
}

const DAY = 86_400_000;

/** The prune options that the settings mean at time `now`. */
export function retentionPrune(s: RetentionSettings, now: number): PruneOptions {
  return {
    matchesBefore: s.keepDays > 0 ? now - s.keepDays * DAY : undefined,
    houseBefore: s.houseKeepDays > 0 ? now - s.houseKeepDays * DAY : undefined,
    wireBefore: s.wireKeepDays > 0 ? now - s.wireKeepDays * DAY : undefined,
    maxBytes: s.maxMegabytes > 0 ? s.maxMegabytes * 1024 * 1024 : undefined,
  };
}

/** Parses `30d`, `12h`, `90m`, `45s` or a plain number of days into milliseconds. */
export function parseAge(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*([dhms]?)$/.exec(text.trim());
  if (!m) return null;
  const n = Number(m[1]);
  const unit = { d: DAY, h: 3_600_000, m: 60_000, s: 1000, '': DAY }[m[2] as 'd' | 'h' | 'm' | 's' | ''];
  return n * unit;
}

export function startRetention(
  store: { prune(o: PruneOptions): Promise<PruneResult> },
  settings: RetentionSettings,
  log: Logger,
  o: { firstDelayMs?: number; now?: () => number } = {},
): Stoppable & { runNow(): Promise<PruneResult | null> } {
  const now = o.now ?? Date.now;
  let running: Promise<PruneResult | null> | null = null;
  let stopped = false;
  const runNow = (): Promise<PruneResult | null> => {
    if (stopped) return Promise.resolve(null);
    // One time for the cut-offs and the notes the pruned records leave.
    const at = now();
    running ??= store
      .prune({ ...retentionPrune(settings, at), reason: 'retention', now: at })
      .then((r) => {
        if (r.matches > 0 || r.wireRows > 0)
          log.info({ matches: r.matches, wireRows: r.wireRows, mbBefore: mb(r.bytesBefore), mbAfter: mb(r.bytesAfter) }, 'records pruned');
        if (r.capUnmet === true)
          log.warn(
            { mbAfter: mb(r.bytesAfter), capMb: settings.maxMegabytes },
            'records: the store stays above records.maxMegabytes: what is left belongs to tournaments, which retention keeps until they are archived or deleted (spielhalle tournament archive|delete)',
          );
        return r;
      })
      .catch((err: unknown) => {
        log.error({ err }, 'records: pruning failed');
        return null;
      })
      .finally(() => {
        running = null;
      });
    return running;
  };
  const active = settings.keepDays > 0 || settings.houseKeepDays > 0 || settings.wireKeepDays > 0 || settings.maxMegabytes > 0;
  const first = active ? setTimeout(() => void runNow(), o.firstDelayMs ?? 10_000) : null;
  const every = active ? setInterval(() => void runNow(), settings.pruneEveryMinutes * 60_000) : null;
  first?.unref();
  every?.unref();
  return {
    name: 'record retention',
    runNow,
    async stop() {
      stopped = true;
      if (first) clearTimeout(first);
      if (every) clearInterval(every);
      await running;
    },
  };
}

const mb = (bytes: number): number => Math.round((bytes / 1048576) * 10) / 10;
