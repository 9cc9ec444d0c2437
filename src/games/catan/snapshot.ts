import { view, type BoardView, type BuildingView, type TradeView } from './view.js';
import type { Phase, State } from './rules/state.js';
import type { Colour, Status } from './rules/types.js';

/**
 * The Catan server as the dashboard shows it: lobbies, games in their public (spectator) view,
 * and the latest results. Hands appear as card counts only, points without hidden Siegpunkt
 * cards (the winner's true points once won), never the deck, the RNG or the bank by type.
 */

/** `human`: a client without `(KI)` in its version; `ai`: one with it; `bot`: our own house bot. */
export type SeatKind = 'human' | 'ai' | 'bot';

export interface CatanLobbyPlayerRow {
  id: number;
  name: string | null;
  colour: Colour | null;
  /** `Spiel starten` or `Wartet auf Spielbeginn`. */
  status: Status;
  kind: SeatKind;
  /** `address:port`, or `bot:<name>` for a house bot. */
  address: string;
}

export interface CatanLobbyRow {
  id: string;
  players: CatanLobbyPlayerRow[];
  /** Made for a game of house bots only: nobody else joins it. */
  dedicated: boolean;
  createdAt: number;
  /** When house bots will fill the empty seats (the `botFillMs` setting), null if not planned. */
  botFillAt: number | null;
}

export interface CatanMatchPlayerRow {
  id: number;
  name: string;
  colour: Colour;
  kind: SeatKind;
  address: string;
  status: Status;
  /** Public points (hidden Siegpunkt cards only once revealed by a win). */
  points: number;
  /** Resource cards in hand (a count). */
  cards: number;
  /** Unplayed development cards (a count). */
  devCards: number;
  knights: number;
  roadLength: number;
  roadsLeft: number;
  settlementsLeft: number;
  citiesLeft: number;
}

export interface CatanMatchRow {
  /** The record-store id. */
  id: string;
  number: number;
  startedAt: number;
  phase: Phase;
  /** Id of the active player. */
  turn: number;
  turnNumber: number;
  dice: readonly [number, number] | null;
  board: BoardView;
  buildings: readonly BuildingView[];
  /** In turn order. */
  players: CatanMatchPlayerRow[];
  trades: readonly TradeView[];
  longestRoad: number | null;
  largestArmy: number | null;
  bankCards: number;
  deckCards: number;
  /** The latest public wire lines (as a spectator receives them), oldest first. */
  lines: string[];
}

export interface CatanResultRow {
  id: string;
  number: number;
  startedAt: number;
  endedAt: number;
  status: 'finished' | 'aborted';
  winner: number | null;
  /** Why the game ended: `won`, `disconnect`, `error`, `server stopped`. */
  reason: string;
  /** The server's `Spiel beendet` text. */
  message: string;
  /** In turn order, public points (the winner's true points). */
  players: { id: number; name: string; colour: Colour; kind: SeatKind; points: number }[];
  turns: number;
}

export interface CatanSnapshot {
  game: 'catan';
  port: number;
  connections: number;
  lobbies: CatanLobbyRow[];
  matches: CatanMatchRow[];
  /** The latest ended games, newest first (at most 20). */
  recent: CatanResultRow[];
  gamesPlayed: number;
  gamesAborted: number;
}

/** A running game as the dashboard shows it: the spectator's view of it. */
export function matchRow(m: {
  readonly id: string;
  readonly number: number;
  readonly startedAt: number;
  readonly state: State;
  readonly seats: readonly { readonly kind: SeatKind; readonly address: string }[];
  readonly lines: readonly string[];
}): CatanMatchRow {
  const v = view(m.state, 'spectator');
  return {
    id: m.id,
    number: m.number,
    startedAt: m.startedAt,
    phase: v.phase,
    turn: v.turn,
    turnNumber: v.turnNumber,
    dice: v.dice,
    board: v.board,
    buildings: v.buildings,
    players: v.players.map((p, i) => {
      const seat = m.seats[i]!;
      return {
        id: p.id,
        name: p.name,
        colour: p.colour,
        kind: seat.kind,
        address: seat.address,
        status: p.status,
        points: p.points,
        cards: p.cards,
        devCards: 'Unbekannt' in p.devCards ? p.devCards.Unbekannt : 0,
        knights: p.knights,
        roadLength: p.roadLength,
        roadsLeft: p.roadsLeft,
        settlementsLeft: p.settlementsLeft,
        citiesLeft: p.citiesLeft,
      };
    }),
    trades: v.trades,
    longestRoad: v.longestRoad,
    largestArmy: v.largestArmy,
    bankCards: v.bankCards,
    deckCards: v.deckCards,
    lines: [...m.lines],
  };
}
