import { useState } from 'react';
import { COLOURS, type Colour } from '../../../../src/games/catan/rules/types.js';
import type { CatanPlayState } from '../../../../src/games/catan/web-views.js';
import { ColourChip } from './Players.js';
import type { Play } from './usePlay.js';
import { useTranslation } from 'react-i18next';

/** Before the game: the form that opens a seat, and the lobby the seat waits in. */

export function Join({ play }: { play: Play }) {
  const { t } = useTranslation();
  const [name, setName] = useState('Gast');
  const [colour, setColour] = useState<Colour>('Rot');
  const ok = name.trim() !== '' && name.trim().length <= 40;
  return (
    <div className="columns">
      <div className="panel">
        <h2>{t('catan.seat.playCatan')}</h2>
        <div className="form-row">
          <label>
            {t('catan.seat.yourName')}{' '}
            <input
              value={name}
              onChange={(e) => setName(e.target.value)}
              maxLength={40}
              data-testid="catan-play-name"
            />
          </label>
          <label>
            {t('catan.seat.yourColour')}{' '}
            <select
              value={colour}
              onChange={(e) => setColour(e.target.value as Colour)}
              data-testid="catan-play-colour"
            >
              {COLOURS.map((c) => (
                <option key={c} value={c}>
                  {t(`catan.colour.${c}`)}
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            disabled={!ok}
            onClick={() => play.join(name.trim(), colour)}
            data-testid="catan-play-join"
          >
            {t('catan.seat.join')}
          </button>
        </div>
        <p className="muted">{t('catan.seat.joinNote')}</p>
        {play.gone !== null && (
          <p className="muted" role="status" data-testid="catan-seat-gone">
            {t('catan.seat.gone')}
          </p>
        )}
      </div>
      <div className="panel">
        <h2>{t('catan.seat.how')}</h2>
        <p>{t('catan.seat.howText')}</p>
      </div>
    </div>
  );
}

export function Lobby({ state, play, pending }: { state: CatanPlayState; play: Play; pending: boolean }) {
  const { t } = useTranslation();
  const [colour, setColour] = useState<Colour>(state.colour ?? 'Rot');
  const players = state.view.players;
  const me = players.find((p) => p.id === state.me);
  const started = me?.status === 'Wartet auf Spielbeginn';
  return (
    <div className="panel" data-testid="catan-lobby" data-lobby={state.lobby ?? ''}>
      <h2>
        {t('catan.lobby.lobby')} {state.lobby && <code>{state.lobby}</code>}{' '}
        <span className="muted">{t('catan.seat.ofFour', { count: players.length })}</span>
      </h2>
      <ul className="plain">
        {players.map((p) => (
          <li key={p.id} data-testid="catan-lobby-member">
            <ColourChip colour={p.colour} />{' '}
            {p.name ?? <span className="muted">{t('catan.seat.choosing')}</span>}{' '}
            {p.id === state.me && <span className="muted">{t('catan.players.you')}</span>}{' '}
            {state.reconnecting.includes(p.id) && (
              <span className="badge catan-reconnecting" data-testid="catan-reconnecting">
                {t('catan.players.reconnecting')}
              </span>
            )}{' '}
            <span className={p.status === 'Wartet auf Spielbeginn' ? 'catan-ready' : 'muted'}>
              {p.status === 'Wartet auf Spielbeginn' ? t('catan.lobby.ready') : t('catan.lobby.notReady')}
            </span>
          </li>
        ))}
      </ul>
      <div className="form-row">
        {!started && (
          <>
            <label>
              {t('catan.seat.colour')}{' '}
              <select
                value={colour}
                onChange={(e) => setColour(e.target.value as Colour)}
                data-testid="catan-lobby-colour"
              >
                {COLOURS.map((c) => (
                  <option key={c} value={c}>
                    {t(`catan.colour.${c}`)}
                  </option>
                ))}
              </select>
            </label>
            <button
              type="button"
              disabled={pending}
              onClick={() => play.send({ type: 'player', name: state.name, colour })}
              data-testid="catan-lobby-recolour"
            >
              {t('catan.seat.takeColour')}
            </button>
            <button
              type="button"
              className="catan-primary"
              disabled={pending || !me?.colour}
              onClick={() => play.send({ type: 'start' })}
              data-testid="catan-play-start"
            >
              {t('catan.seat.ready')}
            </button>
          </>
        )}
        {players.length < 4 && (
          <button
            type="button"
            disabled={state.lobby === null}
            onClick={() => play.send({ type: 'fill', size: 4 })}
            data-testid="catan-play-fill"
          >
            {t('catan.seat.fill')}
          </button>
        )}
      </div>
      <p className="muted">{started ? t('catan.seat.youAreReady') : t('catan.seat.chooseColour')}</p>
    </div>
  );
}
