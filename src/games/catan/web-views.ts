import type { ClientView } from './client-view.js';
import type { LegalActions } from './rules/legal.js';
import type { Action, Colour, Resource } from './rules/types.js';
import type { View } from './view.js';

/**
 * What the dashboard's Catan routes send and take (the browser imports these types only). A
 * person's seat (`/ws/catan/play`) is a protocol 0.3 TCP client in the gateway: the browser gets
 * that client's own view (built from the messages it received, nothing else), its legal actions
 * as the rules core works them out from that view, every wire line, and every `Fehler`.
 */

/** `connecting`: no Willkommen yet; `lobby`: in a lobby; `game`: playing; `over`: the game ended or the connection closed. */
export type CatanPlayPhase = 'connecting' | 'lobby' | 'game' | 'over';

/** The client's view as sent to the browser (without the rules' corner and edge tables). */
export type CatanSeatView = Omit<ClientView, 'pieces'>;

export interface CatanPlayState {
  readonly type: 'state';
  readonly phase: CatanPlayPhase;
  /** The name and colour the person asked for. */
  readonly name: string;
  readonly colour: Colour | null;
  /** The id the server gave this connection. */
  readonly me: number | null;
  /** The lobby the person waits in (for the "fill with AI" button), while in one. */
  readonly lobby: string | null;
  /** The record id of the game, once it started. */
  readonly matchId: string | null;
  /** Server messages received so far: each state a new number (tests wait for it). */
  readonly version: number;
  /** Commands from the browser handled so far (the browser waits for its own to be counted). */
  readonly commands: number;
  readonly view: CatanSeatView;
  /** What the person may do now (null outside a game); empty while `waiting`. */
  readonly legal: LegalActions | null;
  /** Sea trade rate per resource (2, 3 or 4) for the person, in a game. */
  readonly rates: Readonly<Record<Resource, number>> | null;
  /** An action is on its way: the next comes after the server's OK or Fehler. */
  readonly waiting: boolean;
  /** Why the seat ended, once it has (the server's `Spiel beendet`, or a lost connection). */
  readonly ended: string | null;
  /**
   * Players of this lobby or game whose browser is away (a reload, a lost network): their seat is
   * kept for `reconnectMs`, then closed (D9 aborts a running game).
   */
  readonly reconnecting: readonly number[];
}

export type CatanPlayMessage =
  | CatanPlayState
  /** A line of the seat's TCP connection: `in` from the server, `out` to it. */
  | { readonly type: 'line'; readonly dir: 'in' | 'out'; readonly line: string }
  /** A `Fehler` (or a `Serverantwort` other than OK), with the line that caused it. */
  | { readonly type: 'fehler'; readonly meldung: string; readonly sent: string | null }
  /** The gateway's own word: a command it could not read, a wait, a lost connection. */
  | { readonly type: 'notice'; readonly text: string }
  /**
   * Sent first on every WebSocket of a seat: the seat's token (random, only this seat's) for
   * `/ws/catan/play?seat=<token>` after a reload, and how long the seat waits for it.
   */
  | { readonly type: 'seat'; readonly token: string; readonly reconnectMs: number };

/** What the browser sends on `/ws/catan/play`. */
export type CatanPlayCommand =
  | { readonly type: 'player'; readonly name: string; readonly colour: Colour }
  | { readonly type: 'start' }
  /** Fill the person's lobby with house bots up to `size` players (default 4). */
  | { readonly type: 'fill'; readonly size?: 3 | 4 }
  | { readonly type: 'action'; readonly action: Action }
  | { readonly type: 'chat'; readonly text: string }
  /** Give the seat up now (closing the WebSocket only keeps it for a reconnect). */
  | { readonly type: 'leave' };

/** A person playing in the dashboard (`GET /api/catan/players`). */
export interface CatanBrowserPlayer {
  readonly id: number | null;
  readonly name: string;
  readonly phase: CatanPlayPhase;
  readonly matchId: string | null;
  readonly since: number;
  /** The browser is away; the seat waits for it to come back with its token. */
  readonly reconnecting: boolean;
}

/** A recorded game replayed through the rules (`GET /api/catan/records/:id`). */
export interface CatanRecordView {
  readonly id: string;
  readonly status: 'running' | 'finished' | 'aborted' | 'superseded';
  readonly startedAt: number;
  readonly endedAt: number | null;
  readonly seats: readonly {
    readonly seat: number;
    readonly name: string;
    readonly kind: string;
    readonly address?: string | undefined;
  }[];
  readonly result: unknown;
  /** Whether the replay could run, and what it found (empty: the record holds). */
  readonly checked: boolean;
  readonly problems: readonly string[];
  /** The final position as a spectator sees it (the winner's true points). */
  readonly final: View | null;
  /** Every public message of the game in order, as a spectator received it. */
  readonly lines: readonly string[];
}
