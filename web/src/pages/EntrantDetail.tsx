import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { StatusBadge } from '../components/StatusBadge.js';
import { formatTime } from '../format.js';
import { reasonText } from '../matchResult.js';
import { href } from '../router.js';
import { usePolling } from '../usePolling.js';
import type { EntrantMatch, EntrantView } from '../../../src/web/tournament-api.js';

/** One entrant of a tournament: its results, each crash or timeout with its note and its program's output. */
export function EntrantDetail({ id, name }: { id: string; name: string }) {
  const { t } = useTranslation();
  const url = `/api/tournaments/${encodeURIComponent(id)}/entrants/${encodeURIComponent(name)}`;
  const [pollMs, setPollMs] = useState<number | null>(3000);
  const view = usePolling<EntrantView>(url, pollMs);
  const data = view.data;
  const wanted = data === null || data.tournament.status === 'running' ? 3000 : null;
  if (wanted !== pollMs) setPollMs(wanted);
  if (data === null) {
    return (
      <section className="page">
        <h1>{name}</h1>
        {view.error !== null ? (
          <p className="error" role="alert">
            {view.error}
          </p>
        ) : (
          <p className="muted">{t('common.loading')}</p>
        )}
        <p>
          <a href={href.tournament(id)}>← {t('tournaments.backTo')}</a>
        </p>
      </section>
    );
  }
  const { entrant, row } = data;
  const troubles = data.matches.filter((m) => m.result?.crashed === true || m.result?.timedOut === true);
  return (
    <section className="page">
      <header className="page-header">
        <h1 data-testid="entrant-title">{entrant.name}</h1>
        <span className="muted">
          {entrant.kind === 'bot'
            ? `bot:${entrant.bot} ${JSON.stringify(entrant.options)}`
            : t('tournaments.externalProgram')}
        </span>
      </header>
      <p>
        <a href={href.tournament(id)}>
          ← {data.tournament.name} <StatusBadge status={data.tournament.status} />
        </a>
      </p>
      {row && (
        <div className="panel">
          <dl className="facts" data-testid="entrant-summary">
            <dt>{t('tournaments.rank')}</dt>
            <dd>{row.rank}</dd>
            <dt>{t('tournaments.rating')}</dt>
            <dd>
              {Number.isFinite(row.rating) ? Math.round(row.rating) : '–'}
              {Number.isFinite(row.low) && Number.isFinite(row.high) && (
                <span className="muted">
                  {' '}
                  ({Math.round(row.low)}–{Math.round(row.high)})
                </span>
              )}
            </dd>
            <dt>{t('tournaments.games')}</dt>
            <dd>{row.games}</dd>
            <dt>{t('tournaments.wdl')}</dt>
            <dd>
              {row.wins}/{row.draws}/{row.losses}
            </dd>
            <dt>{t('tournaments.crashes')}</dt>
            <dd data-testid="entrant-crashes">{row.crashes}</dd>
            <dt>{t('tournaments.timeouts')}</dt>
            <dd>{row.timeouts}</dd>
          </dl>
        </div>
      )}
      <div className="panel">
        <h2>{t('tournaments.troubles', { count: troubles.length })}</h2>
        {troubles.length === 0 && <p className="muted">{t('tournaments.noTroubles')}</p>}
        {troubles.map((m) => (
          <article key={m.id} className="trouble" data-testid="entrant-trouble">
            <h3>
              <code>{m.id}</code>{' '}
              {m.result?.crashed === true ? t('tournaments.crashed') : t('tournaments.timedOut')}
            </h3>
            {m.result?.note !== undefined && <p data-testid="trouble-note">{m.result.note}</p>}
            {m.reason !== null && <p className="muted">{reasonText(m.reason, t)}</p>}
            <Output match={m} open />
          </article>
        ))}
      </div>
      <div className="panel">
        <h2>{t('tournaments.matches')}</h2>
        {data.matches.map((m) => (
          <article key={m.id} className="entrant-match" data-testid="entrant-match">
            <header>
              <code>{m.id}</code> {m.seats.join(' – ')} ·{' '}
              {m.result === null
                ? t(`tournaments.matchStatus.${m.status}`)
                : m.result.outcome !== undefined
                  ? t(`tournaments.outcome.${m.result.outcome}`)
                  : t('tournaments.placing', { place: m.result.placing ?? '?' })}
              {m.result?.crashed === true && (
                <span className="badge badge-failed">{t('tournaments.crashed')}</span>
              )}
              {m.result?.timedOut === true && (
                <span className="badge badge-failed">{t('tournaments.timedOut')}</span>
              )}
              {m.records.map((r, i) => (
                <a key={r} href={href.match(r)} className="record-link">
                  {t('tournaments.replay')}
                  {m.records.length > 1 ? ` ${i + 1}` : ''}
                </a>
              ))}
              {m.endedAt !== null && <span className="muted"> {formatTime(m.endedAt)}</span>}
            </header>
            {m.result?.note !== undefined && <p className="muted">{m.result.note}</p>}
            <Output match={m} open={false} />
          </article>
        ))}
      </div>
    </section>
  );
}

/** The entrant's program's captured stderr and stdout in one match, each in a bounded <pre>. */
function Output({ match, open }: { match: EntrantMatch; open: boolean }) {
  const { t } = useTranslation();
  const output = match.output;
  if (!output) return null;
  const exit = output.exit;
  const how =
    exit === null
      ? ''
      : (exit.error ??
        (exit.limit !== undefined
          ? t('tournaments.limit', { limit: exit.limit })
          : (exit.signal ?? t('tournaments.exitCode', { code: exit.code ?? '?' }))));
  return (
    <details data-testid="entrant-output" open={open}>
      <summary>
        {t('tournaments.output')}
        {how !== '' && ` (${how})`}
      </summary>
      <h4>stderr</h4>
      <pre className="program-output" data-testid="output-stderr">
        {output.stderr || t('tournaments.empty')}
      </pre>
      <h4>stdout</h4>
      <pre className="program-output" data-testid="output-stdout">
        {output.stdout || t('tournaments.empty')}
      </pre>
      {output.truncated > 0 && (
        <p className="muted">{t('tournaments.truncated', { bytes: output.truncated })}</p>
      )}
    </details>
  );
}
