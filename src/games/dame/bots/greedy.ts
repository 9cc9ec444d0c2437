import { NEIGHBOR, RAYS, RAY_LENGTH, RAY_START, squareAt } from '../board.js';
import { legalMoves, pieceAt, type DameState, type SingleMove, type Square } from '../rules.js';
import type { DameBot } from './types.js';

/**
 * The public WS23/24 client's thinker (spec §6.4 item 4): scanning A8→H1 (rank 8 first, files A–H),
 * the first own piece that can capture does so; men look only forward (left, then right, from the
 * mover's view), kings look up-left, up-right, down-left, down-right and land right behind the
 * victim. A chain continues with the same piece until it cannot capture or has just promoted.
 * Without a capture it plays the first step found in the same scan (men forward, kings one square).
 */
export const greedyBot: DameBot = (state) => {
  const legal = legalMoves(state);
  const last = state.lastMove;
  if (state.mustContinue && last !== null && last.captured !== null && !last.promotes) {
    const chained = captureFrom(state, last.to, legal);
    if (chained) return chained;
  }
  for (const s of scanOrder()) {
    if (!isOwn(state, s)) continue;
    const capture = captureFrom(state, s, legal);
    if (capture) return capture;
  }
  for (const s of scanOrder()) {
    if (!isOwn(state, s)) continue;
    for (const d of directions(state, s)) {
      const n = NEIGHBOR[s * 4 + d]!;
      const step = legal.find((m) => m.from === s && m.to === n && m.captured === null);
      if (step) return step;
    }
  }
  return legal[0]!;
};

function scanOrder(): Square[] {
  const out: Square[] = [];
  for (let rank = 7; rank >= 0; rank--)
    for (let file = 0; file < 8; file++) if (squareAt(file, rank) >= 0) out.push(squareAt(file, rank));
  return out;
}

const isOwn = (state: DameState, s: Square): boolean =>
  ((state.toMove === 'white' ? state.white : state.black) >>> s) & 1 ? true : false;

/** Directions in the client's order, from the mover's view: up-left, up-right (then down-left, down-right for kings). */
function directions(state: DameState, s: Square): number[] {
  const king = pieceAt(state, s) === 'W' || pieceAt(state, s) === 'B';
  // board directions: 0 up-right, 1 up-left, 2 down-right, 3 down-left (White's view)
  const mine = state.toMove === 'white' ? [1, 0, 3, 2] : [2, 3, 0, 1];
  return king ? mine : mine.slice(0, 2);
}

function captureFrom(state: DameState, s: Square, legal: readonly SingleMove[]): SingleMove | undefined {
  const king = pieceAt(state, s) === 'W' || pieceAt(state, s) === 'B';
  for (const d of directions(state, s)) {
    const start = RAY_START[s * 4 + d]!;
    const reach = king ? RAY_LENGTH[s * 4 + d]! : 1;
    for (let i = 0; i < reach; i++) {
      const victim = RAYS[start + i]!;
      if (pieceAt(state, victim) === null) continue;
      const landing = NEIGHBOR[victim * 4 + d]!;
      const found = legal.find((m) => m.from === s && m.captured === victim && m.to === landing);
      if (found) return found;
      break;
    }
  }
  return undefined;
}
