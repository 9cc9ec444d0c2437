import { useEffect, useState } from 'react';
import type { CatanSnapshot } from '../../../../src/games/catan/snapshot.js';
import { spectateUrl, type ConnectionState } from '../../useSpectator.js';

/**
 * The Catan server's public snapshot over /ws/spectate. Unlike the generic hook it renders on
 * snapshots only (the server sends one at most every 100 ms while games run), not on each of the
 * many wire lines in between, which a busy server sends by the hundred every second.
 */

const BACKOFF_MS = [500, 1000, 2000, 4000, 8000] as const;
const UNKNOWN_GAME = 4404;

export function useCatanSnapshot(): { state: ConnectionState; snapshot: CatanSnapshot | null } {
  const [state, setState] = useState<ConnectionState>('connecting');
  const [snapshot, setSnapshot] = useState<CatanSnapshot | null>(null);
  useEffect(() => {
    let socket: WebSocket | null = null;
    let timer: number | undefined;
    let attempt = 0;
    let disposed = false;
    const connect = () => {
      const ws = new WebSocket(spectateUrl('catan'));
      socket = ws;
      ws.onopen = () => {
        attempt = 0;
        setState('open');
      };
      ws.onmessage = (m: MessageEvent<string>) => {
        // Events start with {"type":"event"; only snapshots are read.
        if (!m.data.startsWith('{"type":"snapshot"')) return;
        try {
          setSnapshot((JSON.parse(m.data) as { data: CatanSnapshot }).data);
        } catch {
          // A broken frame: the next snapshot repairs it.
        }
      };
      ws.onclose = (close) => {
        if (disposed) return;
        socket = null;
        if (close.code === UNKNOWN_GAME) {
          setState('unknown-game');
          return;
        }
        setState('reconnecting');
        timer = window.setTimeout(connect, BACKOFF_MS[Math.min(attempt++, BACKOFF_MS.length - 1)]);
      };
    };
    connect();
    return () => {
      disposed = true;
      window.clearTimeout(timer);
      socket?.close();
    };
  }, []);
  return { state, snapshot };
}
