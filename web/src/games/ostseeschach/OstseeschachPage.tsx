import { useState } from 'react';
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
        <h1>Ostseeschach (Software-Challenge 2022)</h1>
        <ConnectionBadge state={live.state} retryInMs={live.retryInMs} />
        {s && (
          <span className="muted">
            XML over TCP port <code data-testid="ost-port">{s.port}</code> · connections: {s.connections} · games played:{' '}
            <span data-testid="ost-games-played">{s.gamesPlayed}</span>
          </span>
        )}
      </header>
      {live.state === 'unknown-game' && <p className="error">This server does not run Ostseeschach.</p>}
      <div className="columns">
        <div className="panel">
          {shown ? <LiveRoom row={shown} closed={closed} following={chosen === null} /> : <p className="muted">No room is open. House games start a new one every few seconds.</p>}
        </div>
        <div className="panel">
          <div className="panel-header">
            <h2>Rooms</h2>
            {chosen !== null && (
              <button type="button" className="link-button" onClick={() => setChosen(null)}>
                follow the running game
              </button>
            )}
          </div>
          <RoomsTable rooms={rooms} shown={shown?.roomId ?? null} onChoose={setChosen} />
          {s && <Connect port={s.port} />}
        </div>
      </div>
      <div className="panel">
        <h2>Finished games</h2>
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
  if (rooms.length === 0) return <p className="muted">No room is open.</p>;
  return (
    <table className="table compact">
      <thead>
        <tr>
          <th>Room</th>
          <th>Players</th>
          <th>State</th>
          <th className="num">Turn</th>
          <th>To move</th>
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
              {r.prepared && <span className="muted"> prepared</span>}
            </td>
            <td>
              <span className="ost-dot ost-dot-one" /> {seatText(r.seats[0], 'ONE')}
              <br />
              <span className="ost-dot ost-dot-two" /> {seatText(r.seats[1], 'TWO')}
            </td>
            <td>
              <span className={`badge ost-status-${r.status}`}>{r.status}</span>
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
  // A closed room's final board comes with its result: the last memento may not have been drawn.
  const b = closed?.board ?? row.board;
  const over = closed !== null || row.status === 'over';
  return (
    <div data-testid="ost-live" data-room-id={row.roomId} data-over={over}>
      <div className="panel-header">
        <h2>
          Room <code title={row.roomId}>{shortId(row.roomId)}</code>
        </h2>
        <span className={`badge ost-status-${over ? 'over' : row.status}`} data-testid="ost-live-status">
          {over ? 'over' : row.status}
        </span>
        {following && !over && <span className="muted">following the running game</span>}
      </div>
      <p className="ost-versus">
        <span className="ost-dot ost-dot-one" /> {seatText(row.seats[0], 'ONE')} vs <span className="ost-dot ost-dot-two" /> {seatText(row.seats[1], 'TWO')}
      </p>
      <div className="ost-live">
        <Board board={b} testId="ost-live-board" />
        <dl className="facts ost-side">
          <dt>Turn</dt>
          <dd data-testid="ost-live-turn">{b.turn}</dd>
          <dt>Round</dt>
          <dd>{b.round} of 30</dd>
          <dt>To move</dt>
          <dd data-testid="ost-live-tomove">{over ? '–' : (row.awaiting ?? `${b.toMove} (not requested)`)}</dd>
          <dt>Ambers</dt>
          <dd data-testid="ost-live-ambers">
            {b.ambers.ONE} : {b.ambers.TWO}
          </dd>
          <dt>Last move</dt>
          <dd className="mono">{moveKey(b.lastMove) || '–'}</dd>
          <dt>Layout</dt>
          <dd className="mono">{row.layout}</dd>
          <dt>Observers</dt>
          <dd>{row.observers}</dd>
          {closed && (
            <>
              <dt>Result</dt>
              <dd data-testid="ost-live-result">{resultText(closed.scores, closed.winner)}</dd>
              <dt>Causes</dt>
              <dd>{causesText(closed.scores)}</dd>
            </>
          )}
          {row.matchId && (
            <>
              <dt>Record</dt>
              <dd>
                <a href={href.match(row.matchId)} {...(over ? {} : { target: '_blank', rel: 'noopener' })}>
                  {over ? 'the wire log of each connection' : 'so far (new tab)'}
                </a>
              </dd>
            </>
          )}
        </dl>
      </div>
      <p className="muted">
        Red (ONE) starts on the left line (x = 0), blue (TWO) on the right (x = 7). H Herzmuschel, M Möwe, S Seestern, R Robbe; a
        small number is a tower.
      </p>
    </div>
  );
}

function ResultsTable({ recent, replayId, onReplay }: { recent: readonly OstseeschachResultRow[]; replayId: string | null; onReplay: (id: string) => void }) {
  if (recent.length === 0) return <p className="muted">None yet.</p>;
  return (
    <table className="table compact">
      <thead>
        <tr>
          <th>Ended</th>
          <th>Room</th>
          <th>ONE</th>
          <th>TWO</th>
          <th className="num">Turn</th>
          <th>Result</th>
          <th>Causes</th>
          <th>Parts</th>
          <th>Record</th>
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
            <td data-testid="ost-result-text">{resultText(r.scores, r.winner)}</td>
            <td data-testid="ost-result-causes">{causesText(r.scores)}</td>
            <td className="mono">{partsText(r.scores)}</td>
            <td>
              {r.matchId ? (
                <>
                  <button type="button" className="link-button" onClick={() => onReplay(r.matchId as string)} data-testid="ost-replay-button">
                    replay
                  </button>{' '}
                  · <a href={href.match(r.matchId)}>wire log</a>
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
  const host = window.location.hostname || '127.0.0.1';
  return (
    <>
      <h3>Connect a client</h3>
      <Command args={`bot ostseeschach -h ${host} -p ${port}`} className="ost-command" testId="ost-command" />
      <pre className="ost-command">{`java -jar defaultplayer.jar -h ${host} -p ${port}`}</pre>
      <p className="muted">
        Without a reservation a client joins with <code>&lt;join/&gt;</code> and plays whoever joins next; a contest runner prepares rooms as
        administrator and hands out reservation codes (<code>-r</code>).
      </p>
    </>
  );
}
