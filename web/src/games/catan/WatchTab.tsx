import { useMemo } from 'react';
import type { CatanMatchRow, CatanSnapshot } from '../../../../src/games/catan/snapshot.js';
import type { Colour } from '../../../../src/games/catan/rules/types.js';
import { formatDuration } from '../../format.js';
import { Board } from './Board.js';
import { ColourChip, GameLog, PlayersTable, namesOf } from './Players.js';

/** The running games as a spectator sees them: the board, everyone's public counts, the latest lines. */

export function WatchTab({
  snapshot,
  chosen,
  onChoose,
}: {
  snapshot: CatanSnapshot | null;
  chosen: string | null;
  onChoose: (id: string) => void;
}) {
  const matches = snapshot?.matches ?? [];
  const shown = matches.find((m) => m.id === chosen) ?? matches[0] ?? null;
  return (
    <>
      <div className="panel">
        <h2>
          Running games <span className="muted">({matches.length})</span>
        </h2>
        {matches.length === 0 ? (
          <p className="muted">No game is running. Start one on the Lobby tab, or play one yourself.</p>
        ) : (
          <ul className="chips">
            {matches.map((m) => (
              <li key={m.id} className={m.id === shown?.id ? 'catan-chosen' : undefined}>
                <button
                  type="button"
                  className="link-button"
                  data-testid={`catan-watch-${m.id}`}
                  onClick={() => onChoose(m.id)}
                >
                  Game {m.number}:{' '}
                  {m.players.map((p) => (
                    <span key={p.id}>
                      <ColourChip colour={p.colour} />
                      {p.name}{' '}
                    </span>
                  ))}
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
      {shown && <LiveMatch key={shown.id} row={shown} />}
    </>
  );
}

function LiveMatch({ row }: { row: CatanMatchRow }) {
  const colours = useMemo(
    () => new Map<number, Colour>(row.players.map((p) => [p.id, p.colour])),
    [row.players],
  );
  const nameOf = useMemo(() => namesOf(row.players), [row.players]);
  return (
    <div className="catan-layout" data-testid="catan-watch" data-match={row.id}>
      <div className="panel catan-board-panel">
        <div className="panel-header">
          <h2>Game {row.number}</h2>
          <span className="muted">
            turn <span data-testid="catan-watch-turn">{row.turnNumber}</span> · {row.phase}
            {row.dice && ` · rolled ${row.dice[0]} + ${row.dice[1]}`} · bank {row.bankCards} cards · deck{' '}
            {row.deckCards} · running {formatDuration(Date.now() - row.startedAt)}
          </span>
        </div>
        <Board
          fields={row.board.fields}
          harbours={row.board.harbours}
          robber={row.board.robber}
          buildings={row.buildings}
          colourOf={(id) => colours.get(id) ?? null}
          testId="catan-watch-board"
        />
      </div>
      <div className="stack">
        <div className="panel">
          <h2>Players</h2>
          <PlayersTable
            players={row.players}
            active={row.turn}
            longestRoad={row.longestRoad}
            largestArmy={row.largestArmy}
            testId="catan-watch-players"
          />
          {row.trades.length > 0 && (
            <>
              <h3>Open offers</h3>
              <ul className="plain">
                {row.trades.map((t) => (
                  <li key={t.id}>
                    {nameOf(t.player)} offers{' '}
                    {Object.entries(t.offer)
                      .map(([k, n]) => `${k} ${String(n)}`)
                      .join(', ')}{' '}
                    for{' '}
                    {Object.entries(t.request)
                      .map(([k, n]) => `${k} ${String(n)}`)
                      .join(', ')}
                    {t.acceptedBy.length > 0 && ` (accepted by ${t.acceptedBy.map(nameOf).join(', ')})`}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
        <div className="panel">
          <h2>Log</h2>
          <GameLog lines={row.lines} nameOf={nameOf} testId="catan-watch-log" newestFirst />
        </div>
      </div>
    </div>
  );
}
