/**
 * The Catan server under load, and the leak oracle over the wire.
 *
 *   npx tsx bench/catan-server.ts [--games 200] [--think-ms 0] [--seconds 0] [--workers 2] [--seed S] [--nostore]
 *     N concurrent 4-player games of baseline-R bots over loopback TCP, the server in a process of
 *     its own (with the record store on disk unless --nostore), the clients in --workers processes.
 *     Bots answer after --think-ms; with --seconds the run is a window of that length (measured
 *     from the first join), after which the clients leave and the games still running end (D9).
 *     Reports the time from a client's action to its OK and to the first line of the broadcast at
 *     each other player of the game (p50/p90/p99/max), the server's memory and CPU, Fehler answers,
 *     unreadable lines and aborted games (goal: p99 < 10 ms, no errors).
 *
 *   npx tsx bench/catan-server.ts --leak-games 1000 [--parallel 8] [--seed S]
 *     The acceptance run of issue 7: seeded 4-player games through the real server over TCP, every
 *     line each client and the spectator stream received judged by the leak oracle against the full
 *     history (test/games/catan/wire-leaks.ts). Exit code 1 on any finding.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { playWireGames, wireLeaks } from '../test/games/catan/wire-leaks.js';

const flag = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
const seed = flag('seed', 'catan-bench');

const conditions = (): string =>
  `${cpus().length} × ${cpus()[0]?.model ?? '?'}, Node ${process.version}, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ')}`;

/** How fast this machine is right now: µs per JSON.stringify of a Statusupdate (a desktop core: about 1). */
function calibration(): string {
  const o = { Spieler: { id: 123456789, Farbe: 'Rot', Name: 'Zufall 1', Status: 'Warten', Siegpunkte: 4, Rohstoffe: { Unbekannt: 6 }, Rittermacht: 0, Entwicklungskarten: { Unbekannt: 1 } } };
  let n = 0;
  const t0 = performance.now();
  for (let i = 0; i < 100_000; i++) n += JSON.stringify(o).length;
  return `JSON.stringify of a Statusupdate: ${(((performance.now() - t0) * 1000) / 100_000).toFixed(2)} µs (${n > 0 ? 'a desktop core: about 1 µs' : ''})`;
}

function percentiles(list: number[]): string {
  if (list.length === 0) return 'n/a';
  const s = [...list].sort((a, b) => a - b);
  const at = (q: number): string => s[Math.min(s.length - 1, Math.floor(q * s.length))]!.toFixed(2);
  return `n=${s.length}  p50 ${at(0.5)}  p90 ${at(0.9)}  p99 ${at(0.99)}  p99.9 ${at(0.999)}  max ${s[s.length - 1]!.toFixed(2)} ms`;
}

