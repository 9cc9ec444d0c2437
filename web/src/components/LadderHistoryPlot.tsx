import { useTranslation } from 'react-i18next';
import type { RatingPoint } from '../ladder.js';
import { ChartGrid, valueRange } from './ChartGrid.js';

const WIDTH = 560;
const HEIGHT = 180;
const PAD = { left: 44, right: 10, top: 10, bottom: 20 };

/**
 * A student's rating after each ladder game as an inline SVG polyline, with its 95 % band
 * (rating ± 1.96 RD) shaded behind it. `start` is the rating before the first game, so a single
 * game is already a line.
 */
export function LadderHistoryPlot({
  points,
  start,
}: {
  points: readonly RatingPoint[];
  start: { rating: number; rd: number } | null;
}) {
  const { t } = useTranslation();
  if (points.length === 0) return null;
  const series =
    start === null
      ? points.map((p) => ({ rating: p.rating, rd: p.rd }))
      : [start, ...points.map((p) => ({ rating: p.rating, rd: p.rd }))];
  const [low, high] = valueRange(
    series.flatMap((p) => [p.rating - 1.96 * p.rd, p.rating + 1.96 * p.rd]),
    50,
  );
  const x = (i: number) =>
    PAD.left + (series.length === 1 ? 0.5 : i / (series.length - 1)) * (WIDTH - PAD.left - PAD.right);
  const y = (r: number) => PAD.top + ((high - r) / (high - low)) * (HEIGHT - PAD.top - PAD.bottom);
  const xy = (i: number, r: number) => `${x(i).toFixed(1)},${y(r).toFixed(1)}`;
  const line = series.map((p, i) => xy(i, p.rating)).join(' ');
  const band = [
    ...series.map((p, i) => xy(i, p.rating + 1.96 * p.rd)),
    ...series.map((p, i) => xy(i, p.rating - 1.96 * p.rd)).reverse(),
  ].join(' ');
  return (
    <figure className="rating-chart liga-plot" data-testid="liga-plot">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={t('liga.me.plotLabel')}>
        <ChartGrid low={low} high={high} left={PAD.left} right={WIDTH - PAD.right} y={y} />
        <polygon points={band} className="liga-plot-band" />
        <polyline points={line} fill="none" stroke="#2563eb" strokeWidth={2} data-testid="liga-plot-line" />
        {series.length <= 60 &&
          series.map((p, i) => <circle key={i} cx={x(i)} cy={y(p.rating)} r={2.5} fill="#2563eb" />)}
        <text x={WIDTH - PAD.right} y={HEIGHT - 4} textAnchor="end" className="chart-label">
          {t('liga.me.plotGames', { count: points.length })}
        </text>
      </svg>
    </figure>
  );
}
