import type { MiaPlayerRow, MiaRoundRow, MiaSnapshot } from '../../../../src/games/mia/snapshot.js';
import { Trans, useTranslation } from 'react-i18next';
import { Dice } from '../../components/Dice.js';
import { ConnectionBadge } from '../../components/StatusBadge.js';
import { href } from '../../router.js';
import { useSpectator } from '../../useSpectator.js';
import { applyMiaEvent } from './reduce.js';

/** Mäxchen live: the table as any spectator sees it, following /ws/spectate?game=mia. */
export function MiaLive() {
  const { t } = useTranslation();
  const live = useSpectator<MiaSnapshot>('mia', applyMiaEvent);
  const s = live.snapshot;
  return (
    <section className="page">
      <header className="page-header">
        <h1>{t('mia.title')}</h1>
        <ConnectionBadge state={live.state} retryInMs={live.retryInMs} />
        {s && (
          <span className="muted">
            <Trans
              i18nKey="mia.summary"
              values={{ port: s.port, rounds: s.roundsPlayed }}
              components={{ n: <span data-testid="mia-rounds-played" /> }}
            />
          </span>
        )}
      </header>
      {live.state === 'unknown-game' && <p className="error">{t('mia.notHere')}</p>}
      {!s && live.state !== 'unknown-game' && <p className="muted">{t('common.waitingSnapshot')}</p>}
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
  const { t } = useTranslation();
  if (!round) {
    return (
      <div className="panel" data-testid="mia-round">
        <h2>{t('mia.currentRound')}</h2>
        <p className="muted">{t('mia.waitingRound')}</p>
      </div>
    );
  }
  return (
    <div className="panel" data-testid="mia-round">
      <h2>
        {t('mia.round')} <span data-testid="mia-round-number">{round.number}</span>{' '}
        <span className={`badge badge-phase-${round.phase}`} data-testid="mia-round-phase">
          {t(`mia.phase.${round.phase}`)}
        </span>
      </h2>
      <h3>{t('mia.turnOrder')}</h3>
      {round.players.length === 0 ? (
        <p className="muted">{t('mia.joinWindow')}</p>
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
      <h3>{t('mia.announcements')}</h3>
      {round.announcements.length === 0 ? (
        <p className="muted">{t('mia.noneYet')}</p>
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
          {t('mia.actualDice')} <Dice dice={round.actual} />{' '}
          <code data-testid="mia-actual">{round.actual}</code>
        </p>
      )}
      {round.losers.length > 0 && (
        <p>
          {t('mia.lost')} <strong>{round.losers.join(', ')}</strong>{' '}
          {round.reason !== null && <code>{round.reason}</code>}
        </p>
      )}
      <h3>{t('mia.publicLog')}</h3>
      {round.log.length === 0 ? (
        <p className="muted">{t('mia.nothingSent')}</p>
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
  const { t } = useTranslation();
  const sorted = [...players].sort(byPoints);
  return (
    <div className="panel">
      <h2>{t('mia.leaderboard')}</h2>
      {sorted.length === 0 ? (
        <p className="muted">{t('mia.noScores')}</p>
      ) : (
        <table className="table compact">
          <thead>
            <tr>
              <th className="num">#</th>
              <th>{t('mia.player')}</th>
              <th className="num">{t('mia.points')}</th>
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
  const { t } = useTranslation();
  return (
    <div className="panel">
      <h2>{t('mia.spectators')}</h2>
      {names.length === 0 ? (
        <p className="muted">{t('mia.noneRegistered')}</p>
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
  const { t } = useTranslation();
  return (
    <div className="panel">
      <h2>{t('matches.players')}</h2>
      {players.length === 0 ? (
        <p className="muted">{t('mia.noPlayers')}</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>{t('match.name')}</th>
              <th className="num">{t('mia.points')}</th>
              <th>{t('mia.registered')}</th>
              <th>{t('overview.address')}</th>
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
                <td>{p.registered ? t('common.yes') : t('mia.scoreOnly')}</td>
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
  const { t } = useTranslation();
  return (
    <div className="panel">
      <h2>{t('mia.recentRounds')}</h2>
      {rounds.length === 0 ? (
        <p className="muted">{t('mia.noRoundYet')}</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th className="num">{t('mia.round')}</th>
              <th>{t('matches.players')}</th>
              <th>{t('mia.lostColumn')}</th>
              <th>{t('matches.reason')}</th>
              <th>{t('mia.record')}</th>
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
                <td>
                  {r.matchId !== null ? <a href={href.match(r.matchId)}>{t('common.details')}</a> : '–'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
