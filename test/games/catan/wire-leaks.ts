import { silentLogger } from '../../../src/core/log.js';
import { CatanClient, randomBot } from '../../../src/games/catan/client.js';
import { censorEvent, type GameEvent, type SeenEvent, type Viewer } from '../../../src/games/catan/events.js';
import { findLeaks, type HistoryEntry, type LeakFinding } from '../../../src/games/catan/leak-oracle.js';
import type { HistoryStep } from '../../../src/games/catan/match.js';
import { createCatanServer } from '../../../src/games/catan/server.js';
import { wireDeliveries } from '../../../src/games/catan/wire-oracle.js';

/**
 * The leak oracle over the wire: games through the real server over TCP, every line each client
 * (and the spectator stream) received decoded back into events and lined up with the server's full
 * history (src/games/catan/wire-oracle.ts), then judged by `findLeaks`. Shared by
 * leak-wire.test.ts and bench/catan-server.ts.
 */

export interface WireGame {
  readonly matchId: string;
  readonly history: readonly HistoryEntry[];
  /** Lines received per player id, and the spectator's. */
  readonly lines: ReadonlyMap<Viewer, readonly string[]>;
}

export interface WireGameOptions {
  readonly seed: string;
  readonly games: number;
  /** Games at once. */
  readonly parallel: number;
  readonly players?: 3 | 4;
  readonly censor?: (event: GameEvent, viewer: Viewer) => SeenEvent;
}

/** Plays seeded games through a real server over TCP and returns each with everything received. */
export async function playWireGames(o: WireGameOptions, onGame?: (g: WireGame) => void): Promise<WireGame[]> {
  const histories = new Map<string, HistoryEntry[]>();
  const spectated = new Map<string, string[]>();
  const server = createCatanServer({
    host: '127.0.0.1',
    port: 0,
    seed: o.seed,
    log: silentLogger,
    store: null,
    censor: o.censor ?? censorEvent,
    onStep: (matchId: string, step: HistoryStep) => {
      let h = histories.get(matchId);
      if (!h) histories.set(matchId, (h = []));
      h.push({ state: step.state, events: step.events });
    },
  });
  server.subscribe((e) => {
    if (e.type !== 'line') return;
    const { match, line } = e.data as { match: string; line: string };
    let l = spectated.get(match);
    if (!l) spectated.set(match, (l = []));
    l.push(line);
  });
  await server.start();
  const out: WireGame[] = [];
  let next = 0;
  // Games start one after another, so that each lobby gets exactly its own players.
  let joining: Promise<void> = Promise.resolve();
  const one = async (n: number): Promise<void> => {
    const players = o.players ?? 4;
    const lines = new Map<CatanClient, string[]>();
    let entered!: () => void;
    const turn = joining;
    joining = new Promise((resolve) => (entered = resolve));
    await turn;
    const clients: CatanClient[] = [];
    for (let i = 0; i < players; i++) {
      const received: string[] = [];
      const name = `G${n} P${i}`;
      // Every other game has builders with domestic trades, so that trade messages go over the wire too.
      const options = n % 2 === 0 ? { policy: 'builder' as const, trades: true } : {};
      const c = new CatanClient({ host: '127.0.0.1', port: server.port, name, bot: randomBot(`${o.seed}/${name}`, options), onLine: (dir, line) => dir === 'in' && received.push(line) });
      lines.set(c, received);
      clients.push(c);
      await c.start();
    }
    const started = setInterval(() => {
      if (clients.every((c) => c.view.stage === 'game' || c.view.stage === 'over')) {
        clearInterval(started);
        entered();
      }
    }, 2);
    await Promise.all(clients.map((c) => c.done));
    clearInterval(started);
    entered();
    const ids = clients.map((c) => c.id!);
    const matchId = [...histories.keys()].find((id) => histories.get(id)![0]!.state.players.every((p) => ids.includes(p.id)));
    if (!matchId) throw new Error(`game ${n}: no history`);
    const game: WireGame = {
      matchId,
      history: histories.get(matchId)!,
      lines: new Map<Viewer, readonly string[]>([...clients.map((c): [Viewer, string[]] => [c.id!, lines.get(c)!]), ['spectator', spectated.get(matchId) ?? []]]),
    };
    histories.delete(matchId);
    spectated.delete(matchId);
    if (onGame) onGame(game);
    else out.push(game);
  };
  const workers = Array.from({ length: Math.min(o.parallel, o.games) }, async () => {
    while (next < o.games) await one(next++);
  });
  await Promise.all(workers);
  await server.stop();
  return out;
}

/** Every finding of the oracle in one game, for every player and the spectator, plus alignment problems. */
export function wireLeaks(g: WireGame): { findings: LeakFinding[]; problems: string[] } {
  const findings: LeakFinding[] = [];
  const problems: string[] = [];
  for (const [viewer, lines] of g.lines) {
    const { deliveries, problems: p } = wireDeliveries(g.history, lines);
    problems.push(...p.map((x) => `${String(viewer)}: ${x}`));
    findings.push(...findLeaks(g.history, viewer, deliveries));
  }
  return { findings, problems };
}
