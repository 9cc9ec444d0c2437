import { rngState, type RngState } from '../../../core/rng.js';
import { err, ok, type Result } from '../../../core/result.js';
import type { GameEvent, PlayerSnapshot } from '../events.js';
import { randomBoard, type Board } from './board.js';
import { CORNER_COUNT, EDGE_COUNT } from './geometry.js';
import { shuffled } from './random.js';
import { NO_DEV_CARDS, NO_RESOURCES } from './resources.js';
import { COLOURS, type Colour, type DevCard, type DevCards, type ResourceCounts, type Resources, type Status } from './types.js';

export interface Player {
  /** Protocol id (`Willkommen`). */
  readonly id: number;
  readonly name: string;
  readonly colour: Colour;
  readonly status: Status;
  readonly resources: Resources;
  /** Unplayed cards, including those bought this turn and Siegpunkt cards. */
  readonly devCards: DevCards;
  /** The part of `devCards` bought during the current turn (not playable yet). */
  readonly boughtThisTurn: DevCards;
  /** Ritter played (`Rittermacht`). */
  readonly knights: number;
  /** Public points: buildings and awards, without Siegpunkt cards. */
  readonly points: number;
  /** Pieces left in the supply. */
  readonly roadsLeft: number;
  readonly settlementsLeft: number;
  readonly citiesLeft: number;
  /** The player's longest trade route right now (public; kept current after every placement). */
  readonly roadLength: number;
}

export type Phase = 'setupSettlement' | 'setupRoad' | 'roll' | 'discard' | 'robber' | 'main' | 'over';

export interface TradeOffer {
  readonly id: number;
  /** Seat of the offerer (always the active player). */
  readonly seat: number;
  readonly offer: ResourceCounts;
  readonly request: ResourceCounts;
  /** Seats that accepted, in order of acceptance. */
  readonly acceptedBy: readonly number[];
}

/**
 * A whole game as plain JSON. Seats are indexes into `players`, which is in turn order; the wire
 * and events use player ids.
 */
export interface State {
  readonly board: Board;
  /** Land hex id (0–18 = A–S) of the robber. */
  readonly robber: number;
  /** Per corner id: −1 empty, otherwise seat × 2 + (1 for a Stadt, 0 for a Dorf). */
  readonly buildings: readonly number[];
  /** Per edge id: −1 empty, otherwise the owner's seat. */
  readonly roads: readonly number[];
  readonly players: readonly Player[];
  readonly bank: Resources;
  /** The development deck in draw order; `drawn` cards are gone. Secret. */
  readonly deck: readonly DevCard[];
  readonly drawn: number;
  /** Secret: every later random draw (dice, steals) comes from here. */
  readonly rng: RngState;
  readonly phase: Phase;
  /** Seat of the active player (during setup: the one placing). */
  readonly turn: number;
  /** Turns played since setup (0 during setup and the first turn). */
  readonly turnNumber: number;
  /** Setup placement index 0 … 2n−1 in snake order. */
  readonly setupStep: number;
  /** The corner of the Dorf just placed in setup, which the setup road must touch; −1 otherwise. */
  readonly setupCorner: number;
  /** Cards each seat still has to discard after a 7 (0 = none). */
  readonly discards: readonly number[];
  readonly devCardPlayed: boolean;
  readonly dice: readonly [number, number] | null;
  readonly trades: readonly TradeOffer[];
  readonly nextTradeId: number;
  /** Seat holding Längste Handelsstraße / Größte Rittermacht, or null. */
  readonly longestRoad: number | null;
  readonly largestArmy: number | null;
  readonly winner: number | null;
}

export interface NewPlayer {
  readonly id: number;
  readonly name: string;
  readonly colour: Colour;
}

export interface NewGameOptions {
  readonly seed: string | number;
  /** 3 or 4 players (2 is allowed for simulator-only matchups such as G1). */
  readonly players: readonly NewPlayer[];
  /** A fixed board (fixture T1); otherwise D1/D2 from the seed. */
  readonly board?: { readonly board: Board; readonly robber: number };
  /** Keep `players` as the turn order instead of drawing one (D4). */
  readonly fixedOrder?: boolean;
}

