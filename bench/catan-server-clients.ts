// Bot clients for bench/catan-server.ts in a process of their own: the games the parent asks for,
// four of our protocol clients with baseline R each, timing every in-game action. Players of one
// game are in the same process, so the time until the others hear of an action can be taken too.
import { CatanClient, randomBot } from '../src/games/catan/client.js';

interface Pending {
  at: number;
  heardBy: Set<CatanClient>;
}

const OK = '{"Serverantwort":"OK"}';
const LOBBY = /^\{"(Hallo|Spieler|Spiel starten|Chatnachricht senden)"/;
const toOk: number[] = [];
const toOthers: number[] = [];
const fehler = new Map<string, number>();
let finished = 0;
let aborted = 0;
let unreadable = 0;
let actions = 0;
let port = 0;
let seed = 'bench';
let thinkMs = 0;
const running: Promise<void>[] = [];
const all: CatanClient[] = [];
/** After the measured window, nothing more is counted. */
let measuring = true;

function game(n: number): Promise<void> {
  return new Promise((joined) => {
    const pending: { current: Pending | null } = { current: null };
    const clients: CatanClient[] = [];
    let welcomed = 0;
    for (let i = 0; i < 4; i++) {
      let sentAt = -1;
      const name = `B${n}-${i}`;
      const bot = randomBot(`${seed}/${name}`);
      const client: CatanClient = new CatanClient({
        host: '127.0.0.1',
        port,
        name,
        answerTimeoutMs: 60_000,
        bot,
        thinkMs,
        onLine: (dir, line) => {
          if (!measuring) return;
          const now = performance.now();
          if (dir === 'out') {
            if (LOBBY.test(line)) return;
            actions++;
            sentAt = now;
            pending.current = { at: now, heardBy: new Set([client]) };
            return;
          }
          if (line.startsWith('{"Willkommen"') && ++welcomed === 4) joined();
          if (sentAt >= 0 && (line === OK || line.startsWith('{"Fehler"'))) {
            if (line === OK) toOk.push(now - sentAt);
            else fehler.set(line, (fehler.get(line) ?? 0) + 1);
            sentAt = -1;
          }
          const p = pending.current;
          if (p && !p.heardBy.has(client)) {
            p.heardBy.add(client);
            toOthers.push(now - p.at);
          }
        },
      });
      clients.push(client);
      all.push(client);
    }
    const done = (async () => {
      for (const c of clients) await c.start();
      const results = await Promise.all(clients.map((c) => c.done));
      if (results.some((r) => r.winner !== null)) finished++;
      else aborted++;
      for (const r of results) unreadable += r.stats.unreadable;
    })();
    running.push(done);
  });
}

process.on('message', (m: { type: string; port?: number; seed?: string; thinkMs?: number; game?: number }) => {
  if (m.type === 'setup') {
    port = m.port!;
    seed = m.seed!;
    thinkMs = m.thinkMs!;
  } else if (m.type === 'join') {
    void game(m.game!).then(() => process.send?.({ type: 'joined', game: m.game }));
  } else if (m.type === 'finish' || m.type === 'cut') {
    if (m.type === 'cut') {
      // The window is over: stop counting and leave, which ends the games still running (D9).
      measuring = false;
      for (const c of all) c.vanish();
    }
    void Promise.all(running).then(() => {
      const cpu = process.cpuUsage();
      process.send?.({ type: 'results', toOk, toOthers, fehler: [...fehler], finished, aborted, unreadable, actions, cpu: (cpu.user + cpu.system) / 1e6 });
    });
  }
});
process.send?.({ type: 'ready' });
