import type { Harbour } from '../../../../src/games/catan/rules/board.js';
import type { Colour, FieldType, Piece } from '../../../../src/games/catan/rules/types.js';
import {
  CENTRES,
  SIZE,
  VIEW_BOX,
  cornerPoint,
  edgeEnds,
  harbourMarker,
  hexPoints,
  type Point,
} from './geometry.js';
import { useTranslation } from 'react-i18next';

/**
 * The Catan board in SVG from the public data every viewer has (the Karte's fields and
 * harbours, the placements, the robber). With `spots` and `onSpot` it takes a click on one of
 * the corners, edges or hexes offered — the server's legal actions, never the board's own idea.
 */

export interface BoardField {
  readonly at: string;
  readonly type: FieldType;
  readonly number: number | null;
}

export interface BoardBuilding {
  readonly owner: number;
  readonly piece: Piece;
  readonly at: string;
}

export type SpotKind = 'corner' | 'edge' | 'hex';

export interface Spots {
  readonly corners?: readonly string[];
  readonly edges?: readonly string[];
  readonly hexes?: readonly string[];
}

export interface BoardProps {
  fields: readonly BoardField[];
  harbours: readonly Harbour[];
  robber: string | null;
  buildings: readonly BoardBuilding[];
  colourOf: (owner: number) => Colour | null;
  spots?: Spots;
  /** A spot picked already (a first road of Strassenbau, a robber hex waiting for its victim). */
  selected?: string | null;
  onSpot?: ((kind: SpotKind, at: string) => void) | undefined;
  testId?: string;
}

export const COLOUR_FILL: Readonly<Record<Colour, string>> = {
  Rot: '#d33a2c',
  Orange: '#f08c1a',
  Blau: '#2f6fd6',
  Weiss: '#f7f7f2',
};
const TERRAIN_FILL: Readonly<Record<FieldType, string>> = {
  Wald: '#3f8f46',
  Hügelland: '#c76b3f',
  Weideland: '#a6d36b',
  Ackerland: '#efcb55',
  Gebirge: '#9aa0a6',
  Wüste: '#e6d7a6',
  Meer: '#6fb3dc',
};

/** Dots under a number chip: how many of the 36 rolls hit it. */
const pips = (n: number): number => 6 - Math.abs(7 - n);

function harbourLabel(type: Harbour['type']): string {
  return type === 'Hafen' ? '3:1' : `2:1 ${type.replace(' Hafen', '')}`;
}

/** A band of half-width `w` along a segment (a click target with an area, unlike a line). */
function band(a: Point, b: Point, w: number): string {
  const len = Math.hypot(b.x - a.x, b.y - a.y) || 1;
  const nx = (-(b.y - a.y) / len) * w;
  const ny = ((b.x - a.x) / len) * w;
  const shrink = 0.12;
  const ax = a.x + (b.x - a.x) * shrink;
  const ay = a.y + (b.y - a.y) * shrink;
  const bx = b.x - (b.x - a.x) * shrink;
  const by = b.y - (b.y - a.y) * shrink;
  return [
    [ax + nx, ay + ny],
    [bx + nx, by + ny],
    [bx - nx, by - ny],
    [ax - nx, ay - ny],
  ]
    .map(([x, y]) => `${x!.toFixed(1)},${y!.toFixed(1)}`)
    .join(' ');
}

function house(p: Point, city: boolean): string {
  const s = city ? 1.25 : 1;
  const pts = city
    ? [
        [-10, 8],
        [-10, -2],
        [-4, -8],
        [2, -2],
        [2, -4],
        [10, -4],
        [10, 8],
      ]
    : [
        [-7, 7],
        [-7, -2],
        [0, -9],
        [7, -2],
        [7, 7],
      ];
  return pts.map(([x, y]) => `${(p.x + x! * s).toFixed(1)},${(p.y + y! * s).toFixed(1)}`).join(' ');
}

