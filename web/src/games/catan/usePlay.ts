import { useCallback, useEffect, useRef, useState } from 'react';
import type { Action, Colour } from '../../../../src/games/catan/rules/types.js';
import type {
  CatanPlayCommand,
  CatanPlayMessage,
  CatanPlayState,
} from '../../../../src/games/catan/web-views.js';
import { query, withToken } from '../../api.js';

/**
 * A person's seat: one WebSocket to `/ws/catan/play`, whose server side is a protocol 0.3 client
 * of the Catan server. Messages are taken in batches (a game sends many lines a second), and the
 * person's own actions wait for the server's answer: `pending` until a state after it arrives.
 */

export interface SeatLine {
  readonly n: number;
  readonly dir: 'in' | 'out';
  readonly line: string;
}

export interface SeatNotice {
  readonly n: number;
  readonly kind: 'fehler' | 'notice';
  readonly text: string;
  readonly sent: string | null;
}

export interface Seat {
  readonly state: CatanPlayState | null;
  readonly lines: readonly SeatLine[];
  readonly notices: readonly SeatNotice[];
  /** While the person's last command waits for its answer: how many commands the gateway must have handled. */
  readonly pending: number | null;
  readonly closed: string | null;
  /** Notices up to this number are answered by a later command of the person's (shown in the log only). */
  readonly seenUpTo: number;
}

const MAX_LINES = 500;
const FLUSH_MS = 16;

function playUrl(name: string, colour: Colour): string {
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  return withToken(`${scheme}://${window.location.host}/ws/catan/play${query({ name, colour })}`);
}

function fold(seat: Seat, batch: readonly CatanPlayMessage[], counter: { n: number }): Seat {
  let { state, lines, notices, pending } = seat;
  const added: SeatLine[] = [];
  const told: SeatNotice[] = [];
  for (const m of batch) {
    switch (m.type) {
      case 'state':
        state = m;
        if (pending !== null && !m.waiting && m.commands >= pending) pending = null;
        break;
      case 'line':
        added.push({ n: ++counter.n, dir: m.dir, line: m.line });
        break;
      case 'fehler':
        told.push({ n: ++counter.n, kind: 'fehler', text: m.meldung, sent: m.sent });
        break;
      case 'notice':
        told.push({ n: ++counter.n, kind: 'notice', text: m.text, sent: null });
        break;
    }
  }
  if (added.length > 0) lines = [...lines, ...added].slice(-MAX_LINES);
  if (told.length > 0) notices = [...notices, ...told].slice(-20);
  return { ...seat, state, lines, notices, pending };
}

export function usePlay() {
  const [seat, setSeat] = useState<Seat | null>(null);
  const socketRef = useRef<WebSocket | null>(null);
  const counter = useRef({ n: 0 });
  const sent = useRef(0);
  useEffect(() => () => socketRef.current?.close(), []);

  const join = useCallback((name: string, colour: Colour) => {
    socketRef.current?.close();
    const ws = new WebSocket(playUrl(name, colour));
    socketRef.current = ws;
    sent.current = 0;
    setSeat({ state: null, lines: [], notices: [], pending: null, closed: null, seenUpTo: 0 });
    let batch: CatanPlayMessage[] = [];
    let timer: number | undefined;
    const flush = () => {
      timer = undefined;
      const taken = batch;
      batch = [];
      if (socketRef.current === ws) setSeat((s) => (s ? fold(s, taken, counter.current) : s));
    };
    ws.onmessage = (m: MessageEvent<string>) => {
      try {
        batch.push(JSON.parse(m.data) as CatanPlayMessage);
      } catch {
        return;
      }
      timer ??= window.setTimeout(flush, FLUSH_MS);
    };
    ws.onclose = (e) => {
      window.clearTimeout(timer);
      flush();
      if (socketRef.current === ws)
        setSeat((s) => (s ? { ...s, pending: null, closed: e.reason || `closed (${e.code})` } : s));
    };
  }, []);

  const send = useCallback((command: CatanPlayCommand) => {
    const ws = socketRef.current;
    if (ws?.readyState !== WebSocket.OPEN) return;
    ws.send(JSON.stringify(command));
    const count = ++sent.current;
    setSeat((s) => (s ? { ...s, pending: count, seenUpTo: counter.current.n } : s));
  }, []);

  const act = useCallback((action: Action) => send({ type: 'action', action }), [send]);

  /** Closes the seat's connection: a running game ends for everyone (the protocol has no reconnect). */
  const leave = useCallback(() => socketRef.current?.close(), []);

  const reset = useCallback(() => {
    const ws = socketRef.current;
    socketRef.current = null;
    ws?.close();
    setSeat(null);
  }, []);

  return { seat, join, send, act, leave, reset };
}

export type Play = ReturnType<typeof usePlay>;
