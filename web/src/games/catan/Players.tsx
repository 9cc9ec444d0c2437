import { useMemo } from 'react';
import type { Colour } from '../../../../src/games/catan/rules/types.js';
import { COLOUR_FILL, COLOUR_NAME } from './Board.js';
import { describeLine } from './describe.js';

/** Everyone's public side (points, card counts, knights, awards), and the game log. */

export interface PlayerRow {
  readonly id: number;
  readonly name: string | null;
  readonly colour: Colour | null;
  readonly status: string;
  readonly points: number;
  readonly cards: number;
  readonly devCards: number;
  readonly knights: number;
  readonly roadLength?: number | undefined;
  readonly kind?: string | undefined;
}

export function ColourChip({ colour }: { colour: Colour | null }) {
  return (
    <span
      className="catan-colour"
      style={{ background: colour ? COLOUR_FILL[colour] : 'transparent' }}
      title={colour ? COLOUR_NAME[colour] : 'no colour yet'}
    />
  );
}

export function PlayersTable({
  players,
  active = null,
  me = null,
  longestRoad = null,
  largestArmy = null,
  winner = null,
  testId = 'catan-players',
}: {
  players: readonly PlayerRow[];
  active?: number | null;
  me?: number | null;
  longestRoad?: number | null;
  largestArmy?: number | null;
  winner?: number | null;
  testId?: string;
}) {
  const roads = players.some((p) => p.roadLength !== undefined);
  const kinds = players.some((p) => p.kind !== undefined);
  return (
    <div className="catan-table-wrap">
      <table className="table compact catan-players" data-testid={testId}>
        <thead>
          <tr>
            <th>Player</th>
            {kinds && <th>Kind</th>}
            <th>Status</th>
            <th className="num" title="points (others: without hidden victory point cards)">
              Points
            </th>
            <th className="num" title="resource cards in hand">
              Cards
            </th>
            <th className="num" title="unplayed development cards">
              Dev
            </th>
            <th className="num" title="knights played">
              Knights
            </th>
            {roads && (
              <th className="num" title="longest trade route">
                Road
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {players.map((p) => (
            <tr
              key={p.id}
              className={`${p.id === active ? 'catan-active' : ''}${p.id === me ? ' catan-me' : ''}`}
              data-testid="catan-player-row"
              data-player={p.id}
              data-points={p.points}
            >
              <td>
                <ColourChip colour={p.colour} /> {p.name ?? `#${p.id}`}
                {p.id === me && <span className="muted"> (you)</span>}
                {p.id === winner && <span className="badge badge-finished"> winner</span>}
                {p.id === longestRoad && (
                  <span className="badge catan-award" title="Längste Handelsstraße (2 points)">
                    road
                  </span>
                )}
                {p.id === largestArmy && (
                  <span className="badge catan-award" title="Größte Rittermacht (2 points)">
                    army
                  </span>
                )}
              </td>
              {kinds && <td>{p.kind}</td>}
              <td className="muted">{p.status}</td>
              <td className="num">
                <strong>{p.points}</strong>
              </td>
              <td className="num">{p.cards}</td>
              <td className="num">{p.devCards}</td>
              <td className="num">{p.knights}</td>
              {roads && <td className="num">{p.roadLength ?? ''}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The game log: each line as a sentence (live logs newest first); lines that say nothing to a person are left out. */
export function GameLog({
  lines,
  nameOf,
  testId = 'catan-log',
  max = 200,
  newestFirst = false,
}: {
  lines: readonly string[];
  nameOf: (id: number) => string;
  testId?: string;
  max?: number;
  newestFirst?: boolean;
}) {
  const entries = useMemo(() => {
    const out: { key: number; text: string; kind: string }[] = [];
    lines.forEach((line, i) => {
      const e = describeLine(line, nameOf);
      if (e) out.push({ key: i, ...e });
    });
    const kept = out.slice(-max);
    return newestFirst ? kept.reverse() : kept;
  }, [lines, nameOf, max, newestFirst]);
  return (
    <ol className="catan-log" data-testid={testId}>
      {entries.length === 0 && <li className="muted">Nothing yet.</li>}
      {entries.map((e) => (
        <li key={e.key} className={`catan-log-${e.kind}`} data-testid="catan-log-entry">
          {e.text}
        </li>
      ))}
    </ol>
  );
}

/** A name lookup for the log. */
export function namesOf(
  players: readonly { readonly id: number; readonly name: string | null }[],
): (id: number) => string {
  const names = new Map(players.map((p) => [p.id, p.name ?? `#${p.id}`]));
  return (id) => names.get(id) ?? `#${id}`;
}
