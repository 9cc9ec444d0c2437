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
 *
 * The seat outlives the page: the gateway sends a token, kept in this tab's sessionStorage; a
 * reload (or a return to the Catan page) opens `/ws/catan/play?seat=<token>` and gets the same
 * seat back while the gateway still waits for it. A WebSocket lost otherwise is tried again with
 * the token. Only `leave` gives the seat up at once.
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
  /** The WebSocket was lost and is being opened again with the seat's token. */
  readonly reconnecting: boolean;
}

const MAX_LINES = 500;
const FLUSH_MS = 16;

const SEAT_KEY = 'spielhalle.catan.seat';
/** Close codes after which the seat is not tried again: done, refused, or taken over by another page. */
const FINAL_CODES = new Set([1000, 1008, 1011, 4001, 4400, 4401, 4404, 4429]);
const RETRY_MS = 2000;
const RETRIES = 15;

function playUrl(params: Record<string, string>): string {
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  return withToken(`${scheme}://${window.location.host}/ws/catan/play${query(params)}`);
}

/** The seat token of this tab (sessionStorage: a reload keeps it, another tab has its own). */
function storedSeat(): string | null {
  try {
    return window.sessionStorage.getItem(SEAT_KEY);
  } catch {
    return null;
  }
}

function storeSeat(token: string | null): void {
  try {
    if (token === null) window.sessionStorage.removeItem(SEAT_KEY);
    else window.sessionStorage.setItem(SEAT_KEY, token);
  } catch {
    // No storage (a private window's quota): the seat just does not survive a reload.
  }
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
      case 'seat':
        break;
    }
  }
  if (added.length > 0) lines = [...lines, ...added].slice(-MAX_LINES);
  if (told.length > 0) notices = [...notices, ...told].slice(-20);
  return { ...seat, state, lines, notices, pending };
}

export function usePlay() {
  const [seat, setSeat] = useState<Seat | null>(null);
  /** Why the seat this tab had before a reload could not be taken back (null: there was none, or it was). */
  const [gone, setGone] = useState<string | null>(null);
  const socketRef = useRef<WebSocket | null>(null);
  const retryRef = useRef<{ timer: number | undefined; left: number }>({ timer: undefined, left: RETRIES });
  const counter = useRef({ n: 0 });
  const sent = useRef(0);

  /** `join`: a new seat; `rejoin`: this tab's seat after a reload; `retry`: after a lost WebSocket. */
  const open = useCallback((url: string, how: 'join' | 'rejoin' | 'retry') => {
    const fresh = how !== 'retry';
    window.clearTimeout(retryRef.current.timer);
    socketRef.current?.close();
    const ws = new WebSocket(url);
    socketRef.current = ws;
    sent.current = 0;
    if (fresh) {
      counter.current.n = 0;
      setSeat({ state: null, lines: [], notices: [], pending: null, closed: null, seenUpTo: 0, reconnecting: false });
    }
    let batch: CatanPlayMessage[] = [];
    let timer: number | undefined;
    let over = false;
    let attached = false;
    const flush = () => {
      timer = undefined;
      const taken = batch;
      batch = [];
      if (socketRef.current === ws) setSeat((s) => (s ? fold(s, taken, counter.current) : s));
    };
    ws.onmessage = (m: MessageEvent<string>) => {
      let message: CatanPlayMessage;
      try {
        message = JSON.parse(m.data) as CatanPlayMessage;
      } catch {
        return;
      }
      if (message.type === 'seat') {
        // The seat is back (or new): its lines come again, so the log starts afresh.
        attached = true;
        retryRef.current.left = RETRIES;
        storeSeat(message.token);
        batch = [];
        if (socketRef.current === ws)
          setSeat((s) => (s ? { ...s, lines: [], pending: null, reconnecting: false } : s));
        return;
      }
      if (message.type === 'state' && message.phase === 'over') {
        over = true;
        storeSeat(null);
      }
      batch.push(message);
      timer ??= window.setTimeout(flush, FLUSH_MS);
    };
    ws.onclose = (e) => {
      window.clearTimeout(timer);
      flush();
      if (socketRef.current !== ws) return;
      const token = storedSeat();
      if (!over && token !== null && !FINAL_CODES.has(e.code) && retryRef.current.left > 0) {
        // Lost, not ended: the gateway keeps the seat a while; try again with its token.
        retryRef.current.left--;
        setSeat((s) => (s ? { ...s, pending: null, reconnecting: true } : s));
        retryRef.current.timer = window.setTimeout(() => {
          if (socketRef.current === ws) open(playUrl({ seat: token }), 'retry');
        }, RETRY_MS);
        return;
      }
      storeSeat(null);
      if (how === 'rejoin' && !attached) {
        // The seat from before the reload is over (its game ended, or it waited too long).
        socketRef.current = null;
        setSeat(null);
        setGone(e.reason || `closed (${e.code})`);
        return;
      }
      setSeat((s) => (s ? { ...s, pending: null, reconnecting: false, closed: e.reason || `closed (${e.code})` } : s));
    };
  }, []);

  // A seat this tab had before a reload (or before leaving the Catan page): take it back.
  useEffect(() => {
    const token = storedSeat();
    if (token !== null) open(playUrl({ seat: token }), 'rejoin');
    const retry = retryRef.current;
    return () => {
      window.clearTimeout(retry.timer);
      const ws = socketRef.current;
      socketRef.current = null;
      ws?.close();
    };
  }, [open]);

  const inGame = seat !== null && seat.closed === null && seat.state?.phase === 'game';
  // Leaving the page in a game asks first: the seat waits only a while, then the game ends for everyone.
  useEffect(() => {
    if (!inGame) return;
    const ask = (e: BeforeUnloadEvent) => {
      e.preventDefault();
    };
    window.addEventListener('beforeunload', ask);
    return () => window.removeEventListener('beforeunload', ask);
  }, [inGame]);

  const join = useCallback(
    (name: string, colour: Colour) => {
      storeSeat(null);
      setGone(null);
      open(playUrl({ name, colour }), 'join');
    },
    [open],
  );

  const send = useCallback((command: CatanPlayCommand) => {
    const ws = socketRef.current;
    if (ws?.readyState !== WebSocket.OPEN) return;
    ws.send(JSON.stringify(command));
    const count = ++sent.current;
    setSeat((s) => (s ? { ...s, pending: count, seenUpTo: counter.current.n } : s));
  }, []);

  const act = useCallback((action: Action) => send({ type: 'action', action }), [send]);

  /** Gives the seat up: a running game ends for everyone (the protocol has no reconnect). */
  const leave = useCallback(() => {
    storeSeat(null);
    const ws = socketRef.current;
    if (ws?.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'leave' } satisfies CatanPlayCommand));
    else ws?.close();
  }, []);

  const reset = useCallback(() => {
    storeSeat(null);
    window.clearTimeout(retryRef.current.timer);
    const ws = socketRef.current;
    socketRef.current = null;
    if (ws?.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'leave' } satisfies CatanPlayCommand));
    ws?.close();
    setSeat(null);
  }, []);

  return { seat, gone, join, send, act, leave, reset };
}

export type Play = ReturnType<typeof usePlay>;
