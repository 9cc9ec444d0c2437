import { readFileSync } from 'node:fs';
import { PIECE_TYPES, PIECE_LETTER, type Move, type PieceEntry, type Team } from '../../../src/games/ostseeschach/board.js';
import type { State } from '../../../src/games/ostseeschach/rules.js';
import { fromPosition } from '../../../src/games/ostseeschach/setup.js';

export const fixture = (name: string): string =>
  readFileSync(new URL(`../../fixtures/ostseeschach/${name}`, import.meta.url), 'utf8');

/** `"ONE: 00H 21R2; TWO: 44S2"` → piece entries (xy, type letter, optional count). */
export function parsePieces(text: string): PieceEntry[] {
  const out: PieceEntry[] = [];
  for (const part of text.split(';')) {
    const [teamText, list] = part.split(':');
    const team = teamText!.trim() as Team;
    for (const tok of list!.trim().split(/\s+/)) {
      const m = /^([0-7])([0-7])([HMSR])([12])?$/.exec(tok);
      if (!m) throw new Error(`bad piece token ${tok}`);
      const type = PIECE_TYPES.find((t) => PIECE_LETTER[t] === m[3])!;
      out.push({ coordinates: { x: Number(m[1]), y: Number(m[2]) }, piece: { type, team, count: Number(m[4] ?? 1) } });
    }
  }
  return out;
}

export function position(pieces: string, turn = 0, ambers: Record<Team, number> = { ONE: 0, TWO: 0 }): State {
  const r = fromPosition({ turn, ambers, pieces: parsePieces(pieces) });
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

export const mv = (fx: number, fy: number, tx: number, ty: number): Move => ({ from: { x: fx, y: fy }, to: { x: tx, y: ty } });

export interface Memento {
  readonly turn: number;
  readonly pieces: { x: number; y: number; type: string; team: string; count: number }[];
  readonly ambers: Record<string, number>;
  readonly lastMove: Move | null;
}

/** Reads the mementos of a recorded server stream (test-only regex reader, not the codec). */
export function readMementos(xml: string): Memento[] {
  const out: Memento[] = [];
  for (const block of xml.split('<data class="memento">').slice(1)) {
    const body = block.slice(0, block.indexOf('</data>'));
    const turn = Number(/<state class="state" turn="(\d+)">/.exec(body)![1]);
    const pieces = [...body.matchAll(/<coordinates x="(\d)" y="(\d)"\/>\s*<piece type="(\w+)" team="(\w+)" count="(\d)"\/>/g)].map((m) => ({
      x: Number(m[1]),
      y: Number(m[2]),
      type: m[3]!,
      team: m[4]!,
      count: Number(m[5]),
    }));
    const ambers: Record<string, number> = {};
    for (const m of body.matchAll(/<team>(\w+)<\/team>\s*<int>(\d+)<\/int>/g)) ambers[m[1]!] = Number(m[2]);
    const lm = /<lastMove>\s*<from x="(\d)" y="(\d)"\/>\s*<to x="(\d)" y="(\d)"\/>/.exec(body);
    out.push({ turn, pieces, ambers, lastMove: lm ? mv(Number(lm[1]), Number(lm[2]), Number(lm[3]), Number(lm[4])) : null });
  }
  return out;
}

/** The moves a recorded client sent, in order. */
export function readClientMoves(text: string): Move[] {
  return [...text.matchAll(/<from x="(\d)" y="(\d)"\/><to x="(\d)" y="(\d)"\/>/g)].map((m) =>
    mv(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])),
  );
}
