import type { Timer } from '../../core/clock.js';
import type { Match, Peer } from './match.js';
import type { Colour, Status } from './rules/index.js';
import type { SeatKind } from './snapshot.js';

/**
 * What the hall (lobby.ts) keeps per connection and per lobby. A module of its own, so that the
 * house bots, which are sessions too, need not import the hall that creates them.
 */

export interface Session {
  readonly peer: Peer;
  readonly address: string;
  /** The remote IP the per-host cap counts; null: not counted (house bots, the dashboard's gateway). */
  readonly host: string | null;
  id: number | null;
  name: string | null;
  colour: Colour | null;
  /**
   * The name of a `Spieler` refused only because its colour was taken, from a player without a
   * colour: kept (but shown to nobody), so that a `Spiel starten` after it is answered with
   * `Farbe bereits vergeben` (seed §8) rather than `Ungueltiger Name`.
   */
  refusedName: string | null;
  status: Status;
  kind: SeatKind;
  lobby: Lobby | null;
  match: Match | null;
  /** A house bot's lobby (else the open one is joined). */
  readonly target: Lobby | null;
  /** A seat in `target` is held for this bot until its Hallo (or its end). */
  holdsSeat: boolean;
}

export interface Lobby {
  readonly id: string;
  readonly members: Session[];
  /** For a game of house bots: nobody else joins. */
  readonly dedicated: boolean;
  readonly createdAt: number;
  fillTimer: Timer | null;
  fillAt: number | null;
  /** Closes the lobby when nobody has joined for `idleLobbyTimeoutMs`. */
  idleTimer: Timer | null;
  /** Seats held for house bots whose Hallo is on its way. */
  reserved: number;
  /** Told the match id when the game starts, or null when the lobby goes without a game. */
  readonly waiters: ((matchId: string | null) => void)[];
}
