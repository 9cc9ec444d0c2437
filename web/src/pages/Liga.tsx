import { useEffect, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { formatTime, gameName } from '../format.js';
import {
  joinCommand,
  serverAddress,
  type LadderGame,
  type LadderOverview,
  type LadderStandings,
  type Season,
} from '../ladder.js';
import type { ServerInfo } from '../types.js';
import { usePolling } from '../usePolling.js';
import { LigaStaff } from './LigaStaff.js';

/**
 * Die Liga (issue 34): per game the live ladder (who waits, who plays), the standings of the
 * current season with their 95 % intervals and a CSV export, and what a student types to join.
 * With the admin token, the staff part below (LigaStaff.tsx): roster, import, codes, seasons.
 */
export function Liga() {
  const { t } = useTranslation();
  const overview = usePolling<LadderOverview>('/api/ladder', 2000);
  const servers = usePolling<ServerInfo[]>('/api/games', null);
  const data = overview.data;
  if (data === null || !data.enabled) {
    return (
      <section className="page" data-testid="liga">
        <h1>{t('liga.title')}</h1>
        {data !== null || overview.error !== null ? (
          <p className="muted" data-testid="liga-off">
            {t('liga.off')} {overview.error !== null && <code>{overview.error}</code>}
          </p>
        ) : (
          <p className="muted">{t('common.loading')}</p>
        )}
      </section>
    );
  }
  const portOf = (game: string) => servers.data?.find((s) => s.game === game)?.port ?? null;
  return (
    <section className="page" data-testid="liga">
      <header className="page-header">
        <h1>{t('liga.title')}</h1>
      </header>
      <p className="liga-intro">{t('liga.intro', { minGames: data.minGames })}</p>
      {data.games.map((g) => (
        <article key={g.game} className="panel liga-game" data-testid={`liga-game-${g.game}`}>
          <header className="panel-header">
            <h2>{gameName(g.game, t)}</h2>
            <SeasonBadge season={g.season} />
          </header>
          <Live live={g.live} />
          <Join game={g.game} port={portOf(g.game)} houseAfterMs={data.houseAfterMs} />
          {/* A new season shows its own (empty) table at once. */}
          <StandingsTable key={g.season.id} game={g.game} />
        </article>
      ))}
      <LigaStaff games={data.games} onSeason={overview.reload} />
    </section>
  );
}

export function SeasonBadge({ season }: { season: Season }) {
  const { t } = useTranslation();
  return (
    <span className="muted" data-testid="liga-season">
      {season.name}{' '}
      {season.frozenAt !== null ? (
        <span className="badge badge-stopped" data-testid="liga-season-frozen">
          {t('liga.frozen', { at: formatTime(season.frozenAt) })}
        </span>
      ) : (
        <span className="badge badge-running">{t('liga.open')}</span>
      )}
    </span>
  );
}

/** Seconds since `at`, ticking once a second (a waiting client's wait). */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, []);
  return now;
}

function Live({ live }: { live: LadderOverview['games'][number]['live'] }) {
  const { t } = useTranslation();
  const now = useNow();
  const waiting = live?.waiting ?? [];
  const playing = live?.playing ?? [];
  const seconds = (at: number) => Math.max(0, Math.round((now - at) / 1000));
  return (
    <div className="liga-live" data-testid="liga-live">
      <h3>{t('liga.live.title')}</h3>
      {waiting.length === 0 && playing.length === 0 && <p className="muted">{t('liga.live.nobody')}</p>}
      {waiting.length > 0 && (
        <p data-testid="liga-waiting">
          <strong>{t('liga.live.waiting', { count: waiting.length })}</strong>{' '}
          {waiting.map((w, i) => (
            <span key={w.entryId} className="liga-who">
              {i > 0 && ', '}
              {w.name} <span className="muted">({t('liga.live.since', { seconds: seconds(w.since) })})</span>
            </span>
          ))}
        </p>
      )}
      {playing.length > 0 && (
        <div data-testid="liga-playing">
          <strong>{t('liga.live.playing', { count: playing.length })}</strong>
          <ul className="plain">
            {playing.map((p) => (
              <li key={p.gameId}>
                {p.names.join(' – ')}{' '}
                <span className="muted">({t('liga.live.for', { seconds: seconds(p.startedAt) })})</span>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

/** What a student types, with placeholders for their codes. */
function Join({ game, port, houseAfterMs }: { game: LadderGame; port: number | null; houseAfterMs: number }) {
  const { t } = useTranslation();
  const how = game === 'dame' || game === 'ostseeschach' ? game : 'name';
  return (
    <div className="liga-join" data-testid="liga-join">
      <h3>{t('liga.join.title')}</h3>
      <p>
        <Trans i18nKey={`liga.join.${how}`} components={{ code: <code /> }} />
      </p>
      <pre className="liga-command" data-testid="liga-join-command">
        {joinCommand(game, { code: '<code>', reservation: '<reservation>' }, port)}
        {game === 'dame' && `   # ${t('liga.join.server', { where: serverAddress(port) })}`}
      </pre>
      <p className="muted small">
        {t('liga.join.whereCode')} {t('liga.join.house', { seconds: Math.round(houseAfterMs / 1000) })}
      </p>
    </div>
  );
}

function StandingsTable({ game }: { game: LadderGame }) {
  const { t } = useTranslation();
  const standings = usePolling<LadderStandings>(`/api/ladder/${game}/standings`, 5000);
  const rows = standings.data?.rows ?? [];
  return (
    <div className="liga-standings">
      <div className="panel-header">
        <h3>{t('liga.standings.title')}</h3>
        <span className="liga-exports">
          <a href={`/api/ladder/${game}/standings?format=csv`} download data-testid="liga-csv">
            {t('liga.standings.csv')}
          </a>{' '}
          <a href={`/api/ladder/${game}/standings`} download={`liga-${game}.json`} data-testid="liga-json">
            {t('liga.standings.json')}
          </a>
        </span>
      </div>
      {standings.error !== null && (
        <p className="error" role="alert">
          {standings.error}
        </p>
      )}
      {standings.data !== null && rows.length === 0 && <p className="muted">{t('liga.standings.none')}</p>}
      {rows.length > 0 && (
        <div className="table-scroll">
          <table className="table liga-table" data-testid="liga-standings">
            <thead>
              <tr>
                <th className="num">{t('liga.standings.place')}</th>
                <th>{t('liga.standings.name')}</th>
                <th>{t('liga.standings.group')}</th>
                <th className="num">{t('liga.standings.rating')}</th>
                <th className="num">{t('liga.standings.interval')}</th>
                <th className="num">{t('liga.standings.games')}</th>
                <th>{t('liga.standings.status')}</th>
                <th className="num">{t('liga.standings.wdl')}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.name} data-testid="liga-standings-row" data-name={r.name}>
                  <td className="num">{r.place}</td>
                  <td>{r.name}</td>
                  <td>{r.group}</td>
                  <td className="num" data-testid="liga-rating">
                    {r.rating}
                  </td>
                  <td className="num muted">
                    {r.low}–{r.high}
                  </td>
                  <td className="num">{r.games}</td>
                  <td>
                    {r.established ? (
                      t('liga.standings.established')
                    ) : (
                      <span
                        className="muted"
                        title={t('liga.provisionalUntil', { minGames: standings.data?.minGames ?? 0 })}
                      >
                        {t('liga.standings.provisional')}
                      </span>
                    )}
                  </td>
                  <td className="num">
                    {r.wins}/{r.draws}/{r.losses}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
