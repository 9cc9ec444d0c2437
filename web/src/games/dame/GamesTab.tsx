import { useState } from 'react';
import type { DameGameRow, DameSeatRow, DameSnapshot } from '../../../../src/games/dame/snapshot.js';
import type { DameBrowserPlayer } from '../../../../src/games/dame/web-views.js';
import { postJson } from '../../api.js';
import { formatDuration } from '../../format.js';
import { href } from '../../router.js';
import { GameId, JoinCommands } from './GameId.js';

/** The games of the Dame server (live from the spectator snapshot) and the form that creates one. */

export const SIDE = ['White', 'Black'] as const;

/** `client`, `engine`, `open`, or `human` for a client that is a person in this dashboard. */
export function seatKind(row: DameGameRow, seat: DameSeatRow, players: readonly DameBrowserPlayer[]): string {
  const human = players.find((p) => p.gameId === row.id && p.seat === seat.seat);
  return human && seat.kind === 'client' ? `human (${human.name})` : seat.kind;
}

export function resultText(row: DameGameRow): string {
  if (!row.result) return '';
  const { winner, reason } = row.result;
  if (winner === null) return reason === 'repetition' || reason === 'fifty-moves' ? `draw (${reason})` : `aborted (${reason})`;
  return `${SIDE[winner]} won (${reason})`;
}

export function turnText(row: DameGameRow): string {
  if (row.status !== 'running' || row.toMove === null) return '–';
  return `${SIDE[row.toMove]}${row.mustContinue ? ' (follow-up)' : ''}`;
}

const freeSeats = (row: DameGameRow): (0 | 1)[] => row.seats.filter((s) => s.kind === 'open').map((s) => s.seat);

function SeatCell({ row, seat, players }: { row: DameGameRow; seat: DameSeatRow; players: readonly DameBrowserPlayer[] }) {
  const kind = seatKind(row, seat, players);
  return (
    <td data-testid={`dame-seat-${row.id}-${seat.seat}`} data-kind={kind.split(' ')[0]}>
      <span className={`dame-dot ${seat.connected ? 'dame-dot-on' : 'dame-dot-off'}`} title={seat.connected ? 'connected' : 'not connected'} />{' '}
      {seat.name} <span className={`badge dame-kind-${seat.kind}`}>{kind}</span>
      {seat.address && seat.address !== 'engine' && (
        <>
          {' '}
          <code className="muted">{seat.address}</code>
        </>
      )}
    </td>
  );
}

export function GamesTab({
  snapshot,
  players,
  onWatch,
  onPlay,
}: {
  snapshot: DameSnapshot | null;
  players: readonly DameBrowserPlayer[];
  onWatch: (id: string) => void;
  onPlay: (id: string, seat: 0 | 1) => void;
}) {
  const rows = snapshot ? [...snapshot.games, ...snapshot.recent] : [];
  return (
    <>
      <NewGame port={snapshot?.port ?? 1357} />
      <div className="panel">
        <h2>
          Games <span className="muted">({snapshot?.games.length ?? 0} open or running, {snapshot?.gamesPlayed ?? 0} played)</span>
        </h2>
        {rows.length === 0 ? (
          <p className="muted">No games yet. Create one above, or let a client send a new id.</p>
        ) : (
          <table className="table compact dame-games">
            <thead>
              <tr>
                <th>Id</th>
                <th>Name</th>
                <th className="num">Move</th>
                <th>White</th>
                <th>Black</th>
                <th>Status</th>
                <th>To move</th>
                <th>Result</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.id} data-testid="dame-game-row" data-game-id={row.id} data-status={row.status}>
                  <td>
                    <GameId id={row.id} />
                  </td>
                  <td>{row.name}</td>
                  <td className="num">{formatDuration(row.moveTimeMs)}</td>
                  <SeatCell row={row} seat={row.seats[0]} players={players} />
                  <SeatCell row={row} seat={row.seats[1]} players={players} />
                  <td>
                    <span className={`badge dame-status-${row.status}`}>{row.status}</span>
                    {row.status !== 'waiting' && <span className="muted"> {row.plies} plies</span>}
                  </td>
                  <td>{turnText(row)}</td>
                  <td>
                    {resultText(row)}
                    {row.matchId && row.status === 'over' && (
                      <>
                        {' '}
                        <a href={href.match(row.matchId)}>record</a>
                      </>
                    )}
                  </td>
                  <td className="dame-actions">
                    {row.status !== 'waiting' && (
                      <button type="button" onClick={() => onWatch(row.id)} data-testid={`dame-watch-${row.id}`}>
                        Watch
                      </button>
                    )}
                    {row.status === 'waiting' &&
                      freeSeats(row).map((seat) => (
                        <button key={seat} type="button" onClick={() => onPlay(row.id, seat)} data-testid={`dame-take-${row.id}-${seat}`}>
                          Play {SIDE[seat]}
                        </button>
                      ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </>
  );
}

function NewGame({ port }: { port: number }) {
  const [name, setName] = useState('');
  const [moveTime, setMoveTime] = useState('3000');
  const [engine, setEngine] = useState<'none' | '0' | '1'>('none');
  const [created, setCreated] = useState<DameGameRow | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const create = async () => {
    setBusy(true);
    setError(null);
    try {
      const body: Record<string, unknown> = { moveTimeMs: Number(moveTime), engineSeat: engine === 'none' ? null : Number(engine) };
      if (name.trim() !== '') body.name = name.trim();
      setCreated(await postJson<DameGameRow>('/api/dame/games', body));
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="columns">
      <div className="panel">
        <h2>New game</h2>
        <div className="form-row">
          <label>
            Name <input value={name} onChange={(e) => setName(e.target.value)} placeholder="Game from … (default)" maxLength={100} data-testid="dame-new-name" />
          </label>
          <label>
            Move time{' '}
            <input type="number" min={1} step={100} value={moveTime} onChange={(e) => setMoveTime(e.target.value)} className="dame-ms" data-testid="dame-new-movetime" /> ms
          </label>
          <label>
            Our engine plays{' '}
            <select value={engine} onChange={(e) => setEngine(e.target.value as 'none' | '0' | '1')} data-testid="dame-new-engine">
              <option value="none">none</option>
              <option value="0">White</option>
              <option value="1">Black</option>
            </select>
          </label>
          <button type="button" onClick={() => void create()} disabled={busy} data-testid="dame-create">
            Create game
          </button>
        </div>
        {error && (
          <p className="error" role="alert" data-testid="dame-new-error">
            {error}
          </p>
        )}
        {created && (
          <div className="dame-created" data-testid="dame-created">
            <p>
              Game <strong>{created.name}</strong> created: its id is
            </p>
            <p className="dame-big-id">
              <GameId id={created.id} testId="dame-new-id" />
            </p>
            <JoinCommands id={created.id} seats={freeSeats(created)} port={port} />
          </div>
        )}
      </div>
      <div className="panel">
        <h2>How games start</h2>
        <p>
          A game starts when both seats are taken. A client joins with the 13-character id (<code>ID …</code>) and
          takes a seat with <code>PLAYER 0</code> (White, moves first) or <code>PLAYER 1</code> (Black); the course
          client&apos;s <code>-p 1</code> and <code>-p 2</code> send exactly that.
        </p>
        <p>
          Our engine can take a seat; a person can take one on the <em>Play</em> tab. Every finished game has a
          record with the wire log of each connection.
        </p>
      </div>
    </div>
  );
}
