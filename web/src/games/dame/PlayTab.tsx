import type { TFunction } from 'i18next';
import { useEffect, useRef, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { DameGameRow, DameSnapshot } from '../../../../src/games/dame/snapshot.js';
import type { DamePlayResult, DamePlayState } from '../../../../src/games/dame/web-views.js';
import { postJson } from '../../api.js';
import { href } from '../../router.js';
import { Board } from './Board.js';
import { GameId, JoinCommands } from './GameId.js';
import { SIDE } from './GamesTab.js';
import { useCountdown, type PlayLine, type PlaySeat, type usePlay } from './usePlay.js';

/**
 * A person takes a seat: against our engine, against a network client, or in any game by id. The
 * seat is a protocol client on the server (see web.ts), so the person has the game's move time per
 * single move and loses on a timeout or by leaving, like any client.
 */

type Play = ReturnType<typeof usePlay>;

const MOVE_TIMES = [10, 30, 60, 120, 300] as const;
const other = (seat: 0 | 1): 0 | 1 => (seat === 0 ? 1 : 0);

export function PlayTab({ play, snapshot, target }: { play: Play; snapshot: DameSnapshot | null; target: { id: string; seat: 0 | 1 } | null }) {
  if (play.seat) return <Playing seat={play.seat} play={play} port={snapshot?.port ?? 1357} />;
  return <Choose play={play} snapshot={snapshot} target={target} />;
}

function Choose({ play, snapshot, target }: { play: Play; snapshot: DameSnapshot | null; target: { id: string; seat: 0 | 1 } | null }) {
  const { t } = useTranslation();
  const [name, setName] = useState('guest');
  const [colour, setColour] = useState<0 | 1>(0);
  const [seconds, setSeconds] = useState<number>(60);
  const [joinId, setJoinId] = useState(target?.id ?? '');
  const [joinSeat, setJoinSeat] = useState<0 | 1>(target?.seat ?? 0);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const open = (snapshot?.games ?? []).filter((g) => g.status === 'waiting' && g.seats.some((s) => s.kind === 'open'));

  const createAndJoin = async (engine: boolean) => {
    setBusy(true);
    setError(null);
    try {
      const row = await postJson<DameGameRow>('/api/dame/games', {
        name: engine ? t('dame.play.vsEngine', { name }) : t('dame.play.vsClient', { name }),
        moveTimeMs: seconds * 1000,
        engineSeat: engine ? other(colour) : null,
      });
      play.join(row.id, colour, name);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="columns">
      <div className="panel">
        <h2>{t('dame.play.title')}</h2>
        <div className="form-row">
          <label>
            {t('catan.seat.yourName')} <input value={name} onChange={(e) => setName(e.target.value)} maxLength={32} data-testid="dame-play-name" />
          </label>
          <label>
            {t('catan.seat.yourColour')}{' '}
            <select value={colour} onChange={(e) => setColour(e.target.value === '1' ? 1 : 0)} data-testid="dame-play-colour">
              <option value={0}>{t('dame.play.whiteFirst')}</option>
              <option value={1}>{t('dame.black')}</option>
            </select>
          </label>
          <label>
            {t('dame.play.timePerMove')}{' '}
            <select value={seconds} onChange={(e) => setSeconds(Number(e.target.value))} data-testid="dame-play-movetime">
              {MOVE_TIMES.map((s) => (
                <option key={s} value={s}>
                  {s} s
                </option>
              ))}
            </select>
          </label>
        </div>
        <div className="form-row">
          <button type="button" disabled={busy} onClick={() => void createAndJoin(true)} data-testid="dame-play-engine">
            {t('dame.play.vsEngineButton')}
          </button>
          <button type="button" disabled={busy} onClick={() => void createAndJoin(false)} data-testid="dame-play-client">
            {t('dame.play.vsClientButton')}
          </button>
        </div>
        <p className="muted">
          <Trans i18nKey="dame.play.timeNote" components={{ code: <code /> }} />
        </p>
        {error && (
          <p className="error" role="alert" data-testid="dame-play-error">
            {error}
          </p>
        )}
      </div>
      <div className="panel">
        <h2>{t('dame.play.joinTitle')}</h2>
        <div className="form-row">
          <label>
            {t('dame.play.gameId')} <input value={joinId} onChange={(e) => setJoinId(e.target.value.trim())} maxLength={13} className="mono" data-testid="dame-join-id" />
          </label>
          <label>
            {t('match.seat')}{' '}
            <select value={joinSeat} onChange={(e) => setJoinSeat(e.target.value === '1' ? 1 : 0)} data-testid="dame-join-seat">
              <option value={0}>{t('dame.white')}</option>
              <option value={1}>{t('dame.black')}</option>
            </select>
          </label>
          <button type="button" disabled={!/^[0-9A-Za-z]{13}$/.test(joinId)} onClick={() => play.join(joinId, joinSeat, name)} data-testid="dame-join">
            {t('dame.play.takeSeat')}
          </button>
        </div>
        <h3>{t('dame.play.freeSeat')}</h3>
        {open.length === 0 ? (
          <p className="muted">{t('dame.play.none')}</p>
        ) : (
          <ul className="plain">
            {open.map((g) => (
              <li key={g.id}>
                <code>{g.id}</code> {g.name}{' '}
                {g.seats
                  .filter((s) => s.kind === 'open')
                  .map((s) => (
                    <button key={s.seat} type="button" onClick={() => play.join(g.id, s.seat, name)} data-testid={`dame-join-${g.id}-${s.seat}`}>
                      {t(SIDE[s.seat])}
                    </button>
                  ))}
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}

const REASONS = new Set(['no-pieces', 'no-moves', 'repetition', 'fifty-moves', 'timeout', 'disconnect']);

function outcomeText(result: DamePlayResult, t: TFunction): string {
  const why =
    result.reason === null ? '' : ` (${REASONS.has(result.reason) ? t(`dame.reason.${result.reason}`) : result.reason})`;
  switch (result.outcome) {
    case 'won':
      return t('dame.play.youWin', { why });
    case 'lost':
      return t('dame.play.youLose', { why });
    case 'draw':
      return t('dame.play.draw', { why });
    case 'error':
      return t('dame.play.error', { error: result.error ?? t('dame.play.unknownError') });
  }
}

function statusText(state: DamePlayState | null, t: TFunction): string {
  if (!state || state.phase === 'connecting') return t('dame.play.connecting');
  const you = state.seat === null ? '' : t(SIDE[state.seat]);
  switch (state.phase) {
    case 'waiting':
      return t('dame.play.waiting', { you });
    case 'their-turn':
      return t('dame.play.theirTurn', { you });
    case 'your-turn':
      return state.followUp ? t('dame.play.followUp') : t('dame.play.yourTurn', { you });
    case 'over':
      return state.result ? outcomeText(state.result, t) : t('catan.play.isOver');
  }
}

function Playing({ seat, play, port }: { seat: PlaySeat; play: Play; port: number }) {
  const { t } = useTranslation();
  const [showWaits, setShowWaits] = useState(false);
  const state = seat.state;
  const remaining = useCountdown(state, seat.receivedAt);
  const yourTurn = state?.phase === 'your-turn';
  const over = state?.phase === 'over' || seat.closed !== null;
  const lines = showWaits ? seat.lines : seat.lines.filter((l) => l.line !== '+ WAIT' && l.line !== 'OKWAIT');
  const waitingFor = state?.phase === 'waiting' && state.seat !== null && state.opponent?.kind === 'open' ? other(state.seat) : null;
  return (
    <div className="columns">
      <div className="panel">
        <h2>
          {state?.gameName ?? t('dame.play.game')} <GameId id={seat.gameId} testId="dame-play-id" />
        </h2>
        <p data-testid="dame-play-status" data-phase={state?.phase ?? 'connecting'} data-turn={state?.turn ?? 0} className={yourTurn ? 'dame-your-turn' : undefined}>
          {state?.result ? (
            <strong data-testid="dame-play-result" data-outcome={state.result.outcome}>
              {statusText(state, t)}
            </strong>
          ) : (
            statusText(state, t)
          )}
          {!state?.result && seat.closed !== null && <span className="error"> {t('dame.play.closed', { why: seat.closed })}</span>}
        </p>
        {remaining !== null && (
          <p className={remaining < 5000 ? 'dame-countdown dame-countdown-low' : 'dame-countdown'} data-testid="dame-countdown">
            {t('dame.play.left', { seconds: (remaining / 1000).toFixed(1) })}{' '}
            <span className="muted">{t('dame.play.of', { seconds: ((state?.moveTimeMs ?? 0) / 1000).toFixed(0) })}</span>
          </p>
        )}
        <Board rows={state?.board ?? []} lastMove={state?.lastMove ?? null} legal={yourTurn ? state.legal : []} onMove={play.move} testId="dame-play-board" />
        {yourTurn && (
          <p className="muted" data-testid="dame-legal">
            {t('dame.play.legal', {
              moves: state.legal
                .map((m) => `${m.from}–${m.to}${m.captured ? ` ×${m.captured}` : ''}${m.promotes ? ` ${t('dame.play.king')}` : ''}`)
                .join(', '),
            })}
          </p>
        )}
        {seat.notices.map((n) => (
          <p key={n.n} className={n.kind === 'notice' ? 'muted' : 'error'} data-testid={n.kind === 'error-line' ? 'dame-play-error-line' : 'dame-play-notice'}>
            {n.kind === 'error-line' ? <code>{n.text}</code> : n.text}
          </p>
        ))}
        <div className="form-row">
          {!over ? (
            <button type="button" onClick={play.leave} data-testid="dame-leave" title={t('dame.play.leaveTitle')}>
              {t('dame.play.leave')}
            </button>
          ) : (
            <button type="button" onClick={play.reset} data-testid="dame-play-again">
              {t('dame.play.another')}
            </button>
          )}
          {state?.matchId && (
            // While the game runs the record opens in a new tab: leaving this page would close the seat.
            <a href={href.match(state.matchId)} data-testid="dame-play-match" {...(over ? {} : { target: '_blank', rel: 'noopener' })}>
              {over ? t('dame.play.record') : t('dame.play.recordSoFar')}
            </a>
          )}
        </div>
        {!over && <p className="muted">{t('dame.play.leavingNote')}</p>}
      </div>
      <div className="stack">
        {waitingFor !== null && (
          <div className="panel">
            <h2>{t('dame.play.waitingClient')}</h2>
            <p>{t('dame.play.studentTakes', { side: t(SIDE[waitingFor]) })}</p>
            <JoinCommands id={seat.gameId} seats={[waitingFor]} port={port} />
          </div>
        )}
        <div className="panel">
          <h2>{t('dame.play.game')}</h2>
          <dl className="facts">
            <dt>{t('dame.play.you')}</dt>
            <dd>{state?.seat === null || state === null ? '–' : `${t(SIDE[state.seat])} (${state.name})`}</dd>
            <dt>{t('dame.play.opponent')}</dt>
            <dd data-testid="dame-play-opponent">
              {state?.opponent
                ? `${t(`dame.kind.${state.opponent.kind}`)}${state.opponent.address && state.opponent.address !== 'engine' ? ` ${state.opponent.address}` : ''}`
                : '–'}
            </dd>
            <dt>{t('dame.plies')}</dt>
            <dd data-testid="dame-play-plies">{state?.plies ?? 0}</dd>
            <dt>{t('dame.lastMove')}</dt>
            <dd>{state?.lastMove ?? '–'}</dd>
          </dl>
        </div>
        <div className="panel">
          <header className="panel-header">
            <h2>{t('dame.play.lines')}</h2>
            <label className="muted">
              <input type="checkbox" checked={showWaits} onChange={(e) => setShowWaits(e.target.checked)} /> WAIT/OKWAIT
            </label>
          </header>
          <LineLog lines={lines.slice(-120)} />
        </div>
      </div>
    </div>
  );
}

/** The latest lines, kept scrolled to the end unless the reader scrolled up. */
function LineLog({ lines }: { lines: readonly PlayLine[] }) {
  const ref = useRef<HTMLUListElement | null>(null);
  const stick = useRef(true);
  /** Where we scrolled to last: scroll events arrive late, after more lines may have grown the list. */
  const autoTop = useRef(0);
  const lastLine = lines.at(-1)?.n ?? 0;
  useEffect(() => {
    const el = ref.current;
    if (!el || !stick.current) return;
    el.scrollTop = el.scrollHeight;
    autoTop.current = el.scrollTop;
  }, [lastLine]);
  return (
    <ul
      ref={ref}
      className="line-log dame-lines"
      data-testid="dame-play-lines"
      onScroll={(e) => {
        const el = e.currentTarget;
        // Only the reader scrolling up stops the following; scrolling back down resumes it.
        if (el.scrollTop < autoTop.current - 2) stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
        else stick.current = true;
      }}
    >
      {lines.map((l) => (
        <li key={l.n} className={`dame-line-${l.dir}`}>
          {l.dir === 'in' ? 'S: ' : 'C: '}
          {l.line}
        </li>
      ))}
    </ul>
  );
}
