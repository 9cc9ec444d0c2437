import { useState } from 'react';
import type { DameLegalMove } from '../../../../src/games/dame/web-views.js';
import { useTranslation } from 'react-i18next';

/**
 * A Dame board in SVG, drawn from the 8 BOARD rows as the server sends them (rank 8 first),
 * seen from White's side. With `legal` and `onMove` it takes a move: click a piece that has a
 * legal move, then one of its targets. Which moves exist is the server's answer, never the board's.
 */

const CELL = 56;
const LABEL = 22;
const FILES = 'ABCDEFGH';

export type Cell = 'w' | 'b' | 'W' | 'B' | null;

/** The cells of the rows, [rank 0..7][file 0..7]; a row that does not read leaves its rank empty. */
export function readRows(rows: readonly string[]): Cell[][] {
  const cells: Cell[][] = Array.from({ length: 8 }, () => Array<Cell>(8).fill(null));
  for (const raw of rows) {
    const tokens = raw.replace(/^\+ /, '').split(' ');
    const rank = Number(tokens[0]) - 1;
    const line = cells[rank];
    if (!line) continue;
    for (let file = 0; file < 8; file++) {
      const t = tokens[file + 1];
      line[file] = t === 'w' || t === 'b' || t === 'W' || t === 'B' ? t : null;
    }
  }
  return cells;
}

export const squareName = (file: number, rank: number): string => `${FILES[file] ?? '?'}${rank + 1}`;

function parseSquare(name: string): [number, number] | null {
  const file = FILES.indexOf(name.charAt(0).toUpperCase());
  const rank = Number(name.charAt(1)) - 1;
  return file >= 0 && rank >= 0 && rank < 8 ? [file, rank] : null;
}

export interface DameBoardProps {
  rows: readonly string[];
  /** The last single move, `C3:D4`. */
  lastMove?: string | null;
  /** The legal single moves offered; clicks are taken only with these and `onMove`. */
  legal?: readonly DameLegalMove[];
  onMove?: (from: string, to: string) => void;
  testId?: string;
}

export function Board({ rows, lastMove = null, legal = [], onMove, testId = 'dame-board' }: DameBoardProps) {
  const { t } = useTranslation();
  const [selected, setSelected] = useState<string | null>(null);
  const legalKey = legal.map((m) => `${m.from}:${m.to}`).join(' ');
  const [shownKey, setShownKey] = useState(legalKey);
  // New legal moves (a new request) drop the selection: adjust state on a prop change.
  if (shownKey !== legalKey) {
    setShownKey(legalKey);
    setSelected(null);
  }
  const cells = readRows(rows);
  const interactive = onMove !== undefined && legal.length > 0;
  const movable = new Set(interactive ? legal.map((m) => m.from) : []);
  const targets = new Map(selected === null ? [] : legal.filter((m) => m.from === selected).map((m) => [m.to, m]));
  const last = new Set(lastMove ? lastMove.split(':') : []);
  const size = 8 * CELL;
  const x = (file: number) => LABEL + file * CELL;
  const y = (rank: number) => (7 - rank) * CELL;

  const click = (name: string) => {
    if (!interactive) return;
    if (selected !== null && targets.has(name)) {
      setSelected(null);
      onMove(selected, name);
    } else setSelected(movable.has(name) && name !== selected ? name : null);
  };

  const squares = [];
  const pieces = [];
  for (let rank = 0; rank < 8; rank++) {
    for (let file = 0; file < 8; file++) {
      const dark = (file + rank) % 2 === 0;
      const name = squareName(file, rank);
      const piece = cells[rank]?.[file] ?? null;
      const classes = ['dame-square', dark ? 'dame-dark' : 'dame-light'];
      if (last.has(name)) classes.push('dame-last');
      if (movable.has(name)) classes.push('dame-movable');
      if (selected === name) classes.push('dame-selected');
      if (targets.has(name)) classes.push('dame-target-square');
      squares.push(
        <rect
          key={name}
          x={x(file)}
          y={y(rank)}
          width={CELL}
          height={CELL}
          className={classes.join(' ')}
          {...(dark
            ? {
                'data-testid': `dame-sq-${name}`,
                'data-square': name,
                'data-piece': piece ?? '',
                role: movable.has(name) || targets.has(name) ? 'button' : undefined,
                'aria-label': `${name}${piece ? ` ${t(PIECE_NAME[piece])}` : ''}`,
                onClick: () => click(name),
              }
            : {})}
        />,
      );
      if (piece) {
        const cx = x(file) + CELL / 2;
        const cy = y(rank) + CELL / 2;
        const white = piece === 'w' || piece === 'W';
        pieces.push(
          <g key={`p${name}`} className={`dame-piece ${white ? 'dame-piece-white' : 'dame-piece-black'}`} data-testid={`dame-piece-${name}`} pointerEvents="none">
            <circle cx={cx} cy={cy} r={CELL * 0.38} className="dame-man" />
            <circle cx={cx} cy={cy} r={CELL * 0.27} className="dame-ring" />
            {(piece === 'W' || piece === 'B') && <path d={crown(cx, cy)} className="dame-crown" data-testid={`dame-king-${name}`} />}
          </g>,
        );
      }
      if (targets.has(name)) {
        pieces.push(<circle key={`t${name}`} cx={x(file) + CELL / 2} cy={y(rank) + CELL / 2} r={CELL * 0.14} className="dame-target" pointerEvents="none" />);
      }
    }
  }
  const lastSquares = lastMove ? lastMove.split(':').map(parseSquare) : [];
  const [a, b] = lastSquares;
  return (
    <svg
      className="dame-board"
      viewBox={`0 0 ${size + LABEL} ${size + LABEL}`}
      width={size + LABEL}
      height={size + LABEL}
      role="grid"
      aria-label={t('dame.board')}
      data-testid={testId}
      data-board={rows.map((r) => r.replace(/^\+ /, '')).join('/')}
      data-last-move={lastMove ?? ''}
      data-legal={legalKey}
      data-selected={selected ?? ''}
    >
      {squares}
      {a && b && (
        <line
          x1={x(a[0]) + CELL / 2}
          y1={y(a[1]) + CELL / 2}
          x2={x(b[0]) + CELL / 2}
          y2={y(b[1]) + CELL / 2}
          className="dame-last-line"
          pointerEvents="none"
        />
      )}
      {pieces}
      {Array.from({ length: 8 }, (_, i) => (
        <text key={`f${i}`} x={x(i) + CELL / 2} y={size + 16} textAnchor="middle" className="dame-coord">
          {FILES[i]}
        </text>
      ))}
      {Array.from({ length: 8 }, (_, i) => (
        <text key={`r${i}`} x={LABEL / 2} y={y(i) + CELL / 2 + 5} textAnchor="middle" className="dame-coord">
          {i + 1}
        </text>
      ))}
    </svg>
  );
}

const PIECE_NAME = { w: 'dame.piece.w', b: 'dame.piece.b', W: 'dame.piece.wk', B: 'dame.piece.bk' } as const;

/** A small three-pointed crown centred on (cx, cy). */
function crown(cx: number, cy: number): string {
  const w = 9;
  const h = 7;
  return `M${cx - w} ${cy + h} L${cx - w} ${cy - h / 2} L${cx - w / 2} ${cy + 1} L${cx} ${cy - h} L${cx + w / 2} ${cy + 1} L${cx + w} ${cy - h / 2} L${cx + w} ${cy + h} Z`;
}
