import type { DameGameRow, DameSnapshot } from '../../../../src/games/dame/snapshot.js';
import type { DameBrowserPlayer } from '../../../../src/games/dame/web-views.js';
import { formatTime } from '../../format.js';
import { href } from '../../router.js';
import { Board } from './Board.js';
import { resultText, seatKind, turnText } from './GamesTab.js';

/** A live board of any game on the server, and the latest finished games with their records. */
export function WatchTab({
  snapshot,
  players,
  chosen,
  onChoose,
}: {
  snapshot: DameSnapshot | null;
  players: readonly DameBrowserPlayer[];
  chosen: string | null;
  onChoose: (id: string) => void;
}) {
  const live = snapshot?.games ?? [];
  const recent = snapshot?.recent ?? [];
  const shown =
    [...live, ...recent].find((g) => g.id === chosen) ?? live.find((g) => g.status === 'running') ?? live[0] ?? recent[0];
  return (
    <>
      <div className="columns">
        <div className="panel">
          {shown ? <Watched row={shown} players={players} /> : <p className="muted">No games yet.</p>}
        </div>
        <div className="panel">
          <h2>Games</h2>
          {live.length === 0 ? (
            <p className="muted">No game is open or running.</p>
          ) : (
            <table className="table compact">
              <tbody>
                {live.map((g) => (
                  <tr
                    key={g.id}
                    onClick={() => onChoose(g.id)}
                    className={g.id === shown?.id ? 'selected dame-pick' : 'dame-pick'}
                    data-testid={`dame-watch-game-${g.id}`}
                  >
                    <td>
                      <code>{g.id}</code>
                    </td>
                    <td>{g.name}</td>
                    <td>{g.status}</td>
                    <td className="num">{g.plies} plies</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </div>
      <div className="panel">
        <h2>Recently finished</h2>
        {recent.length === 0 ? (
          <p className="muted">None yet.</p>
        ) : (
          <table className="table compact">
            <thead>
              <tr>
                <th>Ended</th>
                <th>Id</th>
                <th>Name</th>
                <th>White</th>
                <th>Black</th>
                <th className="num">Plies</th>
                <th>Result</th>
                <th>Record</th>
              </tr>
            </thead>
            <tbody>
              {recent.map((g) => (
                <tr key={g.id} data-testid="dame-recent-row" data-game-id={g.id} className={g.id === shown?.id ? 'selected' : undefined}>
                  <td className="mono">{g.endedAt === null ? '–' : formatTime(g.endedAt)}</td>
                  <td>
                    <button type="button" className="link-button" onClick={() => onChoose(g.id)}>
                      <code>{g.id}</code>
                    </button>
                  </td>
                  <td>{g.name}</td>
                  <td>{seatKind(g, g.seats[0], players)}</td>
                  <td>{seatKind(g, g.seats[1], players)}</td>
                  <td className="num">{g.plies}</td>
                  <td data-testid="dame-recent-result">{resultText(g)}</td>
                  <td>
                    {g.matchId ? (
                      <a href={href.match(g.matchId)} data-testid="dame-recent-link">
                        wire log
                      </a>
                    ) : (
                      '–'
                    )}
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

function Watched({ row, players }: { row: DameGameRow; players: readonly DameBrowserPlayer[] }) {
  return (
    <div data-testid="dame-watch" data-game-id={row.id}>
      <h2>
        {row.name} <code className="muted">{row.id}</code>
      </h2>
      <p className="dame-versus">
        <span className="dame-chip dame-chip-white" /> {seatKind(row, row.seats[0], players)} vs <span className="dame-chip dame-chip-black" />{' '}
        {seatKind(row, row.seats[1], players)}
      </p>
      <Board rows={row.board} lastMove={row.lastMove} testId="dame-watch-board" />
      <dl className="facts">
        <dt>Status</dt>
        <dd data-testid="dame-watch-status">{row.status === 'over' ? resultText(row) : row.status}</dd>
        <dt>Plies</dt>
        <dd data-testid="dame-watch-plies">{row.plies}</dd>
        <dt>Last move</dt>
        <dd data-testid="dame-watch-last">{row.lastMove ?? '–'}</dd>
        <dt>To move</dt>
        <dd data-testid="dame-watch-tomove">{turnText(row)}</dd>
        {row.matchId && (
          <>
            <dt>Record</dt>
            <dd>
              <a href={href.match(row.matchId)} {...(row.status === 'over' ? {} : { target: '_blank', rel: 'noopener' })}>
                {row.status === 'over' ? 'the wire log of each connection' : 'so far (new tab)'}
              </a>
            </dd>
          </>
        )}
      </dl>
      <p className="muted">Seen from White&apos;s side: White starts on ranks 1–3 and moves up.</p>
    </div>
  );
}
