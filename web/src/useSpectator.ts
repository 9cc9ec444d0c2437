import { useEffect, useState } from 'react';
import type { SpectatorEvent, SpectatorMessage } from './types.js';

export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'unknown-game';

export interface Spectator<S> {
  state: ConnectionState;
  snapshot: S | null;
  /** Events received since the page opened. */
  events: number;
  /** Milliseconds until the next reconnect attempt (when reconnecting). */
  retryInMs: number | null;
}

const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15000] as const;
const UNKNOWN_GAME = 4404;

export function spectateUrl(game: string): string {
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${window.location.host}/ws/spectate?game=${encodeURIComponent(game)}`;
}

/**
 * Follows one game over /ws/spectate: the latest snapshot, with events folded in by `reduce`
 * between snapshots, and a reconnect with backoff whenever the socket drops.
 */
export function useSpectator<S>(
  game: string,
  reduce: (snapshot: S, event: SpectatorEvent) => S,
): Spectator<S> {
  const [view, setView] = useState<Spectator<S>>({
    state: 'connecting',
    snapshot: null,
    events: 0,
    retryInMs: null,
  });

  useEffect(() => {
    let socket: WebSocket | null = null;
    let timer: number | undefined;
    let attempt = 0;
    let disposed = false;
    setView({ state: 'connecting', snapshot: null, events: 0, retryInMs: null });

    const connect = () => {
      const ws = new WebSocket(spectateUrl(game));
      socket = ws;
      ws.onopen = () => {
        attempt = 0;
        setView((v) => ({ ...v, state: 'open', retryInMs: null }));
      };
      ws.onmessage = (message: MessageEvent<string>) => {
        let parsed: SpectatorMessage;
        try {
          parsed = JSON.parse(message.data) as SpectatorMessage;
        } catch {
          return;
        }
        if (parsed.type === 'snapshot') {
          setView((v) => ({ ...v, snapshot: parsed.data as S }));
        } else {
          const event = parsed.event;
          setView((v) => ({
            ...v,
            events: v.events + 1,
            snapshot: v.snapshot === null ? null : reduce(v.snapshot, event),
          }));
        }
      };
      ws.onclose = (close) => {
        if (disposed) return;
        socket = null;
        if (close.code === UNKNOWN_GAME) {
          setView((v) => ({ ...v, state: 'unknown-game', retryInMs: null }));
          return;
        }
        const delay = BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)] ?? 15000;
        attempt++;
        setView((v) => ({ ...v, state: 'reconnecting', retryInMs: delay }));
        timer = window.setTimeout(connect, delay);
      };
    };
    connect();

    return () => {
      disposed = true;
      window.clearTimeout(timer);
      socket?.close();
    };
    // `reduce` is a module-level function of the game's page: only a new game reconnects.
  }, [game]);

  return view;
}
