import type { PieceEntry, PieceType, Team } from '../../../../src/games/ostseeschach/board.js';
import type { OstseeschachBoardView } from '../../../../src/games/ostseeschach/snapshot.js';
import { useTranslation } from 'react-i18next';

/**
 * An Ostseeschach board in SVG, drawn from the server's board view: x runs left to right from
 * ONE's start line (x = 0) to TWO's (x = 7), y top to bottom, as in the official coordinates.
 * A tower (two pieces) is drawn as a stack with its count; the last move is marked.
 */

const CELL = 52;
const LABEL = 20;

export const PIECE_LETTER: Readonly<Record<PieceType, string>> = {
  Herzmuschel: 'H',
  Moewe: 'M',
  Seestern: 'S',
  Robbe: 'R',
};

export const TEAM_NAME: Readonly<Record<Team, string>> = { ONE: 'red', TWO: 'blue' };

/** `07H1O`: square, type, count and team of each piece, sorted; what tests compare. */
export function piecesKey(pieces: readonly PieceEntry[]): string {
  return pieces
    .map((e) => `${e.coordinates.x}${e.coordinates.y}${PIECE_LETTER[e.piece.type]}${e.piece.count}${e.piece.team === 'ONE' ? 'O' : 'T'}`)
    .sort()
    .join(' ');
}

export const moveKey = (m: OstseeschachBoardView['lastMove']): string =>
  m ? `${m.from.x}${m.from.y}-${m.to.x}${m.to.y}` : '';

export function Board({ board, testId = 'ost-board' }: { board: OstseeschachBoardView; testId?: string }) {
  const { t } = useTranslation();
  const size = 8 * CELL;
  const left = (x: number) => LABEL + x * CELL;
  const top = (y: number) => y * CELL;
  const last = board.lastMove;
  const squares = [];
  for (let x = 0; x < 8; x++) {
    for (let y = 0; y < 8; y++) {
      const classes = ['ost-square', (x + y) % 2 === 0 ? 'ost-square-a' : 'ost-square-b'];
      if (x === 0) classes.push('ost-line-one');
      if (x === 7) classes.push('ost-line-two');
      if (last && ((last.from.x === x && last.from.y === y) || (last.to.x === x && last.to.y === y))) classes.push('ost-last');
      squares.push(<rect key={`${x}${y}`} x={left(x)} y={top(y)} width={CELL} height={CELL} className={classes.join(' ')} />);
    }
  }
  const pieces = board.pieces.map(({ coordinates: c, piece }) => {
    const cx = left(c.x) + CELL / 2;
    const cy = top(c.y) + CELL / 2;
    const team = piece.team === 'ONE' ? 'ost-one' : 'ost-two';
    const label =
      piece.count > 1
        ? t('ost.board.tower', { type: piece.type, team: piece.team, count: piece.count, x: c.x, y: c.y })
        : t('ost.board.piece', { type: piece.type, team: piece.team, x: c.x, y: c.y });
    return (
      <g key={`${c.x}${c.y}`} className={`ost-piece ${team}`} data-testid={`ost-piece-${c.x}${c.y}`} aria-label={label}>
        <title>{label}</title>
        {piece.count > 1 && <circle cx={cx + 4} cy={cy - 4} r={CELL * 0.36} className="ost-stack" />}
        <circle cx={cx} cy={cy} r={CELL * 0.36} className={piece.type === 'Robbe' ? 'ost-disc ost-heavy' : 'ost-disc'} />
        <text x={cx} y={cy + 6} textAnchor="middle" className="ost-letter">
          {PIECE_LETTER[piece.type]}
        </text>
        {piece.count > 1 && (
          <text x={cx + CELL * 0.3} y={cy + CELL * 0.38} textAnchor="middle" className="ost-count">
            {piece.count}
          </text>
        )}
      </g>
    );
  });
  return (
    <svg
      className="ost-board"
      viewBox={`0 0 ${size + LABEL} ${size + LABEL}`}
      width={size + LABEL}
      height={size + LABEL}
      role="img"
      aria-label={t('ost.board.label', { turn: board.turn })}
      data-testid={testId}
      data-turn={board.turn}
      data-pieces={piecesKey(board.pieces)}
      data-last-move={moveKey(last)}
    >
      {squares}
      {last && (
        <line
          x1={left(last.from.x) + CELL / 2}
          y1={top(last.from.y) + CELL / 2}
          x2={left(last.to.x) + CELL / 2}
          y2={top(last.to.y) + CELL / 2}
          className="ost-last-line"
          pointerEvents="none"
        />
      )}
      {pieces}
      {Array.from({ length: 8 }, (_, i) => (
        <text key={`x${i}`} x={left(i) + CELL / 2} y={size + 15} textAnchor="middle" className="ost-coord">
          {i}
        </text>
      ))}
      {Array.from({ length: 8 }, (_, i) => (
        <text key={`y${i}`} x={LABEL / 2} y={top(i) + CELL / 2 + 5} textAnchor="middle" className="ost-coord">
          {i}
        </text>
      ))}
    </svg>
  );
}
