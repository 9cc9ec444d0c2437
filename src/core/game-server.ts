/**
 * What every game server shows the dashboard: its status, its live state as a spectator may see
 * it, and a stream of public events. The web layer knows games only through this surface.
 */
export type ServerStatus = 'starting' | 'running' | 'stopped' | 'failed';

export interface ServerInfo {
  game: string;
  title: string;
  protocol: string;
  transport: 'udp' | 'tcp';
  host: string;
  port: number;
  status: ServerStatus;
  /** Registered or connected clients (players and spectators). */
  clients: number;
  liveMatches: number;
  error?: string;
  /** Die Liga's own port of the game, while it is open (Mia, Catan, Connect Four; docs/ladder.md). */
  ladderPort?: number;
}

export interface SpectatorEvent {
  game: string;
  type: string;
  at: number;
  data: unknown;
}

export interface LeaderboardEntry {
  name: string;
  points: number;
}

export interface GameServer {
  readonly game: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  info(): ServerInfo;
  /** The public state: what any spectator may see right now. */
  snapshot(): unknown;
  /** Public events as they happen; returns the function that unsubscribes. */
  subscribe(listener: (event: SpectatorEvent) => void): () => void;
  leaderboard?(): LeaderboardEntry[];
}

/** A small fan-out for spectator events; a failing listener is dropped, never the publisher. */
export class EventHub {
  private readonly listeners = new Set<(event: SpectatorEvent) => void>();

  subscribe(listener: (event: SpectatorEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get size(): number {
    return this.listeners.size;
  }

  publish(event: SpectatorEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        this.listeners.delete(listener);
      }
    }
  }
}
