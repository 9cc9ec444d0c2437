import { err, ok, type Result } from '../../core/result.js';
import { PIECE_TYPES, START_TEAM, type Move, type PieceEntry, type PieceType, type Team } from './board.js';
import { mementoOrder, type State } from './rules.js';
import { fromPosition } from './setup.js';
import type { XmlElement } from './xml/parser.js';
import { el, type XmlNode } from './xml/writer.js';

/**
 * The game state inside a memento, exactly as XStream writes the official `GameState`
 * (spec §3.3): `class` and `enum-type` attributes the Java player needs, the pieces in Java
 * HashMap order, `lastMove` from turn 1, and an `ambers` entry for each team that has moved.
 */

const xy = (name: string, c: { x: number; y: number }): XmlNode =>
  el(name, { x: String(c.x), y: String(c.y) });

const withText = (name: string, text: string, attrs: Readonly<Record<string, string>> = {}): XmlNode => ({
  name,
  attrs: Object.entries(attrs),
  children: [],
  text,
});

export function formatStateNode(s: State): XmlNode {
  const pieces = mementoOrder(s.pieces).map((e) => {
    const { type, team, count } = e.piece;
    return el('entry', {}, [
      xy('coordinates', e.coordinates),
      el('piece', { type, team, count: String(count) }),
    ]);
  });
  const children: XmlNode[] = [
    withText('startTeam', START_TEAM, { class: 'team' }),
    el('board', {}, [el('pieces', {}, pieces)]),
  ];
  if (s.lastMove) children.push(el('lastMove', {}, [xy('from', s.lastMove.from), xy('to', s.lastMove.to)]));
  // The official EnumMap gets a team's entry with that team's first move.
  const movedTeams: Team[] = s.turn >= 2 ? ['ONE', 'TWO'] : s.turn === 1 ? ['ONE'] : [];
  const ambers = movedTeams.map((t) =>
    el('entry', {}, [withText('team', t), withText('int', String(s.ambers[t]))]),
  );
  children.push(el('ambers', { 'enum-type': 'team' }, ambers));
  return el('state', { class: 'state', turn: String(s.turn) }, children);
}

const intOf = (v: string | undefined): number | null =>
  v !== undefined && /^-?\d{1,9}$/.test(v.trim()) ? Number(v.trim()) : null;

function readXY(e: XmlElement | undefined): { x: number; y: number } | null {
  if (!e) return null;
  const x = intOf(e.attrs.x);
  const y = intOf(e.attrs.y);
  return x === null || y === null ? null : { x, y };
}

const childOf = (e: XmlElement, name: string): XmlElement | undefined =>
  e.children.find((c) => c.name === name);

/** A memento's `<state>` back into a rules state (our client's view of the game). */
export function parseStateElement(state: XmlElement): Result<State, string> {
  const turn = intOf(state.attrs.turn);
  if (turn === null) return err('<state> needs a turn');
  const pieces: PieceEntry[] = [];
  const board = childOf(state, 'board');
  const list = board ? childOf(board, 'pieces') : undefined;
  for (const entry of list?.children ?? []) {
    const coordinates = readXY(childOf(entry, 'coordinates'));
    const piece = childOf(entry, 'piece');
    const type = piece?.attrs.type;
    const team = piece?.attrs.team;
    const count = intOf(piece?.attrs.count);
    if (
      !coordinates ||
      !type ||
      !PIECE_TYPES.includes(type as PieceType) ||
      (team !== 'ONE' && team !== 'TWO') ||
      count === null
    ) {
      return err('a board entry needs coordinates and a piece');
    }
    pieces.push({ coordinates, piece: { type: type as PieceType, team, count } });
  }
  let lastMove: Move | null = null;
  const last = childOf(state, 'lastMove');
  if (last) {
    const from = readXY(childOf(last, 'from'));
    const to = readXY(childOf(last, 'to'));
    if (!from || !to) return err('<lastMove> needs from and to');
    lastMove = { from, to };
  }
  const ambers: Record<Team, number> = { ONE: 0, TWO: 0 };
  for (const entry of childOf(state, 'ambers')?.children ?? []) {
    const team = childOf(entry, 'team')?.text.trim();
    const value = intOf(childOf(entry, 'int')?.text);
    if ((team === 'ONE' || team === 'TWO') && value !== null) ambers[team] = value;
  }
  const parsed = fromPosition({ turn, pieces, ambers, lastMove });
  return parsed.ok ? ok(parsed.value) : err(parsed.error.message);
}
