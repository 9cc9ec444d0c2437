// `npm run bench -- ladder`: Die Liga under load (issue 34). N students' clients, each with its
// own code, spread over the five games (the servers with the ladder on, all in this process):
// Dame 30 %, Ostseeschach 20 %, Connect Four 20 %, Mia 20 %, Catan 10 % (at least 3 Catan clients,
// at least 2 of every other game). Each client plays a game and connects again at once, for the
// given time; the ladder pairs students with each other (house bots only after 10 s alone).
// Reported per game: clients, rated games, games a minute, and how soon a waiting client gets its
// game, the pairing latency p50/p99, measured at the client:
//   Dame          from its PLAYER to `+ YOU`;
//   Ostseeschach  from its connect to `joined`;
//   Connect Four  a fresh peer (new UDP port) per game, as a restarted student peer: half the
//                 clients invite the Liga peer (seat 0), from the invitation to the Liga peer's
//                 first move (the inviter's board runs from the invitation; its ladder game starts
//                 with the first relayed move); the other half only announce themselves to it
//                 (seat 1), from the peer's start to `game-started` (the Liga peer invited it);
//   Mia           registered once and staying registered: from REGISTERED, or from the last line
//                 of its previous ladder game, to the `ROUND STARTING` of the next game's first
//                 round (MiaLadderTable, 20 rounds a game);
//   Catan         from its connect (the code as `Name` at the ladder port) to `Spiel gestartet`.
// Besides: the process's CPU (servers, ladder and all clients), and the cost of one rating update
// (rating + store write, timed in-process). Protocol timings are the defaults; the per-host caps
// of the servers are off (every client comes from 127.0.0.1).
//   npx tsx bench/ladder.ts [--clients 200] [--seconds 60] [--move-ms 200]
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { silentLogger } from '../src/core/log.js';
import { RecordStore } from '../src/core/records.js';
import { Rng } from '../src/core/rng.js';
import { createCatanBot } from '../src/games/catan/bots/strategies.js';
import { CatanClient } from '../src/games/catan/client.js';
import { CatanServer } from '../src/games/catan/server.js';
import { chooseMove, type BotLevel } from '../src/games/connect4/bots/index.js';
import type { C4Engine } from '../src/games/connect4/engine.js';
import { Connect4Hub } from '../src/games/connect4/hub.js';
import { AutoPlayer, type PeerEvent } from '../src/games/connect4/peer.js';
import type { C4State } from '../src/games/connect4/rules.js';
import { startUdpPeer, type UdpPeer } from '../src/games/connect4/transport.js';
import { createDameBot } from '../src/games/dame/bots/index.js';
import { DameClient } from '../src/games/dame/client.js';
import { createDameServer } from '../src/games/dame/server.js';
import { createBot as createMiaBot } from '../src/games/mia/bots/index.js';
import { MiaClient } from '../src/games/mia/client.js';
import { MIA_DEFAULTS, MiaServer } from '../src/games/mia/server.js';
import { DEFAULT_ROUNDS } from '../src/games/mia/tournament.js';
import { randomBot } from '../src/games/ostseeschach/bots/random.js';
import { playOnServer } from '../src/games/ostseeschach/client.js';
import { createOstseeschachServer } from '../src/games/ostseeschach/server.js';
import { CatanLadderTable } from '../src/ladder/catan.js';
import { Connect4LadderTable } from '../src/ladder/connect4.js';
import { DameLadderTable } from '../src/ladder/dame.js';
import { Ladder } from '../src/ladder/ladder.js';
import { MiaLadderTable } from '../src/ladder/mia.js';
import { OstseeschachLadderTable } from '../src/ladder/ostseeschach.js';
import { initialRating, rateTwo } from '../src/ladder/ratings.js';
import { openLadderStore } from '../src/ladder/store.js';
import type { LadderGame } from '../src/ladder/types.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

const clients = arg('clients', 200);
const seconds = arg('seconds', 60);
const moveMs = arg('move-ms', 200);

