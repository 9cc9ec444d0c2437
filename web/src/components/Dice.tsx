/** Two dice drawn as SVG from a wire string such as "3,1"; anything else is shown as text. */

const PIPS: Record<number, [number, number][]> = {
  1: [[2, 2]],
  2: [
    [1, 1],
    [3, 3],
  ],
  3: [
    [1, 1],
    [2, 2],
    [3, 3],
  ],
  4: [
    [1, 1],
    [3, 1],
    [1, 3],
    [3, 3],
  ],
  5: [
    [1, 1],
    [3, 1],
    [2, 2],
    [1, 3],
    [3, 3],
  ],
  6: [
    [1, 1],
    [3, 1],
    [1, 2],
    [3, 2],
    [1, 3],
    [3, 3],
  ],
};

function Die({ value, x }: { value: number; x: number }) {
  return (
    <g transform={`translate(${x} 0)`}>
      <rect x={0.5} y={0.5} width={19} height={19} rx={4} className="die-face" />
      {(PIPS[value] ?? []).map(([cx, cy], i) => (
        <circle key={i} cx={cx * 5} cy={cy * 5} r={1.9} className="die-pip" />
      ))}
    </g>
  );
}

export function Dice({ dice }: { dice: string }) {
  const m = /^([1-6]),([1-6])$/.exec(dice);
  if (!m) return <code>{dice}</code>;
  const high = Number(m[1]);
  const low = Number(m[2]);
  const mia = (high === 2 && low === 1) || (high === 1 && low === 2);
  return (
    <svg
      className={mia ? 'dice dice-mia' : 'dice'}
      viewBox="0 0 44 20"
      width={55}
      height={25}
      role="img"
      aria-label={mia ? `${dice} (Mia)` : dice}
    >
      <title>{mia ? `${dice} — Mia` : dice}</title>
      <Die value={high} x={0} />
      <Die value={low} x={24} />
    </svg>
  );
}
