import type { TFunction } from 'i18next';
import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { DameGameRow, DameSeatRow, DameSnapshot } from '../../../../src/games/dame/snapshot.js';
import type { DameBrowserPlayer } from '../../../../src/games/dame/web-views.js';
import { postJson } from '../../api.js';
import { formatDuration } from '../../format.js';
import { href } from '../../router.js';
import { GameId, JoinCommands } from './GameId.js';
import { dameReason } from '../../matchResult.js';

/** The games of the Dame server (live from the spectator snapshot) and the form that creates one. */

/** The message keys of White and Black, by seat. */
export const SIDE = ['dame.white', 'dame.black'] as const;

/** `client`, `engine`, `open`, or `human` for a client that is a person in this dashboard (with their name). */
export function seatKindOf(row: DameGameRow, seat: DameSeatRow, players: readonly DameBrowserPlayer[]): { kind: string; name: string | null } {
  const human = players.find((p) => p.gameId === row.id && p.seat === seat.seat);
  return human && seat.kind === 'client' ? { kind: 'human', name: human.name } : { kind: seat.kind, name: null };
}

export function seatKind(row: DameGameRow, seat: DameSeatRow, players: readonly DameBrowserPlayer[], t: TFunction): string {
  const { kind, name } = seatKindOf(row, seat, players);
  return name === null ? t(`dame.kind.${kind}`) : t('dame.kind.humanNamed', { name });
}

export function resultText(row: DameGameRow, t: TFunction): string {
  if (!row.result) return '';
  const { winner, reason: code } = row.result;
  const reason = dameReason(code, t);
  if (winner === null) return code === 'repetition' || code === 'fifty-moves' ? t('dame.draw', { reason }) : t('dame.aborted', { reason });
  return t('dame.won', { side: t(SIDE[winner]), reason });
}

export function turnText(row: DameGameRow, t: TFunction): string {
  if (row.status !== 'running' || row.toMove === null) return '–';
  return row.mustContinue ? t('dame.followUp', { side: t(SIDE[row.toMove]) }) : t(SIDE[row.toMove]);
}

const freeSeats = (row: DameGameRow): (0 | 1)[] => row.seats.filter((s) => s.kind === 'open').map((s) => s.seat);

function SeatCell({ row, seat, players }: { row: DameGameRow; seat: DameSeatRow; players: readonly DameBrowserPlayer[] }) {
  const { t } = useTranslation();
  return (
    <td data-testid={`dame-seat-${row.id}-${seat.seat}`} data-kind={seatKindOf(row, seat, players).kind}>
      <span className={`dame-dot ${seat.connected ? 'dame-dot-on' : 'dame-dot-off'}`} title={seat.connected ? t('dame.connected') : t('dame.notConnected')} />{' '}
      {seat.name} <span className={`badge dame-kind-${seat.kind}`}>{seatKind(row, seat, players, t)}</span>
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
  const { t } = useTranslation();
  const rows = snapshot ? [...snapshot.games, ...snapshot.recent] : [];
  return (
    <>
      <NewGame port={snapshot?.port ?? 1357} />
      <div className="panel">
        <h2>
          {t('dame.tab.games')}{' '}
          <span className="muted">{t('dame.gamesCount', { open: snapshot?.games.length ?? 0, played: snapshot?.gamesPlayed ?? 0 })}</span>
        </h2>
        {rows.length === 0 ? (
          <p className="muted">{t('dame.noGames')}</p>
        ) : (
          <table className="table compact dame-games">
            <thead>
              <tr>
                <th>{t('dame.id')}</th>
                <th>{t('match.name')}</th>
                <th className="num">{t('dame.moveTime')}</th>
                <th>{t('dame.white')}</th>
                <th>{t('dame.black')}</th>
                <th>{t('matches.status')}</th>
                <th>{t('dame.toMove')}</th>
                <th>{t('matches.result')}</th>
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
                    <span className={`badge dame-status-${row.status}`}>{t(`dame.status.${row.status}`)}</span>
                    {row.status !== 'waiting' && <span className="muted"> {t('result.plies', { count: row.plies })}</span>}
                  </td>
                  <td>{turnText(row, t)}</td>
                  <td>
                    {resultText(row, t)}
                    {row.matchId && row.status === 'over' && (
                      <>
                        {' '}
                        <a href={href.match(row.matchId)}>{t('dame.record')}</a>
                      </>
                    )}
                  </td>
                  <td className="dame-actions">
                    {row.status !== 'waiting' && (
                      <button type="button" onClick={() => onWatch(row.id)} data-testid={`dame-watch-${row.id}`}>
                        {t('catan.tab.watch')}
                      </button>
                    )}
                    {row.status === 'waiting' &&
                      freeSeats(row).map((seat) => (
                        <button key={seat} type="button" onClick={() => onPlay(row.id, seat)} data-testid={`dame-take-${row.id}-${seat}`}>
                          {t('dame.playSide', { side: t(SIDE[seat]) })}
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
  const { t } = useTranslation();
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
        <h2>{t('dame.new.title')}</h2>
        <div className="form-row">
          <label>
            {t('match.name')}{' '}
            <input value={name} onChange={(e) => setName(e.target.value)} placeholder={t('dame.new.namePlaceholder')} maxLength={100} data-testid="dame-new-name" />
          </label>
          <label>
            {t('dame.new.moveTime')}{' '}
            <input type="number" min={1} step={100} value={moveTime} onChange={(e) => setMoveTime(e.target.value)} className="dame-ms" data-testid="dame-new-movetime" /> ms
          </label>
          <label>
            {t('dame.new.engine')}{' '}
            <select value={engine} onChange={(e) => setEngine(e.target.value as 'none' | '0' | '1')} data-testid="dame-new-engine">
              <option value="none">{t('dame.new.none')}</option>
              <option value="0">{t('dame.white')}</option>
              <option value="1">{t('dame.black')}</option>
            </select>
          </label>
          <button type="button" onClick={() => void create()} disabled={busy} data-testid="dame-create">
            {t('dame.new.create')}
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
              <Trans i18nKey="dame.new.created" values={{ name: created.name }} components={{ b: <strong /> }} />
            </p>
            <p className="dame-big-id">
              <GameId id={created.id} testId="dame-new-id" />
            </p>
            <JoinCommands id={created.id} seats={freeSeats(created)} port={port} />
          </div>
        )}
      </div>
      <div className="panel">
        <h2>{t('dame.how.title')}</h2>
        <p>
          <Trans i18nKey="dame.how.start" components={{ code: <code /> }} />
        </p>
        <p>
          <Trans i18nKey="dame.how.engine" components={{ em: <em /> }} />
        </p>
      </div>
    </div>
  );
}
