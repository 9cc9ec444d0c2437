import { Gauge } from 'prom-client';
import type { GameServer } from '../core/game-server.js';
import { registry } from '../core/metrics.js';

/**
 * Gauges that describe the game servers the running dashboards know about. They are read at
 * scrape time from every active web server, and registered on the shared registry once per
 * process: a test file may create many web servers, the registry only ever sees one set.
 */

const active = new Set<readonly GameServer[]>();
let registered = false;

interface GameFigures {
  clients: number;
  liveMatches: number;
  up: number;
}

function figures(): Map<string, GameFigures> {
  const byGame = new Map<string, GameFigures>();
  for (const servers of active) {
    for (const server of servers) {
      const f = byGame.get(server.game) ?? { clients: 0, liveMatches: 0, up: 0 };
      try {
        const info = server.info();
        f.clients += info.clients;
        f.liveMatches += info.liveMatches;
        if (info.status === 'running') f.up = 1;
      } catch {
        // A server that cannot describe itself counts as down.
      }
      byGame.set(server.game, f);
    }
  }
  return byGame;
}

function gauge(name: string, help: string, pick: (f: GameFigures) => number): void {
  if (registry.getSingleMetric(name)) return;
  new Gauge({
    name,
    help,
    labelNames: ['game'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [game, f] of figures()) this.set({ game }, pick(f));
    },
  });
}

function registerGauges(): void {
  if (registered) return;
  registered = true;
  gauge(
    'spielhalle_clients',
    'Connected or registered clients (players and spectators) by game',
    (f) => f.clients,
  );
  gauge('spielhalle_live_matches', 'Matches in progress by game', (f) => f.liveMatches);
  gauge('spielhalle_server_up', '1 when the game server is running, else 0', (f) => f.up);
}

/** Makes `servers` visible to the gauges until the returned function is called. */
export function trackServers(servers: readonly GameServer[]): () => void {
  registerGauges();
  active.add(servers);
  return () => active.delete(servers);
}
