import type { Timer } from '../../core/clock.js';
import type { Match, Peer } from './match.js';
import type { CatanResultRow } from './snapshot.js';
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
  /** A connection of the ladder port (ladder-door.ts): its own waiting room, its code's ticket. */
  ladder?: LadderSeat | undefined;
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
  /** A game prepared for exactly these players (tournaments); nobody else joins. */
  readonly reservation?: Reservation | undefined;
  /** A ladder connection's waiting room (one member, until its ladder game is made). */
  ladderRoom?: boolean | undefined;
}

/**
 * A game prepared for exactly the players `names` (a tournament match, tournament.ts): its
 * connections come in on a listener of their own (`CatanServer.reserve`), a `Spieler` with any other
 * name (or one already in the lobby) is `Ungueltiger Name`, and the game starts once every one of
 * them has sent `Spiel starten`, with the turn order of `names`, the board and deck of `seed` and
 * the dice of `dice`.
 */
export interface Reservation {
  /** The players in turn order (the first moves first). */
  readonly names: readonly string[];
  /**
   * Whether the connection from `address` (ip:port) may play as `name`: a tournament's name is
   * its entrant's alone (issue 30). Absent: any connection of the game's listener may.
   */
  readonly nameOwner?: ((name: string, address: string) => boolean) | undefined;
  /** The game's seed (board, deck, the server's own random choices). */
  readonly seed: string;
  /** The dice of each roll in turn (the same sequence whoever rolls). */
  readonly dice?: (() => readonly [number, number]) | undefined;
  /** D10 per-decision timeout of this game; null: none. */
  readonly timeoutMs: number | null;
  /** The game ends without a winner once this many turns are played; null: no limit. */
  readonly turnLimit?: number | null | undefined;
  /** A player the server had to act for this many times in a row is out: the game ends (`timeout`); null: never. */
  readonly timeoutStreak?: number | null | undefined;
  /** Added to the game record's meta (the tournament match it is). */
  readonly meta?: Readonly<Record<string, unknown>> | undefined;
  /** A player of `names` has sent `Spiel starten`. */
  readonly onReady?: ((name: string) => void) | undefined;
  readonly onStart?: ((match: Match) => void) | undefined;
  readonly onEnd?: ((match: Match, result: CatanResultRow) => void) | undefined;
}

/** A ladder code admitted at the ladder port (ladder-door.ts), until its connection is seated in a game or gone. */
export interface CatanLadderTicket {
  /** `Spiel starten`: the connection waits for its game. */
  wait(session: Session): void;
  /** The connection is gone before it was seated. */
  leave(): void;
}

/** What the hall keeps of a connection that came in on the ladder port. */
export interface LadderSeat {
  ticket: CatanLadderTicket | null;
  /** The code it gave (only to tell a second `Spieler` with the same code from another name). */
  code: string | null;
}
