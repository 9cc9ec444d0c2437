import { useMemo } from 'react';
import type { Colour } from '../../../../src/games/catan/rules/types.js';
import { COLOUR_FILL } from './Board.js';
import { describeLine } from './describe.js';
import { useTranslation } from 'react-i18next';

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
  const { t } = useTranslation();
  return (
    <span
      className="catan-colour"
      style={{ background: colour ? COLOUR_FILL[colour] : 'transparent' }}
      title={colour ? t(`catan.colour.${colour}`) : t('catan.noColour')}
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
  reconnecting = [],
  testId = 'catan-players',
}: {
  players: readonly PlayerRow[];
  active?: number | null;
  me?: number | null;
  longestRoad?: number | null;
  largestArmy?: number | null;
  winner?: number | null;
  /** Players whose browser is away (a reload): their seat waits for them. */
  reconnecting?: readonly number[];
  testId?: string;
}) {
  const { t } = useTranslation();
  const roads = players.some((p) => p.roadLength !== undefined);
  const kinds = players.some((p) => p.kind !== undefined);
  return (
    <div className="catan-table-wrap">
      <table className="table compact catan-players" data-testid={testId}>
        <thead>
          <tr>
            <th>{t('mia.player')}</th>
            {kinds && <th>{t('match.kind')}</th>}
            <th>{t('matches.status')}</th>
            <th className="num" title={t('catan.players.pointsTitle')}>
              {t('mia.points')}
            </th>
            <th className="num" title={t('catan.players.cardsTitle')}>
              {t('catan.players.cards')}
            </th>
            <th className="num" title={t('catan.players.devTitle')}>
              {t('catan.players.dev')}
            </th>
            <th className="num" title={t('catan.players.knightsTitle')}>
              {t('catan.players.knights')}
            </th>
            {roads && (
              <th className="num" title={t('catan.players.roadTitle')}>
                {t('catan.players.road')}
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
                {p.id === me && <span className="muted"> {t('catan.players.you')}</span>}
                {reconnecting.includes(p.id) && (
                  <span
                    className="badge catan-reconnecting"
                    title={t('catan.players.reconnectingTitle')}
                    data-testid="catan-reconnecting"
                  >
                    {t('catan.players.reconnecting')}
                  </span>
                )}
                {p.id === winner && (
                  <span className="badge badge-finished"> {t('catan.players.winner')}</span>
                )}
                {p.id === longestRoad && (
                  <span className="badge catan-award" title={t('catan.players.longestRoadTitle')}>
                    {t('catan.players.roadAward')}
                  </span>
                )}
                {p.id === largestArmy && (
                  <span className="badge catan-award" title={t('catan.players.largestArmyTitle')}>
                    {t('catan.players.armyAward')}
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
  const { t } = useTranslation();
  const entries = useMemo(() => {
    const out: { key: number; text: string; kind: string }[] = [];
    lines.forEach((line, i) => {
      const e = describeLine(line, nameOf, t);
      if (e) out.push({ key: i, ...e });
    });
    const kept = out.slice(-max);
    return newestFirst ? kept.reverse() : kept;
  }, [lines, nameOf, max, newestFirst, t]);
  return (
    <ol className="catan-log" data-testid={testId}>
      {entries.length === 0 && <li className="muted">{t('catan.nothingYet')}</li>}
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
