import { useCallback, useEffect, useRef, useState } from 'react';
import type { DamePlayMessage, DamePlayState } from '../../../../src/games/dame/web-views.js';
import { query, withToken } from '../../api.js';

/**
 * The browser's seat in a Dame game: one WebSocket to `/ws/dame/play`, whose server side is a
 * protocol client of the Dame server. Closing the socket (leaving the page) closes that client.
 */

export interface PlayLine {
  n: number;
  dir: 'in' | 'out';
  line: string;
}

export interface PlayNotice {
  n: number;
  kind: 'refused' | 'notice' | 'error-line';
  text: string;
}

export interface PlaySeat {
  gameId: string;
  seat: 0 | 1 | null;
  state: DamePlayState | null;
  /** `performance.now()` when `state` arrived (the countdown runs from there). */
  receivedAt: number;
  lines: PlayLine[];
  notices: PlayNotice[];
  /** Why the socket closed, once it has. */
  closed: string | null;
}

const MAX_LINES = 400;

function playUrl(gameId: string, seat: 0 | 1 | null, name: string): string {
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  const q = query({ game: gameId, seat: seat ?? undefined, name });
  return withToken(`${scheme}://${window.location.host}/ws/dame/play${q}`);
}

export function usePlay() {
  const [seat, setSeat] = useState<PlaySeat | null>(null);
  const socketRef = useRef<WebSocket | null>(null);
  const counter = useRef(0);

  useEffect(() => () => socketRef.current?.close(), []);

  const join = useCallback((gameId: string, seatNumber: 0 | 1 | null, name: string) => {
    socketRef.current?.close();
    const ws = new WebSocket(playUrl(gameId, seatNumber, name));
    socketRef.current = ws;
    setSeat({ gameId, seat: seatNumber, state: null, receivedAt: 0, lines: [], notices: [], closed: null });
    const update = (f: (s: PlaySeat) => PlaySeat) => {
      if (socketRef.current === ws) setSeat((s) => (s ? f(s) : s));
    };
    ws.onmessage = (m: MessageEvent<string>) => {
      let msg: DamePlayMessage;
      try {
        msg = JSON.parse(m.data) as DamePlayMessage;
      } catch {
        return;
      }
      const n = ++counter.current;
      switch (msg.type) {
        case 'state':
          update((s) => ({ ...s, state: msg, receivedAt: performance.now() }));
          return;
        case 'line':
          update((s) => ({ ...s, lines: [...s.lines.slice(-MAX_LINES + 1), { n, dir: msg.dir, line: msg.line }] }));
          return;
        case 'errorLine':
          update((s) => ({ ...s, notices: [...s.notices.slice(-9), { n, kind: 'error-line', text: msg.line }] }));
          return;
        case 'refused':
          update((s) => ({ ...s, notices: [...s.notices.slice(-9), { n, kind: 'refused', text: `${msg.from}:${msg.to} refused: ${msg.reason}` }] }));
          return;
        case 'notice':
          update((s) => ({ ...s, notices: [...s.notices.slice(-9), { n, kind: 'notice', text: msg.text }] }));
          return;
      }
    };
    ws.onclose = (e) => update((s) => ({ ...s, closed: e.reason || (e.code === 1000 ? 'closed' : `closed (${e.code})`) }));
  }, []);

  const move = useCallback((from: string, to: string) => {
    socketRef.current?.send(JSON.stringify({ type: 'move', from, to }));
    // Shown at once; the next state replaces it.
    setSeat((s) => (s?.state ? { ...s, state: { ...s.state, legal: [], phase: 'their-turn', remainingMs: null } } : s));
  }, []);

  /** Closes the seat's client: a running game is lost by disconnect, as for any client. */
  const leave = useCallback(() => {
    socketRef.current?.close();
  }, []);

  const reset = useCallback(() => {
    const ws = socketRef.current;
    socketRef.current = null;
    ws?.close();
    setSeat(null);
  }, []);

  return { seat, join, move, leave, reset };
}

/** Milliseconds left on the server's clock for the current request, ticking. */
export function useCountdown(state: DamePlayState | null, receivedAt: number): number | null {
  const [now, setNow] = useState(() => performance.now());
  const remaining = state?.remainingMs ?? null;
  useEffect(() => {
    if (remaining === null) return;
    const timer = window.setInterval(() => setNow(performance.now()), 100);
    return () => window.clearInterval(timer);
  }, [remaining, receivedAt]);
  if (remaining === null) return null;
  return Math.max(0, remaining - Math.max(0, now - receivedAt));
}
