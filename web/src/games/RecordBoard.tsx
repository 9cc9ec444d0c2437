import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { MatchSummary } from '../types.js';
import { Record as CatanRecord } from './catan/RecordsTab.js';
import { Board as Connect4Board } from './connect4/Board.js';
import { DameReplay } from './dame/Replay.js';
import { Replay as OstseeschachReplay } from './ostseeschach/Replay.js';

/**
 * The board view of a recorded match, for the match page (`#/matches/<id>`, where the tournament
 * pages' "replay" links lead): Dame and Ostseeschach step through the record as the server's rules
 * replay it, Catan shows the final board, points and log, Connect Four the discs of its recorded
 * columns. Mia has no board: its rounds are the events below. Each game's own view, so the page
 * looks like the game's page, not like JSON.
 */

/** The games that have a board view of a record. */
export const RECORD_BOARDS: ReadonlySet<string> = new Set(['dame', 'ostseeschach', 'catan', 'connect4']);

export function RecordBoard({ match }: { match: MatchSummary }) {
  const { t } = useTranslation();
  const [closed, setClosed] = useState(false);
  if (!RECORD_BOARDS.has(match.game)) return null;
  let view;
  switch (match.game) {
    case 'dame':
      view = <DameReplay matchId={match.id} live={match.status === 'running'} />;
      break;
    case 'ostseeschach':
      view = closed ? (
        <button type="button" className="link-button" onClick={() => setClosed(false)}>
          {t('match.board.show')}
        </button>
      ) : (
        <OstseeschachReplay matchId={match.id} onClose={() => setClosed(true)} />
      );
      break;
    case 'catan':
      view = <CatanRecord id={match.id} />;
      break;
    default:
      view = <Connect4Record match={match} />;
  }
  return (
    <div className="panel" data-testid="match-board" data-game={match.game}>
      <h2>{t('match.board.title')}</h2>
      {view}
    </div>
  );
}

/** The columns of a Connect Four record, position by position (the board only stacks the discs). */
function Connect4Record({ match }: { match: MatchSummary }) {
  const { t } = useTranslation();
  const moves = match.events
    .filter((e) => e.type === 'move')
    .map((e) => (e.data as { column?: unknown } | null)?.column)
    .filter((c): c is number => typeof c === 'number');
  const [index, setIndex] = useState<number | null>(null);
  const at = index === null ? moves.length : Math.min(index, moves.length);
  return (
    <div data-testid="c4-replay">
      <Connect4Board moves={moves.slice(0, at)} testId="c4-replay-board" />
      <div className="form-row">
        <input
          type="range"
          min={0}
          max={moves.length}
          value={at}
          onChange={(e) => setIndex(Number(e.target.value))}
          aria-label={t('match.board.position')}
          data-testid="c4-replay-slider"
        />
        <span data-testid="c4-replay-position">{t('match.board.positionOf', { at, last: moves.length })}</span>
        <code className="muted">{moves.slice(0, at).join('')}</code>
      </div>
    </div>
  );
}
