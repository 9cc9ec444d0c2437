import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
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
  const { t } = useTranslation();
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
            {t('catan.lobby.lobbies')} <span className="muted">({lobbies.length})</span>
          </h2>
          {lobbies.length === 0 ? (
            <p className="muted" data-testid="catan-no-lobby">
              <Trans i18nKey="catan.lobby.nobody" components={{ code: <code /> }} />
            </p>
          ) : (
            <table className="table compact" data-testid="catan-lobbies">
              <thead>
                <tr>
                  <th>{t('catan.lobby.lobby')}</th>
                  <th>{t('matches.players')}</th>
                  <th>{t('catan.lobby.opened')}</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {lobbies.map((l) => (
                  <tr key={l.id} data-testid="catan-lobby-row" data-lobby={l.id}>
                    <td>
                      <code>{l.id}</code>
                      {l.dedicated && <span className="muted"> {t('catan.lobby.houseGame')}</span>}
                    </td>
                    <td>
                      <ul className="plain">
                        {l.players.map((p) => (
                          <li key={p.id} data-testid="catan-lobby-player">
                            <ColourChip colour={p.colour} />{' '}
                            {p.name ?? <span className="muted">{t('catan.lobby.noName')}</span>}{' '}
                            <span className="badge">{p.kind}</span>{' '}
                            <span className={p.status === 'Wartet auf Spielbeginn' ? 'catan-ready' : 'muted'}>
                              {p.status === 'Wartet auf Spielbeginn'
                                ? t('catan.lobby.ready')
                                : t('catan.lobby.notReady')}
                            </span>
                          </li>
                        ))}
                      </ul>
                      {l.botFillAt !== null && (
                        <span className="muted">
                          {t('catan.lobby.aiFillsAt', { time: formatTime(l.botFillAt) })}
                        </span>
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
                            void call('/api/catan/lobbies/fill', { lobby: l.id, size: 4 }, (a) =>
                              t('catan.lobby.aiJoined', { count: Number(a.added), lobby: String(a.lobby) }),
                            )
                          }
                        >
                          {t('catan.lobby.fillWithAi')}
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
                void call('/api/catan/games', { players: 4 }, (a) =>
                  t('catan.lobby.started', { id: String(a.id) }),
                )
              }
            >
              {t('catan.lobby.start4')}
            </button>
            <button
              type="button"
              disabled={busy}
              onClick={() =>
                void call('/api/catan/games', { players: 3 }, (a) =>
                  t('catan.lobby.started', { id: String(a.id) }),
                )
              }
            >
              {t('catan.lobby.of3')}
            </button>
            <button type="button" onClick={onPlay} data-testid="catan-goto-play">
              {t('catan.lobby.playYourself')}
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
          <h2>{t('catan.lobby.connecting')}</h2>
          <p>
            <Trans
              i18nKey="catan.lobby.speaks"
              values={{ port: snapshot?.port ?? 6000 }}
              components={{ port: <code data-testid="catan-port" /> }}
            />
          </p>
          <Command
            args={catanBotArgs(snapshot?.port ?? 6000)}
            className="catan-command"
            testId="catan-command"
          />
          <p>
            <Trans i18nKey="catan.lobby.howJoin" components={{ code: <code />, em: <em /> }} />
          </p>
          <p className="muted">
            {t('catan.lobby.counts', {
              played: snapshot?.gamesPlayed ?? 0,
              aborted: snapshot?.gamesAborted ?? 0,
              connections: snapshot?.connections ?? 0,
            })}
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
