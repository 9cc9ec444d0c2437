import { useEffect, useState } from 'react';
import type { OstseeschachReplay } from '../../../../src/games/ostseeschach/snapshot.js';
import { href } from '../../router.js';
import { usePolling } from '../../usePolling.js';
import { useScrollIntoView } from '../../useScrollIntoView.js';
import { Board } from './Board.js';
import { causesText, partsText, resultText } from './results.js';
import { useTranslation } from 'react-i18next';

/** A record names an unnamed seat after its team. */
const seatName = (name: string, team: 'ONE' | 'TWO'): string => (name === team ? team : `${name} (${team})`);

/**
 * A finished game step by step. The server replays the record through its rules and sends one
 * board per turn (`/api/ostseeschach/replay/<id>`); the page only shows them.
 */
export function Replay({ matchId, onClose }: { matchId: string; onClose: () => void }) {
  const { t } = useTranslation();
  const replay = usePolling<OstseeschachReplay>(`/api/ostseeschach/replay/${encodeURIComponent(matchId)}`, null);
  const [index, setIndex] = useState(0);
  const [playing, setPlaying] = useState(false);
  const [shownId, setShownId] = useState(matchId);
  if (shownId !== matchId) {
    setShownId(matchId);
    setIndex(0);
    setPlaying(false);
  }
  const data = replay.data;
  const top = useScrollIntoView<HTMLDivElement>(data !== null);
  const lastIndex = data ? data.frames.length - 1 : 0;

  const at = Math.min(index, lastIndex);
  // Playing stops by itself at the last board: the interval runs only while there is a next one.
  const running = playing && at < lastIndex;

  useEffect(() => {
    if (!running) return;
    const timer = window.setInterval(() => setIndex((i) => Math.min(i + 1, lastIndex)), 600);
    return () => window.clearInterval(timer);
  }, [running, lastIndex]);

  if (replay.error !== null) return <p className="error">{t('ost.replayView.error', { error: replay.error })}</p>;
  if (!data) return <p className="muted">{t('ost.replayView.loading')}</p>;
  const frame = data.frames[at];
  const go = (i: number) => {
    setPlaying(false);
    setIndex(Math.max(0, Math.min(lastIndex, i)));
  };
  return (
    <div data-testid="ost-replay" data-match-id={data.matchId} ref={top}>
      <div className="panel-header">
        <h2>
          {t('ost.replayView.title', { one: seatName(data.names[0], 'ONE'), two: seatName(data.names[1], 'TWO') })}
        </h2>
        <a href={href.match(data.matchId)}>{t('dame.watch.wireLog')}</a>
        <button type="button" className="link-button" onClick={onClose}>
          {t('ost.replayView.close')}
        </button>
      </div>
      <div className="ost-live">
        {frame && <Board board={frame} testId="ost-replay-board" />}
        <div className="ost-side">
          <div className="ost-controls">
            <button type="button" onClick={() => go(0)} disabled={at === 0} data-testid="ost-replay-first" aria-label={t('ost.replayView.first')}>
              «
            </button>
            <button type="button" onClick={() => go(at - 1)} disabled={at === 0} data-testid="ost-replay-prev" aria-label={t('ost.replayView.previous')}>
              ‹
            </button>
            <button type="button" onClick={() => setPlaying((p) => !p)} disabled={at === lastIndex} data-testid="ost-replay-play">
              {running ? t('ost.replayView.pause') : t('ost.replayView.play')}
            </button>
            <button type="button" onClick={() => go(at + 1)} disabled={at === lastIndex} data-testid="ost-replay-next" aria-label={t('ost.replayView.next')}>
              ›
            </button>
            <button type="button" onClick={() => go(lastIndex)} disabled={at === lastIndex} data-testid="ost-replay-last" aria-label={t('ost.replayView.last')}>
              »
            </button>
          </div>
          <input
            type="range"
            min={0}
            max={lastIndex}
            value={at}
            onChange={(e) => go(Number(e.target.value))}
            className="ost-slider"
            aria-label={t('ost.turn')}
            data-testid="ost-replay-slider"
          />
          <dl className="facts">
            <dt>{t('ost.turn')}</dt>
            <dd data-testid="ost-replay-turn">{t('ost.replayView.turnOf', { turn: frame?.turn ?? 0, last: lastIndex })}</dd>
            <dt>{t('ost.replayView.move')}</dt>
            <dd data-testid="ost-replay-move">{at === 0 ? '–' : (data.moves[at - 1] ?? '–')}</dd>
            <dt>{t('ost.ambers')}</dt>
            <dd>
              {frame?.ambers.ONE ?? 0} : {frame?.ambers.TWO ?? 0}
            </dd>
            <dt>{t('ost.layout')}</dt>
            <dd className="mono">{data.layout}</dd>
            <dt>{t('matches.result')}</dt>
            <dd data-testid="ost-replay-result">{resultText(data.scores, data.winner, t)}</dd>
            <dt>{t('ost.causes')}</dt>
            <dd>{causesText(data.scores)}</dd>
            <dt>{t('ost.parts')}</dt>
            <dd className="mono">{partsText(data.scores)}</dd>
            {data.ending && (
              <>
                <dt>{t('ost.replayView.endedBy')}</dt>
                <dd>
                  {data.ending.team ?? ''} {data.ending.type} {data.ending.detail}
                </dd>
              </>
            )}
          </dl>
          {data.problems.length > 0 && <p className="error">{t('ost.replayView.problems', { problems: data.problems.join('; ') })}</p>}
          <ol className="ost-moves" data-testid="ost-replay-moves">
            {data.moves.map((m, i) => (
              <li key={i}>
                <button type="button" className={i + 1 === at ? 'ost-move ost-move-now' : 'ost-move'} onClick={() => go(i + 1)}>
                  {i + 1}. {m}
                </button>
              </li>
            ))}
          </ol>
        </div>
      </div>
    </div>
  );
}
