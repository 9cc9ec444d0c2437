import { useEffect, useState } from 'react';
import type { OstseeschachReplay } from '../../../../src/games/ostseeschach/snapshot.js';
import { href } from '../../router.js';
import { usePolling } from '../../usePolling.js';
import { useScrollIntoView } from '../../useScrollIntoView.js';
import { Board } from './Board.js';
import { causesText, partsText, resultText } from './results.js';

/** A record names an unnamed seat after its team. */
const seatName = (name: string, team: 'ONE' | 'TWO'): string => (name === team ? team : `${name} (${team})`);

/**
 * A finished game step by step. The server replays the record through its rules and sends one
 * board per turn (`/api/ostseeschach/replay/<id>`); the page only shows them.
 */
export function Replay({ matchId, onClose }: { matchId: string; onClose: () => void }) {
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

  if (replay.error !== null) return <p className="error">The replay could not be loaded: {replay.error}</p>;
  if (!data) return <p className="muted">Loading the replay…</p>;
  const frame = data.frames[at];
  const go = (i: number) => {
    setPlaying(false);
    setIndex(Math.max(0, Math.min(lastIndex, i)));
  };
  return (
    <div data-testid="ost-replay" data-match-id={data.matchId} ref={top}>
      <div className="panel-header">
        <h2>
          Replay: {seatName(data.names[0], 'ONE')} vs {seatName(data.names[1], 'TWO')}
        </h2>
        <a href={href.match(data.matchId)}>wire log</a>
        <button type="button" className="link-button" onClick={onClose}>
          close
        </button>
      </div>
      <div className="ost-live">
        {frame && <Board board={frame} testId="ost-replay-board" />}
        <div className="ost-side">
          <div className="ost-controls">
            <button type="button" onClick={() => go(0)} disabled={at === 0} data-testid="ost-replay-first" aria-label="first">
              «
            </button>
            <button type="button" onClick={() => go(at - 1)} disabled={at === 0} data-testid="ost-replay-prev" aria-label="previous">
              ‹
            </button>
            <button type="button" onClick={() => setPlaying((p) => !p)} disabled={at === lastIndex} data-testid="ost-replay-play">
              {running ? 'pause' : 'play'}
            </button>
            <button type="button" onClick={() => go(at + 1)} disabled={at === lastIndex} data-testid="ost-replay-next" aria-label="next">
              ›
            </button>
            <button type="button" onClick={() => go(lastIndex)} disabled={at === lastIndex} data-testid="ost-replay-last" aria-label="last">
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
            aria-label="turn"
            data-testid="ost-replay-slider"
          />
          <dl className="facts">
            <dt>Turn</dt>
            <dd data-testid="ost-replay-turn">
              {frame?.turn ?? 0} of {lastIndex}
            </dd>
            <dt>Move</dt>
            <dd data-testid="ost-replay-move">{at === 0 ? '–' : (data.moves[at - 1] ?? '–')}</dd>
            <dt>Ambers</dt>
            <dd>
              {frame?.ambers.ONE ?? 0} : {frame?.ambers.TWO ?? 0}
            </dd>
            <dt>Layout</dt>
            <dd className="mono">{data.layout}</dd>
            <dt>Result</dt>
            <dd data-testid="ost-replay-result">{resultText(data.scores, data.winner)}</dd>
            <dt>Causes</dt>
            <dd>{causesText(data.scores)}</dd>
            <dt>Parts</dt>
            <dd className="mono">{partsText(data.scores)}</dd>
            {data.ending && (
              <>
                <dt>Ended by</dt>
                <dd>
                  {data.ending.team ?? ''} {data.ending.type} {data.ending.detail}
                </dd>
              </>
            )}
          </dl>
          {data.problems.length > 0 && <p className="error">The record does not replay: {data.problems.join('; ')}</p>}
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
