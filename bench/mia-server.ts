// Mia server under load: N bot clients over loopback UDP, start-early on.
// Measures rounds per second, the time from a player's message to the server's answer
// (ROLL -> ROLLED, ANNOUNCE -> ANNOUNCED, SEE -> PLAYER WANTS TO SEE, as seen by that player),
// and the server's memory over the run.
//   npx tsx bench/mia-server.ts [--bots 50] [--seconds 20] [--soak (100 000 rounds)]
import { fork } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Rng } from '../src/core/rng.js';
import { chanceToBeat, formatDice, isHigher, nextHigher, parseDice, type Dice } from '../src/games/mia/dice.js';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const soak = process.argv.includes('--soak');
const botCount = arg('bots', 50);
const seconds = arg('seconds', soak ? 3600 : 20);
const targetRounds = arg('rounds', soak ? 100_000 : Infinity);

interface Stats {
  rounds: number;
  rss: number;
  heap: number;
}

const child = fork(fileURLToPath(new URL('./mia-server-child.ts', import.meta.url)), [], {
  execArgv: ['--import', 'tsx', ...(process.env.PROF ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.PROF] : [])],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const port = await new Promise<number>((resolve) =>
  child.once('message', (m: { type: string; port: number }) => resolve(m.port)),
);
function stats(): Promise<Stats> {
  return new Promise((resolve) => {
    child.once('message', (m: Stats & { type: string }) => resolve(m));
    child.send({ type: 'stats' });
  });
}

const latencies: number[] = [];
const rng = Rng.seeded('bench-bots');

class Bot {
  private socket: Socket;
  private last: Dice | null = null;
  private sentAt = 0;
  private awaiting: string | null = null;
  constructor(readonly name: string) {
    this.socket = createSocket('udp4');
    this.socket.on('message', (msg) => this.onMessage(msg.toString()));
  }
  async start(): Promise<void> {
    await new Promise<void>((r) => this.socket.bind(0, '127.0.0.1', r));
    this.socket.send(`REGISTER;${this.name}`, port, '127.0.0.1');
  }
  private send(line: string, awaiting: string | null): void {
    this.sentAt = performance.now();
    this.awaiting = awaiting;
    this.socket.send(line, port, '127.0.0.1');
  }
  private onMessage(line: string): void {
    if (this.awaiting !== null && line.startsWith(this.awaiting)) {
      latencies.push(performance.now() - this.sentAt);
      this.awaiting = null;
    }
    const [cmd, a, b] = line.split(';');
    switch (cmd) {
      case 'ROUND STARTING':
        this.last = null;
        this.send(`JOIN;${a!}`, null);
        break;
      case 'ANNOUNCED':
        this.last = parseDice(b);
        break;
      case 'YOUR TURN':
        if (this.last !== null && chanceToBeat(this.last) < 0.4 && rng.chance(0.7)) this.send(`SEE;${a!}`, `PLAYER WANTS TO SEE;${this.name}`);
        else this.send(`ROLL;${a!}`, 'ROLLED;');
        break;
      case 'ROLLED': {
        const rolled = parseDice(a) as Dice;
        const claim = this.last === null || isHigher(rolled, this.last) ? rolled : (nextHigher(this.last) ?? rolled);
        this.send(`ANNOUNCE;${formatDice(claim)};${b!}`, `ANNOUNCED;${this.name};`);
        break;
      }
    }
  }
  close(): void {
    this.socket.close();
  }
}

const bots = Array.from({ length: botCount }, (_, i) => new Bot(`bench${i}`));
for (const bot of bots) await bot.start();

const begin = await stats();
const started = performance.now();
const samples: Stats[] = [begin];
let lastReport = started;
for (;;) {
  await new Promise((r) => setTimeout(r, 1000));
  const s = await stats();
  samples.push(s);
  const elapsed = (performance.now() - started) / 1000;
  if (soak && performance.now() - lastReport > 10_000) {
    lastReport = performance.now();
    process.stderr.write(`  ${s.rounds - begin.rounds} rounds, ${(s.rss / 2 ** 20).toFixed(1)} MiB RSS, ${(s.heap / 2 ** 20).toFixed(1)} MiB heap\n`);
  }
  if (elapsed >= seconds || s.rounds - begin.rounds >= targetRounds) break;
}
const end = samples[samples.length - 1]!;
const elapsed = (performance.now() - started) / 1000;
for (const bot of bots) bot.close();
child.send({ type: 'stop' });

latencies.sort((x, y) => x - y);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
const rounds = end.rounds - begin.rounds;
// Memory over the run: compare the first and last quarter (after warm-up) to see whether it grows.
const q = Math.max(1, Math.floor(samples.length / 4));
const mean = (xs: Stats[], f: (s: Stats) => number) => xs.reduce((n, s) => n + f(s), 0) / xs.length;
const early = samples.slice(1, 1 + q);
const late = samples.slice(-q);
const mib = (b: number) => (b / 2 ** 20).toFixed(1);

console.log(`\n## Mia server, ${botCount} bots over loopback UDP, start-early on${soak ? ' (soak)' : ''}`);
console.log(`machine: ${cpus()[0]?.model ?? '?'} (${cpus().length} cores), node ${process.version}, ${new Date().toISOString().slice(0, 10)}`);
console.log(`command: npx tsx bench/mia-server.ts --bots ${botCount} ${soak ? '--soak' : `--seconds ${seconds}`}\n`);
console.log('| rounds | seconds | rounds/s | answers timed | p50 ms | p99 ms | max ms | RSS first→last quarter MiB | heap first→last quarter MiB |');
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
console.log(
  `| ${rounds} | ${elapsed.toFixed(1)} | ${(rounds / elapsed).toFixed(1)} | ${latencies.length} | ${pct(50).toFixed(2)} | ${pct(99).toFixed(2)} | ${pct(100).toFixed(2)} | ${mib(mean(early, (s) => s.rss))} → ${mib(mean(late, (s) => s.rss))} | ${mib(mean(early, (s) => s.heap))} → ${mib(mean(late, (s) => s.heap))} |`,
);
