import { summarizeResult, type ResultSummary } from '../matchResult.js';
import type { MatchRecord } from '../types.js';
import { CompactJson } from './Json.js';

export function OutcomeText({ summary, match }: { summary: ResultSummary; match: MatchRecord }) {
  switch (summary.outcome) {
    case 'won':
      return (
        <span className="outcome outcome-won">
          <strong>{summary.who}</strong> won
        </span>
      );
    case 'lost':
      return (
        <span className="outcome outcome-lost">
          lost: <strong>{summary.who}</strong>
        </span>
      );
    case 'draw':
      return <span className="outcome">draw</span>;
    case 'canceled':
      return <span className="outcome muted">canceled</span>;
    case 'aborted':
      return <span className="outcome muted">aborted</span>;
    case 'none':
      return <span className="muted">–</span>;
    case 'unknown':
      return <CompactJson value={match.result} max={60} />;
  }
}

export function ScoreText({ summary }: { summary: ResultSummary }) {
  const s = summary.score;
  if (s === null) return <span className="muted">–</span>;
  switch (s.kind) {
    case 'points':
      return <span className="mono">{s.value}</span>;
    case 'moves':
      return <>{s.value} moves</>;
    case 'plies':
      return <>{s.value} plies</>;
    case 'turns':
      return <>{s.value} turns</>;
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
