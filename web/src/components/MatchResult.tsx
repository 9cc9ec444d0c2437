import { Trans, useTranslation } from 'react-i18next';
import { summarizeResult, type ResultSummary } from '../matchResult.js';
import type { MatchRecord } from '../types.js';
import { CompactJson } from './Json.js';

export function OutcomeText({ summary, match }: { summary: ResultSummary; match: MatchRecord }) {
  const { t } = useTranslation();
  switch (summary.outcome) {
    case 'won':
      return (
        <span className="outcome outcome-won">
          <Trans i18nKey="result.won" values={{ who: summary.who }} components={{ b: <strong /> }} />
        </span>
      );
    case 'lost':
      return (
        <span className="outcome outcome-lost">
          <Trans i18nKey="result.lost" values={{ who: summary.who }} components={{ b: <strong /> }} />
        </span>
      );
    case 'draw':
      return <span className="outcome">{t('result.draw')}</span>;
    case 'canceled':
      return <span className="outcome muted">{t('result.canceled')}</span>;
    case 'aborted':
      return <span className="outcome muted">{t('status.aborted')}</span>;
    case 'none':
      return <span className="muted">–</span>;
    case 'unknown':
      return <CompactJson value={match.result} max={60} />;
  }
}

export function ScoreText({ summary }: { summary: ResultSummary }) {
  const { t } = useTranslation();
  const s = summary.score;
  if (s === null) return <span className="muted">–</span>;
  switch (s.kind) {
    case 'points':
      return <span className="mono">{s.value}</span>;
    case 'moves':
      return <>{t('result.moves', { count: Number(s.value) })}</>;
    case 'plies':
      return <>{t('result.plies', { count: Number(s.value) })}</>;
    case 'turns':
      return <>{t('result.turns', { count: Number(s.value) })}</>;
  }
}

/** Winner, score and reason in one line (the match page's facts). */
export function ResultLine({ match }: { match: MatchRecord }) {
  const summary = summarizeResult(match);
  return (
    <span data-testid="result-line">
      <OutcomeText summary={summary} match={match} />
      {summary.score !== null && (
        <>
          {' · '}
          <ScoreText summary={summary} />
        </>
      )}
      {summary.reason !== null && (
        <>
          {' · '}
          <code>{summary.reason}</code>
        </>
      )}
    </span>
  );
}
