import { useMemo } from 'react';
import type { CatanMatchRow, CatanSnapshot } from '../../../../src/games/catan/snapshot.js';
import type { Colour } from '../../../../src/games/catan/rules/types.js';
import { formatDuration } from '../../format.js';
import { Board } from './Board.js';
import { cardsText } from './describe.js';
import { ColourChip, GameLog, PlayersTable, namesOf } from './Players.js';
import { useTranslation } from 'react-i18next';

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
  const { t } = useTranslation();
  const matches = snapshot?.matches ?? [];
  const shown = matches.find((m) => m.id === chosen) ?? matches[0] ?? null;
  return (
    <>
      <div className="panel">
        <h2>
          {t('catan.watch.running')} <span className="muted">({matches.length})</span>
        </h2>
        {matches.length === 0 ? (
          <p className="muted">{t('catan.watch.none')}</p>
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
                  {t('catan.game', { number: m.number })}:{' '}
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
  const { t } = useTranslation();
  const colours = useMemo(
    () => new Map<number, Colour>(row.players.map((p) => [p.id, p.colour])),
    [row.players],
  );
  const nameOf = useMemo(() => namesOf(row.players), [row.players]);
  return (
    <div className="catan-layout" data-testid="catan-watch" data-match={row.id}>
      <div className="panel catan-board-panel">
        <div className="panel-header">
          <h2>{t('catan.game', { number: row.number })}</h2>
          <span className="muted">
            {t('catan.watch.turn')} <span data-testid="catan-watch-turn">{row.turnNumber}</span> ·{' '}
            {t(`catan.phase.${row.phase}`)}
            {row.dice && ` · ${t('catan.watch.rolled', { a: row.dice[0], b: row.dice[1] })}`} ·{' '}
            {t('catan.watch.bank', { cards: row.bankCards, deck: row.deckCards })} ·{' '}
            {t('catan.watch.runningFor', { time: formatDuration(Date.now() - row.startedAt) })}
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
          <h2>{t('matches.players')}</h2>
          <PlayersTable
            players={row.players}
            active={row.turn}
            longestRoad={row.longestRoad}
            largestArmy={row.largestArmy}
            testId="catan-watch-players"
          />
          {row.trades.length > 0 && (
            <>
              <h3>{t('catan.watch.openOffers')}</h3>
              <ul className="plain">
                {row.trades.map((trade) => (
                  <li key={trade.id}>
                    {t('catan.watch.offer', {
                      who: nameOf(trade.player),
                      offer: cardsText(trade.offer, t),
                      request: cardsText(trade.request, t),
                    })}
                    {trade.acceptedBy.length > 0 &&
                      ` ${t('catan.watch.acceptedBy', { names: trade.acceptedBy.map(nameOf).join(', ') })}`}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
        <div className="panel">
          <h2>{t('catan.log.title')}</h2>
          <GameLog lines={row.lines} nameOf={nameOf} testId="catan-watch-log" newestFirst />
        </div>
      </div>
    </div>
  );
}
