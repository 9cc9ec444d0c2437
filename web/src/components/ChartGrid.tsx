/**
 * What the dashboard's line charts share (RatingChart, LadderHistoryPlot): the value range of a
 * chart (widened when all values are equal) and its horizontal grid with the values at the left.
 */

/** The lowest and highest value, `pad` apart at least when all are equal. */
export function valueRange(values: readonly number[], pad: number): [low: number, high: number] {
  let low = Math.min(...values);
  let high = Math.max(...values);
  if (!(high > low)) {
    low -= pad;
    high += pad;
  }
  return [low, high];
}

/** Three grid lines (low, middle, high) across the plot, each labelled with its value. */
export function ChartGrid({ low, high, left, right, y }: { low: number; high: number; left: number; right: number; y: (v: number) => number }) {
  return (
    <>
      {[low, (low + high) / 2, high].map((v) => (
        <g key={v}>
          <line x1={left} x2={right} y1={y(v)} y2={y(v)} className="chart-grid" />
          <text x={left - 4} y={y(v) + 4} textAnchor="end" className="chart-label">
            {Math.round(v)}
          </text>
        </g>
      ))}
    </>
  );
}
