import { DEFAULT_PARAMS, type EvalParams } from './params.js';
import { ATTACKS, ROBBE, type Position } from './position.js';

/** A won game scores WIN − ply, so shorter wins are preferred; |score| > WIN_BOUND means decided. */
export const WIN = 100_000;
export const WIN_BOUND = WIN - 1_000;

const distA = new Int32Array(8);
const distB = new Int32Array(8);

function lightDistances(p: Position, team: number, out: Int32Array): number {
  let n = 0;
  const line = team === 0 ? 0 : 7;
  for (let h = 0; h < 2; h++) {
    let b = p.occ[team * 2 + h]!;
    while (b !== 0) {
      const low = b & -b;
      const sq = h * 32 + 31 - Math.clz32(low);
      b ^= low;
      if ((p.board[sq]! & 3) === ROBBE) continue;
      const d = Math.abs((sq >> 3) - line);
      // Insertion sort, descending: at most 8 light pieces.
      let i = n++;
      while (i > 0 && out[i - 1]! < d) {
        out[i] = out[i - 1]!;
        i--;
      }
      out[i] = d;
    }
  }
  return n;
}

/** The regular-end winner of the current position: 0 ONE, 1 TWO, −1 draw (spec §2). */
export function regularWinner(p: Position): number {
  if (p.ambers[0] !== p.ambers[1]) return p.ambers[0]! > p.ambers[1]! ? 0 : 1;
  const na = lightDistances(p, 0, distA);
  const nb = lightDistances(p, 1, distB);
  const n = Math.min(na, nb);
  for (let i = 0; i < n; i++) {
    if (distA[i] !== distB[i]) return distA[i]! > distB[i]! ? 0 : 1;
  }
  return -1;
}

/** Score of a finished game from the side to move's view. */
export function terminalScore(p: Position, ply: number): number {
  const w = regularWinner(p);
  if (w < 0) return 0;
  return w === (p.turn & 1) ? WIN - ply : ply - WIN;
}

export class Evaluator {
  /** Static value of (piece code, square) for the piece's own team. */
  private readonly table = new Int32Array(32 * 64);
  private readonly params: EvalParams;

  constructor(params: EvalParams = DEFAULT_PARAMS) {
    this.params = params;
    for (let code = 16; code < 32; code++) {
      const team = (code >> 3) & 1;
      const type = code & 3;
      const tall = (code >> 2) & 1;
      for (let sq = 0; sq < 64; sq++) {
        const x = sq >> 3;
        const y = sq & 7;
        const d = team === 0 ? x : 7 - x;
        let v = params.pieceValue[type]! + (tall ? params.towerBonus[type]! : 0);
        if (type === ROBBE) {
          v += params.robbeCentre * (Math.min(x, 7 - x) + Math.min(y, 7 - y));
          if (d >= 4) v += params.robbeAdvance;
        } else if (d <= 6) {
          v += params.advanceScale[type]! * params.advanceCurve[d]!;
        }
        this.table[code * 64 + sq] = Math.round(v);
      }
    }
  }

  /** Attack and defence masks per team: [attLo, attHi, defLo, defHi] × 2, reused per call. */
  private readonly masks = new Int32Array(8);

  /** Static evaluation from the side to move's view. */
  evaluate(p: Position): number {
    const P = this.params;
    const board = p.board;
    const masks = this.masks;
    let score = 0;
    // Pass 1: material and squares, mobility, attacked and defended squares.
    for (let team = 0; team < 2; team++) {
      const ownLo = p.occ[team * 2]!;
      const ownHi = p.occ[team * 2 + 1]!;
      let v = p.ambers[team]! * P.amber;
      let furthest = 0;
      let mobility = 0;
      let attLo = 0;
      let attHi = 0;
      let defLo = 0;
      let defHi = 0;
      for (let h = 0; h < 2; h++) {
        let b = h === 0 ? ownLo : ownHi;
        while (b !== 0) {
          const low = b & -b;
          const sq = h * 32 + 31 - Math.clz32(low);
          b ^= low;
          const code = board[sq]!;
          v += this.table[code * 64 + sq]!;
          const type = code & 3;
          if (type !== ROBBE) {
            const d = team === 0 ? sq >> 3 : 7 - (sq >> 3);
            if (d > furthest) furthest = d;
          }
          // The piece's targets as a bitboard: own pieces there are defended, the rest attacked
          // (and each is a move).
          const base = ((team * 4 + type) * 64 + sq) << 1;
          const lo = ATTACKS[base]!;
          const hi = ATTACKS[base + 1]!;
          defLo |= lo & ownLo;
          defHi |= hi & ownHi;
          const freeLo = lo & ~ownLo;
          const freeHi = hi & ~ownHi;
          attLo |= freeLo;
          attHi |= freeHi;
          mobility += popcount(freeLo) + popcount(freeHi);
        }
      }
      masks[team * 4] = attLo;
      masks[team * 4 + 1] = attHi;
      masks[team * 4 + 2] = defLo;
      masks[team * 4 + 3] = defHi;
      v += furthest * P.furthestLight + mobility * P.mobility + (popcount(defLo) + popcount(defHi)) * P.defended;
      score += team === 0 ? v : -v;
    }
    // Pass 2: threats. A tower under attack is an amber for the attacker; a light piece one step
    // from the enemy line that nobody attacks will score next move.
    if (P.attackedTower !== 0 || P.hanging !== 0 || P.runner !== 0) {
      for (let team = 0; team < 2; team++) {
        const enemy = (team ^ 1) * 4;
        let v = 0;
        for (let h = 0; h < 2; h++) {
          let b = p.occ[team * 2 + h]!;
          const att = masks[enemy + h]!;
          const def = masks[team * 4 + 2 + h]!;
          while (b !== 0) {
            const low = b & -b;
            b ^= low;
            const sq = h * 32 + 31 - Math.clz32(low);
            const code = board[sq]!;
            const attacked = (att & low) !== 0;
            if (attacked) {
              if ((code & 4) !== 0) v -= P.attackedTower;
              else if ((def & low) === 0) v -= P.hanging;
            } else if ((code & 3) !== ROBBE && (team === 0 ? sq >> 3 : 7 - (sq >> 3)) === 6) {
              v += P.runner;
            }
          }
        }
        score += team === 0 ? v : -v;
      }
    }
    return ((p.turn & 1) === 0 ? score : -score) + P.tempo;
  }
}

function popcount(v: number): number {
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}
