import type { DameGameRow, DameSnapshot } from '../../../../src/games/dame/snapshot.js';
import type { DameBrowserPlayer } from '../../../../src/games/dame/web-views.js';
import { formatTime } from '../../format.js';
import { href } from '../../router.js';
import { Board } from './Board.js';
import { resultText, seatKind, turnText } from './GamesTab.js';
import { useTranslation } from 'react-i18next';

/** A live board of any game on the server, and the latest finished games with their records. */
export function WatchTab({
  snapshot,
  players,
  chosen,
  onChoose,
}: {
  snapshot: DameSnapshot | null;
  players: readonly DameBrowserPlayer[];
  chosen: string | null;
  onChoose: (id: string) => void;
}) {
  const { t } = useTranslation();
  const live = snapshot?.games ?? [];
  const recent = snapshot?.recent ?? [];
  const shown =
    [...live, ...recent].find((g) => g.id === chosen) ?? live.find((g) => g.status === 'running') ?? live[0] ?? recent[0];
  return (
    <>
      <div className="columns">
        <div className="panel">
          {shown ? <Watched row={shown} players={players} /> : <p className="muted">{t('dame.watch.noGames')}</p>}
        </div>
        <div className="panel">
          <h2>{t('dame.tab.games')}</h2>
          {live.length === 0 ? (
            <p className="muted">{t('dame.watch.noneOpen')}</p>
          ) : (
            <table className="table compact">
              <tbody>
                {live.map((g) => (
                  <tr
                    key={g.id}
                    onClick={() => onChoose(g.id)}
                    className={g.id === shown?.id ? 'selected dame-pick' : 'dame-pick'}
                    data-testid={`dame-watch-game-${g.id}`}
                  >
                    <td>
                      <code>{g.id}</code>
                    </td>
                    <td>{g.name}</td>
                    <td>{t(`dame.status.${g.status}`)}</td>
                    <td className="num">{t('result.plies', { count: g.plies })}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </div>
      <div className="panel">
        <h2>{t('dame.watch.recent')}</h2>
        {recent.length === 0 ? (
          <p className="muted">{t('mia.noneYet')}</p>
        ) : (
          <table className="table compact">
            <thead>
              <tr>
                <th>{t('catan.records.ended')}</th>
                <th>{t('dame.id')}</th>
                <th>{t('match.name')}</th>
                <th>{t('dame.white')}</th>
                <th>{t('dame.black')}</th>
                <th className="num">{t('dame.plies')}</th>
                <th>{t('matches.result')}</th>
                <th>{t('mia.record')}</th>
              </tr>
            </thead>
            <tbody>
              {recent.map((g) => (
                <tr key={g.id} data-testid="dame-recent-row" data-game-id={g.id} className={g.id === shown?.id ? 'selected' : undefined}>
                  <td className="mono">{g.endedAt === null ? '–' : formatTime(g.endedAt)}</td>
                  <td>
                    <button type="button" className="link-button" onClick={() => onChoose(g.id)}>
                      <code>{g.id}</code>
                    </button>
                  </td>
                  <td>{g.name}</td>
                  <td>{seatKind(g, g.seats[0], players, t)}</td>
                  <td>{seatKind(g, g.seats[1], players, t)}</td>
                  <td className="num">{g.plies}</td>
                  <td data-testid="dame-recent-result">{resultText(g, t)}</td>
                  <td>
                    {g.matchId ? (
                      <a href={href.match(g.matchId)} data-testid="dame-recent-link">
                        {t('dame.watch.wireLog')}
                      </a>
                    ) : (
                      '–'
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </>
  );
}

function Watched({ row, players }: { row: DameGameRow; players: readonly DameBrowserPlayer[] }) {
  const { t } = useTranslation();
  return (
    <div data-testid="dame-watch" data-game-id={row.id}>
      <h2>
        {row.name} <code className="muted">{row.id}</code>
      </h2>
      <p className="dame-versus">
        <span className="dame-chip dame-chip-white" /> {seatKind(row, row.seats[0], players, t)} {t('dame.vs')}{' '}
        <span className="dame-chip dame-chip-black" /> {seatKind(row, row.seats[1], players, t)}
      </p>
      <Board rows={row.board} lastMove={row.lastMove} testId="dame-watch-board" />
      <dl className="facts">
        <dt>{t('matches.status')}</dt>
        <dd data-testid="dame-watch-status" data-status={row.status}>
          {row.status === 'over' ? resultText(row, t) : t(`dame.status.${row.status}`)}
        </dd>
        <dt>{t('dame.plies')}</dt>
        <dd data-testid="dame-watch-plies">{row.plies}</dd>
        <dt>{t('dame.lastMove')}</dt>
        <dd data-testid="dame-watch-last">{row.lastMove ?? '–'}</dd>
        <dt>{t('dame.toMove')}</dt>
        <dd data-testid="dame-watch-tomove">{turnText(row, t)}</dd>
        {row.matchId && (
          <>
            <dt>{t('mia.record')}</dt>
            <dd>
              <a href={href.match(row.matchId)} {...(row.status === 'over' ? {} : { target: '_blank', rel: 'noopener' })}>
                {row.status === 'over' ? t('dame.watch.eachConnection') : t('dame.watch.soFar')}
              </a>
            </dd>
          </>
        )}
      </dl>
      <p className="muted">{t('dame.watch.seenFrom')}</p>
    </div>
  );
}
