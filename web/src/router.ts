import { useEffect, useState } from 'react';

/**
 * A hash router small enough to read: #/, #/matches[?game=&status=&player=&hour=&page=],
 * #/matches/<id>, #/<game>, #/<game>/check-client, #/tournaments[?offset=], #/tournaments/<id>[/entrants/<name>],
 * #/liga, #/liga/<pageToken> (a student's private page; the server's link `/liga/<pageToken>` is
 * turned into this one by `adoptPathRoute`).
 */

/** The Matches page's filters; `status` 'any' lists every status, `hour` is an hour's start (ms). */
export interface MatchFilters {
  game: string;
  status: string;
  player: string;
  hour: number | null;
  page: number;
}

export const DEFAULT_FILTERS: MatchFilters = {
  game: '',
  status: 'finished',
  player: '',
  hour: null,
  page: 1,
};

export type Route =
  | { page: 'overview' }
  | { page: 'matches'; filters: MatchFilters }
  | { page: 'match'; id: string }
  | { page: 'live'; game: string }
  | { page: 'check-client'; game: string }
  | { page: 'tournaments'; offset: number }
  | { page: 'tournament'; id: string }
  | { page: 'entrant'; id: string; name: string }
  | { page: 'liga' }
  | { page: 'liga-me'; token: string }
  | { page: 'not-found'; path: string };

export function parseRoute(hash: string): Route {
  const [rawPath = '', search = ''] = hash.replace(/^#/, '').split('?', 2);
  const path = rawPath.replace(/^\/+/, '').replace(/\/+$/, '');
  const params = new URLSearchParams(search);
  if (path === '') return { page: 'overview' };
  const parts = path.split('/').map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  if (parts[0] === 'matches' && parts.length === 1) {
    const hour = Number(params.get('hour') ?? '');
    const page = Number(params.get('page') ?? '');
    return {
      page: 'matches',
      filters: {
        game: params.get('game') ?? '',
        status: params.get('status') ?? DEFAULT_FILTERS.status,
        player: params.get('player') ?? '',
        hour: params.has('hour') && Number.isSafeInteger(hour) && hour >= 0 ? hour : null,
        page: Number.isSafeInteger(page) && page >= 1 ? page : 1,
      },
    };
  }
  if (parts[0] === 'matches' && parts.length === 2 && parts[1]) return { page: 'match', id: parts[1] };
  if (parts[0] === 'tournaments') {
    const offset = Number(params.get('offset') ?? '');
    if (parts.length === 1)
      return { page: 'tournaments', offset: Number.isSafeInteger(offset) && offset > 0 ? offset : 0 };
    if (parts.length === 2 && parts[1]) return { page: 'tournament', id: parts[1] };
    if (parts.length === 4 && parts[1] && parts[2] === 'entrants' && parts[3])
      return { page: 'entrant', id: parts[1], name: parts[3] };
  }
  if (parts[0] === 'liga' && parts.length === 1) return { page: 'liga' };
  if (parts[0] === 'liga' && parts.length === 2 && parts[1]) return { page: 'liga-me', token: parts[1] };
  if (parts.length === 1 && parts[0] && /^[a-z0-9_-]+$/i.test(parts[0]))
    return { page: 'live', game: parts[0] };
  if (parts.length === 2 && parts[0] && /^[a-z0-9_-]+$/i.test(parts[0]) && parts[1] === 'check-client')
    return { page: 'check-client', game: parts[0] };
  return { page: 'not-found', path };
}

export const href = {
  overview: '#/',
  /** The Matches page of one game (a string) or with these filters (defaults left out). */
  matches: (filters: string | Partial<MatchFilters> = {}) => {
    const f = { ...DEFAULT_FILTERS, ...(typeof filters === 'string' ? { game: filters } : filters) };
    const params = new URLSearchParams();
    if (f.game !== '') params.set('game', f.game);
    if (f.status !== DEFAULT_FILTERS.status) params.set('status', f.status);
    if (f.player !== '') params.set('player', f.player);
    if (f.hour !== null) params.set('hour', String(f.hour));
    if (f.page > 1) params.set('page', String(f.page));
    const text = params.toString();
    return text === '' ? '#/matches' : `#/matches?${text}`;
  },
  match: (id: string) => `#/matches/${encodeURIComponent(id)}`,
  live: (game: string) => `#/${encodeURIComponent(game)}`,
  checkClient: (game: string) => `#/${encodeURIComponent(game)}/check-client`,
  tournaments: (offset = 0) => (offset > 0 ? `#/tournaments?offset=${offset}` : '#/tournaments'),
  tournament: (id: string) => `#/tournaments/${encodeURIComponent(id)}`,
  entrant: (id: string, name: string) =>
    `#/tournaments/${encodeURIComponent(id)}/entrants/${encodeURIComponent(name)}`,
  liga: '#/liga',
};

/**
 * The ladder hands out a student's page as a path (`/liga/<pageToken>`, which the server answers
 * with the dashboard): in the address bar that becomes `/#/liga/<pageToken>`, the hash route, before
 * the first render.
 */
export function adoptPathRoute(): void {
  const { pathname, hash, search } = window.location;
  if (hash !== '' && hash !== '#') return;
  if (!/^\/liga(\/[A-Za-z0-9_-]+)?\/?$/.test(pathname)) return;
  window.history.replaceState(window.history.state, '', `/${search}#${pathname.replace(/\/$/, '')}`);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
