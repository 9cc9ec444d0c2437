import { nextInt } from '../../../core/rng.js';
import { boardTables } from './board.js';
import { gain, idOf, setPlayer, type Draft } from './draft.js';
import type { RuleErrorCode } from './errors.js';
import { HEX_CORNER6 } from './geometry.js';
import { NO_DEV_CARDS, total } from './resources.js';
import { RESOURCES } from './types.js';

/** Rolls (or takes the given dice), then produces or starts the robber sequence of a 7. */
export function roll(d: Draft, seat: number, dice: readonly [number, number] | undefined): RuleErrorCode | null {
  let pair: readonly [number, number];
  if (dice) {
    if (!dice.every((x) => Number.isInteger(x) && x >= 1 && x <= 6)) return 'invalid-message';
    pair = [dice[0], dice[1]];
  } else {
    let a: number, b: number;
    [a, d.rng] = nextInt(d.rng, 1, 6);
    [b, d.rng] = nextInt(d.rng, 1, 6);
    pair = [a, b];
  }
  d.dice = pair;
  d.events.push({ type: 'rolled', player: idOf(d, seat), dice: pair });
  const sum = pair[0] + pair[1];
  if (sum === 7) {
    startRobber(d, seat);
    return null;
  }
  produce(d, seat, sum);
  d.phase = 'main';
  setPlayer(d, seat, { status: 'Handeln oder Bauen' });
  return null;
}

/**
 * Every hex with the number and without the robber pays 1 per Dorf and 2 per Stadt. If the bank
 * cannot cover every claim on a resource, nobody gets it, unless there is a single claimant, who
 * gets what remains. `Ertrag` per gaining player in turn order from the roller.
 */
const claims = new Int32Array(4 * 5);

function produce(d: Draft, roller: number, sum: number): void {
  const n = d.players.length;
  const { byNumber, yieldOf } = boardTables(d.board);
  claims.fill(0);
  let any = false;
  for (const hex of byNumber[sum]!) {
    if (hex === d.robber) continue;
    const r = yieldOf[hex]!;
    for (let k = hex * 6, end = k + 6; k < end; k++) {
      const b = d.buildings[HEX_CORNER6[k]!]!;
      if (b === -1) continue;
      const i = (b >> 1) * 5 + r;
      claims[i] = claims[i]! + (b & 1 ? 2 : 1);
      any = true;
    }
  }
  if (!any) return;
  for (let r = 0; r < 5; r++) {
    const res = RESOURCES[r]!;
    let claimed = 0;
    let claimants = 0;
    for (let seat = 0; seat < n; seat++) {
      const c = claims[seat * 5 + r]!;
      claimed += c;
      if (c > 0) claimants++;
    }
    if (claimed <= d.bank[res]) continue;
    for (let seat = 0; seat < n; seat++) {
      const i = seat * 5 + r;
      if (claims[i]! > 0) claims[i] = claimants === 1 ? d.bank[res] : 0;
    }
  }
  for (let k = 0; k < n; k++) {
    const seat = (roller + k) % n;
    const i = seat * 5;
    gain(d, seat, { Holz: claims[i]!, Lehm: claims[i + 1]!, Wolle: claims[i + 2]!, Getreide: claims[i + 3]!, Erz: claims[i + 4]! }, 'production');
  }
}

/** A 7: everyone over 7 cards discards half (rounded down), then the roller moves the robber. */
function startRobber(d: Draft, roller: number): void {
  const discards = d.players.map((p) => {
    const held = total(p.resources);
    return held > 7 ? Math.floor(held / 2) : 0;
  });
  d.discards = discards;
  discards.forEach((k, seat) => {
    if (k > 0) setPlayer(d, seat, { status: 'Karten wegen Raeuber abgeben' });
  });
  if (discards.some((k) => k > 0)) {
    d.phase = 'discard';
    if (discards[roller] === 0) setPlayer(d, roller, { status: 'Warten' });
  } else {
    d.phase = 'robber';
    setPlayer(d, roller, { status: 'Raeuber versetzen' });
  }
}

/** Open offers lapse (with a broadcast each), the next player rolls. */
export function endTurn(d: Draft, seat: number): RuleErrorCode | null {
  for (const t of d.trades) d.events.push({ type: 'tradeCancelled', player: idOf(d, t.seat), tradeId: t.id });
  d.trades = [];
  setPlayer(d, seat, { status: 'Warten', boughtThisTurn: NO_DEV_CARDS });
  const next = (seat + 1) % d.players.length;
  setPlayer(d, next, { status: 'Wuerfeln' });
  d.turn = next;
  d.turnNumber += 1;
  d.phase = 'roll';
  d.devCardPlayed = false;
  d.dice = null;
  return null;
}
