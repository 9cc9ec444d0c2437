import { Counter, Registry, collectDefaultMetrics } from 'prom-client';

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