async function leakRun(games: number, parallel: number): Promise<void> {
  console.log(`leak oracle over the wire: ${games} games, ${parallel} at once; ${conditions()}`);
  const t0 = performance.now();
  let done = 0;
  let findings = 0;
  let problems = 0;
  let lines = 0;
  let steps = 0;
  await playWireGames({ seed, games, parallel }, (g) => {
    const r = wireLeaks(g);
    findings += r.findings.length;
    problems += r.problems.length;
    for (const f of r.findings.slice(0, 3)) console.log(`  LEAK ${g.matchId} @${f.at} viewer ${String(f.viewer)}: ${f.what}`);
    for (const p of r.problems.slice(0, 3)) console.log(`  PROBLEM ${g.matchId}: ${p}`);
    for (const l of g.lines.values()) lines += l.length;
    steps += g.history.length;
    if (++done % 50 === 0) console.log(`  ${done} games, ${findings} findings, ${problems} problems, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  });
  const s = (performance.now() - t0) / 1000;
  console.log(`| games | steps | lines judged | findings | alignment problems | wall |`);
  console.log(`|---|---|---|---|---|---|`);
  console.log(`| ${done} | ${steps} | ${lines} | ${findings} | ${problems} | ${s.toFixed(0)} s |`);
  process.exit(findings + problems > 0 ? 1 : 0);
}

function message<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { type: string }): void => {
      if (m.type !== type) return;
      child.off('message', on);
      resolve(m as T);
    };
    child.on('message', on);
  });
}

interface ClientResults {
  toOk: number[];
  toOthers: number[];
  fehler: [string, number][];
  finished: number;
  aborted: number;
  unreadable: number;
  actions: number;
  cpu: number;
}

interface ServerStats {
  sys: number;
  rss: number;
  heap: number;
  peakRss: number;
  peakHeap: number;
  cpu: number;
  finished: number;
  aborted: number;
  live: number;
}

async function loadRun(games: number, thinkMs: number, workers: number, store: boolean, seconds: number): Promise<void> {
  const here = (f: string): string => fileURLToPath(new URL(f, import.meta.url));
  const start = `${conditions()}; ${calibration()}`;
  const server = fork(here('./catan-server-child.ts'), [], {
    // PROF=<dir> writes a CPU profile of the server.
    execArgv: ['--import', 'tsx', ...(process.env.PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROF}`] : [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, SEED: seed, ...(store ? {} : { NOSTORE: '1' }) },
  });
  const { port } = await message<{ port: number }>(server, 'ready');
  const before = await (async () => {
    server.send({ type: 'stats' });
    return message<ServerStats>(server, 'stats');
  })();
  const clients = Array.from({ length: workers }, () =>
    fork(here('./catan-server-clients.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
  );
  await Promise.all(clients.map((c) => message(c, 'ready')));
  for (const c of clients) c.send({ type: 'setup', port, seed, thinkMs });
  const t0 = performance.now();
  // One game's four players at a time, so that each lobby holds exactly one game's players.
  for (let g = 0; g < games; g++) {
    const c = clients[g % workers]!;
    const joined = message(c, 'joined');
    c.send({ type: 'join', game: g });
    await joined;
  }
  const joinedAt = performance.now();
  let peakLive = 0;
  const sampler = setInterval(() => {
    server.send({ type: 'stats' });
  }, 1000);
  server.on('message', (m: { type: string; live?: number }) => {
    if (m.type === 'stats' && m.live !== undefined) peakLive = Math.max(peakLive, m.live);
  });
  // Either every game to its end, or (--seconds) a fixed window after which the clients leave.
  const window = seconds > 0 ? new Promise((resolve) => setTimeout(resolve, seconds * 1000)) : null;
  if (window) await window;
  const results = await Promise.all(
    clients.map((c) => {
      const r = message<ClientResults>(c, 'results');
      c.send({ type: window ? 'cut' : 'finish' });
      return r;
    }),
  );
  clearInterval(sampler);
  const wall = (performance.now() - t0) / 1000;
  // The last games' ends reach the server a moment after the clients are done.
  await new Promise((resolve) => setTimeout(resolve, 300));
  server.send({ type: 'stats', detail: true });
  const after = await message<ServerStats & { handled: number[]; loop: { p50: number; p99: number; max: number } }>(server, 'final');
  server.send({ type: 'stop' });
  await new Promise((resolve) => server.once('exit', resolve));
  for (const c of clients) c.kill();
  const all = (k: 'toOk' | 'toOthers'): number[] => results.flatMap((r) => r[k]);
  const fehler = new Map<string, number>();
  for (const r of results) for (const [k, v] of r.fehler) fehler.set(k, (fehler.get(k) ?? 0) + v);
  const sum = (k: 'finished' | 'aborted' | 'unreadable' | 'actions' | 'cpu'): number => results.reduce((n, r) => n + r[k], 0);
  const mb = (b: number): string => `${(b / 2 ** 20).toFixed(0)} MB`;
  console.log(`Catan server: ${games} concurrent 4-player games of baseline R over loopback TCP, think ${thinkMs} ms, ${workers} client processes, record store ${store ? 'on disk' : 'off'}`);
  console.log(`conditions at start: ${start}`);
  console.log(`conditions at end:   ${conditions()}; ${calibration()}`);
  console.log(`all games joined after ${((joinedAt - t0) / 1000).toFixed(1)} s; peak ${peakLive} games running at once; wall ${wall.toFixed(1)} s`);
  console.log(`games: ${sum('finished')} won, ${sum('aborted')} aborted (server: ${after.finished} finished, ${after.aborted} aborted)`);
  console.log(`in-game actions: ${sum('actions')} (${(sum('actions') / wall).toFixed(0)} per second)`);
  console.log(`action -> OK at the actor:               ${percentiles(all('toOk'))}`);
  console.log(`action -> first line at each other player: ${percentiles(all('toOthers'))}`);
  console.log(`server, bytes read -> every line it caused written: ${percentiles(after.handled)}`);
  console.log(`server event-loop delay: p50 ${after.loop.p50.toFixed(2)}  p99 ${after.loop.p99.toFixed(2)}  max ${after.loop.max.toFixed(2)} ms`);
  console.log(`Fehler answers: ${fehler.size === 0 ? 'none' : [...fehler].map(([k, v]) => `${v} × ${k}`).join(', ')}; unreadable lines: ${sum('unreadable')}`);
  console.log(
    `server: CPU ${(after.cpu - before.cpu).toFixed(1)} s, ${(after.sys - before.sys).toFixed(1)} s of it in the kernel (${(((after.cpu - before.cpu) / wall) * 100).toFixed(0)} % of one core), RSS ${mb(before.rss)} -> peak ${mb(after.peakRss)}, heap peak ${mb(after.peakHeap)}; clients CPU ${sum('cpu').toFixed(1)} s`,
  );
  process.exit(0);
}

const leakGames = Number(flag('leak-games', '0'));
if (leakGames > 0) await leakRun(leakGames, Number(flag('parallel', '8')));
else await loadRun(Number(flag('games', '200')), Number(flag('think-ms', '0')), Number(flag('workers', '2')), !process.argv.includes('--nostore'), Number(flag('seconds', '0')));
