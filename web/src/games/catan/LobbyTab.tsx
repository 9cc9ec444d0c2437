import { useState } from 'react';
import { Command } from '../../components/Command.js';
import type { CatanSnapshot } from '../../../../src/games/catan/snapshot.js';
import { postJson } from '../../api.js';
import { formatTime } from '../../format.js';
import { ColourChip } from './Players.js';

/**
 * The lobbies of the Catan server (catan.md D8): who waits, with which colour, and whether they
 * sent `Spiel starten`. Our AI can fill the empty seats of a lobby, or play a game of its own.
 */

export function LobbyTab({ snapshot, onPlay }: { snapshot: CatanSnapshot | null; onPlay: () => void }) {
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<{ text: string; error: boolean } | null>(null);
  const lobbies = snapshot?.lobbies ?? [];

  const call = async (path: string, body: unknown, done: (answer: Record<string, unknown>) => string) => {
    setBusy(true);
    setNote(null);
    try {
      setNote({ text: done(await postJson<Record<string, unknown>>(path, body)), error: false });
    } catch (e) {
      setNote({ text: (e as Error).message, error: true });
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <div className="columns">
        <div className="panel">
          <h2>
            Lobbies <span className="muted">({lobbies.length})</span>
          </h2>
          {lobbies.length === 0 ? (
            <p className="muted" data-testid="catan-no-lobby">
              Nobody is waiting. A client that connects opens a lobby; a game starts when 3 or 4 players are
              in it and all of them have sent <code>Spiel starten</code>.
            </p>
          ) : (
            <table className="table compact" data-testid="catan-lobbies">
              <thead>
                <tr>
                  <th>Lobby</th>
                  <th>Players</th>
                  <th>Opened</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {lobbies.map((l) => (
                  <tr key={l.id} data-testid="catan-lobby-row" data-lobby={l.id}>
                    <td>
                      <code>{l.id}</code>
                      {l.dedicated && <span className="muted"> (house game)</span>}
                    </td>
                    <td>
                      <ul className="plain">
                        {l.players.map((p) => (
                          <li key={p.id} data-testid="catan-lobby-player">
                            <ColourChip colour={p.colour} />{' '}
                            {p.name ?? <span className="muted">(no name yet)</span>}{' '}
                            <span className="badge">{p.kind}</span>{' '}
                            <span className={p.status === 'Wartet auf Spielbeginn' ? 'catan-ready' : 'muted'}>
                              {p.status === 'Wartet auf Spielbeginn' ? 'ready' : 'not ready'}
                            </span>
                          </li>
                        ))}
                      </ul>
                      {l.botFillAt !== null && (
                        <span className="muted">AI fills the empty seats at {formatTime(l.botFillAt)}</span>
                      )}
                    </td>
                    <td>{formatTime(l.createdAt)}</td>
                    <td>
                      {!l.dedicated && l.players.length < 4 && (
                        <button
                          type="button"
                          disabled={busy}
                          data-testid={`catan-fill-${l.id}`}
                          onClick={() =>
                            void call(
                              '/api/catan/lobbies/fill',
                              { lobby: l.id, size: 4 },
                              (a) => `${String(a.added)} AI players joined ${String(a.lobby)}`,
                            )
                          }
                        >
                          Fill with AI
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <div className="form-row">
            <button
              type="button"
              disabled={busy}
              data-testid="catan-new-ai-game"
              onClick={() =>
                void call('/api/catan/games', { players: 4 }, (a) => `game ${String(a.id)} started`)
              }
            >
              Start a game of 4 AI players
            </button>
            <button
              type="button"
              disabled={busy}
              onClick={() =>
                void call('/api/catan/games', { players: 3 }, (a) => `game ${String(a.id)} started`)
              }
            >
              … of 3
            </button>
            <button type="button" onClick={onPlay} data-testid="catan-goto-play">
              Play yourself
            </button>
          </div>
          {note && (
            <p
              className={note.error ? 'error' : 'muted'}
              role={note.error ? 'alert' : undefined}
              data-testid="catan-lobby-note"
            >
              {note.text}
            </p>
          )}
        </div>
        <div className="panel">
          <h2>Connecting a client</h2>
          <p>
            The server speaks protocol 0.3 (JSON lines over TCP) on port{' '}
            <code data-testid="catan-port">{snapshot?.port ?? 6000}</code>. Our AI plays there with
          </p>
          <Command args={catanBotArgs(snapshot?.port ?? 6000)} className="catan-command" testId="catan-command" />
          <p>
            Every client joins the one open lobby; when it is full (4) or everyone there has sent{' '}
            <code>Spiel starten</code> (at least 3), the game starts and a fresh lobby opens.{' '}
            <em>Fill with AI</em> seats our bots in the empty places; they start at once, so the game begins
            as soon as the others are ready.
          </p>
          <p className="muted">
            Games played: {snapshot?.gamesPlayed ?? 0}, aborted: {snapshot?.gamesAborted ?? 0}, connections
            now: {snapshot?.connections ?? 0}.
          </p>
        </div>
      </div>
    </>
  );
}

const LOCAL = new Set(['localhost', '127.0.0.1', '[::1]', '']);

/** Our AI's `spielhalle` arguments for this server (the host only when the page is not on this machine). */
function catanBotArgs(port: number): string {
  const host = window.location.hostname;
  return `bot catan${LOCAL.has(host) ? '' : ` --host ${host}`} --port ${port} --name "KI 1" --strategy builder`;
}
