import { useTranslation } from 'react-i18next';
import { href } from '../router.js';
import type { Standings, StandingsRow } from '../../../src/web/tournament-api.js';

const rating = (x: number) => (Number.isFinite(x) ? String(Math.round(x)) : '–');

/** Games whose points column has a meaning to say (docs/tournaments.md "Standings columns"). */
const POINTS_MEANING = new Set(['dame', 'connect4', 'ostseeschach', 'catan', 'mia']);

/**
 * rank, name, rating with its 95 % interval, Elo, games, W/D/L or placings, points, crashes,
 * timeouts; the points header says what points are in `game`.
 */
export function StandingsTable({ id, standings, game }: { id: string; standings: Standings; game?: string }) {
  const { t } = useTranslation();
  const multi = standings.method === 'openskill';
  const places = Math.max(0, ...standings.rows.map((r) => r.placings.length));
  return (
    <div className="table-scroll">
      <table className="table standings" data-testid="standings">
        <thead>
          <tr>
            <th className="num">{t('tournaments.rank')}</th>
            <th>{t('tournaments.entrant')}</th>
            <th className="num" title={t(multi ? 'tournaments.ratingOpenskill' : 'tournaments.ratingBt')}>
              {t('tournaments.rating')}
            </th>
            <th className="num">{t('tournaments.interval')}</th>
            {!multi && <th className="num">Elo</th>}
            <th className="num">{t('tournaments.games')}</th>
            {multi ? (
              Array.from({ length: places }, (_, k) => (
                <th key={k} className="num">
                  {t('tournaments.place', { place: k + 1 })}
                </th>
              ))
            ) : (
              <th className="num">{t('tournaments.wdl')}</th>
            )}
            <th
              className="num"
              data-testid="standings-points"
              {...(game !== undefined && POINTS_MEANING.has(game) ? { title: t(`tournaments.pointsMeaning.${game}`) } : {})}
            >
              {t('tournaments.points')}
            </th>
            <th className="num">{t('tournaments.crashes')}</th>
            <th className="num">{t('tournaments.timeouts')}</th>
          </tr>
        </thead>
        <tbody>
          {standings.rows.map((r: StandingsRow) => (
            <tr key={r.name} data-testid="standings-row" data-entrant={r.name}>
              <td className="num">{r.rank}</td>
              <td>
                <a href={href.entrant(id, r.name)}>{r.name}</a>
              </td>
              <td className="num" data-testid="standings-rating">
                {rating(r.rating)}
              </td>
              <td className="num muted">
                {Number.isFinite(r.low) && Number.isFinite(r.high)
                  ? `${rating(r.low)}–${rating(r.high)}`
                  : '–'}
              </td>
              {!multi && <td className="num">{r.elo === undefined ? '–' : rating(r.elo)}</td>}
              <td className="num" data-testid="standings-games">
                {r.games}
              </td>
              {multi ? (
                Array.from({ length: places }, (_, k) => (
                  <td key={k} className="num">
                    {r.placings[k] ?? 0}
                  </td>
                ))
              ) : (
                <td className="num">
                  {r.wins}/{r.draws}/{r.losses}
                </td>
              )}
              <td className="num">{Math.round(r.points * 100) / 100}</td>
              <td className={r.crashes > 0 ? 'num warn' : 'num'}>{r.crashes}</td>
              <td className={r.timeouts > 0 ? 'num warn' : 'num'}>{r.timeouts}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** headToHead[a][b] as W/D/L of the row entrant against the column entrant. */
export function HeadToHead({ standings }: { standings: Standings }) {
  const { t } = useTranslation();
  const names = standings.rows.map((r) => r.name);
  return (
    <div className="table-scroll">
      <table className="table compact head-to-head" data-testid="head-to-head">
        <thead>
          <tr>
            <th>{t('tournaments.versus')}</th>
            {names.map((n) => (
              <th key={n} className="num">
                {n}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {names.map((a) => (
            <tr key={a}>
              <th>{a}</th>
              {names.map((b) => {
                const cell = standings.headToHead[a]?.[b];
                return (
                  <td key={b} className="num">
                    {a === b || !cell || cell.wins + cell.draws + cell.losses === 0
                      ? '·'
                      : `${cell.wins}/${cell.draws}/${cell.losses}`}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
