import type { TFunction } from 'i18next';
import { useMemo } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { CatanResultRow, CatanSnapshot } from '../../../../src/games/catan/snapshot.js';
import type { Colour } from '../../../../src/games/catan/rules/types.js';
import type { CatanRecordView } from '../../../../src/games/catan/web-views.js';
import { formatDuration, formatTime } from '../../format.js';
import { href } from '../../router.js';
import { usePolling } from '../../usePolling.js';
import { useScrollIntoView } from '../../useScrollIntoView.js';
import { Board } from './Board.js';
import { ColourChip, GameLog, PlayersTable, namesOf } from './Players.js';

/**
 * Finished games: the latest results, and for the one chosen the server's record replayed through
 * the rules (`/api/catan/records/:id`): the final board, everyone's points, the whole public log,
 * and whether the record holds.
 */

export function resultText(r: CatanResultRow, t: TFunction): string {
  if (r.winner !== null)
    return t('catan.records.won', { who: r.players.find((p) => p.id === r.winner)?.name ?? `#${r.winner}` });
  return t('catan.records.aborted', { reason: r.reason });
}

export function RecordsTab({
  snapshot,
  chosen,
  onChoose,
}: {
  snapshot: CatanSnapshot | null;
  chosen: string | null;
  onChoose: (id: string) => void;
}) {
  const { t } = useTranslation();
  const recent = snapshot?.recent ?? [];
  return (
    <>
      <div className="panel">
        <h2>
          {t('catan.tab.records')}{' '}
          <span className="muted">
            <Trans
              i18nKey="catan.records.latest"
              values={{ count: recent.length }}
              components={{ a: <a href={href.matches('catan')} /> }}
            />
          </span>
        </h2>
        {recent.length === 0 ? (
          <p className="muted">{t('catan.records.none')}</p>
        ) : (
          <table className="table compact" data-testid="catan-recent">
            <thead>
              <tr>
                <th>{t('matches.game')}</th>
                <th>{t('catan.records.ended')}</th>
                <th>{t('catan.records.playersPoints')}</th>
                <th className="num">{t('catan.records.turns')}</th>
                <th>{t('matches.result')}</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {recent.map((r) => (
                <tr
                  key={r.id}
                  className={r.id === chosen ? 'selected' : undefined}
                  data-testid="catan-recent-row"
                  data-match={r.id}
                >
                  <td>{r.number}</td>
                  <td>{formatTime(r.endedAt)}</td>
                  <td>
                    {r.players.map((p) => (
                      <span key={p.id} className="catan-result-player">
                        <ColourChip colour={p.colour} /> {p.name} ({p.points}){' '}
                      </span>
                    ))}
                  </td>
                  <td className="num">{r.turns}</td>
                  <td data-testid="catan-recent-result">{resultText(r, t)}</td>
                  <td>
                    <button
                      type="button"
                      className="link-button"
                      data-testid={`catan-record-${r.id}`}
                      onClick={() => onChoose(r.id)}
                    >
                      {t('common.show')}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      {chosen !== null && <Record key={chosen} id={chosen} />}
    </>
  );
}

export function Record({ id }: { id: string }) {
  const { t } = useTranslation();
  const record = usePolling<CatanRecordView>(`/api/catan/records/${encodeURIComponent(id)}`, null);
  const r = record.data;
  const top = useScrollIntoView<HTMLDivElement>(r !== null);
  const final = r?.final ?? null;
  const colours = useMemo(
    () => new Map<number, Colour>((final?.players ?? []).map((p) => [p.id, p.colour])),
    [final],
  );
  const nameOf = useMemo(() => namesOf(final?.players ?? []), [final]);
  if (record.error !== null)
    return (
      <p className="error" role="alert">
        {record.error}
      </p>
    );
  if (!r) return <p className="muted">{t('catan.records.loading')}</p>;
  return (
    <div className="catan-layout" data-testid="catan-record" data-match={r.id} ref={top}>
      <div className="panel catan-board-panel">
        <div className="panel-header">
          <h2>{t('catan.records.final')}</h2>
          <span className="muted">
            {r.endedAt !== null && `${formatDuration(r.endedAt - r.startedAt)} · `}
            <a href={href.match(r.id)} data-testid="catan-record-link">
              {t('catan.records.wire')}
            </a>
          </span>
          <span
            className={`badge ${r.checked && r.problems.length === 0 ? 'badge-finished' : r.checked ? 'badge-failed' : ''}`}
            data-testid="catan-record-check"
          >
            {!r.checked
              ? t('catan.records.notReplayable')
              : r.problems.length === 0
                ? t('catan.records.replays')
                : t('catan.records.doesNotReplay')}
          </span>
        </div>
        {final ? (
          <Board
            fields={final.board.fields}
            harbours={final.board.harbours}
            robber={final.board.robber}
            buildings={final.buildings}
            colourOf={(p) => colours.get(p) ?? null}
            testId="catan-record-board"
          />
        ) : (
          <p className="muted">{t('catan.records.fixedBoard')}</p>
        )}
        {r.problems.length > 0 && (
          <ul className="error">
            {r.problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        )}
      </div>
      <div className="stack">
        {final && (
          <div className="panel">
            <h2>{t('matches.players')}</h2>
            <PlayersTable
              players={final.players.map((p) => ({
                ...p,
                cards: p.cards,
                devCards: 'Unbekannt' in p.devCards ? p.devCards.Unbekannt : 0,
              }))}
              longestRoad={final.longestRoad}
              largestArmy={final.largestArmy}
              winner={final.winner}
              testId="catan-record-players"
            />
          </div>
        )}
        <div className="panel">
          <h2>
            {t('catan.log.title')}{' '}
            <span className="muted">{t('catan.records.publicMessages', { count: r.lines.length })}</span>
          </h2>
          <GameLog lines={r.lines} nameOf={nameOf} testId="catan-record-log" max={5000} />
        </div>
      </div>
    </div>
  );
}
