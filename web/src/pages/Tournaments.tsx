import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { NewTournament } from '../components/NewTournament.js';
import { ProgressBar } from '../components/ProgressBar.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { formatName, formatTime, gameName } from '../format.js';
import { href } from '../router.js';
import type { TournamentSummary } from '../../../src/web/tournament-api.js';

const PAGE = 20;

/** Every tournament, newest first, and the form that starts a new one. */
export function Tournaments({ offset }: { offset: number }) {
  const { t } = useTranslation();
  const [list, setList] = useState<{ items: TournamentSummary[]; more: boolean } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [showForm, setShowForm] = useState(false);
  const anyRunning = list?.items.some((x) => x.status === 'running') ?? false;

  useEffect(() => {
    const controller = new AbortController();
    let timer: number | undefined;
    const load = async () => {
      try {
        const response = await fetch(`/api/tournaments?limit=${PAGE}&offset=${offset}`, {
          headers: { accept: 'application/json' },
          signal: controller.signal,
        });
        if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
        const items = (await response.json()) as TournamentSummary[];
        setList({ items, more: response.headers.get('x-has-more') === '1' });
        setError(null);
      } catch (err) {
        if (controller.signal.aborted) return;
        setError(err instanceof Error ? err.message : String(err));
      }
      if (!controller.signal.aborted)
        timer = window.setTimeout(() => void load(), anyRunning ? 2000 : 10_000);
    };
    void load();
    return () => {
      controller.abort();
      window.clearTimeout(timer);
    };
  }, [offset, anyRunning]);

  return (
    <section className="page">
      <header className="page-header">
        <h1>{t('tournaments.title')}</h1>
        <button
          type="button"
          className="primary"
          aria-expanded={showForm}
          data-testid="new-tournament-toggle"
          onClick={() => setShowForm((s) => !s)}
        >
          {t('tournaments.new')}
        </button>
      </header>
      {showForm && (
        <div className="panel">
          <h2>{t('tournaments.new')}</h2>
          <NewTournament />
        </div>
      )}
      {error !== null && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="panel">
        <div className="table-scroll">
          <table className="table" data-testid="tournaments">
            <thead>
              <tr>
                <th>{t('tournaments.name')}</th>
                <th>{t('tournaments.game')}</th>
                <th>{t('tournaments.format')}</th>
                <th>{t('tournaments.status')}</th>
                <th>{t('tournaments.progress')}</th>
                <th>{t('tournaments.leader')}</th>
                <th>{t('tournaments.created')}</th>
              </tr>
            </thead>
            <tbody>
              {list?.items.map((x) => (
                <tr key={x.id} data-testid="tournament-row" data-tournament-id={x.id}>
                  <td>
                    <a href={href.tournament(x.id)}>{x.name}</a>
                  </td>
                  <td>{gameName(x.game, t)}</td>
                  <td>{formatName(x.format, t)}</td>
                  <td>
                    <StatusBadge status={x.status} />
                  </td>
                  <td className="progress-cell">
                    <ProgressBar done={x.done} total={x.total} />
                  </td>
                  <td>{x.leader ?? '–'}</td>
                  <td>{formatTime(x.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {list === null && error === null && <p className="muted">{t('common.loading')}</p>}
        {list?.items.length === 0 && <p className="muted">{t('tournaments.none')}</p>}
        {(offset > 0 || list?.more === true) && (
          <nav className="pager" aria-label={t('common.pages')}>
            {offset > 0 && <a href={href.tournaments(Math.max(0, offset - PAGE))}>‹ {t('matches.newer')}</a>}
            {list?.more === true && <a href={href.tournaments(offset + PAGE)}>{t('matches.older')} ›</a>}
          </nav>
        )}
      </div>
    </section>
  );
}