const quantile = (xs: number[], q: number): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(s.length * q) - 1)]!;
};

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The games in the order of the report, their share of the clients and the fewest that make sense. */
const GAMES: readonly { game: LadderGame; label: string; share: number; min: number }[] = [
  { game: 'dame', label: 'Dame', share: 0.3, min: 2 },
  { game: 'ostseeschach', label: 'Ostseeschach', share: 0.2, min: 2 },
  { game: 'connect4', label: 'Connect Four', share: 0.2, min: 2 },
  { game: 'mia', label: 'Mia', share: 0.2, min: 2 },
  // Three make a Catan game without house seats.
  { game: 'catan', label: 'Catan', share: 0.1, min: 3 },
];

/** Clients per game: the shares by largest remainder, then the minimums taken from the largest. */
function split(n: number): number[] {
  const need = GAMES.reduce((s, g) => s + g.min, 0);
  if (n < need) throw new Error(`--clients must be at least ${need} (2 of every game, 3 Catan)`);
  const exact = GAMES.map((g) => g.share * n);
  const counts = exact.map(Math.floor);
  const order = exact.map((x, i) => ({ i, r: x - Math.floor(x) })).sort((a, b) => b.r - a.r);
  for (let k = 0; k < n - counts.reduce((s, c) => s + c, 0); k++) counts[order[k]!.i]!++;
  for (const [i, g] of GAMES.entries())
    while (counts[i]! < g.min) {
      const from = counts.reduce((best, c, j) => (c - GAMES[j]!.min > counts[best]! - GAMES[best]!.min ? j : best), 0);
      counts[from]!--;
      counts[i]!++;
    }
  return counts;
}

