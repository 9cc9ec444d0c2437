import { useTranslation } from 'react-i18next';
import type { TournamentHistory } from '../../../src/web/tournament-api.js';
import { ChartGrid, valueRange } from './ChartGrid.js';

const WIDTH = 640;
const HEIGHT = 240;
const PAD = { left: 44, right: 8, top: 8, bottom: 22 };
/** Distinct line colours; more entrants than these repeat them with a dash. */
const COLOURS = [
  '#2563eb',
  '#dc2626',
  '#16a34a',
  '#d97706',
  '#7c3aed',
  '#0891b2',
  '#db2777',
  '#4b5563',
  '#65a30d',
  '#9333ea',
];

export const lineColour = (i: number) => COLOURS[i % COLOURS.length] ?? '#000';
const dash = (i: number) => (i >= COLOURS.length ? '5 3' : undefined);

/** Every entrant's rating after each step of finished matches: inline SVG, one line each. */
export function RatingChart({ history }: { history: TournamentHistory }) {
  const { t } = useTranslation();
  const { points, entrants } = history;
  if (points.length === 0) return <p className="muted">{t('tournaments.noHistory')}</p>;
  const [low, high] = valueRange(points.flatMap((p) => Object.values(p.ratings)).filter(Number.isFinite), 1);
  const lastDone = points[points.length - 1]?.done ?? 1;
  const x = (done: number) =>
    PAD.left + (points.length === 1 ? 0.5 : done / lastDone) * (WIDTH - PAD.left - PAD.right);
  const y = (rating: number) => PAD.top + ((high - rating) / (high - low)) * (HEIGHT - PAD.top - PAD.bottom);
  return (
    <figure className="rating-chart" data-testid="rating-chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={t('tournaments.chartLabel')}>
        <ChartGrid low={low} high={high} left={PAD.left} right={WIDTH - PAD.right} y={y} />
        <text x={WIDTH - PAD.right} y={HEIGHT - 4} textAnchor="end" className="chart-label">
          {t('tournaments.chartMatches', { count: lastDone })}
        </text>
        {entrants.map((name, i) => {
          const line = points
            .filter((p) => Number.isFinite(p.ratings[name]))
            .map((p) => `${x(p.done).toFixed(1)},${y(p.ratings[name] ?? 0).toFixed(1)}`)
            .join(' ');
          return (
            <polyline
              key={name}
              points={line}
              fill="none"
              stroke={lineColour(i)}
              strokeWidth={2}
              strokeDasharray={dash(i)}
              data-testid="rating-line"
              data-entrant={name}
            >
              <title>{name}</title>
            </polyline>
          );
        })}
      </svg>
      <figcaption className="chart-legend">
        {entrants.map((name, i) => (
          <span key={name}>
            <svg width="18" height="8" aria-hidden="true">
              <line
                x1="0"
                x2="18"
                y1="4"
                y2="4"
                stroke={lineColour(i)}
                strokeWidth={3}
                strokeDasharray={dash(i)}
              />
            </svg>{' '}
            {name}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
