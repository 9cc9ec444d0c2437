import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { GameEvent } from '../../../src/games/catan/events.js';
import {
  BANK_START,
  apply,
  boardFromSpec,
  newGame,
  parseCorner,
  parseEdge,
  roadLength,
  seatOf,
  type Action,
  type BoardSpec,
  type FieldType,
  type HarbourType,
  type Player,
  type ResourceCounts,
  type Resources,
  type State,
} from '../../../src/games/catan/rules/index.js';

interface Karte {
  Felder: { Ort: string; Typ: FieldType; Zahl?: number }[];
  Haefen: { Ort: string; Typ: HarbourType }[];
  Raeuber: string;
}

export const KARTE_T1 = JSON.parse(readFileSync(new URL('../../fixtures/catan/karte-t1.json', import.meta.url), 'utf8')) as Karte;

export function specOf(karte: Karte): BoardSpec {
  return {
    fields: karte.Felder.map((f) => ({ at: f.Ort, type: f.Typ, number: f.Zahl ?? null })),
    harbours: karte.Haefen.map((h) => ({ at: h.Ort, type: h.Typ })),
    robber: karte.Raeuber,
  };
}

export function boardT1() {
  const loaded = boardFromSpec(specOf(KARTE_T1));
  if (!loaded.ok) throw new Error(loaded.error);
  return loaded.value;
}

/** §5: Anna (17, Rot), KI Alpha (42, Blau), KI Beta (63, Weiss) in the order 42, 63, 17 on KARTE_T1. */
export function exampleGame(seed: string | number = 'example'): State {
  const started = newGame({
    seed,
    board: boardT1(),
    fixedOrder: true,
    players: [
      { id: 42, name: 'KI Alpha', colour: 'Blau' },
      { id: 63, name: 'KI Beta', colour: 'Weiss' },
      { id: 17, name: 'Anna', colour: 'Rot' },
    ],
  });
  if (!started.ok) throw new Error(started.error);
  return started.value.state;
}

/** Applies an action that must succeed; returns the next state and its events. */
export function must(s: State, player: number, action: Action): { state: State; events: readonly GameEvent[] } {
  const r = apply(s, player, action);
  if (!r.ok) throw new Error(`${JSON.stringify(action)} by ${player} refused: ${r.error.code}`);
  return r.value;
}

/** Applies an action that must be refused with `code`, and checks nothing changed. */
export function refused(s: State, player: number, action: Action, code: string): void {
  const before = JSON.stringify(s);
  const r = apply(s, player, action);
  expect(r.ok ? 'accepted' : r.error.code, JSON.stringify(action)).toBe(code);
  expect(JSON.stringify(s)).toBe(before);
}

export function run(s: State, moves: readonly [number, Action][]): State {
  let state = s;
  for (const [player, action] of moves) state = must(state, player, action).state;
  return state;
}

const build = (piece: 'Dorf' | 'Strasse', at: string): Action => ({ type: 'build', piece, at });

/** The §5 placements, up to the first roll. */
export const EXAMPLE_SETUP: readonly [number, Action][] = [
  [42, build('Dorf', 'FOP')],
  [42, build('Strasse', 'OP')],
  [63, build('Dorf', 'ALM')],
  [63, build('Strasse', 'AM')],
  [17, build('Dorf', 'KLR')],
  [17, build('Strasse', 'KR')],
  [17, build('Dorf', 'CDN')],
  [17, build('Strasse', 'DN')],
  [63, build('Dorf', 'GHP')],
  [63, build('Strasse', 'HP')],
  [42, build('Dorf', 'DEO')],
  [42, build('Strasse', 'EO')],
];

/** The example game right after setup: 42 must roll. */
export const afterSetup = (seed: string | number = 'example'): State => run(exampleGame(seed), EXAMPLE_SETUP);

export const player = (s: State, id: number): Player => s.players[seatOf(s, id)]!;

function fullHand(r: ResourceCounts): Resources {
  return { Holz: r.Holz ?? 0, Lehm: r.Lehm ?? 0, Wolle: r.Wolle ?? 0, Getreide: r.Getreide ?? 0, Erz: r.Erz ?? 0 };
}

/**
 * Test scenarios edit the plain-data state directly. These keep the invariants the property tests
 * check: cards come from and go back to the bank, pieces come from the supply.
 */
export function withHand(s: State, id: number, hand: ResourceCounts): State {
  const seat = seatOf(s, id);
  const old = s.players[seat]!.resources;
  const next = fullHand(hand);
  const bank = { ...s.bank };
  for (const k of Object.keys(next) as (keyof Resources)[]) bank[k] += old[k] - next[k];
  return { ...s, bank, players: s.players.map((p, i) => (i === seat ? { ...p, resources: next } : p)) };
}

export function withPlayer(s: State, id: number, patch: Partial<Player>): State {
  const seat = seatOf(s, id);
  return { ...s, players: s.players.map((p, i) => (i === seat ? { ...p, ...patch } : p)) };
}

/** Puts roads for `id` on the given edges (taken from the supply, no cost, no award update). */
export function withRoads(s: State, id: number, edges: readonly string[]): State {
  const seat = seatOf(s, id);
  const roads = s.roads.slice();
  for (const at of edges) {
    const e = parseEdge(at);
    if (e < 0) throw new Error(`bad edge ${at}`);
    roads[e] = seat;
  }
  const p = s.players[seat]!;
  return withPlayer({ ...s, roads }, id, { roadsLeft: p.roadsLeft - edges.length, roadLength: roadLength(roads, s.buildings, seat) });
}

export function withSettlement(s: State, id: number, at: string, city = false): State {
  const seat = seatOf(s, id);
  const c = parseCorner(at);
  if (c < 0) throw new Error(`bad corner ${at}`);
  const buildings = s.buildings.slice();
  buildings[c] = seat * 2 + (city ? 1 : 0);
  const p = s.players[seat]!;
  return withPlayer({ ...s, buildings }, id, {
    points: p.points + (city ? 2 : 1),
    ...(city ? { citiesLeft: p.citiesLeft - 1 } : { settlementsLeft: p.settlementsLeft - 1 }),
  });
}

/** The example after setup, with 42 having rolled a 6 (as in §5): 42 is in `Handeln oder Bauen`. */
export const mainPhase = (): State => must(afterSetup(), 42, { type: 'roll', dice: [2, 4] }).state;

export const types = (events: readonly GameEvent[]): string[] => events.map((e) => e.type);

/** An event's type, or `SU <id> <status>` for a Statusupdate. */
export const brief = (e: GameEvent): string => (e.type === 'playerUpdated' ? `SU ${e.player.id} ${e.player.status}` : e.type);

export const handTotal = (r: Resources): number => r.Holz + r.Lehm + r.Wolle + r.Getreide + r.Erz;

export { BANK_START };