/** The Connect Four engine without the worker: our bots in-process (house levels after the wait). */
class InProcessEngine implements C4Engine {
  choose(state: C4State, level: string, seed: string): Promise<number> {
    const l: BotLevel = level === 'easy' ? 'easy' : 'strong';
    return Promise.resolve(chooseMove(state, l, Rng.seeded(seed)));
  }
  analyse(): Promise<(number | null)[]> {
    return Promise.resolve([]);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

interface GameStats {
  clients: number;
  /** Games the clients finished (a client's view). */
  games: number;
  errors: number;
  /** Dame: each error's text (its first 60 characters) and how often. */
  why: Map<string, number>;
  latencies: number[];
}

async function main(): Promise<void> {
  const counts = split(clients);
  const stats = new Map<LadderGame, GameStats>(GAMES.map((g, i) => [g.game, { clients: counts[i]!, games: 0, errors: 0, why: new Map(), latencies: [] }]));
  const of = (game: LadderGame): GameStats => stats.get(game)!;

  const records = new RecordStore(':memory:');
  const store = await openLadderStore(':memory:');
  const entries = await store.addEntries(
    Array.from({ length: clients }, (_, i) => ({ name: `Student ${i + 1}`, group: `T${(i % 10) + 1}` })),
    Date.now(),
  );
  // The house bot only after a long wait: students find each other here.
  const ladder = new Ladder({ store, log: silentLogger, settings: { houseAfterMs: 10_000, tickMs: 100 } });

  const server = createDameServer({ port: 0, log: silentLogger, store: records, motdDelayMs: 0, defaultMoveTimeMs: moveMs, maxConnectionsPerHost: 0, maxGamesPerHost: 0 });
  await server.start();
  const table = new DameLadderTable(ladder, server);
  ladder.addTable(table);
  server.setLadder(table);
  const chess = createOstseeschachServer({ port: 0, log: silentLogger, store: records, seed: 'bench', maxConnectionsPerHost: 0 });
  await chess.start();
  const chessTable = new OstseeschachLadderTable(ladder, chess, { log: silentLogger });
  ladder.addTable(chessTable);
  chess.setLadder(chessTable);
  const hub = new Connect4Hub({
    host: '127.0.0.1',
    port: 0,
    ladderPort: 0,
    broadcastAddress: null,
    peerPorts: [],
    store: records,
    log: silentLogger,
    engine: new InProcessEngine(),
    // Every peer is on 127.0.0.1: no per-host share of the Liga peer's datagrams, lobby or invitations.
    limits: { datagramsPerSecondPerHost: 0, lobbyEntriesPerHost: 100_000, invitationsPerHost: 100_000 },
  });
  await hub.start();
  const c4Table = new Connect4LadderTable(ladder, hub, { log: silentLogger, seed: 'bench' });
  ladder.addTable(c4Table);
  const mia = new MiaServer({ ...MIA_DEFAULTS, host: '127.0.0.1', port: 0, maxClientsPerHost: 0, seed: 'bench', log: silentLogger, store: records });
  await mia.start();
  const miaTable = new MiaLadderTable(ladder, mia, { log: silentLogger, rounds: DEFAULT_ROUNDS });
  ladder.addTable(miaTable);
  const catan = new CatanServer({ host: '127.0.0.1', port: 0, seed: 'bench', log: silentLogger, store: records, idleLobbyTimeoutMs: null, maxConnectionsPerHost: 0, maxLobbiesPerHost: 0, maxInputBytesPerSecondPerHost: 0 });
  await catan.start();
  const catanTable = new CatanLadderTable(ladder, catan, { log: silentLogger, timeoutMs: 2000 });
  ladder.addTable(catanTable);
  await ladder.start();
  const ligaPort = (await c4Table.open()).address.port;
  const miaPort = await miaTable.open(0);
  const catanPort = await catanTable.open(0);

  const started = performance.now();
  const deadline = started + seconds * 1000;
  const cpuBefore = process.cpuUsage();

  const dameLoop = async (i: number, k: number): Promise<void> => {
    const s = of('dame');
    const entry = entries[i]!;
    const bot = createDameBot(k % 2 === 0 ? 'greedy' : 'random');
    const rng = Rng.seeded(i);
    while (performance.now() < deadline) {
      let playerAt = 0;
      const r = await new DameClient({
        host: '127.0.0.1',
        port: server.port,
        gameId: entry.code,
        player: (st, ms) => bot(st, ms, rng),
        silenceTimeoutMs: 60_000,
        onLine: (dir, line) => {
          if (dir === 'out' && line.startsWith('PLAYER')) playerAt = performance.now();
          else if (dir === 'in' && line.startsWith('+ YOU ')) s.latencies.push(performance.now() - playerAt);
        },
      }).run();
      if (r.error !== null) {
        s.errors++;
        const text = r.error.slice(0, 60);
        s.why.set(text, (s.why.get(text) ?? 0) + 1);
      } else s.games++;
    }
  };

  const chessLoop = async (i: number): Promise<void> => {
    const s = of('ostseeschach');
    const entry = entries[i]!;
    while (performance.now() < deadline) {
      const asked = performance.now();
      const r = await playOnServer({
        host: '127.0.0.1',
        port: chess.port,
        join: { kind: 'prepared', reservationCode: entry.reservation },
        bot: randomBot,
        budgetMs: 50,
        seed: `${entry.code}${s.games}`,
        onPacket: (p) => {
          if (p.type === 'joined') s.latencies.push(performance.now() - asked);
        },
      });
      if (r.errors.length > 0 || r.result === null) s.errors++;
      else s.games++;
    }
  };

  // Connect Four: a fresh peer per game; the old one stays for its end window (it repeats the
  // final move until it is acknowledged), then closes in the background.
  const closing: Promise<void>[] = [];
  let invitersLeft = 0;
  const c4Loop = async (i: number, k: number): Promise<void> => {
    const s = of('connect4');
    const entry = entries[i]!;
    const inviter = k % 2 === 0;
    if (inviter) invitersLeft++;
    let n = 0;
    while (performance.now() < deadline) {
      const asked = performance.now();
      let udp: UdpPeer;
      try {
        udp = await startUdpPeer({ name: entry.code, port: 0, bindAddress: '127.0.0.1', peerPorts: inviter ? [] : [ligaPort], log: silentLogger });
      } catch {
        s.errors++;
        await sleep(100);
        continue;
      }
      const player = new AutoPlayer(udp.peer, (state) => chooseMove(state, 'easy', Rng.seeded(`${entry.code}:${n++}`)), { log: silentLogger });
      const ended = new Promise<PeerEvent['type']>((resolve) => {
        let timed = false;
        const off = udp.peer.on((e) => {
          if (!timed && ((inviter && e.type === 'moved' && e.by === 'remote') || (!inviter && e.type === 'game-started'))) {
            timed = true;
            s.latencies.push(performance.now() - asked);
          }
          if (e.type === 'game-over' || e.type === 'aborted' || e.type === 'invite-expired') {
            off();
            resolve(e.type);
          }
        });
        // After the deadline a seat-1 peer without a game goes once every inviter is done (an
        // inviter's board waits for its game; a seat-1 peer leaving then would void it).
        if (inviter) return;
        const check = setInterval(() => {
          if (performance.now() >= deadline && invitersLeft === 0 && udp.peer.phase === 'lobby') {
            clearInterval(check);
            off();
            resolve('phase');
          }
        }, 100);
        udp.peer.on((e) => {
          if (e.type === 'game-over' || e.type === 'aborted') clearInterval(check);
        });
      });
      const how = inviter && !udp.peer.invite({ address: '127.0.0.1', port: ligaPort }).ok ? 'aborted' : await ended;
      if (how === 'game-over') s.games++;
      else if (how !== 'phase') s.errors++;
      // No more invitations taken, and no way back to the lobby (where it would announce again).
      player.stop();
      closing.push(sleep(how === 'game-over' ? 10_000 : 0).then(() => udp.close()));
    }
    if (inviter) invitersLeft--;
  };

  // Mia: registered once, plays ladder game after ladder game; after the deadline it unregisters
  // between two games (or after its last round).
  const miaLoop = async (i: number, k: number): Promise<void> => {
    const s = of('mia');
    const entry = entries[i]!;
    let mark = performance.now();
    let lastLineAt = mark;
    let startingAt: { at: number; since: number } | null = null;
    let round = 0;
    // Between two games (or before the first), and unregistered: set in the callbacks.
    const state = { between: true, gone: false };
    const client = new MiaClient({
      host: '127.0.0.1',
      port: miaPort,
      name: entry.code,
      bot: createMiaBot(k % 2 === 0 ? 'adaptive' : 'random', entry.code),
      onUnregistered: () => {
        if (performance.now() < deadline) s.errors++;
        state.gone = true;
      },
      onMessage: (line) => {
        const now = performance.now();
        if (line === 'HEARTBEAT') return;
        if (line === 'REGISTERED') mark = now;
        else if (line.startsWith('ROUND STARTING')) startingAt = { at: now, since: lastLineAt };
        else if (line.startsWith('ROUND STARTED;')) {
          round = Number(line.split(';')[1]);
          state.between = false;
          // The first round of a game: its ROUND STARTING was the game's start for this client.
          if (round === 1 && startingAt !== null) s.latencies.push(startingAt.at - Math.max(mark, startingAt.since));
        } else if (line.startsWith('SCORE;') && round >= DEFAULT_ROUNDS && !state.between) {
          state.between = true;
          s.games++;
        }
        lastLineAt = now;
      },
    });
    try {
      await client.start();
    } catch {
      s.errors++;
      return;
    }
    // After the deadline it leaves between two games (a running game it plays to the end, within two minutes).
    while (!state.gone && (performance.now() < deadline || (!state.between && performance.now() < deadline + 120_000))) await sleep(50);
    await client.stop();
  };

  const catanLoop = async (i: number, k: number): Promise<void> => {
    const s = of('catan');
    const entry = entries[i]!;
    let n = 0;
    while (performance.now() < deadline) {
      const asked = performance.now();
      let timed = false;
      const client = new CatanClient({
        host: '127.0.0.1',
        port: catanPort,
        name: entry.code,
        bot: createCatanBot(k % 3 === 2 ? 'random' : 'weighted', `${entry.code}:${n++}`),
        onLine: (dir, line) => {
          if (!timed && dir === 'in' && line.includes('Spiel gestartet')) {
            timed = true;
            s.latencies.push(performance.now() - asked);
          }
        },
      });
      try {
        await client.start();
        const r = await client.done;
        if (r.message === null) s.errors++;
        else s.games++;
      } catch {
        s.errors++;
        await sleep(100);
      }
    }
  };

  // Clients by game: entries[0 …) Dame, then Ostseeschach, Connect Four, Mia, Catan.
  const loops: Promise<void>[] = [];
  let at = 0;
  for (const [g, { game }] of GAMES.entries()) {
    for (let k = 0; k < counts[g]!; k++) {
      const i = at + k;
      if (game === 'dame') loops.push(dameLoop(i, k));
      else if (game === 'ostseeschach') loops.push(chessLoop(i));
      else if (game === 'connect4') loops.push(c4Loop(i, k));
      else if (game === 'mia') loops.push(miaLoop(i, k));
      else loops.push(catanLoop(i, k));
    }
    at += counts[g]!;
  }
  await Promise.all(loops);
  const wallS = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  await ladder.settled();
  const all = await store.listGames({ limit: 1_000_000 });
  const rated = (game: LadderGame): number => all.filter((g) => g.game === game).length;

  // One rating update as the ladder does it: Glicko-2 for both sides and the store's transaction.
  const season = (await store.currentSeason('dame')).id;
  const n = 2000;
  const t0 = performance.now();
  for (let k = 0; k < n; k++) {
    const a = entries[k % clients]!;
    const b = entries[(k + 1) % clients]!;
    const ra = (await store.getRating('dame', season, a.id)) ?? initialRating();
    const rb = (await store.getRating('dame', season, b.id)) ?? initialRating();
    const r = rateTwo(ra, rb, k % 3 === 0 ? 0.5 : 1);
    await store.recordGame({
      id: `bench-${k}`,
      game: 'dame',
      season,
      startedAt: 0,
      endedAt: Date.now(),
      recordId: null,
      seats: [
        { side: { kind: 'entry', entryId: a.id }, name: a.name, score: k % 3 === 0 ? 0.5 : 1, before: ra, after: r.a, reason: null },
        { side: { kind: 'entry', entryId: b.id }, name: b.name, score: k % 3 === 0 ? 0.5 : 0, before: rb, after: r.b, reason: null },
      ],
    });
  }
  const updateMs = (performance.now() - t0) / n;

  await catan.closeLadderPort();
  await ladder.stop();
  await Promise.all(closing);
  await mia.stop();
  await hub.stop();
  await catan.stop();
  await server.stop();
  await chess.stop();
  await store.close();
  records.close();

  const cpuPct = ((cpu.user + cpu.system) / 1e6 / wallS) * 100;
  const perMin = (x: number): string => ((x / wallS) * 60).toFixed(0);
  const ms = (xs: number[]): string => `${quantile(xs, 0.5).toFixed(0)} / ${quantile(xs, 0.99).toFixed(0)} ms`;
  const total = { games: 0, errors: 0, rated: all.length };
  const rows = GAMES.map(({ game, label }) => {
    const s = of(game);
    total.games += s.games;
    total.errors += s.errors;
    return `| ${label} | ${s.clients} | ${s.games} | ${rated(game)} | ${perMin(rated(game))} | ${s.errors} | ${ms(s.latencies)} | | |`;
  });
  process.stdout.write(
    [
      `ladder bench (five games): ${clients} clients (${GAMES.map((g, i) => `${g.label} ${counts[i]}`).join(', ')}), ${seconds} s, Dame move time ${moveMs} ms, Mia ${DEFAULT_ROUNDS} rounds a game, ${cpus()[0]?.model ?? '?'} × ${cpus().length}, Node ${process.version}`,
      `| game | clients | client games | rated | ladder games/min | errors | pairing p50 / p99 | process CPU (servers, ladder and all clients) | rating update |`,
      `|---|---|---|---|---|---|---|---|---|`,
      ...rows,
      `| all | ${clients} | ${total.games} | ${total.rated} | ${perMin(total.rated)} | ${total.errors} | | ${cpuPct.toFixed(0)} % of one core | ${(updateMs * 1000).toFixed(0)} µs |`,
      ...GAMES.flatMap(({ game, label }) => [...of(game).why].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([text, n]) => `${label} errors: ${n} × ${text}`)),
      '',
    ].join('\n'),
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
