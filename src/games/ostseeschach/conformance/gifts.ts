import type { Rng } from '../../../core/rng.js';
import { opponent, vectors, type Coordinates, type Move, type PieceType } from '../board.js';
import { depth2Bot } from '../bots/depth2.js';
import { apply, isOver, legalMoves, toMove, type State } from '../rules.js';

/**
 * The opponent of the `ambers` scenario: from turn 0 it plays so that the client scores an amber
 * itself and then shows whether it knows that the scoring piece left the board. check-client cannot
 * choose the client's moves, so it makes scoring likely instead:
 * 1. after the client scored, it puts a piece where the piece that scored could capture it, if it
 *    were still there (a "ghost": a client that plays `<lastMove>` on its own board without the
 *    amber rule sees a capture and takes it: an illegal move from an empty square);
 * 2. before that, the move after which the client has the most moves that score an amber;
 * 3. else the move after which the client has the most captures (a capture makes a tower, and a
 *    tower that captures again is a stack of 3: an amber);
 * 4. else the depth-2 bot.
 * It never ends the game with its own move when another move is legal.
 */

/** Where a move of the client scored an amber, and the piece that left the board there. */
export interface ScoredSquare {
  at: Coordinates;
  type: PieceType;
}

export function amberGiftMove(state: State, scored: readonly ScoredSquare[], rng: Rng): Move {
  const me = toMove(state);
  const client = opponent(me);
  const moves = legalMoves(state);
  const after = (m: Move): State | null => {
    const r = apply(state, m);
    return r.ok ? r.value : null;
  };
  const going = moves.filter((m) => {
    const s = after(m);
    return s !== null && !isOver(s);
  });
  const pool = going.length > 0 ? going : moves;
  for (const g of scored) {
    const reach = vectors(g.type, client).map(([dx, dy]) => ({ x: g.at.x + dx, y: g.at.y + dy }));
    const bait = pool.find((m) => reach.some((c) => c.x === m.to.x && c.y === m.to.y));
    if (bait) return bait;
  }
  if (scored.length === 0) {
    const most = (count: (s: State, reply: Move) => boolean): Move | null => {
      let best: Move | null = null;
      let bestCount = 0;
      for (const m of pool) {
        const s = after(m);
        if (s === null) continue;
        const n = legalMoves(s).filter((reply) => count(s, reply)).length;
        if (n > bestCount) {
          bestCount = n;
          best = m;
        }
      }
      return best;
    };
    const scores = (s: State, reply: Move): boolean => {
      const r = apply(s, reply);
      return r.ok && r.value.ambers[client] > s.ambers[client];
    };
    const captures = (s: State, reply: Move): boolean => s.pieces.some((e) => e.coordinates.x === reply.to.x && e.coordinates.y === reply.to.y);
    const gift = most(scores) ?? most(captures);
    if (gift) return gift;
  }
  return depth2Bot(state, 0, rng);
}
