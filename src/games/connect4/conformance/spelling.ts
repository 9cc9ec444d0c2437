import type { Rng } from '../../../core/rng.js';
import { easyMove, strongMove } from '../bots/index.js';
import { legalMoves, type C4State } from '../rules.js';
import { Position } from '../solver/position.js';

/** How the scripted peer picks its columns and spells its datagrams (session.ts). */

/** Our column by the session's strategy (1-based). */
export function choose(strategy: 'easy' | 'win' | 'lose', state: C4State, rng: Rng): number {
  const position = Position.ofMoves(state.moves);
  if (strategy === 'easy') return easyMove(position, rng);
  if (strategy === 'win') return strongMove(position, rng);
  // Lose: never complete a four, never block one.
  const legal = legalMoves(state);
  const theirs = position.clone();
  theirs.curLo ^= theirs.maskLo;
  theirs.curHi ^= theirs.maskHi;
  const harmless = legal.filter((c) => !position.isWinningMove(c - 1) && !theirs.isWinningMove(c - 1));
  const notWinning = legal.filter((c) => !position.isWinningMove(c - 1));
  return rng.pick(harmless.length > 0 ? harmless : notWinning.length > 0 ? notWinning : legal);
}

/** A datagram of ours with an unknown key that fills it to exactly `bytes` bytes. */
export function padTo(line: string, bytes: number): string {
  const head = line.slice(0, -1) + ',"padding":"';
  const tail = '"}';
  return head + 'x'.repeat(Math.max(0, bytes - Buffer.byteLength(head) - tail.length)) + tail;
}

/**
 * The same message in the other valid spellings of §3.8, in turn: A's (pretty-printed, every value
 * a string, `/` escaped, a trailing newline), B's (`"version":"2"`), unknown keys, no clienttype
 * and other key order, clienttype 1 with NULs and blanks around.
 */
export function dialect(line: string, n: number): string {
  const o = JSON.parse(line) as Record<string, unknown>;
  switch (n % 5) {
    case 0: {
      const strings = Object.fromEntries(Object.entries(o).map(([key, v]) => [key, String(v)]));
      return JSON.stringify(strings, null, 4).replace(/\//g, '\\/') + '\n';
    }
    case 1:
      return JSON.stringify({ ...o, version: '2' });
    case 2:
      return JSON.stringify({ ...o, note: 'hello', extra: [1, { a: null }] });
    case 3: {
      const { clienttype: _drop, ...rest } = o;
      return JSON.stringify(Object.fromEntries(Object.entries(rest).reverse()));
    }
    default:
      return `\u0000 ${JSON.stringify({ ...o, clienttype: 1 })}\t\u0000`;
  }
}
