import { useState } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * A Connect Four board in SVG, drawn from the list of columns played. Clicking a column calls
 * `onColumn`; whether a column may be played is the server's answer, not the board's.
 */

const CELL = 64;
const PAD = 8;
const COLS = 7;
const ROWS = 6;

export const DISC_LABEL = ['red', 'yellow'] as const;

interface Disc {
  col: number;
  row: number;
  player: 0 | 1;
  index: number;
}

/** Where each stone lies: column 1–7 and row 1–6 from the bottom, in play order. */
export function discs(moves: readonly number[]): Disc[] {
  const heights = [0, 0, 0, 0, 0, 0, 0];
  const out: Disc[] = [];
  moves.forEach((col, index) => {
    const h = heights[col - 1];
    if (h === undefined || h >= ROWS) return;
    heights[col - 1] = h + 1;
    out.push({ col, row: h + 1, player: (index % 2) as 0 | 1, index });
  });
  return out;
}

export interface BoardProps {
  moves: readonly number[];
  /** Cells of the winning four(s): [column, row from the bottom]. */
  line?: readonly (readonly [number, number])[];
  onColumn?: ((column: number) => void) | undefined;
  /** Clicks are taken only when true. */
  enabled?: boolean;
  /** Optional text under each column (analysis scores). */
  labels?: readonly (string | null)[];
  testId?: string;
}

export function Board({ moves, line = [], onColumn, enabled = false, labels, testId = 'c4-board' }: BoardProps) {
  const { t } = useTranslation();
  const [hover, setHover] = useState<number | null>(null);
  const stones = discs(moves);
  const last = stones[stones.length - 1];
  const winning = new Set(line.map(([c, r]) => `${c}:${r}`));
  const width = COLS * CELL + 2 * PAD;
  const height = ROWS * CELL + 2 * PAD + (labels ? 28 : 0) + 22;
  const x = (col: number) => PAD + (col - 1) * CELL + CELL / 2;
  const y = (row: number) => PAD + 22 + (ROWS - row) * CELL + CELL / 2;
  const clickable = enabled && onColumn !== undefined;
  return (
    <svg
      className="c4-board"
      viewBox={`0 0 ${width} ${height}`}
      width={width}
      height={height}
      role="grid"
      aria-label={t('c4.board')}
      data-testid={testId}
      data-moves={moves.join('')}
    >
      {Array.from({ length: COLS }, (_, i) => (
        <text key={`n${i}`} x={x(i + 1)} y={16} textAnchor="middle" className="c4-colnum">
          {i + 1}
        </text>
      ))}
      <rect x={PAD} y={PAD + 22} width={COLS * CELL} height={ROWS * CELL} rx={10} className="c4-frame" />
      {Array.from({ length: COLS * ROWS }, (_, i) => {
        const col = (i % COLS) + 1;
        const row = Math.floor(i / COLS) + 1;
        return <circle key={`h${i}`} cx={x(col)} cy={y(row)} r={CELL * 0.38} className="c4-hole" />;
      })}
      {stones.map((d) => (
        <circle
          key={`d${d.index}`}
          cx={x(d.col)}
          cy={y(d.row)}
          r={CELL * 0.38}
          className={`c4-disc c4-disc-${DISC_LABEL[d.player]}${winning.has(`${d.col}:${d.row}`) ? ' c4-win' : ''}`}
          data-testid={`c4-cell-${d.col}-${d.row}`}
          data-player={d.player}
        />
      ))}
      {last && <circle cx={x(last.col)} cy={y(last.row)} r={6} className="c4-last" data-testid="c4-last" />}
      {labels?.map((label, i) => (
        <text key={`l${i}`} x={x(i + 1)} y={PAD + 22 + ROWS * CELL + 22} textAnchor="middle" className="c4-label" data-testid={`c4-label-${i + 1}`}>
          {label ?? '–'}
        </text>
      ))}
      {Array.from({ length: COLS }, (_, i) => (
        <rect
          key={`c${i}`}
          x={PAD + i * CELL}
          y={PAD + 22}
          width={CELL}
          height={ROWS * CELL}
          className={`c4-column${clickable && hover === i + 1 ? ' c4-column-hover' : ''}`}
          data-testid={`c4-col-${i + 1}`}
          role="button"
          aria-label={t('c4.columnN', { n: i + 1 })}
          aria-disabled={!clickable}
          onMouseEnter={() => setHover(i + 1)}
          onMouseLeave={() => setHover(null)}
          onClick={() => {
            if (clickable) onColumn(i + 1);
          }}
        />
      ))}
    </svg>
  );
}
