// A server job of bench/fuzz.ts in a process of its own (the servers need the record store's
// native module and their own worker threads): the server, the attacker on 127.0.0.2 and the good
// client afterwards, progress and the result over IPC.
import { getHeapStatistics } from 'node:v8';
import { MessageSource } from '../test/fuzz/lib/campaign.js';
import { CODECS } from '../test/fuzz/lib/codecs.js';
import { attack, errorLog, escapes, SERVERS, type AttackStats } from '../test/fuzz/lib/servers.js';

export interface ServerJob {
  readonly name: string;
  readonly seed: string;
  readonly messages: number;
}

export type ServerReport =
  | { readonly type: 'progress'; readonly messages: number; readonly ms: number }
  | {
      readonly type: 'done';
      readonly stats: AttackStats;
      readonly problems: string[];
      readonly goodGameMs: number | null;
      /** The heap after a full GC, with the server up: before the attack and after the good game. */
      readonly heapMiB: readonly [before: number, after: number];
    };

const post = (r: ServerReport): void => {
  process.send!(r);
};

process.once('message', (job: ServerJob) => {
  void run(job).then(() => process.disconnect());
});

async function run(job: ServerJob): Promise<void> {
  const target = SERVERS[job.name]!;
  const { log, errors } = errorLog();
  const escaped = escapes();
  const server = await target.start(log);
  // fast-check builds its tables of code points once (about 80 MiB): before the first measurement.
  const warmUp = new MessageSource(CODECS[target.codec]!(), 'warm-up');
  for (let i = 0; i < 2000; i++) warmUp.next();
  const before = heapAfterGc();
  let after = before;
  const problems: string[] = [];
  let goodGameMs: number | null = null;
  let stats: AttackStats;
  try {
    stats = await attack(target, server.port, {
      seed: job.seed,
      maxMessages: job.messages,
      onProgress: (s) => post({ type: 'progress', messages: s.messages, ms: s.ms }),
    });
    if (server.status() !== 'running') problems.push(`the server is ${server.status()}`);
    const deadline = Date.now() + 10_000;
    const allowed = target.transport === 'udp' ? 4 : 0;
    while (server.clients() > allowed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (server.clients() > allowed)
      problems.push(`the server still holds ${server.clients()} of the attacker's clients`);
    const t0 = Date.now();
    try {
      await server.goodGame();
      goodGameMs = Date.now() - t0;
    } catch (err) {
      problems.push(`the good client did not complete a game: ${(err as Error).message}`);
    }
    if (stats.maxLagMs > 2000)
      problems.push(`the event loop was blocked for ${stats.maxLagMs.toFixed(0)} ms`);
    after = heapAfterGc();
  } finally {
    escaped.remove();
    await server.stop();
  }
  for (const e of escaped.list)
    problems.push(`escaped every boundary: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  for (const e of errors) problems.push(`logged at error level: ${e}`);
  post({ type: 'done', stats, problems, goodGameMs, heapMiB: [before, after] });
}

function heapAfterGc(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return getHeapStatistics().used_heap_size / 2 ** 20;
}
