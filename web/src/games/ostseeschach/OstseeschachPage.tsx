import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Command } from '../../components/Command.js';
import type { OstseeschachBoardView, OstseeschachResultRow, OstseeschachRoomRow, OstseeschachSnapshot } from '../../../../src/games/ostseeschach/snapshot.js';
import { ConnectionBadge } from '../../components/StatusBadge.js';
import { formatTime } from '../../format.js';
import { href } from '../../router.js';
import type { SpectatorEvent } from '../../types.js';
import { useSpectator } from '../../useSpectator.js';
import { Board, moveKey } from './Board.js';
import { Replay } from './Replay.js';
import { causesText, partsText, resultText, seatText } from './results.js';

/**
 * Ostseeschach in the dashboard: the server's rooms, a live board of one of them (following
 * the spectator socket: the snapshot, with each memento event folded in as it comes), the
 * finished games with their score causes, and a replay of any recorded game.
 */

/** A memento event carries the room's new board: shown at once, before the next snapshot. */
function reduce(s: OstseeschachSnapshot, event: SpectatorEvent): OstseeschachSnapshot {
  if (event.type !== 'memento') return s;
  const data = event.data as { roomId: string; board: OstseeschachBoardView };
  return { ...s, rooms: s.rooms.map((r) => (r.roomId === data.roomId ? { ...r, board: data.board } : r)) };
}

const shortId = (id: string): string => id.slice(0, 8);

export function OstseeschachPage() {
  const { t } = useTranslation();
  const live = useSpectator<OstseeschachSnapshot>('ostseeschach', reduce);
  const [chosen, setChosen] = useState<string | null>(null);
  const [replayId, setReplayId] = useState<string | null>(null);
  const s = live.snapshot;
  const rooms = s?.rooms ?? [];
  const recent = s?.recent ?? [];
  const current = chosen === null ? rooms.find((r) => r.status === 'running') : rooms.find((r) => r.roomId === chosen);
  // A room stays on screen when it closes, with its result and final board.
  const [kept, setKept] = useState<OstseeschachRoomRow | null>(null);
  if (current && current !== kept) setKept(current);
  const shown = current ?? (kept && (chosen === null || kept.roomId === chosen) ? kept : null);
  const closed = shown && !rooms.some((r) => r.roomId === shown.roomId) ? (recent.find((r) => r.roomId === shown.roomId) ?? null) : null;
  return (
    <section className="page">
      <header className="page-header">
        <h1>{t('ost.title')}</h1>
        <ConnectionBadge state={live.state} retryInMs={live.retryInMs} />
        {s && (
          <span className="muted">
            <Trans
              i18nKey="ost.summary"
              values={{ port: s.port, connections: s.connections, played: s.gamesPlayed }}
              components={{ port: <code data-testid="ost-port" />, n: <span data-testid="ost-games-played" /> }}
            />
          </span>
        )}
      </header>
      {live.state === 'unknown-game' && <p className="error">{t('ost.notHere')}</p>}
      <div className="columns">
        <div className="panel">
          {shown ? <LiveRoom row={shown} closed={closed} following={chosen === null} /> : <p className="muted">{t('ost.noRoomHouse')}</p>}
        </div>
        <div className="panel">
          <div className="panel-header">
            <h2>{t('ost.rooms')}</h2>
            {chosen !== null && (
              <button type="button" className="link-button" onClick={() => setChosen(null)}>
                {t('ost.follow')}
              </button>
            )}
          </div>
          <RoomsTable rooms={rooms} shown={shown?.roomId ?? null} onChoose={setChosen} />
          {s && <Connect port={s.port} />}
        </div>
      </div>
      <div className="panel">
        <h2>{t('catan.tab.records')}</h2>
        <ResultsTable recent={recent} replayId={replayId} onReplay={setReplayId} />
      </div>
      {replayId !== null && (
        <div className="panel">
          <Replay matchId={replayId} onClose={() => setReplayId(null)} />
        </div>
      )}
    </section>
  );
}

