import { Trans, useTranslation } from 'react-i18next';
import { LadderHistoryPlot } from '../components/LadderHistoryPlot.js';
import { formatTime, gameName } from '../format.js';
import {
  joinCommand,
  outcomeOf,
  serverAddress,
  signed,
  type LadderGame,
  type LadderMe,
  type LadderMyGame,
  type LossReason,
} from '../ladder.js';
import { href } from '../router.js';
import type { ServerInfo } from '../types.js';
import { usePolling } from '../usePolling.js';
import { SeasonBadge } from './Liga.js';

/** A new season's rating deviation (Glicko-2's start, src/ladder/ratings.ts GLICKO_START): the plot's first band. */
const START_RD = 350;

/**
 * A student's private Liga page (`/liga/<pageToken>`, no login: the link is the secret): their
 * codes and what to type, per game the rating with its interval and how many games until it is
 * established, its history as a plot, and every game with the reason of each loss in words and
 * a link to its replay and wire log.
 */
export function LigaMe({ token }: { token: string }) {
  const { t } = useTranslation();
  const me = usePolling<LadderMe>(`/api/ladder/me/${encodeURIComponent(token)}`, 10_000);
  const servers = usePolling<ServerInfo[]>('/api/games', null);
  const data = me.data;
  if (data === null) {
    return (
      <section className="page" data-testid="liga-me">
        <h1>{t('liga.me.title')}</h1>
        {me.error !== null ? (
          <p className="error" role="alert" data-testid="liga-me-error">
            {t('liga.me.notFound')} <code>{me.error}</code>
          </p>
        ) : (
          <p className="muted">{t('common.loading')}</p>
        )}
      </section>
    );
  }
  const { entry } = data;
  const portOf = (game: string) => servers.data?.find((s) => s.game === game)?.port ?? null;
  // Mia, Catan and Connect Four have a port of their own for the Liga.
  const ladderPortOf = (game: string) => servers.data?.find((s) => s.game === game)?.ladderPort ?? null;
  return (
    <section className="page" data-testid="liga-me">
      <header className="page-header">
        <h1 data-testid="liga-me-name">{entry.name}</h1>
        {entry.group !== '' && <span className="muted">{entry.group}</span>}
      </header>
      <p className="muted small">{t('liga.me.private')}</p>
      <div className="panel">
        <h2>{t('liga.me.codes')}</h2>
        <dl className="facts liga-codes">
          <dt>{t('liga.me.code')}</dt>
          <dd>
            <code data-testid="liga-me-code">{entry.code}</code>
          </dd>
          <dt>{t('liga.me.reservation')}</dt>
          <dd>
            <code data-testid="liga-me-reservation">{entry.reservation}</code>
          </dd>
        </dl>
        {data.games.map((g) => (
          <div key={g.game} data-testid={`liga-me-join-${g.game}`}>
            <p>
              <strong>{gameName(g.game, t)}:</strong>{' '}
              <Trans i18nKey={`liga.me.join.${joinKind(g.game)}`} components={{ code: <code /> }} />
            </p>
            <pre className="liga-command">
              {joinCommand(g.game, entry, portOf(g.game))}
              {g.game === 'dame' && `   # ${t('liga.join.server', { where: serverAddress(portOf('dame')) })}`}
              {ladderPortOf(g.game) !== null && `   # ${t('liga.join.server', { where: serverAddress(ladderPortOf(g.game)) })}`}
            </pre>
          </div>
        ))}
        <p className="muted small">{t('liga.me.keepSecret')}</p>
      </div>
      {data.games.map((g) => (
        <GamePanel key={g.game} game={g} minGames={data.minGames} />
      ))}
    </section>
  );
}

const joinKind = (game: LadderGame): string => (game === 'dame' || game === 'ostseeschach' ? game : 'name');

