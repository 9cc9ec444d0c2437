import { useMemo, useState } from 'react';
import type { DevCard } from '../../../../src/games/catan/rules/types.js';
import type { CatanPlayState } from '../../../../src/games/catan/web-views.js';
import { href } from '../../router.js';
import { Actions } from './Actions.js';
import { Board, type SpotKind } from './Board.js';
import { RESOURCE_LIST, of, roadChoices, roadPair, robberMoves, spotsFor, type Mode } from './choices.js';
import { ColourChip, GameLog, PlayersTable, namesOf } from './Players.js';
import { Join, Lobby } from './SeatLobby.js';
import { Discard, OfferTrade, Offers, SeaTrade } from './Trade.js';
import type { Play, Seat } from './usePlay.js';
import { Trans, useTranslation } from 'react-i18next';

/**
 * A person plays: name and colour, a seat in the open lobby, ready, our AI for the empty seats,
 * then the game. The seat is a protocol 0.3 client on the server side (`/ws/catan/play`): the
 * page shows that client's view and offers only the legal actions it is sent; every `Fehler` the
 * server answers is shown.
 */

const ACTING = new Set([
  'Dorf bauen',
  'Strasse bauen',
  'Wuerfeln',
  'Karten wegen Raeuber abgeben',
  'Raeuber versetzen',
  'Handeln oder Bauen',
]);
const DEV: readonly DevCard[] = ['Ritter', 'Strassenbau', 'Monopol', 'Erfindung', 'Siegpunkt'];

export function PlayTab({ play }: { play: Play }) {
  if (!play.seat) return <Join play={play} />;
  return <SeatView seat={play.seat} play={play} />;
}

function SeatView({ seat, play }: { seat: Seat; play: Play }) {
  const { t } = useTranslation();
  const s = seat.state;
  const phase = s?.phase ?? 'connecting';
  const me = s?.view.players.find((p) => p.id === s.me) ?? null;
  const status = me?.status ?? '';
  const ready =
    phase === 'game' &&
    seat.pending === null &&
    s !== null &&
    !s.waiting &&
    s.legal !== null &&
    (ACTING.has(status) || s.legal.actions.length > 0);
  // A Fehler or notice stays up until the person's next command (the log keeps every Fehler).
  const fehler = seat.notices.filter((n) => n.kind === 'fehler');
  const notices = seat.notices.filter((n) => n.kind === 'notice' && n.n > seat.seenUpTo);
  const lastFehler = fehler.at(-1);
  const showFehler = lastFehler !== undefined && lastFehler.n > seat.seenUpTo ? lastFehler : null;
  return (
    <>
      <div className="panel catan-statusbar">
        <span
          data-testid="catan-play-status"
          data-phase={phase}
          data-status={status}
          data-ready={String(ready)}
          data-acting={String(ready && ACTING.has(status))}
          data-version={s?.version ?? 0}
          data-me={s?.me ?? ''}
          data-match={s?.matchId ?? ''}
        >
          <ColourChip colour={me?.colour ?? s?.colour ?? null} /> <strong>{me?.name ?? s?.name ?? ''}</strong>{' '}
          {phase === 'connecting' && t('connection.connecting')}
          {phase === 'lobby' && t('catan.play.inLobby')}
          {phase === 'game' &&
            (ready && ACTING.has(status) ? (
              <span className="catan-your-turn">{t('catan.play.yourMoveStatus', { status })}</span>
            ) : (
              <span className="muted">{status}</span>
            ))}
          {phase === 'over' && t('catan.play.gameOver')}
          {seat.pending !== null && <span className="muted"> · {t('catan.play.waitingServer')}</span>}
          {seat.reconnecting && (
            <span className="muted" data-testid="catan-play-reconnecting">
              {' '}
              · {t('catan.play.reconnecting')}
            </span>
          )}
        </span>
        {s?.matchId && (
          <span className="muted">
            {' '}
            · {t('catan.play.game')} <a href={href.match(s.matchId)}>{s.matchId}</a>
          </span>
        )}
        <span className="catan-spacer" />
        {phase !== 'over' && seat.closed === null ? (
          <button type="button" onClick={play.leave} data-testid="catan-play-leave">
            {t('catan.play.leave')}
          </button>
        ) : (
          <button type="button" onClick={play.reset} data-testid="catan-play-again">
            {t('catan.play.again')}
          </button>
        )}
      </div>
      {showFehler && (
        <div className="panel catan-fehler" role="alert" data-testid="catan-fehler">
          <strong>{t('catan.play.serverSaidNo')}</strong>{' '}
          <span data-testid="catan-fehler-last">{showFehler.text}</span>
          {showFehler.sent !== null && (
            <span className="muted">
              {' '}
              <Trans
                i18nKey="catan.play.to"
                values={{ sent: showFehler.sent }}
                components={{ code: <code /> }}
              />
            </span>
          )}
          {fehler.length > 1 && (
            <span className="muted"> · {t('catan.play.soFar', { count: fehler.length })}</span>
          )}
        </div>
      )}
      {notices.length > 0 && (
        <p className="muted" data-testid="catan-notice">
          {notices.at(-1)!.text}
        </p>
      )}
      {s && phase === 'over' && <Result state={s} />}
      {s && (phase === 'lobby' || phase === 'connecting') && (
        <Lobby state={s} play={play} pending={seat.pending !== null} />
      )}
      {s && (phase === 'game' || phase === 'over') && s.view.map && (
        <Game seat={seat} state={s} play={play} ready={ready} />
      )}
    </>
  );
}

