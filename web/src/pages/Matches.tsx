import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { getPage, query } from '../api.js';
import { OutcomeText, ScoreText } from '../components/MatchResult.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { formatDuration, formatTime, gameName } from '../format.js';
import { summarizeResult } from '../matchResult.js';
import { href, type MatchFilters } from '../router.js';
import type { HourGroup, MatchRecord, ServerInfo } from '../types.js';
import { usePolling } from '../usePolling.js';

const PAGE = 50;
const HOUR = 3_600_000;
/** Mia plays a round every few seconds: its rounds are listed per hour, not among the other games. */
const GROUPED = 'mia';

interface Listing {
  items: MatchRecord[];
  total: number | null;
  loading: boolean;
  error: string | null;
}

const statusParam = (status: string): string | undefined => (status === 'any' ? undefined : status);

/** Recorded matches, newest first: filtered by game, player and status, paged on the server. */
export function Matches({ filters }: { filters: MatchFilters }) {
  const { t } = useTranslation();
  const games = usePolling<ServerInfo[]>('/api/games', null);
  const [listing, setListing] = useState<Listing>({ items: [], total: null, loading: true, error: null });
  const [player, setPlayer] = useState(filters.player);
  const [shownPlayer, setShownPlayer] = useState(filters.player);
  if (shownPlayer !== filters.player) {
    setShownPlayer(filters.player);
    setPlayer(filters.player);
  }

  const go = (change: Partial<MatchFilters>) => {
    window.location.hash = href.matches({ ...filters, page: 1, ...change });
  };

  // Typing in the player box filters after a pause.
  useEffect(() => {
    if (player === filters.player) return;
    const timer = window.setTimeout(() => {
      window.location.hash = href.matches({ ...filters, page: 1, player: player.trim() });
    }, 400);
    return () => window.clearTimeout(timer);
  }, [player, filters]);

  const grouped = filters.game === '' || (filters.game === GROUPED && filters.hour === null);
  const url = `/api/matches${query({
    game: filters.game,
    notGame: filters.game === '' ? GROUPED : undefined,
    status: statusParam(filters.status),
    player: filters.player,
    since: filters.hour ?? undefined,
    before: filters.hour === null ? undefined : filters.hour + HOUR,
    limit: PAGE,
    offset: (filters.page - 1) * PAGE,
  })}`;

  useEffect(() => {
    const controller = new AbortController();
    setListing((l) => ({ ...l, loading: true, error: null }));
    getPage(url, controller.signal).then(
      ({ items, total }) => setListing({ items: items as MatchRecord[], total, loading: false, error: null }),
      (err: unknown) => {
        if (controller.signal.aborted) return;
        setListing({
          items: [],
          total: null,
          loading: false,
          error: err instanceof Error ? err.message : String(err),
        });
      },
    );
    return () => controller.abort();
  }, [url]);

  const gameNames = [
    ...new Set([...(games.data ?? []).map((g) => g.game), ...(filters.game === '' ? [] : [filters.game])]),
  ];
  const pages = listing.total === null ? null : Math.max(1, Math.ceil(listing.total / PAGE));

  return (
    <section className="page">
      <header className="page-header">
        <h1>{t('matches.title')}</h1>
      </header>
      <form className="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          {t('matches.game')}{' '}
          <select
            value={filters.game}
            data-testid="matches-game-filter"
            onChange={(e) => go({ game: e.target.value, hour: null })}
          >
            <option value="">{t('matches.allGames')}</option>
            {gameNames.map((g) => (
              <option key={g} value={g}>
                {gameName(g, t)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('matches.status')}{' '}
          <select
            value={filters.status}
            data-testid="matches-status-filter"
            onChange={(e) => go({ status: e.target.value })}
          >
            <option value="finished">{t('status.finished')}</option>
            <option value="aborted">{t('status.aborted')}</option>
            <option value="superseded">{t('status.superseded')}</option>
            <option value="running">{t('status.running')}</option>
            <option value="any">{t('matches.anyStatus')}</option>
          </select>
        </label>
        <label>
          {t('matches.player')}{' '}
          <input
            type="search"
            value={player}
            placeholder={t('matches.playerPlaceholder')}
            data-testid="matches-player-filter"
            onChange={(e) => setPlayer(e.target.value)}
          />
        </label>
      </form>
      {grouped && <HourGroups filters={filters} />}
      {filters.hour !== null && (
        <p data-testid="matches-hour">
          {t('matches.hourRange', {
            game: filters.game,
            from: formatTime(filters.hour),
            to: formatTime(filters.hour + HOUR),
          })}{' '}
          <a href={href.matches({ ...filters, hour: null, page: 1 })}>{t('matches.allHours')}</a>
        </p>
      )}
      {listing.error !== null && (
        <p className="error" role="alert">
          {listing.error}
        </p>
      )}
      <div className="panel">
        {filters.game === '' && (
          <h2>
            {t('matches.otherGames')}{' '}
            <span className="muted">{t('matches.groupedNote', { game: gameName(GROUPED, t) })}</span>
          </h2>
        )}
        <div className="table-scroll">
          <table className="table">
            <thead>
              <tr>
                <th>{t('matches.colMatch')}</th>
                <th>{t('matches.game')}</th>
                <th>{t('matches.started')}</th>
                <th className="num">{t('matches.duration')}</th>
                <th>{t('matches.status')}</th>
                <th>{t('matches.players')}</th>
                <th>{t('matches.result')}</th>
                <th>{t('matches.score')}</th>
                <th>{t('matches.reason')}</th>
              </tr>
            </thead>
            <tbody>
              {listing.items.map((m) => {
                const summary = summarizeResult(m);
                return (
                  <tr key={m.id} data-testid="match-row" data-match-id={m.id}>
                    <td>
                      <a href={href.match(m.id)}>
                        <code>{m.id}</code>
                      </a>
                    </td>
                    <td>{gameName(m.game, t)}</td>
                    <td>{formatTime(m.startedAt)}</td>
                    <td className="num">
                      {formatDuration(m.endedAt === null ? null : m.endedAt - m.startedAt)}
                    </td>
                    <td>
                      <StatusBadge status={m.status} />
                    </td>
                    <td data-testid="match-players">
                      {m.seats.map((s) => s.name).join(', ') || '–'}
                      {typeof (m.meta as { gameName?: unknown } | null)?.gameName === 'string' && (
                        <div className="muted" data-testid="match-game-name">
                          {(m.meta as { gameName: string }).gameName}
                        </div>
                      )}
                    </td>
                    <td data-testid="match-outcome">
                      <OutcomeText summary={summary} match={m} />
                    </td>
                    <td data-testid="match-score">
                      <ScoreText summary={summary} />
                    </td>
                    <td data-testid="match-reason">
                      {summary.reason === null ? '–' : <code>{summary.reason}</code>}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        {!listing.loading && listing.items.length === 0 && <p className="muted">{t('matches.none')}</p>}
        {listing.loading && <p className="muted">{t('common.loading')}</p>}
        <nav className="pager" aria-label={t('common.pages')}>
          {filters.page > 1 && (
            <a href={href.matches({ ...filters, page: filters.page - 1 })} data-testid="matches-prev">
              ‹ {t('matches.newer')}
            </a>
          )}
          <span data-testid="matches-page">
            {pages === null
              ? t('matches.page', { page: filters.page })
              : t('matches.pageOf', { page: filters.page, pages })}
            {listing.total !== null && ` ${t('matches.total', { count: listing.total })}`}
          </span>
          {pages !== null && filters.page < pages && (
            <a href={href.matches({ ...filters, page: filters.page + 1 })} data-testid="matches-next">
              {t('matches.older')} ›
            </a>
          )}
        </nav>
      </div>
    </section>
  );
}

const HOURS = 12;

/** Mia's rounds counted per hour, each hour a link to its rounds. */
function HourGroups({ filters }: { filters: MatchFilters }) {
  const { t } = useTranslation();
  const [limit, setLimit] = useState(HOURS);
  const hours = usePolling<HourGroup[]>(
    `/api/match-hours${query({ game: GROUPED, status: statusParam(filters.status), player: filters.player, limit: limit + 1 })}`,
    null,
  );
  const rows = hours.data ?? [];
  if (filters.game === '' && rows.length === 0) return null;
  return (
    <div className="panel" data-testid="match-hours">
      <h2>{t('matches.perHour', { game: gameName(GROUPED, t) })}</h2>
      {hours.error !== null && <p className="error">{hours.error}</p>}
      {rows.length === 0 && !hours.loading && <p className="muted">{t('matches.noRounds')}</p>}
      <div className="table-scroll">
        <table className="table compact">
          <thead>
            <tr>
              <th>{t('matches.hour')}</th>
              <th className="num">{t('matches.rounds')}</th>
              <th className="num">{t('status.finished')}</th>
              <th className="num">{t('status.aborted')}</th>
              <th className="num">{t('status.running')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.slice(0, limit).map((h) => (
              <tr key={h.hour} data-testid="match-hour-row" data-hour={h.hour}>
                <td>
                  <a href={href.matches({ ...filters, game: GROUPED, hour: h.hour, page: 1 })}>
                    {formatTime(h.hour)} – {formatTime(h.hour + HOUR).slice(11)}
                  </a>
                </td>
                <td className="num">{h.matches}</td>
                <td className="num">{h.finished}</td>
                <td className="num">{h.aborted}</td>
                <td className="num">{h.running}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows.length > limit && (
        <button type="button" onClick={() => setLimit((l) => l + HOURS)}>
          {t('matches.moreHours')}
        </button>
      )}
    </div>
  );
}