function RoomsTable({ rooms, shown, onChoose }: { rooms: readonly OstseeschachRoomRow[]; shown: string | null; onChoose: (id: string) => void }) {
  const { t } = useTranslation();
  if (rooms.length === 0) return <p className="muted">{t('ost.noRoom')}</p>;
  return (
    <table className="table compact">
      <thead>
        <tr>
          <th>{t('ost.room')}</th>
          <th>{t('matches.players')}</th>
          <th>{t('ost.state')}</th>
          <th className="num">{t('ost.turn')}</th>
          <th>{t('dame.toMove')}</th>
        </tr>
      </thead>
      <tbody>
        {rooms.map((r) => (
          <tr
            key={r.roomId}
            className={r.roomId === shown ? 'selected ost-pick' : 'ost-pick'}
            onClick={() => onChoose(r.roomId)}
            data-testid="ost-room-row"
            data-room-id={r.roomId}
            data-status={r.status}
          >
            <td>
              <code title={r.roomId}>{shortId(r.roomId)}</code>
              {r.prepared && <span className="muted"> {t('ost.prepared')}</span>}
            </td>
            <td>
              <span className="ost-dot ost-dot-one" /> {seatText(r.seats[0], 'ONE', t)}
              <br />
              <span className="ost-dot ost-dot-two" /> {seatText(r.seats[1], 'TWO', t)}
            </td>
            <td>
              <span className={`badge ost-status-${r.status}`}>{t(`ost.status.${r.status}`)}</span>
            </td>
            <td className="num">{r.board.turn}</td>
            <td>{r.awaiting ?? '–'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function LiveRoom({ row, closed, following }: { row: OstseeschachRoomRow; closed: OstseeschachResultRow | null; following: boolean }) {
  const { t } = useTranslation();
  // A closed room's final board comes with its result: the last memento may not have been drawn.
  const b = closed?.board ?? row.board;
  const over = closed !== null || row.status === 'over';
  return (
    <div data-testid="ost-live" data-room-id={row.roomId} data-over={over}>
      <div className="panel-header">
        <h2>
          {t('ost.room')} <code title={row.roomId}>{shortId(row.roomId)}</code>
        </h2>
        <span className={`badge ost-status-${over ? 'over' : row.status}`} data-testid="ost-live-status" data-status={over ? 'over' : row.status}>
          {t(`ost.status.${over ? 'over' : row.status}`)}
        </span>
        {following && !over && <span className="muted">{t('ost.following')}</span>}
      </div>
      <p className="ost-versus">
        <span className="ost-dot ost-dot-one" /> {seatText(row.seats[0], 'ONE', t)} {t('dame.vs')} <span className="ost-dot ost-dot-two" />{' '}
        {seatText(row.seats[1], 'TWO', t)}
      </p>
      <div className="ost-live">
        <Board board={b} testId="ost-live-board" />
        <dl className="facts ost-side">
          <dt>{t('ost.turn')}</dt>
          <dd data-testid="ost-live-turn">{b.turn}</dd>
          <dt>{t('mia.round')}</dt>
          <dd>{t('ost.roundOf', { round: b.round })}</dd>
          <dt>{t('dame.toMove')}</dt>
          <dd data-testid="ost-live-tomove">{over ? '–' : (row.awaiting ?? t('ost.notRequested', { team: b.toMove }))}</dd>
          <dt>{t('ost.ambers')}</dt>
          <dd data-testid="ost-live-ambers">
            {b.ambers.ONE} : {b.ambers.TWO}
          </dd>
          <dt>{t('dame.lastMove')}</dt>
          <dd className="mono">{moveKey(b.lastMove) || '–'}</dd>
          <dt>{t('ost.layout')}</dt>
          <dd className="mono">{row.layout}</dd>
          <dt>{t('ost.observers')}</dt>
          <dd>{row.observers}</dd>
          {closed && (
            <>
              <dt>{t('matches.result')}</dt>
              <dd data-testid="ost-live-result">{resultText(closed.scores, closed.winner, t)}</dd>
              <dt>{t('ost.causes')}</dt>
              <dd>{causesText(closed.scores)}</dd>
            </>
          )}
          {row.matchId && (
            <>
              <dt>{t('mia.record')}</dt>
              <dd>
                <a href={href.match(row.matchId)} {...(over ? {} : { target: '_blank', rel: 'noopener' })}>
                  {over ? t('dame.watch.eachConnection') : t('dame.watch.soFar')}
                </a>
              </dd>
            </>
          )}
        </dl>
      </div>
      <p className="muted">
        {t('ost.legend')}
      </p>
    </div>
  );
}

function ResultsTable({ recent, replayId, onReplay }: { recent: readonly OstseeschachResultRow[]; replayId: string | null; onReplay: (id: string) => void }) {
  const { t } = useTranslation();
  if (recent.length === 0) return <p className="muted">{t('mia.noneYet')}</p>;
  return (
    <table className="table compact">
      <thead>
        <tr>
          <th>{t('catan.records.ended')}</th>
          <th>{t('ost.room')}</th>
          <th>ONE</th>
          <th>TWO</th>
          <th className="num">{t('ost.turn')}</th>
          <th>{t('matches.result')}</th>
          <th>{t('ost.causes')}</th>
          <th title={t('ost.partsTitle')}>{t('ost.parts')}</th>
          <th>{t('mia.record')}</th>
        </tr>
      </thead>
      <tbody>
        {recent.map((r) => (
          <tr key={r.roomId} data-testid="ost-result-row" data-room-id={r.roomId} className={r.matchId !== null && r.matchId === replayId ? 'selected' : undefined}>
            <td className="mono">{formatTime(r.endedAt)}</td>
            <td>
              <code title={r.roomId}>{shortId(r.roomId)}</code>
            </td>
            <td>{r.scores[0]?.name || 'ONE'}</td>
            <td>{r.scores[1]?.name || 'TWO'}</td>
            <td className="num">{r.turn}</td>
            <td data-testid="ost-result-text">{resultText(r.scores, r.winner, t)}</td>
            <td data-testid="ost-result-causes">{causesText(r.scores)}</td>
            <td className="mono">{partsText(r.scores)}</td>
            <td>
              {r.matchId ? (
                <>
                  <button type="button" className="link-button" onClick={() => onReplay(r.matchId as string)} data-testid="ost-replay-button">
                    {t('ost.replay')}
                  </button>{' '}
                  · <a href={href.match(r.matchId)}>{t('dame.watch.wireLog')}</a>
                </>
              ) : (
                '–'
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Connect({ port }: { port: number }) {
  const { t } = useTranslation();
  const host = window.location.hostname || '127.0.0.1';
  return (
    <>
      <h3>{t('ost.connect')}</h3>
      <Command args={`bot ostseeschach -h ${host} -p ${port}`} className="ost-command" testId="ost-command" />
      <pre className="ost-command">{`java -jar defaultplayer.jar -h ${host} -p ${port}`}</pre>
      <p className="muted">
        <Trans i18nKey="ost.joinNote" values={{ join: '<join/>' }} components={{ code: <code /> }} />
      </p>
    </>
  );
}