export function Board({
  fields,
  harbours,
  robber,
  buildings,
  colourOf,
  spots,
  selected = null,
  onSpot,
  testId = 'catan-board',
}: BoardProps) {
  const { t } = useTranslation();
  const fill = (owner: number): string => {
    const c = colourOf(owner);
    return c ? COLOUR_FILL[c] : '#777';
  };
  const clickable = onSpot !== undefined;
  const hexSpots = new Set(clickable ? (spots?.hexes ?? []) : []);
  const roads = buildings.filter((b) => b.piece === 'Strasse');
  const towns = buildings.filter((b) => b.piece !== 'Strasse');
  return (
    <svg
      className="catan-board"
      viewBox={VIEW_BOX}
      role="img"
      aria-label={t('catan.board')}
      data-testid={testId}
      data-robber={robber ?? ''}
      data-buildings={buildings.length}
    >
      {fields.map((f) => {
        const c = CENTRES.get(f.at);
        if (!c) return null;
        const spot = hexSpots.has(f.at);
        return (
          <g
            key={f.at}
            className={`catan-hex${spot ? ' catan-spot-hex' : ''}${selected === f.at ? ' catan-selected' : ''}`}
            data-testid={spot ? `catan-spot-hex-${f.at}` : undefined}
            data-spot={spot ? 'hex' : undefined}
            onClick={spot ? () => onSpot?.('hex', f.at) : undefined}
          >
            <polygon
              points={hexPoints(c, SIZE - 1)}
              fill={TERRAIN_FILL[f.type]}
              className={f.type === 'Meer' ? 'catan-sea' : 'catan-land'}
            />
            {f.type !== 'Meer' && (
              <title>{`${f.at}: ${f.type}${f.number === null ? '' : ` ${f.number}`}`}</title>
            )}
            {f.number !== null && (
              <g className={`catan-chip${f.number === 6 || f.number === 8 ? ' catan-chip-hot' : ''}`}>
                <circle cx={c.x} cy={c.y} r={12} />
                <text x={c.x} y={c.y + 1} textAnchor="middle" dominantBaseline="middle">
                  {f.number}
                </text>
                <text x={c.x} y={c.y + 9} textAnchor="middle" className="catan-pips">
                  {'•'.repeat(pips(f.number))}
                </text>
              </g>
            )}
            {f.type !== 'Meer' && (
              <text x={c.x} y={c.y - 20} textAnchor="middle" className="catan-hex-letter">
                {f.at}
              </text>
            )}
          </g>
        );
      })}
      {harbours.map((h) => {
        const m = harbourMarker(h.at);
        if (!m) return null;
        return (
          <g key={h.at} className="catan-harbour">
            <line x1={m.ends[0].x} y1={m.ends[0].y} x2={m.marker.x} y2={m.marker.y} />
            <line x1={m.ends[1].x} y1={m.ends[1].y} x2={m.marker.x} y2={m.marker.y} />
            <circle cx={m.marker.x} cy={m.marker.y} r={11} />
            <text x={m.marker.x} y={m.marker.y + 1} textAnchor="middle" dominantBaseline="middle">
              {harbourLabel(h.type).split(' ')[0]}
            </text>
            {h.type !== 'Hafen' && (
              <text x={m.marker.x} y={m.marker.y + 19} textAnchor="middle" className="catan-harbour-kind">
                {h.type.replace(' Hafen', '')}
              </text>
            )}
          </g>
        );
      })}
      {roads.map((r) => {
        const e = edgeEnds(r.at);
        if (!e) return null;
        return (
          <g key={`road-${r.at}`} className="catan-road" data-owner={r.owner}>
            <line x1={e[0].x} y1={e[0].y} x2={e[1].x} y2={e[1].y} className="catan-road-outline" />
            <line
              x1={e[0].x}
              y1={e[0].y}
              x2={e[1].x}
              y2={e[1].y}
              stroke={fill(r.owner)}
              className="catan-road-fill"
            />
          </g>
        );
      })}
      {robber !== null && CENTRES.get(robber) && (
        <g className="catan-robber" data-testid="catan-robber">
          <circle cx={CENTRES.get(robber)!.x + 16} cy={CENTRES.get(robber)!.y - 4} r={6} />
          <rect x={CENTRES.get(robber)!.x + 10} y={CENTRES.get(robber)!.y} width={12} height={14} rx={4} />
        </g>
      )}
      {towns.map((b) => {
        const p = cornerPoint(b.at);
        if (!p) return null;
        return (
          <polygon
            key={`town-${b.at}`}
            points={house(p, b.piece === 'Stadt')}
            fill={fill(b.owner)}
            className={`catan-town catan-${b.piece === 'Stadt' ? 'city' : 'settlement'}`}
            data-owner={b.owner}
          />
        );
      })}
      {clickable &&
        (spots?.edges ?? []).map((at) => {
          const e = edgeEnds(at);
          if (!e) return null;
          return (
            <polygon
              key={`spot-${at}`}
              points={band(e[0], e[1], 4)}
              className={`catan-spot catan-spot-edge${selected === at ? ' catan-selected' : ''}`}
              data-testid={`catan-spot-edge-${at}`}
              data-spot="edge"
              onClick={() => onSpot('edge', at)}
            >
              <title>{t('catan.roadAt', { at })}</title>
            </polygon>
          );
        })}
      {clickable &&
        (spots?.corners ?? []).map((at) => {
          const p = cornerPoint(at);
          if (!p) return null;
          return (
            <circle
              key={`spot-${at}`}
              cx={p.x}
              cy={p.y}
              r={8}
              className="catan-spot catan-spot-corner"
              data-testid={`catan-spot-corner-${at}`}
              data-spot="corner"
              onClick={() => onSpot('corner', at)}
            >
              <title>{at}</title>
            </circle>
          );
        })}
    </svg>
  );
}
