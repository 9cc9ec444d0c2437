/**
 * The Catan bots through the real server (issue 8): games over loopback TCP between our protocol
 * clients (createCatanServer + CatanClient), checking that the bots cause no protocol errors and
 * no timeouts.
 *
 *   npx tsx bench/catan-wire.ts [--games 100] [--parallel 4] [--lineup search,weighted,weighted,weighted]
 *       [--seed S] [--depth 3] [--beam 4] [--samples 6] [--no-trades]
 *
 * Game n seats the lineup rotated by n (the server draws the turn order). The server runs with
 * its defaults (D10: 10 s per decision in games of AI clients), in this process; the clients
 * connect game by game so each lobby gets its own four, each asking for its own colour. With
 * `--no-trades` no bot offers or accepts domestic trades. Reports finished and aborted games, every
 * `Fehler` the clients received, the server's timeouts (from its records), refusals and driver
 * fallbacks, wins per strategy and decision times per strategy.
 */
import { cpus, loadavg } from 'node:os';
import { silentLogger } from '../src/core/log.js';
import { RecordStore } from '../src/core/records.js';
import { CatanClient, createCatanBot, type CatanBot, type CatanStrategy } from '../src/games/catan/client.js';
import { CATAN_STRATEGIES } from '../src/games/catan/driver.js';
import { COLOURS } from '../src/games/catan/rules/index.js';
import { createCatanServer } from '../src/games/catan/server.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const games = Number(flag('games', '100'));
const parallel = Number(flag('parallel', '4'));
const seed = flag('seed', 'catan-wire');
const lineup = flag('lineup', 'search,weighted,weighted,weighted').split(',') as CatanStrategy[];
for (const s of lineup) if (!CATAN_STRATEGIES.includes(s)) throw new Error(`unknown strategy ${s}`);
const trades = !process.argv.includes('--no-trades');
const search = { depth: Number(flag('depth', '3')), beam: Number(flag('beam', '4')), samples: Number(flag('samples', '6')), trades };

const times = new Map<string, number[]>();
/** The bot with its decisions timed. */
function timed(strategy: CatanStrategy, botSeed: string): CatanBot {
  const bot = createCatanBot(strategy, botSeed, { search, trades });
  let list = times.get(strategy);
  if (!list) times.set(strategy, (list = []));
  const into = list;
  return {
    strategy,
    decide: (ctx) => {
      const t0 = performance.now();
      const a = bot.decide(ctx);
      into.push(performance.now() - t0);
      return a;
    },
  };
}

async function main(): Promise<void> {
  const store = new RecordStore(':memory:');
  const server = createCatanServer({ host: '127.0.0.1', port: 0, seed, log: silentLogger, store });
  await server.start();
  console.log(
    `catan-wire: ${games} games, ${parallel} at once, lineup ${lineup.join(', ')}, trades ${trades ? 'on' : 'off'}, seed ${seed}; ${cpus().length} × ${cpus()[0]?.model ?? '?'}, ` +
      `Node ${process.version}, load ${loadavg().map((l) => l.toFixed(1)).join(' / ')}, ${new Date().toISOString()}`,
  );
  let fehler = 0;
  const fehlerTexts = new Map<string, number>();
  let finished = 0;
  let aborted = 0;
  let unreadable = 0;
  let refused = 0;
  let fallbacks = 0;
  const wins = new Map<string, number>();
  let next = 0;
  let joining: Promise<void> = Promise.resolve();
  const t0 = performance.now();

  const one = async (n: number): Promise<void> => {
    let entered!: () => void;
    const turn = joining;
    joining = new Promise((resolve) => (entered = resolve));
    await turn;
    const clients: CatanClient[] = [];
    const strategyOf = new Map<CatanClient, string>();
    for (let i = 0; i < 4; i++) {
      const strategy = lineup[(i + n) % lineup.length]!;
      const name = `${strategy} ${n}-${i}`;
      const c = new CatanClient({
        host: '127.0.0.1',
        port: server.port,
        name,
        colour: COLOURS[i],
        bot: timed(strategy, `${seed}/${name}`),
        onLine: (dir, line) => {
          if (dir !== 'in' || !line.startsWith('{"Fehler"')) return;
          fehler++;
          fehlerTexts.set(line, (fehlerTexts.get(line) ?? 0) + 1);
        },
      });
      strategyOf.set(c, strategy);
      clients.push(c);
      await c.start();
    }
    const started = setInterval(() => {
      if (clients.every((c) => c.view.stage === 'game' || c.view.stage === 'over')) {
        clearInterval(started);
        entered();
      }
    }, 2);
    const results = await Promise.all(clients.map((c) => c.done));
    clearInterval(started);
    entered();
    const winner = results.find((r) => r.won);
    if (winner) {
      finished++;
      const c = clients[results.indexOf(winner)]!;
      wins.set(strategyOf.get(c)!, (wins.get(strategyOf.get(c)!) ?? 0) + 1);
    } else aborted++;
    for (const r of results) {
      unreadable += r.stats.unreadable;
      refused += r.stats.refused;
      fallbacks += r.stats.fallbacks;
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(parallel, games) }, async () => {
      while (next < games) await one(next++);
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  await server.stop();
  const matches = store.listMatches({ game: 'catan', limit: 1000 });
  const timeouts = matches.reduce((n, m) => n + ((m.result as { timeouts?: number } | null)?.timeouts ?? 0), 0);
  store.close();

  console.log();
  console.log('| games | finished | aborted | Fehler | timeouts | unreadable | refused | fallbacks | wall s | games/s |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  console.log(`| ${games} | ${finished} | ${aborted} | ${fehler} | ${timeouts} | ${unreadable} | ${refused} | ${fallbacks} | ${wall.toFixed(1)} | ${(games / wall).toFixed(2)} |`);
  for (const [text, n] of fehlerTexts) console.log(`  ${n} × ${text}`);
  console.log();
  console.log('| strategy | seats | wins | decisions | p50 ms | p99 ms | max ms |');
  console.log('|---|---|---|---|---|---|---|');
  for (const [strategy, list] of times) {
    const seats = lineup.filter((s) => s === strategy).length * games;
    const s = Float64Array.from(list).sort();
    const q = (x: number): string => (s.length ? s[Math.min(s.length - 1, Math.floor(x * s.length))]!.toFixed(2) : 'n/a');
    console.log(`| ${strategy} | ${seats} | ${wins.get(strategy) ?? 0} | ${s.length} | ${q(0.5)} | ${q(0.99)} | ${q(1)} |`);
  }
}

await main();
