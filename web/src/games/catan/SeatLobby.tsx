import { useState } from 'react';
import { COLOURS, type Colour } from '../../../../src/games/catan/rules/types.js';
import type { CatanPlayState } from '../../../../src/games/catan/web-views.js';
import { COLOUR_NAME } from './Board.js';
import { ColourChip } from './Players.js';
import type { Play } from './usePlay.js';

/** Before the game: the form that opens a seat, and the lobby the seat waits in. */

export function Join({ play }: { play: Play }) {
  const [name, setName] = useState('Gast');
  const [colour, setColour] = useState<Colour>('Rot');
  const ok = name.trim() !== '' && name.trim().length <= 40;
  return (
    <div className="columns">
      <div className="panel">
        <h2>Play Catan</h2>
        <div className="form-row">
          <label>
            Your name{' '}
            <input
              value={name}
              onChange={(e) => setName(e.target.value)}
              maxLength={40}
              data-testid="catan-play-name"
            />
          </label>
          <label>
            Your colour{' '}
            <select
              value={colour}
              onChange={(e) => setColour(e.target.value as Colour)}
              data-testid="catan-play-colour"
            >
              {COLOURS.map((c) => (
                <option key={c} value={c}>
                  {COLOUR_NAME[c]} ({c})
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
            Join the lobby
          </button>
        </div>
        <p className="muted">
          You join the server&apos;s open lobby like any network client. Wait there for other people, or let
          our AI take the empty seats; the game starts when everyone in the lobby (3 or 4) is ready.
        </p>
      </div>
      <div className="panel">
        <h2>How it works</h2>
        <p>
          Your seat is a protocol 0.3 client on the server: the page shows what that client knows (your own
          hand, the others&apos; card counts) and offers only the actions the rules allow from there. Leaving
          the page ends a running game for everyone, as a lost connection does for any client.
        </p>
      </div>
    </div>
  );
}

export function Lobby({ state, play, pending }: { state: CatanPlayState; play: Play; pending: boolean }) {
  const [colour, setColour] = useState<Colour>(state.colour ?? 'Rot');
  const players = state.view.players;
  const me = players.find((p) => p.id === state.me);
  const started = me?.status === 'Wartet auf Spielbeginn';
  return (
    <div className="panel" data-testid="catan-lobby" data-lobby={state.lobby ?? ''}>
      <h2>
        Lobby {state.lobby && <code>{state.lobby}</code>}{' '}
        <span className="muted">({players.length} of 4)</span>
      </h2>
      <ul className="plain">
        {players.map((p) => (
          <li key={p.id} data-testid="catan-lobby-member">
            <ColourChip colour={p.colour} /> {p.name ?? <span className="muted">(choosing)</span>}{' '}
            {p.id === state.me && <span className="muted">(you)</span>}{' '}
            <span className={p.status === 'Wartet auf Spielbeginn' ? 'catan-ready' : 'muted'}>
              {p.status === 'Wartet auf Spielbeginn' ? 'ready' : 'not ready'}
            </span>
          </li>
        ))}
      </ul>
      <div className="form-row">
        {!started && (
          <>
            <label>
              Colour{' '}
              <select
                value={colour}
                onChange={(e) => setColour(e.target.value as Colour)}
                data-testid="catan-lobby-colour"
              >
                {COLOURS.map((c) => (
                  <option key={c} value={c}>
                    {COLOUR_NAME[c]} ({c})
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
              Take this colour
            </button>
            <button
              type="button"
              className="catan-primary"
              disabled={pending || !me?.colour}
              onClick={() => play.send({ type: 'start' })}
              data-testid="catan-play-start"
            >
              I am ready (Spiel starten)
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
            Fill the empty seats with AI
          </button>
        )}
      </div>
      <p className="muted">
        {started
          ? 'You are ready; the game starts when everyone here is (at least 3 players).'
          : 'Choose your colour, then say you are ready.'}
      </p>
    </div>
  );
}
