import type { TFunction } from 'i18next';
import { useEffect, useRef, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type {
  Analysis,
  AnalyseProgressView,
  C4GameView,
  Connect4Snapshot,
  Level,
  RelayCommand,
  RelayMessage,
  SolverGameView,
} from '../../../../src/games/connect4/views.js';
import { getJson, postJson, query, withToken } from '../../api.js';
import { ConnectionBadge } from '../../components/StatusBadge.js';
import { useSpectator } from '../../useSpectator.js';
import { Board, DISC_LABEL } from './Board.js';

/**
 * 4 Gewinnt in the dashboard: play our solver, play a peer on the network through a relay,
 * watch the games of this machine's peers, and analyse any position. Every rule is the server's:
 * the page sends columns and shows what comes back.
 */

type Tab = 'solver' | 'peer' | 'watch' | 'analyse';
const TABS: [Tab, string][] = [
  ['solver', 'c4.tab.solver'],
  ['peer', 'c4.tab.peer'],
  ['watch', 'catan.tab.watch'],
  ['analyse', 'c4.tab.analyse'],
];

export function Connect4Page() {
  const { t } = useTranslation();
  const [tab, setTab] = useState<Tab>('solver');
  return (
    <section className="page">
      <header className="page-header">
        <h1>{t('c4.title')}</h1>
      </header>
      <nav className="tabs" role="tablist">
        {TABS.map(([id, label]) => (
          <button
            key={id}
            role="tab"
            aria-selected={tab === id}
            className={tab === id ? 'tab active' : 'tab'}
            data-testid={`c4-tab-${id}`}
            onClick={() => setTab(id)}
          >
            {t(label)}
          </button>
        ))}
      </nav>
      {tab === 'solver' && <PlaySolver />}
      {tab === 'peer' && <PlayPeer />}
      {tab === 'watch' && <Watch />}
      {tab === 'analyse' && <Analyse />}
    </section>
  );
}

function outcomeText(t: TFunction, status: SolverGameView['status'], you: 0 | 1, resigned = false): string {
  if (status.kind === 'running') return '';
  if (status.kind === 'drawn') return t('c4.outcome.full');
  if (resigned) return t('c4.outcome.resigned');
  return status.winner === you ? t('c4.outcome.youWin') : t('c4.outcome.botWins');
}

function PlaySolver() {
  const { t } = useTranslation();
  const [level, setLevel] = useState<Level>('perfect');
  const [first, setFirst] = useState<'human' | 'bot'>('human');
  const [game, setGame] = useState<SolverGameView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  /** `before`: the game as it was before an optimistic update, put back if the server refuses. */
  const run = async (action: () => Promise<SolverGameView>, before?: SolverGameView) => {
    setBusy(true);
    setError(null);
    try {
      setGame(await action());
    } catch (e) {
      setError((e as Error).message);
      // A refused move leaves the position as the server has it: show that (it is the player's
      // turn again), not the optimistic "the bot is thinking".
      if (before) setGame(await getJson<SolverGameView>(`/api/connect4/games/${before.id}`).catch(() => before));
    } finally {
      setBusy(false);
    }
  };

  const start = () => run(() => postJson<SolverGameView>('/api/connect4/games', { level, first, name: 'browser' }));
  const play = (column: number) => {
    if (!game) return;
    // Shown at once; the server's answer replaces it (or the error explains why not).
    setGame({ ...game, moves: [...game.moves, column], yourTurn: false });
    void run(() => postJson<SolverGameView>(`/api/connect4/games/${game.id}/moves`, { column }), game);
  };
  const resign = () => game && run(() => postJson<SolverGameView>(`/api/connect4/games/${game.id}/resign`));

  const over = game !== null && game.status.kind !== 'running';
  return (
    <div className="columns">
      <div className="panel">
        <h2>{t('c4.solver.title')}</h2>
        <div className="form-row">
          <label>
            {t('c4.solver.level')}{' '}
            <select value={level} onChange={(e) => setLevel(e.target.value as Level)} data-testid="c4-level">
              <option value="perfect">{t('c4.level.perfect')}</option>
              <option value="strong">{t('c4.level.strong')}</option>
              <option value="easy">{t('c4.level.easy')}</option>
            </select>
          </label>
          <label>
            {t('c4.solver.firstMove')}{' '}
            <select value={first} onChange={(e) => setFirst(e.target.value as 'human' | 'bot')} data-testid="c4-first">
              <option value="human">{t('c4.solver.me')}</option>
              <option value="bot">{t('c4.solver.bot')}</option>
            </select>
          </label>
          <button onClick={() => void start()} disabled={busy} data-testid="c4-new-game">
            {t('dame.new.title')}
          </button>
          {game && !over && (
            <button onClick={() => void resign()} disabled={busy} data-testid="c4-resign">
              {t('c4.solver.resign')}
            </button>
          )}
        </div>
        {error && (
          <p className="error" role="alert" data-testid="c4-error">
            {error}
          </p>
        )}
        {game ? (
          <>
            <p data-testid="c4-status">
              {over ? (
                <strong data-testid="c4-outcome">{outcomeText(t, game.status, game.human, game.resigned)}</strong>
              ) : game.yourTurn ? (
                t('c4.solver.yourMove', { disc: t(`c4.disc.${DISC_LABEL[game.human]}`) })
              ) : (
                t('c4.solver.thinking')
              )}
            </p>
            <Board
              moves={game.moves}
              line={game.status.kind === 'won' ? game.status.line : []}
              enabled={game.yourTurn && !busy}
              onColumn={play}
            />
            <p className="muted">
              {t('c4.moves')} <code data-testid="c4-moves">{game.moves.join('') || '—'}</code>
            </p>
          </>
        ) : (
          <p className="muted">{t('c4.solver.choose')}</p>
        )}
      </div>
      <div className="panel">
        <h2>{t('c4.levels.title')}</h2>
        <ul>
          <li>
            <Trans i18nKey="c4.levels.perfect" components={{ b: <strong /> }} />
          </li>
          <li>
            <Trans i18nKey="c4.levels.strong" components={{ b: <strong /> }} />
          </li>
          <li>
            <Trans i18nKey="c4.levels.easy" components={{ b: <strong /> }} />
          </li>
        </ul>
      </div>
    </div>
  );
}

function relayUrl(name: string): string {
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  return withToken(`${scheme}://${window.location.host}/ws/connect4/peer${query({ name })}`);
}

function PlayPeer() {
  const { t } = useTranslation();
  const [name, setName] = useState('browser');
  const [socket, setSocket] = useState<WebSocket | null>(null);
  const [state, setState] = useState<Extract<RelayMessage, { type: 'state' }> | null>(null);
  const [address, setAddress] = useState<string | null>(null);
  const [notices, setNotices] = useState<{ level: string; text: string }[]>([]);
  const [closed, setClosed] = useState<string | null>(null);
  const socketRef = useRef<WebSocket | null>(null);

  useEffect(() => () => socketRef.current?.close(), []);

  const connect = () => {
    setClosed(null);
    setNotices([]);
    const ws = new WebSocket(relayUrl(name));
    socketRef.current = ws;
    ws.onmessage = (m: MessageEvent<string>) => {
      const msg = JSON.parse(m.data) as RelayMessage;
      if (msg.type === 'hello') setAddress(msg.address);
      else if (msg.type === 'state') setState(msg);
      else setNotices((n) => [...n.slice(-4), { level: msg.level, text: msg.text }]);
    };
    ws.onclose = (e) => {
      setSocket(null);
      setState(null);
      setClosed(e.reason || 'disconnected');
    };
    ws.onopen = () => setSocket(ws);
  };
  const send = (command: RelayCommand) => socket?.send(JSON.stringify(command));

  if (!socket || !state) {
    return (
      <div className="panel">
        <h2>{t('c4.peer.title')}</h2>
        <p className="muted">
          <Trans i18nKey="c4.peer.relay" components={{ code: <code /> }} />
        </p>
        <div className="form-row">
          <label>
            {t('catan.seat.yourName')} <input value={name} onChange={(e) => setName(e.target.value)} maxLength={32} data-testid="c4-peer-name" />
          </label>
          <button onClick={connect} data-testid="c4-peer-connect">
            {t('c4.peer.enter')}
          </button>
        </div>
        {closed && <p className="error">{closed}</p>}
      </div>
    );
  }

  const game = state.game;
  return (
    <div className="columns">
      <div className="panel">
        <h2>
          {state.name} <span className="badge">{state.phase}</span>
        </h2>
        <p className="muted">
          {t('c4.peer.yourPeer')} <code>{address}</code>
        </p>
        {notices.map((n, i) => (
          <p key={i} className={n.level === 'error' ? 'error' : 'muted'} data-testid="c4-notice">
            {n.text}
          </p>
        ))}
        {game ? (
          <>
            <p data-testid="c4-peer-status">
              <Trans
                i18nKey="c4.peer.against"
                values={{ who: game.opponent.name ?? game.opponent.key, disc: t(`c4.disc.${DISC_LABEL[game.localPlayer]}`) }}
                components={{ b: <strong /> }}
              />{' '}
              {game.status.kind === 'running'
                ? game.yourTurn
                  ? t('c4.peer.yourMove')
                  : t('c4.peer.waiting')
                : game.status.kind === 'drawn'
                  ? t('c4.peer.draw')
                  : game.status.winner === game.localPlayer
                    ? t('c4.outcome.youWin')
                    : t('c4.peer.youLose')}
            </p>
            <Board
              moves={game.moves}
              line={game.status.kind === 'won' ? game.status.line : []}
              enabled={game.yourTurn}
              onColumn={(column) => send({ type: 'move', column })}
              testId="c4-peer-board"
            />
            {state.phase === 'playing' ? (
              <button onClick={() => send({ type: 'quit' })}>{t('c4.peer.quit')}</button>
            ) : (
              <button onClick={() => send({ type: 'lobby' })}>{t('c4.peer.backToLobby')}</button>
            )}
          </>
        ) : (
          <p className="muted">
            {state.invitee ? t('c4.peer.waitingAccept', { who: state.invitee.name ?? state.invitee.key }) : t('c4.peer.invite')}
          </p>
        )}
      </div>
      <div className="stack">
        <div className="panel">
          <h2>{t('c4.peer.invitations')}</h2>
          {state.invitations.length === 0 ? (
            <p className="muted">{t('dame.play.none')}</p>
          ) : (
            <ul className="plain">
              {state.invitations.map((p) => (
                <li key={p.key}>
                  {p.name ?? p.key} <code>{p.key}</code>{' '}
                  <button onClick={() => send({ type: 'accept', key: p.key })} data-testid="c4-accept">
                    {t('catan.trade.accept')}
                  </button>{' '}
                  <button onClick={() => send({ type: 'decline', key: p.key })}>{t('catan.trade.decline')}</button>
                </li>
              ))}
            </ul>
          )}
        </div>
        <div className="panel">
          <h2>{t('catan.lobby.lobby')}</h2>
          {state.lobby.length === 0 ? (
            <p className="muted">{t('c4.peer.nobody')}</p>
          ) : (
            <table className="table compact">
              <tbody>
                {state.lobby.map((p) => (
                  <tr key={p.key} data-testid="c4-lobby-row">
                    <td>{p.name ?? '?'}</td>
                    <td>
                      <code>{p.key}</code>
                    </td>
                    <td>
                      <button disabled={state.phase !== 'lobby' || state.invitee !== null} onClick={() => send({ type: 'invite', key: p.key })} data-testid={`c4-invite-${p.name ?? p.key}`}>
                        {t('c4.peer.inviteButton')}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </div>
    </div>
  );
}

const keepSnapshot = (s: Connect4Snapshot): Connect4Snapshot => s;

function gameLabel(g: C4GameView, t: TFunction): string {
  if (g.status === 'running') return t('status.running');
  if (g.status === 'drawn') return t('result.draw');
  if (g.status === 'aborted') return t('dame.aborted', { reason: g.reason ?? '?' });
  return t('catan.records.won', { who: g.winner === null ? '?' : g.players[g.winner] });
}

function Watch() {
  const { t } = useTranslation();
  const live = useSpectator<Connect4Snapshot>('connect4', keepSnapshot);
  const [chosen, setChosen] = useState<string | null>(null);
  const s = live.snapshot;
  const games = s?.games ?? [];
  const shown = games.find((g) => g.id === chosen) ?? games.find((g) => g.status === 'running') ?? games[0];
  return (
    <div className="columns">
      <div className="panel">
        <h2>
          {t('c4.watch.live')} <ConnectionBadge state={live.state} retryInMs={live.retryInMs} />
        </h2>
        {shown ? (
          <>
            <p data-testid="c4-watch-title">
              <span className="c4-chip c4-chip-red" /> {shown.players[0]} {t('dame.vs')} <span className="c4-chip c4-chip-yellow" /> {shown.players[1]} —{' '}
              {gameLabel(shown, t)}
            </p>
            <Board moves={shown.moves} line={shown.line} testId="c4-watch-board" />
          </>
        ) : (
          <p className="muted">{t('c4.watch.none')}</p>
        )}
      </div>
      <div className="stack">
        <div className="panel">
          <h2>{t('dame.tab.games')}</h2>
          {games.length === 0 ? (
            <p className="muted">{t('dame.play.none')}</p>
          ) : (
            <table className="table compact">
              <tbody>
                {games.map((g) => (
                  <tr key={g.id} onClick={() => setChosen(g.id)} className={g === shown ? 'selected' : undefined} data-testid="c4-game-row">
                    <td>{g.kind}</td>
                    <td>
                      {g.players[0]} {t('dame.vs')} {g.players[1]}
                    </td>
                    <td>{t('result.moves', { count: g.moves.length })}</td>
                    <td>{gameLabel(g, t)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
        <div className="panel">
          <h2>{t('c4.watch.peers')}</h2>
          {s && s.peers.length > 0 ? (
            <ul className="plain">
              {s.peers.map((p) => (
                <li key={p.address}>
                  {p.name} <span className="muted">({p.role}, {p.phase})</span> <code>{p.address}</code>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">{t('dame.play.none')}</p>
          )}
          {s && <p className="muted">{s.lan ? t('c4.watch.houseLan', { port: s.port }) : t('c4.watch.houseLoopback', { port: s.port })}</p>}
        </div>
      </div>
    </div>
  );
}

function formatScore(v: number | null): string | null {
  return v === null ? null : v > 0 ? `+${v}` : String(v);
}

/** What the Analyse view says while the server solves: how far the search has got. */
function solvingText(p: AnalyseProgressView | null, t: TFunction): string {
  if (!p?.solving) return t('c4.analyse.solving');
  const nodes = p.nodes >= 1e6 ? `${(p.nodes / 1e6).toFixed(1)} M` : `${Math.round(p.nodes / 1e3)} k`;
  const column = p.column === null ? '' : ` ${t('c4.analyse.column', { column: p.column, done: p.columnsDone + 1, of: p.columns })}`;
  return t('c4.analyse.progress', { column, nodes, seconds: (p.elapsedMs / 1000).toFixed(1) });
}

function Analyse() {
  const { t } = useTranslation();
  const [moves, setMoves] = useState('');
  const [analysis, setAnalysis] = useState<Analysis | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [progress, setProgress] = useState<AnalyseProgressView | null>(null);

  useEffect(() => {
    // Aborting (the position changed, or the tab closed) also stops the server's search.
    const controller = new AbortController();
    setLoading(true);
    setError(null);
    setProgress(null);
    // While the server solves, ask it every half second how far it got.
    const poll = window.setInterval(() => {
      getJson<AnalyseProgressView>(`/api/connect4/analyse/progress${query({ moves })}`, controller.signal)
        .then((p) => {
          if (!controller.signal.aborted) setProgress(p);
        })
        .catch(() => undefined);
    }, 500);
    getJson<Analysis>(`/api/connect4/analyse${query({ moves })}`, controller.signal)
      .then((a) => {
        window.clearInterval(poll);
        setAnalysis(a);
        setLoading(false);
      })
      .catch((e: unknown) => {
        window.clearInterval(poll);
        if (controller.signal.aborted) return;
        setAnalysis(null);
        setError((e as Error).message);
        setLoading(false);
      });
    return () => {
      window.clearInterval(poll);
      controller.abort();
    };
  }, [moves]);

  const verdict = (a: Analysis): string => {
    if (a.status.kind === 'won') return t('c4.analyse.hasWon', { side: t(`c4.disc.${DISC_LABEL[a.status.winner]}`) });
    if (a.status.kind === 'drawn') return t('c4.peer.draw');
    if (a.score === null) return '';
    const side = t(`c4.disc.${DISC_LABEL[a.toMove]}`);
    if (a.score === 0) return t('c4.analyse.drawn', { side });
    return a.score > 0 ? t('c4.analyse.wins', { side, score: a.score }) : t('c4.analyse.loses', { side, score: a.score });
  };

  return (
    <div className="columns">
      <div className="panel">
        <h2>{t('c4.analyse.title')}</h2>
        <div className="form-row">
          <label>
            {t('c4.analyse.moves')}{' '}
            <input
              value={moves}
              onChange={(e) => setMoves(e.target.value.replace(/[^1-7]/g, ''))}
              placeholder={t('c4.analyse.placeholder')}
              data-testid="c4-analyse-moves"
            />
          </label>
          <button onClick={() => setMoves(moves.slice(0, -1))} disabled={moves === ''}>
            {t('c4.analyse.undo')}
          </button>
          <button onClick={() => setMoves('')} disabled={moves === ''}>
            {t('c4.analyse.clear')}
          </button>
        </div>
        <p className="muted">{t('c4.analyse.help')}</p>
        {error && (
          <p className="error" data-testid="c4-analyse-error">
            {error}
          </p>
        )}
        <Board
          moves={Array.from(moves, Number)}
          line={analysis?.status.kind === 'won' ? analysis.status.line : []}
          enabled={analysis?.status.kind === 'running'}
          onColumn={(c) => setMoves(moves + String(c))}
          labels={analysis && analysis.moves === moves ? analysis.scores.map(formatScore) : Array<null>(7).fill(null)}
          testId="c4-analyse-board"
        />
        <p data-testid="c4-analyse-verdict">{loading ? solvingText(progress, t) : analysis ? verdict(analysis) : ''}</p>
        {!loading && analysis?.moves === moves && analysis.best.length > 0 && (
          <p>
            {t('c4.analyse.best')} <strong data-testid="c4-analyse-best">{analysis.best.join(', ')}</strong>
          </p>
        )}
      </div>
      <div className="panel">
        <h2>{t('c4.analyse.scores')}</h2>
        <p>
          <Trans i18nKey="c4.analyse.scoresText" components={{ b: <strong />, em: <em /> }} />
        </p>
      </div>
    </div>
  );
}
