import type { Stoppable } from './lifecycle.js';
import type { Logger } from './log.js';
import type { PruneOptions, PruneResult } from './records.js';

/**
 * Retention: the serving process prunes the record store on a timer, so that a server left
 * running for a term keeps a bounded file. Wire logs go first (they are most of the bytes), then
 * whole matches by age, then the oldest matches until the size cap holds.
 */

export interface RetentionSettings {
  /** Finished and aborted matches older than this many days are deleted (0: kept). */
  keepDays: number;
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
    running ??= store
      .prune(retentionPrune(settings, now()))
      .then((r) => {
        if (r.matches > 0 || r.wireRows > 0)
          log.info({ matches: r.matches, wireRows: r.wireRows, mbBefore: mb(r.bytesBefore), mbAfter: mb(r.bytesAfter) }, 'records pruned');
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
  const active = settings.keepDays > 0 || settings.wireKeepDays > 0 || settings.maxMegabytes > 0;
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
