// Issue 30: what a box adds to a match's program start. The same programs started N times without
// a box (isolation: none) and in one (bwrap): /bin/true to its exit, and a C-like client's first
// byte at its game's TCP endpoint (a shell's /dev/tcp, no Node of its own), median and p90 in ms.
//   npx tsx bench/sandbox.ts [--runs 30]
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { createSandboxLauncher } from '../src/tournament/sandbox.js';
import { bwrapWorks } from '../src/sandbox/box.js';

const i = process.argv.indexOf('--runs');
const runs = i >= 0 ? Number(process.argv[i + 1]) : 30;
const root = mkdtempSync(path.join(tmpdir(), 'bench-sandbox-'));
const works = bwrapWorks();
if (!works.ok) {
  console.log(`no boxes on this machine: ${works.why}`);
  process.exit(1);
}

let firstByte: (() => void) | null = null;
const server = createServer((s) => s.once('data', () => (firstByte?.(), s.destroy())));
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const port = (server.address() as { port: number }).port;

const stats = (xs: number[]): string => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (f: number) => s[Math.min(s.length - 1, Math.floor(f * s.length))]!;
  return `median ${q(0.5).toFixed(1)} ms, p90 ${q(0.9).toFixed(1)} ms`;
};

async function measure(isolation: 'none' | 'bwrap', what: 'exit' | 'connect'): Promise<number[]> {
  const times: number[] = [];
  for (let n = 0; n < runs; n++) {
    const command = what === 'exit' ? '/bin/true' : `/bin/bash -c "exec 3<>/dev/tcp/127.0.0.1/{port}; echo hi >&3; sleep 1"`;
    const s = createSandboxLauncher({ command, cwd: path.join(root, `${isolation}-${n}`), limits: { wallSeconds: 20 }, isolation });
    const t0 = performance.now();
    if (what === 'exit') {
      await s.launch({ port: String(port) }, { tcp: [port], udp: [] }).exited;
    } else {
      const got = new Promise<void>((resolve) => (firstByte = resolve));
      const run = s.launch({ port: String(port) }, { tcp: [port], udp: [] });
      await got;
      times.push(performance.now() - t0);
      await run.stop();
      continue;
    }
    times.push(performance.now() - t0);
  }
  return times;
}

console.log(`${cpus().length} × ${cpus()[0]?.model ?? '?'}, Node ${process.version}, ${new Date().toISOString()}, ${runs} runs each`);
for (const what of ['exit', 'connect'] as const) {
  const none = await measure('none', what);
  const boxed = await measure('bwrap', what);
  const label = what === 'exit' ? '/bin/true, start to exit' : 'a client, start to its first byte at the game';
  console.log(`${label}: none ${stats(none)}; bwrap ${stats(boxed)}; added: median ${(median(boxed) - median(none)).toFixed(1)} ms`);
}
server.close();
rmSync(root, { recursive: true, force: true });

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}
