import { useCallback, useEffect, useState } from 'react';
import { getJson, query } from '../api.js';
import { CompactJson } from '../components/Json.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { formatDuration, formatTime } from '../format.js';
import { href } from '../router.js';
import type { MatchRecord, MatchStatus, ServerInfo } from '../types.js';
import { usePolling } from '../usePolling.js';

const PAGE = 50;
type StatusFilter = MatchStatus | '';

interface Listing {
  items: MatchRecord[];
  loading: boolean;
  error: string | null;
  more: boolean;
}

/** Recorded matches, newest first, filtered by game and status, paged with "load more". */
export function Matches({ game }: { game: string }) {
  const games = usePolling<ServerInfo[]>('/api/games', null);
  const [status, setStatus] = useState<StatusFilter>('finished');
  const [listing, setListing] = useState<Listing>({ items: [], loading: true, error: null, more: false });

  const load = useCallback(
    async (before: number | undefined, signal?: AbortSignal) => {
      setListing((l) => ({ ...l, loading: true, error: null }));
      try {
        const page = await getJson<MatchRecord[]>(
          `/api/matches${query({ game, status, limit: PAGE, before })}`,
          signal,
        );
        setListing((l) => ({
          items: before === undefined ? page : [...l.items, ...page],
          loading: false,
          error: null,
          more: page.length === PAGE,
        }));
      } catch (err) {
        if (signal?.aborted) return;
        setListing((l) => ({
          ...l,
          loading: false,
          error: err instanceof Error ? err.message : String(err),
        }));
      }
    },
    [game, status],
  );

  useEffect(() => {
    const controller = new AbortController();
    setListing({ items: [], loading: true, error: null, more: false });
    void load(undefined, controller.signal);
    return () => controller.abort();
  }, [load]);

  const last = listing.items[listing.items.length - 1];
  const gameNames = [...new Set([...(games.data ?? []).map((g) => g.game), ...(game === '' ? [] : [game])])];

  return (
    <section className="page">
      <header className="page-header">
        <h1>Matches</h1>
        <label>
          Game{' '}
          <select
            value={game}
            data-testid="matches-game-filter"
            onChange={(e) => {
              window.location.hash = href.matches(e.target.value);
            }}
          >
            <option value="">all games</option>
            {gameNames.map((g) => (
              <option key={g} value={g}>
                {g}
              </option>
            ))}
          </select>
        </label>
        <label>
          Status{' '}
          <select
            value={status}
            data-testid="matches-status-filter"
            onChange={(e) => setStatus(e.target.value as StatusFilter)}
          >
            <option value="finished">finished</option>
            <option value="aborted">aborted</option>
            <option value="running">running</option>
            <option value="">any</option>
          </select>
        </label>
      </header>
      {listing.error !== null && (
        <p className="error" role="alert">
          {listing.error}
        </p>
      )}
      <div className="panel">
        <table className="table">
          <thead>
            <tr>
              <th>Match</th>
              <th>Game</th>
              <th>Started</th>
              <th className="num">Duration</th>
              <th>Status</th>
              <th>Seats</th>
              <th>Result</th>
            </tr>
          </thead>
          <tbody>
            {listing.items.map((m) => (
              <tr key={m.id} data-testid="match-row" data-match-id={m.id}>
                <td>
                  <a href={href.match(m.id)}>
                    <code>{m.id}</code>
                  </a>
                </td>
                <td>{m.game}</td>
                <td>{formatTime(m.startedAt)}</td>
                <td className="num">{formatDuration(m.endedAt === null ? null : m.endedAt - m.startedAt)}</td>
                <td>
                  <StatusBadge status={m.status} />
                </td>
                <td>{m.seats.map((s) => s.name).join(', ') || '–'}</td>
                <td>
                  <CompactJson value={m.result} max={80} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {!listing.loading && listing.items.length === 0 && <p className="muted">No matches recorded.</p>}
        {listing.loading && <p className="muted">Loading…</p>}
        {listing.more && !listing.loading && last && (
          <button type="button" data-testid="matches-load-more" onClick={() => void load(last.startedAt)}>
            Load more
          </button>
        )}
      </div>
    </section>
  );
}