function GamePanel({ game: g, minGames }: { game: LadderMe['games'][number]; minGames: number }) {
  const { t } = useTranslation();
  const rating = g.rating;
  const oldest = g.games[g.games.length - 1];
  // The line starts at the rating before the first game, when every game of the season is here.
  const start =
    oldest !== undefined && g.games.length === g.history.length
      ? { rating: oldest.ratingBefore, rd: START_RD }
      : null;
  return (
    <article className="panel" data-testid={`liga-me-game-${g.game}`}>
      <header className="panel-header">
        <h2>{gameName(g.game, t)}</h2>
        <SeasonBadge season={g.season} />
      </header>
      {rating === null ? (
        <p className="muted">{t('liga.me.noGames')}</p>
      ) : (
        <dl className="facts" data-testid="liga-me-rating">
          <dt>{t('liga.standings.rating')}</dt>
          <dd>
            <strong>{Math.round(rating.rating)}</strong>{' '}
            <span className="muted">
              (
              {t('liga.me.interval', {
                low: Math.round(rating.interval[0]),
                high: Math.round(rating.interval[1]),
              })}
              )
            </span>
          </dd>
          <dt>{t('liga.standings.games')}</dt>
          <dd>{rating.games}</dd>
          <dt>{t('liga.standings.status')}</dt>
          <dd data-testid="liga-me-status">
            {rating.established
              ? t('liga.standings.established')
              : t('liga.me.provisional', { minGames, count: Math.max(0, minGames - rating.games) })}
          </dd>
        </dl>
      )}
      {g.history.length > 0 && (
        <>
          <h3>{t('liga.me.history')}</h3>
          <LadderHistoryPlot points={g.history} start={start} />
        </>
      )}
      {g.games.length > 0 && (
        <>
          <h3>{t('liga.me.games', { count: g.games.length })}</h3>
          <ul className="plain liga-my-games">
            {g.games.map((m) => (
              <MyGame key={m.id} game={g.game} m={m} />
            ))}
          </ul>
        </>
      )}
    </article>
  );
}

function MyGame({ game, m }: { game: LadderGame; m: LadderMyGame }) {
  const { t } = useTranslation();
  const outcome = outcomeOf(m.score);
  const change = m.ratingAfter - m.ratingBefore;
  return (
    <li className="liga-my-game" data-testid="liga-me-played" data-outcome={outcome}>
      <div>
        <span className={`badge liga-outcome-${outcome}`}>
          {m.players > 2 ? t('liga.me.place', { place: m.place, players: m.players }) : t(`liga.me.outcome.${outcome}`)}
        </span>{' '}
        {t('liga.me.against', { name: m.opponent })}
        {m.opponentIsHouse && <span className="muted"> ({t('liga.me.house')})</span>}{' '}
        <span
          className={change > 0 ? 'liga-up' : change < 0 ? 'liga-down' : 'muted'}
          data-testid="liga-me-change"
        >
          {signed(change)}
        </span>{' '}
        <span className="muted">
          ({m.ratingBefore} → {m.ratingAfter}) · {formatTime(m.at)}
        </span>{' '}
        {m.recordId !== null && (
          <a href={href.match(m.recordId)} data-testid="liga-me-replay">
            {t('liga.me.replay')}
          </a>
        )}
      </div>
      {m.reason !== null && <Reason game={game} reason={m.reason} />}
    </li>
  );
}

/** Why a game was lost, in words; the server's detail as it was recorded (in code). */
function Reason({ game, reason }: { game: LadderGame; reason: LossReason }) {
  const { t } = useTranslation();
  return (
    <div className="liga-reason" data-testid="liga-me-reason" data-kind={reason.kind}>
      <span>{t(`liga.reason.${reason.kind}`)}</span>
      {reason.kind !== 'played' && reason.kind !== 'crash' && reason.detail !== '' && (
        <>
          {' '}
          <code>{reason.detail}</code>
        </>
      )}
      {reason.kind === 'invalid-move' && reason.rule !== undefined && (
        <div className="small">
          {t('liga.reason.rule')} <code>{reason.rule}</code>
        </div>
      )}
      {reason.kind === 'crash' && reason.detail !== '' && (
        <>
          <div className="small">{t('liga.reason.lastOutput')}</div>
          <pre className="program-output">{reason.detail}</pre>
        </>
      )}
      {reason.kind === 'protocol' && (
        <div className="small">
          {reason.scenario !== undefined && (
            <p>
              {t('liga.reason.scenario')} <code>{reason.scenario}</code>
            </p>
          )}
          {reason.command !== undefined && (
            <>
              <p>{t('liga.reason.reproduce')}</p>
              <pre className="liga-command">{reason.command}</pre>
            </>
          )}
          <p>
            <a href={href.checkClient(game)}>{t('liga.reason.checkClient')} →</a>
          </p>
        </div>
      )}
    </div>
  );
}
