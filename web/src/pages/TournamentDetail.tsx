import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { postJson } from '../api.js';
import { TournamentKeep } from '../components/TournamentKeep.js';
import { Pager } from '../components/Pager.js';
import { ProgressBar } from '../components/ProgressBar.js';
import { RatingChart } from '../components/RatingChart.js';
import { HeadToHead, StandingsTable } from '../components/Standings.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { formatDuration, formatName, formatTime, gameName } from '../format.js';
import { reasonText } from '../matchResult.js';
import { href } from '../router.js';
import { usePolling } from '../usePolling.js';
import type {
  SeatResult,
  TournamentHistory,
  TournamentMatchView,
  TournamentView,
} from '../../../src/web/tournament-api.js';

const POLL_MS = 2000;
const MATCH_PAGE = 50;

/** One tournament: progress, live standings, rating chart, head-to-head, matches, stop/resume, exports. */
export function TournamentDetail({ id }: { id: string }) {
  const { t } = useTranslation();
  const base = `/api/tournaments/${encodeURIComponent(id)}`;
  const [pollMs, setPollMs] = useState<number | null>(POLL_MS);
  const view = usePolling<TournamentView>(base, pollMs);
  const history = usePolling<TournamentHistory>(`${base}/history`, pollMs);
  const [offset, setOffset] = useState(0);
  const matches = usePolling<TournamentMatchView[]>(`${base}/matches`, pollMs);
  const [actionError, setActionError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const tournament = view.data;
  // Poll while it runs; once it has stopped, a last load and no more.
  const wanted = tournament === null || tournament.status === 'running' ? POLL_MS : null;
  if (wanted !== pollMs) setPollMs(wanted);

  if (tournament === null) {
    return (
      <section className="page">
        <h1>{t('tournaments.tournament')}</h1>
        {view.error !== null ? (
          <p className="error" role="alert">
            {view.error}
          </p>
        ) : (
          <p className="muted">{t('common.loading')}</p>
        )}
        <p>
          <a href={href.tournaments()}>← {t('tournaments.all')}</a>
        </p>
      </section>
    );
  }

  const act = async (action: 'stop' | 'resume') => {
    setBusy(true);
    setActionError(null);
    try {
      await postJson(`${base}/${action}`);
      setPollMs(POLL_MS);
      view.reload();
      matches.reload();
      history.reload();
    } catch (err) {
      setActionError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  const { progress } = tournament;
  const rows = matches.data ?? [];
  return (
    <section className="page">
      <header className="page-header">
        <h1 data-testid="tournament-title">{tournament.name}</h1>
        <StatusBadge status={tournament.status} testId="tournament-status" />
        <span className="muted">
          {gameName(tournament.game, t)} · {formatName(tournament.format, t)} · <code>{tournament.id}</code>
        </span>
      </header>
      <p>
        <a href={href.tournaments()}>← {t('tournaments.all')}</a>
      </p>
      <div className="panel">
        <ProgressBar done={progress.done} total={progress.total} testId="tournament-progress" />
        <p className="muted" data-testid="tournament-rate">
          {t('tournaments.doneOf', { done: progress.done, total: progress.total })}
          {progress.perMinute !== null &&
            ` · ${t('tournaments.perMinute', { rate: progress.perMinute.toFixed(progress.perMinute < 10 ? 1 : 0) })}`}
          {progress.etaMs !== null && ` · ${t('tournaments.eta', { time: formatDuration(progress.etaMs) })}`}
          {tournament.leader !== null && ` · ${t('tournaments.leaderIs', { name: tournament.leader })}`}
        </p>
        {tournament.note !== null && <p className="muted">{tournament.note}</p>}
        <div className="form-actions">
          {tournament.live && (
            <button
              type="button"
              disabled={busy}
              data-testid="tournament-stop"
              onClick={() => void act('stop')}
            >
              ■ {t('tournaments.stop')}
            </button>
          )}
          {tournament.resumable && (
            <button
              type="button"
              disabled={busy}
              data-testid="tournament-resume"
              onClick={() => void act('resume')}
            >
              ▶ {t('tournaments.resume')}
            </button>
          )}
          <span className="exports">
            {t('tournaments.export')}:{' '}
            <a href={`${base}/export.csv?kind=standings`} download data-testid="export-standings">
              {t('tournaments.csvStandings')}
            </a>{' '}
            ·{' '}
            <a href={`${base}/export.csv?kind=matches`} download data-testid="export-matches">
              {t('tournaments.csvMatches')}
            </a>{' '}
            ·{' '}
            <a href={`${base}/export.json`} download data-testid="export-json">
              JSON
            </a>
          </span>
        </div>
        {actionError !== null && (
          <p className="error" role="alert">
            {actionError}
          </p>
        )}
      </div>
      <TournamentKeep id={tournament.id} archivedAt={tournament.archivedAt} running={tournament.status === 'running'} onChanged={view.reload} />
      <div className="panel">
        <h2>{t('tournaments.standings')}</h2>
        <StandingsTable id={tournament.id} standings={tournament.standings} game={tournament.game} />
        <p className="muted small">
          {t(
            tournament.standings.method === 'openskill'
              ? 'tournaments.ratingOpenskill'
              : 'tournaments.ratingBt',
          )}
        </p>
      </div>
      <div className="panel">
        <h2>{t('tournaments.chart')}</h2>
        {history.data && <RatingChart history={history.data} />}
      </div>
      <div className="panel">
        <h2>{t('tournaments.headToHead')}</h2>
        <HeadToHead standings={tournament.standings} />
      </div>
      <div className="panel">
        <h2>{t('tournaments.matches')}</h2>
        <Pager
          offset={offset}
          size={MATCH_PAGE}
          total={rows.length}
          onChange={setOffset}
          testId="tournament-matches-pager"
        />
        <div className="table-scroll">
          <table className="table compact" data-testid="tournament-matches">
            <thead>
              <tr>
                <th>{t('tournaments.match')}</th>
                <th>{t('tournaments.status')}</th>
                <th>{t('tournaments.seats')}</th>
                <th>{t('tournaments.result')}</th>
                <th>{t('tournaments.reason')}</th>
                <th>{t('tournaments.records')}</th>
                <th>{t('tournaments.ended')}</th>
              </tr>
            </thead>
            <tbody>
              {rows.slice(offset, offset + MATCH_PAGE).map((m) => (
                <tr key={m.id} data-testid="tournament-match" data-status={m.status}>
                  <td>
                    <code>{m.id}</code>
                  </td>
                  <td>
                    {t(`tournaments.matchStatus.${m.status}`)}
                    {m.status === 'running' && m.worker !== null && (
                      <div className="muted" data-testid="match-worker">
                        {t('tournaments.onWorker', { worker: m.worker })}
                      </div>
                    )}
                  </td>
                  <td>
                    {m.seats.map((s, i) => (
                      <span key={s}>
                        {i > 0 && ' – '}
                        <a href={href.entrant(tournament.id, s)}>{s}</a>
                      </span>
                    ))}
                  </td>
                  <td>
                    {m.result ? <SeatsResult seats={m.result.seats} /> : m.bye ? t('tournaments.bye') : '–'}
                  </td>
                  <td className="muted">{m.result?.reason === undefined ? '' : reasonText(m.result.reason, t)}</td>
                  <td>
                    {m.records.map((r, i) => (
                      <span key={r}>
                        {i > 0 && ' '}
                        <a href={href.match(r)} data-testid="match-record-link">
                          {m.records.length > 1
                            ? `#${i + 1}`
                            : t(m.status === 'running' ? 'tournaments.watch' : 'tournaments.replay')}
                        </a>
                      </span>
                    ))}
                  </td>
                  <td>{m.endedAt === null ? '' : formatTime(m.endedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
    </section>
  );
}

/** `anna 1 · ben 0` (2-player) or `1. anna · 2. ben` (placings), with crash/timeout marks. */
export function SeatsResult({ seats }: { seats: readonly SeatResult[] }) {
  const { t } = useTranslation();
  return (
    <span className="seats-result">
      {seats.map((s, i) => (
        <span key={`${s.name}-${i}`}>
          {i > 0 && ' · '}
          {s.placing !== undefined && `${s.placing}. `}
          {s.name}
          {s.outcome !== undefined && ` ${t(`tournaments.outcome.${s.outcome}`)}`}
          {s.crashed === true && <span className="badge badge-failed">{t('tournaments.crashed')}</span>}
          {s.timedOut === true && <span className="badge badge-failed">{t('tournaments.timedOut')}</span>}
        </span>
      ))}
    </span>
  );
}
