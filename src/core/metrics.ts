import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

/** One registry for the process; games count into it, the web layer serves it at /metrics. */
export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'spielhalle_process_' });

export const messagesTotal = new Counter({
  name: 'spielhalle_messages_total',
  help: 'Wire messages by game and direction',
  labelNames: ['game', 'dir'] as const,
  registers: [registry],
});

export const badInputTotal = new Counter({
  name: 'spielhalle_bad_input_total',
  help: 'Messages dropped or answered with an error, by game and reason',
  labelNames: ['game', 'reason'] as const,
  registers: [registry],
});

export const matchesTotal = new Counter({
  name: 'spielhalle_matches_total',
  help: 'Finished matches (for Mia: rounds) by game and status',
  labelNames: ['game', 'status'] as const,
  registers: [registry],
});

/** 1 while the record store's writes fail for a transient reason (disk full, I/O error) and rows are held. */
export const recordsWriteFailing = new Gauge({
  name: 'spielhalle_records_write_failing',
  help: 'Whether record store writes are failing (1) and rows are held in memory to be retried',
  registers: [registry],
});

export const recordsHeldRows = new Gauge({
  name: 'spielhalle_records_held_rows',
  help: 'Record store rows held in memory while writes fail',
  registers: [registry],
});

export const recordsRows = new Counter({
  name: 'spielhalle_records_rows_total',
  help: 'Record store rows not written at the first try: retried (held, written later), dropped (a bad row), lost (beyond the memory bound)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

/** How each PostgreSQL record store of the process sees its database (read at scrape time). */
export interface DatabaseState {
  up: boolean;
  downForMs: number;
}

const databases = new Set<() => DatabaseState>();

/**
 * Makes a PostgreSQL record store's database state visible in /metrics until the returned
 * function is called (issue #31). With SQLite nothing is tracked and the two gauges below have no
 * sample; with several stores (tests) the worst of them counts.
 */
export function trackDatabase(state: () => DatabaseState): () => void {
  databases.add(state);
  return () => databases.delete(state);
}

function databaseGauge(name: string, help: string, pick: (states: DatabaseState[]) => number): void {
  new Gauge({
    name,
    help,
    labelNames: ['backend'] as const,
    registers: [registry],
    collect() {
      this.reset();
      if (databases.size > 0) this.set({ backend: 'postgres' }, pick([...databases].map((s) => s())));
    },
  });
}

databaseGauge(
  'spielhalle_database_up',
  '1 while the PostgreSQL that holds the records answers, 0 while it is unreachable (the records wait in memory)',
  (states) => (states.every((s) => s.up) ? 1 : 0),
);
databaseGauge(
  'spielhalle_database_down_seconds',
  'Seconds since the PostgreSQL that holds the records became unreachable (0 while it answers)',
  (states) => Math.max(0, ...states.map((s) => s.downForMs)) / 1000,
);
