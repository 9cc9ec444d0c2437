import type { GameEvent } from '../events.js';
import { longestRoadHolder, roadLength } from './longest-road.js';
import { DECK, type State } from './state.js';
import { DEV_CARDS, RESOURCES, type DevCard } from './types.js';

/**
 * Conservation and bookkeeping checks that hold in every reachable state, recomputed from scratch:
 * 95 resource cards, 25 development cards, the piece supplies, every player's points and road
 * length, the award holders, and statuses that fit the phase. Property tests, the rules bench and
 * a recorded-match verifier run them after every action.
 */

/** The development card each play event uses up (played cards leave the state). */
export const PLAYED_CARD: Partial<Record<GameEvent['type'], DevCard>> = {
  knightPlayed: 'Ritter',
  roadBuildingPlayed: 'Strassenbau',
  monopolyPlayed: 'Monopol',
  yearOfPlentyPlayed: 'Erfindung',
};

const DECK_COUNT = new Map<DevCard, number>(DEV_CARDS.map((c) => [c, DECK.filter((x) => x === c).length]));

const ACTING: Readonly<Record<State['phase'], readonly string[]>> = {
  setupSettlement: ['Dorf bauen'],
  setupRoad: ['Strasse bauen'],
  roll: ['Wuerfeln'],
  discard: ['Karten wegen Raeuber abgeben'],
  robber: ['Raeuber versetzen'],
  main: ['Handeln oder Bauen'],
  // Statuses stay as they were when the game was won; status() reports the win.
  over: ['Dorf bauen', 'Strasse bauen', 'Wuerfeln', 'Karten wegen Raeuber abgeben', 'Raeuber versetzen', 'Handeln oder Bauen', 'Verbindung verloren'],
};

/** What is wrong with a state (empty when nothing is); `played` counts the cards played so far. */
export function invariantProblems(s: State, played: ReadonlyMap<DevCard, number>): string[] {
  const out: string[] = [];
  const check = (ok: boolean, what: () => string): void => {
    if (!ok) out.push(what());
  };
  for (const r of RESOURCES) {
    let inHands = 0;
    for (const p of s.players) {
      inHands += p.resources[r];
      check(p.resources[r] >= 0, () => `${r} negative in a hand`);
    }
    check(s.bank[r] + inHands === 19, () => `${r}: bank ${s.bank[r]} + hands ${inHands} ≠ 19`);
    check(s.bank[r] >= 0, () => `${r} negative in the bank`);
  }
  for (const c of DEV_CARDS) {
    let everywhere = played.get(c) ?? 0;
    for (let i = s.drawn; i < s.deck.length; i++) if (s.deck[i] === c) everywhere++;
    for (const p of s.players) {
      everywhere += p.devCards[c];
      check(p.boughtThisTurn[c] <= p.devCards[c], () => `${c} bought this turn but not held`);
    }
    check(everywhere === DECK_COUNT.get(c), () => `${c}: ${everywhere} in deck, hands and played`);
  }
  check(s.deck.length === DECK.length, () => 'deck size');

  const n = s.players.length;
  const settlements = Array<number>(n).fill(0);
  const cities = Array<number>(n).fill(0);
  const roads = Array<number>(n).fill(0);
  for (const b of s.buildings) if (b !== -1) (b & 1 ? cities : settlements)[b >> 1]! += 1;
  for (const r of s.roads) if (r !== -1) roads[r]! += 1;
  const lengths = s.players.map((_, seat) => roadLength(s.roads, s.buildings, seat));
  s.players.forEach((p, seat) => {
    check(
      p.settlementsLeft + settlements[seat]! === 5 && p.citiesLeft + cities[seat]! === 4 && p.roadsLeft + roads[seat]! === 15,
      () => `pieces of seat ${seat}`,
    );
    check(Math.min(p.settlementsLeft, p.citiesLeft, p.roadsLeft) >= 0, () => `negative supply of seat ${seat}`);
    const points = settlements[seat]! + 2 * cities[seat]! + (s.longestRoad === seat ? 2 : 0) + (s.largestArmy === seat ? 2 : 0);
    check(p.points === points, () => `points of seat ${seat}: ${p.points}, recomputed ${points}`);
    check(p.roadLength === lengths[seat], () => `road length of seat ${seat}: ${p.roadLength}, recomputed ${lengths[seat]!}`);
  });
  check(longestRoadHolder(lengths, s.longestRoad) === s.longestRoad, () => `longest road held by ${String(s.longestRoad)} with ${lengths.join()}`);
  const knights = s.players.map((p) => p.knights);
  const most = Math.max(...knights);
  if (s.largestArmy === null) check(most < 3, () => 'nobody holds the largest army');
  else check(knights[s.largestArmy]! >= 3 && knights[s.largestArmy] === most, () => 'largest army holder');

  check(
    s.players.every((p) => p.status === 'Warten' || ACTING[s.phase].includes(p.status)),
    () => `statuses ${s.players.map((p) => p.status).join()} in ${s.phase}`,
  );
  if (s.phase === 'discard') {
    check(
      s.players.every((p, seat) => s.discards[seat]! > 0 === (p.status === 'Karten wegen Raeuber abgeben')),
      () => 'discard statuses',
    );
  } else if (s.phase !== 'over') {
    check(
      s.players.every((p, seat) => (seat === s.turn) === (p.status !== 'Warten')),
      () => `only the active player acts in ${s.phase}`,
    );
  }
  check(s.phase === 'main' || s.phase === 'over' || s.trades.length === 0, () => 'offers outside the main phase');
  return out;
}

/** Runs the checks over a whole recorded game (start state, then the state and events of each action). */
export function gameProblems(start: State, steps: readonly { readonly state: State; readonly events: readonly GameEvent[] }[]): string[] {
  const played = new Map<DevCard, number>();
  const found = invariantProblems(start, played).map((p) => `at the start: ${p}`);
  steps.forEach((step, i) => {
    for (const e of step.events) {
      const card = PLAYED_CARD[e.type];
      if (card) played.set(card, (played.get(card) ?? 0) + 1);
    }
    for (const p of invariantProblems(step.state, played)) found.push(`after action ${i}: ${p}`);
  });
  return found;
}
