import type { GameEvent, TransferCause } from '../events.js';
import { add, compact, subtract, total } from './resources.js';
import type { Player, State } from './state.js';
import type { ResourceCounts } from './types.js';

export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * The working copy an action edits. `apply` makes one shallow copy per action and each player it
 * touches is copied once (`mut`), so the input state stays intact and a refused action is simply
 * a dropped draft. The copies are written field by field, in one order, so every state and player
 * object has the same shape (spreads would make V8 fall back to slow dictionary objects).
 */
export interface Draft extends Mutable<Omit<State, 'players'>> {
  players: Player[];
  readonly events: GameEvent[];
  /** Bit per seat: that player is already a private copy in this draft. */
  copied: number;
}

export function draftOf(s: State): Draft {
  return {
    board: s.board,
    robber: s.robber,
    buildings: s.buildings,
    roads: s.roads,
    players: s.players.slice(),
    bank: s.bank,
    deck: s.deck,
    drawn: s.drawn,
    rng: s.rng,
    phase: s.phase,
    turn: s.turn,
    turnNumber: s.turnNumber,
    setupStep: s.setupStep,
    setupCorner: s.setupCorner,
    discards: s.discards,
    devCardPlayed: s.devCardPlayed,
    dice: s.dice,
    trades: s.trades,
    nextTradeId: s.nextTradeId,
    longestRoad: s.longestRoad,
    largestArmy: s.largestArmy,
    winner: s.winner,
    events: [],
    copied: 0,
  };
}

export function freeze(d: Draft): State {
  return {
    board: d.board,
    robber: d.robber,
    buildings: d.buildings,
    roads: d.roads,
    players: d.players,
    bank: d.bank,
    deck: d.deck,
    drawn: d.drawn,
    rng: d.rng,
    phase: d.phase,
    turn: d.turn,
    turnNumber: d.turnNumber,
    setupStep: d.setupStep,
    setupCorner: d.setupCorner,
    discards: d.discards,
    devCardPlayed: d.devCardPlayed,
    dice: d.dice,
    trades: d.trades,
    nextTradeId: d.nextTradeId,
    longestRoad: d.longestRoad,
    largestArmy: d.largestArmy,
    winner: d.winner,
  };
}

export function clonePlayer(p: Player): Mutable<Player> {
  return {
    id: p.id,
    name: p.name,
    colour: p.colour,
    status: p.status,
    resources: p.resources,
    devCards: p.devCards,
    boughtThisTurn: p.boughtThisTurn,
    knights: p.knights,
    points: p.points,
    roadsLeft: p.roadsLeft,
    settlementsLeft: p.settlementsLeft,
    citiesLeft: p.citiesLeft,
    roadLength: p.roadLength,
  };
}

/** The seat's player as a private, writable copy (made on first use in this draft). */
export function mut(d: Draft, seat: number): Mutable<Player> {
  const bit = 1 << seat;
  if ((d.copied & bit) === 0) {
    d.players[seat] = clonePlayer(d.players[seat]!);
    d.copied |= bit;
  }
  return d.players[seat] as Mutable<Player>;
}

export function setPlayer(d: Draft, seat: number, patch: Partial<Player>): Player {
  return Object.assign(mut(d, seat), patch);
}

export const idOf = (d: { readonly players: readonly Player[] }, seat: number): number => d.players[seat]!.id;

/** Bank → player, with its `Ertrag` event (skipped when nothing moves). */
export function gain(d: Draft, seat: number, cards: ResourceCounts, cause: TransferCause): void {
  if (total(cards) === 0) return;
  d.bank = subtract(d.bank, cards);
  const p = mut(d, seat);
  p.resources = add(p.resources, cards);
  d.events.push({ type: 'gained', player: p.id, resources: compact(cards), cause });
}

/** Player → bank, with its `Kosten` event. */
export function pay(d: Draft, seat: number, cards: ResourceCounts, cause: TransferCause): void {
  if (total(cards) === 0) return;
  d.bank = add(d.bank, cards);
  const p = mut(d, seat);
  p.resources = subtract(p.resources, cards);
  d.events.push({ type: 'paid', player: p.id, resources: compact(cards), cause });
}

/** Player → player without touching the bank: the giver's `Kosten`, then the taker's `Ertrag`. */
export function hand(d: Draft, from: number, to: number, cards: ResourceCounts, cause: TransferCause): void {
  if (total(cards) === 0) return;
  const giver = mut(d, from);
  const taker = mut(d, to);
  giver.resources = subtract(giver.resources, cards);
  taker.resources = add(taker.resources, cards);
  d.events.push({ type: 'paid', player: giver.id, resources: compact(cards), cause });
  d.events.push({ type: 'gained', player: taker.id, resources: compact(cards), cause });
}

/** Copy-on-write writes into the state's arrays. */
export function setAt(list: readonly number[], index: number, value: number): number[] {
  const out = list.slice();
  out[index] = value;
  return out;
}