export const DECK: readonly DevCard[] = [
  ...Array<DevCard>(14).fill('Ritter'),
  ...Array<DevCard>(5).fill('Siegpunkt'),
  ...Array<DevCard>(2).fill('Strassenbau'),
  ...Array<DevCard>(2).fill('Monopol'),
  ...Array<DevCard>(2).fill('Erfindung'),
];

export const BANK_START: Resources = { Holz: 19, Lehm: 19, Wolle: 19, Getreide: 19, Erz: 19 };
export const PIECES = { roads: 15, settlements: 5, cities: 4 } as const;
export const WINNING_POINTS = 10;

/**
 * Starts a game: board, turn order and deck from the seed (in that order, so a fixed board leaves
 * the rest of the game unchanged), first player `Dorf bauen`, everyone else `Warten`. The events
 * are `gameStarted` and one Statusupdate per player in turn order.
 */
export function newGame(options: NewGameOptions): Result<{ state: State; events: GameEvent[] }, string> {
  const n = options.players.length;
  if (n < 2 || n > 4) return err('a game needs 2 to 4 players');
  const ids = new Set(options.players.map((p) => p.id));
  if (ids.size !== n || [...ids].some((id) => !Number.isSafeInteger(id))) return err('player ids must be distinct integers');
  const colours = new Set(options.players.map((p) => p.colour));
  if (colours.size !== n || [...colours].some((c) => !COLOURS.includes(c))) return err('colours must be distinct protocol colours');

  let rng = rngState(options.seed);
  const generated = randomBoard(rng);
  rng = generated.rng;
  const { board, robber } = options.board ?? generated;
  let order = options.players.slice();
  if (!options.fixedOrder) [order, rng] = shuffled(order, rng);
  const [deck, afterDeck] = shuffled(DECK, rng);
  rng = afterDeck;

  const players: Player[] = order.map((p, seat) => ({
    id: p.id,
    name: p.name,
    colour: p.colour,
    status: seat === 0 ? 'Dorf bauen' : 'Warten',
    resources: NO_RESOURCES,
    devCards: NO_DEV_CARDS,
    boughtThisTurn: NO_DEV_CARDS,
    knights: 0,
    points: 0,
    roadsLeft: PIECES.roads,
    settlementsLeft: PIECES.settlements,
    citiesLeft: PIECES.cities,
    roadLength: 0,
  }));
  const state: State = {
    board,
    robber,
    buildings: Array<number>(CORNER_COUNT).fill(-1),
    roads: Array<number>(EDGE_COUNT).fill(-1),
    players,
    bank: BANK_START,
    deck,
    drawn: 0,
    rng,
    phase: 'setupSettlement',
    turn: 0,
    turnNumber: 0,
    setupStep: 0,
    setupCorner: -1,
    discards: Array<number>(n).fill(0),
    devCardPlayed: false,
    dice: null,
    trades: [],
    nextTradeId: 0,
    longestRoad: null,
    largestArmy: null,
    winner: null,
  };
  const events: GameEvent[] = [{ type: 'gameStarted', order: players.map((p) => p.id) }];
  for (const p of players) events.push({ type: 'playerUpdated', player: snapshot(p), publicPoints: p.points, reveal: false });
  return ok({ state, events });
}

export const seatOf = (s: State, id: number): number => s.players.findIndex((p) => p.id === id);

export const hiddenPoints = (p: Player): number => p.devCards.Siegpunkt;
export const totalPoints = (p: Player): number => p.points + p.devCards.Siegpunkt;

export function snapshot(p: Player): PlayerSnapshot {
  return {
    id: p.id,
    name: p.name,
    colour: p.colour,
    status: p.status,
    points: totalPoints(p),
    resources: p.resources,
    knights: p.knights,
    devCards: p.devCards,
  };
}

/** Seat owning the building at a corner code (see `State.buildings`). */
export const ownerOf = (code: number): number => code >> 1;
export const isCity = (code: number): boolean => (code & 1) === 1;