function Result({ state }: { state: CatanPlayState }) {
  const { t } = useTranslation();
  const winner = state.view.result?.winner ?? null;
  const won = winner !== null && winner === state.me;
  return (
    <div
      className={`panel catan-result ${won ? 'catan-won' : ''}`}
      data-testid="catan-play-result"
      data-winner={winner ?? ''}
      data-won={String(won)}
    >
      <strong>
        {won ? t('catan.play.youWon') : winner !== null ? t('catan.play.isOver') : t('catan.play.ended')}
      </strong>{' '}
      {state.ended}
    </div>
  );
}

function Game({
  seat,
  state,
  play,
  ready,
}: {
  seat: Seat;
  state: CatanPlayState;
  play: Play;
  ready: boolean;
}) {
  const { t } = useTranslation();
  const v = state.view;
  const legal = ready ? state.legal : null;
  const [mode, setMode] = useState<Mode>({ kind: 'default' });
  const [hex, setHex] = useState<string | null>(null);
  const [road, setRoad] = useState<string | null>(null);
  // A new decision (any command answered, or a new status) starts from the default mode.
  const key = `${state.commands}|${v.players.find((p) => p.id === state.me)?.status ?? ''}|${String(ready)}`;
  const [shownKey, setShownKey] = useState(key);
  if (shownKey !== key) {
    setShownKey(key);
    setMode({ kind: 'default' });
    setHex(null);
    setRoad(null);
  }
  const colours = useMemo(() => new Map(v.players.map((p) => [p.id, p.colour])), [v.players]);
  const nameOf = useMemo(() => namesOf(v.players), [v.players]);
  const lines = useMemo(() => seat.lines.filter((l) => l.dir === 'in').map((l) => l.line), [seat.lines]);
  const me = v.players.find((p) => p.id === state.me);
  const effectiveMode: Mode = mode.kind === 'roads' ? { kind: 'roads', first: road } : mode;
  const spots = spotsFor(legal, effectiveMode);
  const disabled = !ready;

  const onSpot = (kind: SpotKind, at: string): void => {
    if (!legal) return;
    if (kind === 'hex') {
      const moves = robberMoves(legal, mode).filter((a) => a.hex === at);
      if (moves.length === 1) play.act(moves[0]!);
      else setHex(at);
      return;
    }
    if (mode.kind === 'roads') {
      if (road === null) {
        const { edges, single } = roadChoices(legal, at);
        if (edges.length === 0 && single) play.act(single);
        else setRoad(at);
        return;
      }
      const pair = roadPair(legal, road, at);
      if (pair) play.act(pair);
      return;
    }
    const build = of(legal, 'build').find(
      (b) => b.at === at && (kind === 'edge') === (b.piece === 'Strasse'),
    );
    if (build) play.act(build);
  };

  return (
    <div className="catan-layout">
      <div className="panel catan-board-panel">
        <div className="panel-header">
          <h2>{t('catan.play.board')}</h2>
          <span className="muted">
            {v.dice && (
              <>
                <Trans
                  i18nKey="catan.play.lastRoll"
                  values={{ sum: v.dice[0] + v.dice[1], a: v.dice[0], b: v.dice[1] }}
                  components={{ b: <strong data-testid="catan-play-dice" /> }}
                />{' '}
                ·{' '}
              </>
            )}
            {t('catan.watch.bank', { cards: v.bankCards, deck: v.deckCards })}
          </span>
        </div>
        <Board
          fields={v.map!.fields}
          harbours={v.map!.harbours}
          robber={v.robber}
          buildings={v.buildings}
          colourOf={(id) => colours.get(id) ?? null}
          spots={spots}
          selected={hex ?? road}
          onSpot={ready ? onSpot : undefined}
          testId="catan-play-board"
        />
        <h3>{t('catan.log.title')}</h3>
        <GameLog lines={lines} nameOf={nameOf} testId="catan-play-log" newestFirst />
      </div>
      <div className="stack">
        <div className="panel" data-testid="catan-hand">
          <h2>{t('catan.play.hand')}</h2>
          <div className="catan-hand">
            {RESOURCE_LIST.map((r) => (
              <span
                key={r}
                className={`catan-card catan-res-${r}`}
                data-testid={`catan-hand-${r}`}
                data-count={me?.resources?.[r] ?? 0}
              >
                {r} <strong>{me?.resources?.[r] ?? 0}</strong>
              </span>
            ))}
          </div>
          <div className="catan-hand" data-testid="catan-devcards">
            {DEV.filter((c) => (me?.devHand?.[c] ?? 0) > 0).map((c) => (
              <span key={c} className="catan-card catan-dev" title={t(`catan.dev.${c}`)}>
                {c} <strong>{me?.devHand?.[c] ?? 0}</strong>
                {v.boughtThisTurn[c] > 0 && <span className="muted"> ({v.boughtThisTurn[c]} new)</span>}
              </span>
            ))}
            {DEV.every((c) => (me?.devHand?.[c] ?? 0) === 0) && (
              <span className="muted">{t('catan.play.noDevCards')}</span>
            )}
          </div>
        </div>
        {state.legal && state.phase === 'game' && (
          <div className="panel">
            <h2>
              {ready && ACTING.has(me?.status ?? '') ? t('catan.play.yourMove') : t('catan.play.actions')}
            </h2>
            {state.legal.discard ? (
              <Discard key={key} legal={state.legal} act={play.act} disabled={disabled} />
            ) : (
              <Actions
                legal={state.legal}
                mode={mode}
                setMode={setMode}
                hex={hex}
                act={play.act}
                disabled={disabled}
                nameOf={nameOf}
              />
            )}
            <Offers
              trades={v.trades}
              legal={state.legal}
              me={state.me}
              nameOf={nameOf}
              act={play.act}
              disabled={disabled}
            />
            {state.legal.status === 'Handeln oder Bauen' && (
              <>
                <SeaTrade legal={state.legal} rates={state.rates} act={play.act} disabled={disabled} />
                {state.legal.offer && <OfferTrade legal={state.legal} act={play.act} disabled={disabled} />}
              </>
            )}
          </div>
        )}
        <div className="panel">
          <h2>{t('matches.players')}</h2>
          <PlayersTable
            players={v.players}
            active={v.active}
            me={state.me}
            longestRoad={v.longestRoad}
            largestArmy={v.largestArmy}
            winner={v.result?.winner ?? null}
            reconnecting={state.reconnecting}
            testId="catan-play-players"
          />
        </div>
        <Chat play={play} disabled={state.phase !== 'game' || seat.pending !== null} />
      </div>
    </div>
  );
}

function Chat({ play, disabled }: { play: Play; disabled: boolean }) {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  return (
    <div className="panel">
      <div className="form-row">
        <input
          value={text}
          onChange={(e) => setText(e.target.value)}
          maxLength={500}
          placeholder={t('catan.play.chatPlaceholder')}
          data-testid="catan-chat-text"
        />
        <button
          type="button"
          disabled={disabled || text.trim() === ''}
          onClick={() => {
            play.send({ type: 'chat', text: text.trim() });
            setText('');
          }}
          data-testid="catan-chat-send"
        >
          {t('catan.play.send')}
        </button>
      </div>
    </div>
  );
}
