import { useEffect, useRef, useState } from 'react';
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
  ['solver', 'Play the solver'],
  ['peer', 'Play a peer'],
  ['watch', 'Watch'],
  ['analyse', 'Analyse'],
];

export function Connect4Page() {
  const [tab, setTab] = useState<Tab>('solver');
  return (
    <section className="page">
      <header className="page-header">
        <h1>4 Gewinnt (Connect Four)</h1>
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
            {label}
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

function outcomeText(status: SolverGameView['status'], you: 0 | 1, resigned = false): string {
  if (status.kind === 'running') return '';
  if (status.kind === 'drawn') return 'Draw: the board is full.';
  if (resigned) return 'You resigned.';
  return status.winner === you ? 'You win!' : 'The bot wins.';
}

function PlaySolver() {
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
        <h2>Against the solver</h2>
        <div className="form-row">
          <label>
            Level{' '}
            <select value={level} onChange={(e) => setLevel(e.target.value as Level)} data-testid="c4-level">
              <option value="perfect">perfect</option>
              <option value="strong">strong</option>
              <option value="easy">easy</option>
            </select>
          </label>
          <label>
            First move{' '}
            <select value={first} onChange={(e) => setFirst(e.target.value as 'human' | 'bot')} data-testid="c4-first">
              <option value="human">me</option>
              <option value="bot">the bot</option>
            </select>
          </label>
          <button onClick={() => void start()} disabled={busy} data-testid="c4-new-game">
            New game
          </button>
          {game && !over && (
            <button onClick={() => void resign()} disabled={busy} data-testid="c4-resign">
              Resign
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
                <strong data-testid="c4-outcome">{outcomeText(game.status, game.human, game.resigned)}</strong>
              ) : game.yourTurn ? (
                `Your move: you are ${DISC_LABEL[game.human]}.`
              ) : (
                'The bot is thinking…'
              )}
            </p>
            <Board
              moves={game.moves}
              line={game.status.kind === 'won' ? game.status.line : []}
              enabled={game.yourTurn && !busy}
              onColumn={play}
            />
            <p className="muted">
              Moves: <code data-testid="c4-moves">{game.moves.join('') || '—'}</code>
            </p>
          </>
        ) : (
          <p className="muted">Choose a level and start a game.</p>
        )}
      </div>
      <div className="panel">
        <h2>Levels</h2>
        <ul>
          <li>
            <strong>perfect</strong> plays the exact solution (the first player wins with perfect play; as second
            player it loses only to perfect play).
          </li>
          <li>
            <strong>strong</strong> searches a few moves ahead with a threat heuristic.
          </li>
          <li>
            <strong>easy</strong> takes a win, blocks a loss, and otherwise plays at random.
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
        <h2>Play a peer on the network</h2>
        <p className="muted">
          The server runs a peer for you (a relay: browsers cannot speak UDP). It announces itself to the peers on this
          machine, or on the LAN when the server was started with <code>--lan</code>.
        </p>
        <div className="form-row">
          <label>
            Your name <input value={name} onChange={(e) => setName(e.target.value)} maxLength={32} data-testid="c4-peer-name" />
          </label>
          <button onClick={connect} data-testid="c4-peer-connect">
            Enter the lobby
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
          Your peer: <code>{address}</code>
        </p>
        {notices.map((n, i) => (
          <p key={i} className={n.level === 'error' ? 'error' : 'muted'} data-testid="c4-notice">
            {n.text}
          </p>
        ))}
        {game ? (
          <>
            <p data-testid="c4-peer-status">
              Against <strong>{game.opponent.name ?? game.opponent.key}</strong>: you are {DISC_LABEL[game.localPlayer]}.{' '}
              {game.status.kind === 'running'
                ? game.yourTurn
                  ? 'Your move.'
                  : 'Waiting for the opponent…'
                : game.status.kind === 'drawn'
                  ? 'Draw.'
                  : game.status.winner === game.localPlayer
                    ? 'You win!'
                    : 'You lose.'}
            </p>
            <Board
              moves={game.moves}
              line={game.status.kind === 'won' ? game.status.line : []}
              enabled={game.yourTurn}
              onColumn={(column) => send({ type: 'move', column })}
              testId="c4-peer-board"
            />
            {state.phase === 'playing' ? (
              <button onClick={() => send({ type: 'quit' })}>Quit the game</button>
            ) : (
              <button onClick={() => send({ type: 'lobby' })}>Back to the lobby</button>
            )}
          </>
        ) : (
          <p className="muted">{state.invitee ? `Waiting for ${state.invitee.name ?? state.invitee.key} to accept…` : 'Invite a peer or wait for an invitation.'}</p>
        )}
      </div>
      <div className="stack">
        <div className="panel">
          <h2>Invitations</h2>
          {state.invitations.length === 0 ? (
            <p className="muted">None.</p>
          ) : (
            <ul className="plain">
              {state.invitations.map((p) => (
                <li key={p.key}>
                  {p.name ?? p.key} <code>{p.key}</code>{' '}
                  <button onClick={() => send({ type: 'accept', key: p.key })} data-testid="c4-accept">
                    Accept
                  </button>{' '}
                  <button onClick={() => send({ type: 'decline', key: p.key })}>Decline</button>
                </li>
              ))}
            </ul>
          )}
        </div>
        <div className="panel">
          <h2>Lobby</h2>
          {state.lobby.length === 0 ? (
            <p className="muted">Nobody announced yet.</p>
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
                        Invite
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

function gameLabel(g: C4GameView): string {
  if (g.status === 'running') return 'running';
  if (g.status === 'drawn') return 'draw';
  if (g.status === 'aborted') return `aborted (${g.reason ?? '?'})`;
  return `${g.winner === null ? '?' : g.players[g.winner]} won`;
}

function Watch() {
  const live = useSpectator<Connect4Snapshot>('connect4', keepSnapshot);
  const [chosen, setChosen] = useState<string | null>(null);
  const s = live.snapshot;
  const games = s?.games ?? [];
  const shown = games.find((g) => g.id === chosen) ?? games.find((g) => g.status === 'running') ?? games[0];
  return (
    <div className="columns">
      <div className="panel">
        <h2>
          Live <ConnectionBadge state={live.state} retryInMs={live.retryInMs} />
        </h2>
        {shown ? (
          <>
            <p data-testid="c4-watch-title">
              <span className="c4-chip c4-chip-red" /> {shown.players[0]} vs <span className="c4-chip c4-chip-yellow" /> {shown.players[1]} — {gameLabel(shown)}
            </p>
            <Board moves={shown.moves} line={shown.line} testId="c4-watch-board" />
          </>
        ) : (
          <p className="muted">No games yet. The house bots play every few seconds when the server runs with bots.</p>
        )}
      </div>
      <div className="stack">
        <div className="panel">
          <h2>Games</h2>
          {games.length === 0 ? (
            <p className="muted">None.</p>
          ) : (
            <table className="table compact">
              <tbody>
                {games.map((g) => (
                  <tr key={g.id} onClick={() => setChosen(g.id)} className={g === shown ? 'selected' : undefined} data-testid="c4-game-row">
                    <td>{g.kind}</td>
                    <td>
                      {g.players[0]} vs {g.players[1]}
                    </td>
                    <td>{g.moves.length} moves</td>
                    <td>{gameLabel(g)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
        <div className="panel">
          <h2>Peers on this server</h2>
          {s && s.peers.length > 0 ? (
            <ul className="plain">
              {s.peers.map((p) => (
                <li key={p.address}>
                  {p.name} <span className="muted">({p.role}, {p.phase})</span> <code>{p.address}</code>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">None.</p>
          )}
          {s && (
            <p className="muted">
              House bot on UDP port {s.port}
              {s.lan ? ', LAN broadcast on' : ', loopback only'}.
            </p>
          )}
        </div>
      </div>
    </div>
  );
}

function formatScore(v: number | null): string | null {
  return v === null ? null : v > 0 ? `+${v}` : String(v);
}

/** What the Analyse view says while the server solves: how far the search has got. */
function solvingText(p: AnalyseProgressView | null): string {
  if (!p?.solving) return 'Solving…';
  const nodes = p.nodes >= 1e6 ? `${(p.nodes / 1e6).toFixed(1)} M` : `${Math.round(p.nodes / 1e3)} k`;
  const column = p.column === null ? '' : ` column ${p.column} (${p.columnsDone + 1} of ${p.columns}),`;
  return `Solving…${column} ${nodes} positions searched, ${(p.elapsedMs / 1000).toFixed(1)} s`;
}

function Analyse() {
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
    if (a.status.kind === 'won') return `${DISC_LABEL[a.status.winner]} has won.`;
    if (a.status.kind === 'drawn') return 'Draw.';
    if (a.score === null) return '';
    const side = DISC_LABEL[a.toMove];
    if (a.score === 0) return `${side} to move: a draw with perfect play.`;
    return a.score > 0 ? `${side} to move wins (score +${a.score}).` : `${side} to move loses (score ${a.score}).`;
  };

  return (
    <div className="columns">
      <div className="panel">
        <h2>Analyse a position</h2>
        <div className="form-row">
          <label>
            Moves{' '}
            <input
              value={moves}
              onChange={(e) => setMoves(e.target.value.replace(/[^1-7]/g, ''))}
              placeholder="e.g. 4453"
              data-testid="c4-analyse-moves"
            />
          </label>
          <button onClick={() => setMoves(moves.slice(0, -1))} disabled={moves === ''}>
            Undo
          </button>
          <button onClick={() => setMoves('')} disabled={moves === ''}>
            Clear
          </button>
        </div>
        <p className="muted">Click a column to play it. Under each column: its score for the side to move.</p>
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
        <p data-testid="c4-analyse-verdict">{loading ? solvingText(progress) : analysis ? verdict(analysis) : ''}</p>
        {!loading && analysis?.moves === moves && analysis.best.length > 0 && (
          <p>
            Best: <strong data-testid="c4-analyse-best">{analysis.best.join(', ')}</strong>
          </p>
        )}
      </div>
      <div className="panel">
        <h2>Scores</h2>
        <p>
          A score is from the view of the side to move with perfect play on both sides: <strong>0</strong> is a draw, a
          positive score a win, negative a loss. A win with your <em>k</em>-th stone scores 22 − <em>k</em>: the sooner,
          the higher (Pascal Pons&apos; convention).
        </p>
      </div>
    </div>
  );
}
