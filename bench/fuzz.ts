// The fuzz campaign's soak form (`npm run soak -- fuzz`): at least a million generated and mutated
// messages for every protocol codec and every server (test/fuzz/lib), each job in a worker thread
// watched for hangs. A codec must keep its contract on every message; a server, fed over real
// loopback sockets from 127.0.0.2, must stay up, let nothing escape, log no internal error, give
// back what the attacker held and still let a good client on 127.0.0.1 finish a game. Prints a
// table for docs/benchmarks.md; exits 1 on any failure.
//   npx tsx bench/fuzz.ts [--messages 1000000] [--seed <s>] [--only codec:mia,server:dame] [--hang-seconds 60]
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { workerUrl } from '../src/core/worker-url.js';
import { CODECS } from '../test/fuzz/lib/codecs.js';
import { SERVERS } from '../test/fuzz/lib/servers.js';
import type { CodecJob, CodecReport } from './fuzz-codec-worker.js';
import type { ServerJob, ServerReport } from './fuzz-server-child.js';

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
const messages = Number(arg('messages', '1000000'));
const seed = arg('seed', `soak-${new Date().toISOString().slice(0, 10)}`);
const hangMs = Number(arg('hang-seconds', '60')) * 1000;
const only = arg('only', '')
  .split(',')
  .filter((s) => s !== '');

const jobs = [
  ...Object.keys(CODECS).map((name) => ['codec', name] as const),
  ...Object.keys(SERVERS).map((name) => ['server', name] as const),
].filter(([kind, name]) => only.length === 0 || only.includes(`${kind}:${name}`));

interface Row {
  kind: string;
  name: string;
  messages: number;
  generated: number;
  mutated: number;
  seconds: number;
  extra: string;
  problems: string[];
}

/** Reports progress, and fails the job when it makes none for `hangMs`. */
class Watch {
  private last = performance.now();
  private shown = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly label: string,
    onHang: () => void,
  ) {
    this.timer = setInterval(() => {
      if (performance.now() - this.last > hangMs) onHang();
    }, 1000);
  }

  alive(messages?: number, ms?: number): void {
    this.last = performance.now();
    if (messages === undefined || ms === undefined || messages - this.shown < 100_000) return;
    this.shown = messages;
    process.stderr.write(
      `  ${this.label}: ${messages.toLocaleString('en')} messages, ${Math.round(messages / (ms / 1000)).toLocaleString('en')}/s\n`,
    );
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

const failedRow = (kind: string, name: string, started: number, problem: string): Row => ({
  kind,
  name,
  messages: 0,
  generated: 0,
  mutated: 0,
  seconds: (performance.now() - started) / 1000,
  extra: '',
  problems: [problem],
});

/** A codec job in a worker thread: a hang is reported with the message being fed. */
async function runCodec(name: string): Promise<Row> {
  const current = new SharedArrayBuffer(4 + 256 * 1024);
  const job: CodecJob = { name, seed, messages, current };
  const worker = new Worker(await workerUrl(import.meta.url, 'fuzz-codec-worker'), { workerData: job });
  const started = performance.now();
  return new Promise((resolve) => {
    let done = false;
    const finish = (row: Row): void => {
      if (done) return;
      done = true;
      watch.stop();
      void worker.terminate();
      resolve(row);
    };
    const watch = new Watch(`codec ${name}`, () => {
      const n = Atomics.load(new Int32Array(current, 0, 1), 0);
      const input = Buffer.from(new Uint8Array(current, 4, n)).toString('base64');
      finish(
        failedRow(
          'codec',
          name,
          started,
          `no progress for ${hangMs / 1000} s (a hang); the message being fed (base64): ${input}`,
        ),
      );
    });
    worker.on('message', (r: CodecReport) => {
      if (r.type === 'progress') return watch.alive(r.messages, r.ms);
      const s = r.stats;
      finish({
        kind: 'codec',
        name,
        messages: s.messages,
        generated: s.generated,
        mutated: s.mutated,
        seconds: s.ms / 1000,
        extra: `slowest message ${s.slowestMs.toFixed(1)} ms`,
        problems: s.failures.map((f) => `${f.message} (seed ${f.seed}, message ${f.index}): ${f.input}`),
      });
    });
    worker.on('error', (err) =>
      finish(failedRow('codec', name, started, `the worker failed: ${err.stack ?? err.message}`)),
    );
    worker.on('exit', (code) =>
      finish(failedRow('codec', name, started, `the worker exited (${code}) without a report`)),
    );
  });
}

/** A server job in a child process. */
function runServer(name: string): Promise<Row> {
  const child = fork(fileURLToPath(new URL('./fuzz-server-child.ts', import.meta.url)), [], {
    execArgv: ['--expose-gc', '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const started = performance.now();
  const job: ServerJob = { name, seed, messages };
  child.send(job);
  return new Promise((resolve) => {
    let done = false;
    const finish = (row: Row): void => {
      if (done) return;
      done = true;
      watch.stop();
      child.kill();
      resolve(row);
    };
    const watch = new Watch(`server ${name}`, () =>
      finish(failedRow('server', name, started, `no progress for ${hangMs / 1000} s (a hang)`)),
    );
    child.on('message', (r: ServerReport) => {
      if (r.type === 'progress') return watch.alive(r.messages, r.ms);
      const s = r.stats;
      finish({
        kind: 'server',
        name,
        messages: s.messages,
        generated: s.generated,
        mutated: s.mutated,
        seconds: s.ms / 1000,
        extra: `${s.connections.toLocaleString('en')} ${SERVERS[name]!.transport === 'udp' ? 'UDP sockets' : 'connections'}, ${(s.bytes / 2 ** 20).toFixed(0)} MiB, max loop lag ${s.maxLagMs.toFixed(0)} ms, good game ${r.goodGameMs === null ? 'FAILED' : `${r.goodGameMs} ms`}, heap ${r.heapMiB[0].toFixed(0)} → ${r.heapMiB[1].toFixed(0)} MiB`,
        problems: r.problems,
      });
    });
    child.on('exit', (code) =>
      finish(failedRow('server', name, started, `the child exited (${code}) without a report`)),
    );
  });
}

process.env.FUZZ_FIXTURES = fileURLToPath(new URL('../test/fixtures/', import.meta.url));
process.stderr.write(`fuzz: ${messages.toLocaleString('en')} messages per job, seed ${seed}\n`);
const rows: Row[] = [];
for (const [kind, name] of jobs) {
  process.stderr.write(`== ${kind} ${name}\n`);
  rows.push(kind === 'codec' ? await runCodec(name) : await runServer(name));
}

const n = (x: number): string => Math.round(x).toLocaleString('en');
process.stdout.write(`\nSeed \`${seed}\`, ${n(messages)} messages per job.\n\n`);
process.stdout.write(
  '| target | messages | generated | mutated | seconds | messages/s | failures | notes |\n|---|---:|---:|---:|---:|---:|---:|---|\n',
);
for (const r of rows) {
  process.stdout.write(
    `| ${r.kind} ${r.name} | ${n(r.messages)} | ${n(r.generated)} | ${n(r.mutated)} | ${r.seconds.toFixed(1)} | ${n(r.messages / r.seconds)} | ${r.problems.length} | ${r.extra} |\n`,
  );
}
const failed = rows.filter((r) => r.problems.length > 0);
for (const r of failed) {
  process.stdout.write(`\n${r.kind} ${r.name}:\n`);
  for (const p of r.problems.slice(0, 20)) process.stdout.write(`  - ${p}\n`);
}
process.exit(failed.length > 0 ? 1 : 0);
