import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DameReplay as Replay } from '../../../../src/games/dame/web-views.js';
import { usePolling } from '../../usePolling.js';
import { Board } from './Board.js';

/**
 * A recorded Dame game on the board, single move by single move. The server replays the record
 * through its rules (`/api/dame/replay/<id>`) and sends the board after each single move; the page
 * only shows them. It opens at the final position, where a tutor looks first; a game still
 * running (`live`) is fetched again every 2 s and follows its latest position until a step back.
 */
export function DameReplay({ matchId, live = false }: { matchId: string; live?: boolean }) {
  const { t } = useTranslation();
  const replay = usePolling<Replay>(`/api/dame/replay/${encodeURIComponent(matchId)}`, live ? 2000 : null);
  const [index, setIndex] = useState<number | null>(null);
  const [playing, setPlaying] = useState(false);
  const data = replay.data;
  const lastIndex = data ? data.frames.length - 1 : 0;
  const at = index === null ? lastIndex : Math.min(index, lastIndex);
  const running = playing && at < lastIndex;

  useEffect(() => {
    if (!running) return;
    const timer = window.setInterval(() => setIndex((i) => Math.min((i ?? 0) + 1, lastIndex)), 500);
    return () => window.clearInterval(timer);
  }, [running, lastIndex]);

  if (replay.error !== null) return <p className="error">{t('match.board.error', { error: replay.error })}</p>;
  if (!data) return <p className="muted">{t('common.loading')}</p>;
  const frame = data.frames[at];
  const go = (i: number) => {
    setPlaying(false);
    setIndex(Math.max(0, Math.min(lastIndex, i)));
  };
  const side = (s: 'white' | 'black' | null) => (s === null ? '–' : t(s === 'white' ? 'dame.white' : 'dame.black'));
  return (
    <div data-testid="dame-replay" data-match-id={data.matchId}>
      <p className="dame-versus" data-testid="dame-replay-players">
        <span className="dame-chip dame-chip-white" /> {data.names[0]} {t('dame.vs')} <span className="dame-chip dame-chip-black" />{' '}
        {data.names[1]}
      </p>
      <div className="columns">
        <div>{frame && <Board rows={frame.board} lastMove={frame.move} testId="dame-replay-board" />}</div>
        <div>
          <div className="form-row">
            <button type="button" onClick={() => go(0)} disabled={at === 0} data-testid="dame-replay-first" aria-label={t('match.board.first')}>
              «
            </button>
            <button type="button" onClick={() => go(at - 1)} disabled={at === 0} data-testid="dame-replay-prev" aria-label={t('match.board.previous')}>
              ‹
            </button>
            <button
              type="button"
              onClick={() => {
                if (at === lastIndex) setIndex(0);
                setPlaying((p) => !p);
              }}
              data-testid="dame-replay-play"
            >
              {running ? t('match.board.pause') : t('match.board.play')}
            </button>
            <button type="button" onClick={() => go(at + 1)} disabled={at === lastIndex} data-testid="dame-replay-next" aria-label={t('match.board.next')}>
              ›
            </button>
            <button type="button" onClick={() => go(lastIndex)} disabled={at === lastIndex} data-testid="dame-replay-last" aria-label={t('match.board.last')}>
              »
            </button>
          </div>
          <input
            type="range"
            min={0}
            max={lastIndex}
            value={at}
            onChange={(e) => go(Number(e.target.value))}
            aria-label={t('match.board.position')}
            data-testid="dame-replay-slider"
          />
          <dl className="facts">
            {data.gameName !== null && (
              <>
                <dt>{t('match.name')}</dt>
                <dd data-testid="dame-replay-game-name">{data.gameName}</dd>
              </>
            )}
            {data.gameId !== null && (
              <>
                <dt>{t('dame.id')}</dt>
                <dd>
                  <code>{data.gameId}</code>
                </dd>
              </>
            )}
            <dt>{t('dame.plies')}</dt>
            <dd data-testid="dame-replay-ply">{t('match.board.positionOf', { at, last: lastIndex })}</dd>
            <dt>{t('dame.lastMove')}</dt>
            <dd data-testid="dame-replay-move">
              {frame?.move ? `${side(frame.side)} ${frame.move}${frame.captured ? ` ×${frame.captured}` : ''}` : '–'}
            </dd>
            <dt>{t('dame.toMove')}</dt>
            <dd>{frame?.toMove ? side(frame.toMove) : '–'}</dd>
            <dt>{t('matches.result')}</dt>
            <dd data-testid="dame-replay-result">
              {data.result === null
                ? '–'
                : data.result.winner === null
                  ? t('match.board.noWinner', { reason: data.result.reason })
                  : t('match.board.won', { name: data.names[data.result.winner], reason: data.result.reason })}
            </dd>
          </dl>
          {data.checked && data.problems.length > 0 && (
            <p className="error">{t('match.board.problems', { problems: data.problems.join('; ') })}</p>
          )}
        </div>
      </div>
    </div>
  );
}
