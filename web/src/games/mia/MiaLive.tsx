import type { MiaPlayerRow, MiaRoundRow, MiaSnapshot } from '../../../../src/games/mia/snapshot.js';
import { Dice } from '../../components/Dice.js';
import { ConnectionBadge } from '../../components/StatusBadge.js';
import { href } from '../../router.js';
import { useSpectator } from '../../useSpectator.js';
import { applyMiaEvent } from './reduce.js';

/** Mäxchen live: the table as any spectator sees it, following /ws/spectate?game=mia. */
export function MiaLive() {
  const live = useSpectator<MiaSnapshot>('mia', applyMiaEvent);
  const s = live.snapshot;
  return (
    <section className="page">
      <header className="page-header">
        <h1>Mäxchen (Mia) — live</h1>
        <ConnectionBadge state={live.state} retryInMs={live.retryInMs} />
        {s && (
          <span className="muted">
            UDP port {s.port} · <span data-testid="mia-rounds-played">{s.roundsPlayed}</span> rounds played
          </span>
        )}
      </header>
      {live.state === 'unknown-game' && <p className="error">This server does not run Mia.</p>}
      {!s && live.state !== 'unknown-game' && <p className="muted">Waiting for the first snapshot…</p>}
      {s && (
        <>
          <div className="columns">
            <CurrentRound round={s.round} />
            <div className="stack">
              <Leaderboard players={s.players} />
              <Spectators names={s.spectators} />
            </div>
          </div>
          <Players players={s.players} />
          <RecentRounds rounds={s.recent} />
        </>
      )}
    </section>
  );
}

function CurrentRound({ round }: { round: MiaRoundRow | null }) {
  if (!round) {
    return (
      <div className="panel" data-testid="mia-round">
        <h2>Current round</h2>
        <p className="muted">Waiting for the next round…</p>
      </div>
    );
  }
  return (
    <div className="panel" data-testid="mia-round">
      <h2>
        Round <span data-testid="mia-round-number">{round.number}</span>{' '}
        <span className={`badge badge-phase-${round.phase}`} data-testid="mia-round-phase">
          {round.phase}
        </span>
      </h2>
      <h3>Turn order</h3>
      {round.players.length === 0 ? (
        <p className="muted">Join window open…</p>
      ) : (
        <ol className="turn-order">
          {round.players.map((name) => (
            <li
              key={name}
              className={name === round.toAct ? 'to-act' : undefined}
              aria-current={name === round.toAct ? 'true' : undefined}
              data-testid={`mia-turn-${name}`}
            >
              {name}
            </li>
          ))}
        </ol>
      )}
      <h3>Announcements</h3>
      {round.announcements.length === 0 ? (
        <p className="muted">None yet.</p>
      ) : (
        <ol className="announcements">
          {round.announcements.map((a, i) => (
            <li key={i} data-testid="mia-announcement" data-dice={a.dice}>
              <span className="who">{a.name}</span> <Dice dice={a.dice} /> <code>{a.dice}</code>
            </li>
          ))}
        </ol>
      )}
      {round.actual !== null && (
        <p>
          Actual dice: <Dice dice={round.actual} /> <code data-testid="mia-actual">{round.actual}</code>
        </p>
      )}
      {round.losers.length > 0 && (
        <p>
          Lost: <strong>{round.losers.join(', ')}</strong>{' '}
          {round.reason !== null && <code>{round.reason}</code>}
        </p>
      )}
      <h3>Public log</h3>
      {round.log.length === 0 ? (
        <p className="muted">Nothing sent yet.</p>
      ) : (
        <ol className="line-log" data-testid="mia-log">
          {round.log.map((line, i) => (
            <li key={i} data-testid="mia-log-line">
              {line}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

const byPoints = (a: MiaPlayerRow, b: MiaPlayerRow): number =>
  b.points - a.points || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function Leaderboard({ players }: { players: MiaPlayerRow[] }) {
  const sorted = [...players].sort(byPoints);
  return (
    <div className="panel">
      <h2>Leaderboard</h2>
      {sorted.length === 0 ? (
        <p className="muted">No scores yet.</p>
      ) : (
        <table className="table compact">
          <thead>
            <tr>
              <th className="num">#</th>
              <th>Player</th>
              <th className="num">Points</th>
            </tr>
          </thead>
          <tbody>
            {sorted.map((p, i) => (
              <tr key={p.name} data-testid="mia-leader-row">
                <td className="num">{i + 1}</td>
                <td>{p.name}</td>
                <td className="num">{p.points}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function Spectators({ names }: { names: string[] }) {
  return (
    <div className="panel">
      <h2>Spectators</h2>
      {names.length === 0 ? (
        <p className="muted">None registered.</p>
      ) : (
        <ul className="chips" data-testid="mia-spectators">
          {names.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

function Players({ players }: { players: MiaPlayerRow[] }) {
  return (
    <div className="panel">
      <h2>Players</h2>
      {players.length === 0 ? (
        <p className="muted">No player has registered yet.</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>Name</th>
              <th className="num">Points</th>
              <th>Registered</th>
              <th>Address</th>
            </tr>
          </thead>
          <tbody>
            {players.map((p) => (
              <tr
                key={p.name}
                data-testid={`mia-player-row-${p.name}`}
                className={p.registered ? undefined : 'dim'}
              >
                <td>{p.name}</td>
                <td className="num">{p.points}</td>
                <td>{p.registered ? 'yes' : 'no (score only)'}</td>
                <td>
                  <code>{p.address ?? '–'}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function RecentRounds({ rounds }: { rounds: MiaRoundRow[] }) {
  return (
    <div className="panel">
      <h2>Recent rounds</h2>
      {rounds.length === 0 ? (
        <p className="muted">No round finished yet.</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th className="num">Round</th>
              <th>Players</th>
              <th>Lost</th>
              <th>Reason</th>
              <th>Record</th>
            </tr>
          </thead>
          <tbody>
            {rounds.map((r) => (
              <tr key={r.number} data-testid="mia-recent-row">
                <td className="num">{r.number}</td>
                <td>{r.players.join(', ') || '–'}</td>
                <td>{r.losers.join(', ') || '–'}</td>
                <td>
                  <code>{r.reason ?? '–'}</code>
                </td>
                <td>{r.matchId !== null ? <a href={href.match(r.matchId)}>details</a> : '–'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
