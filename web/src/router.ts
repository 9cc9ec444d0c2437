import { useEffect, useState } from 'react';

/** A hash router small enough to read: #/, #/matches[?game=<game>], #/matches/<id>, #/<game>. */
export type Route =
  | { page: 'overview' }
  | { page: 'matches'; game: string }
  | { page: 'match'; id: string }
  | { page: 'live'; game: string }
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
  if (parts[0] === 'matches' && parts.length === 1)
    return { page: 'matches', game: params.get('game') ?? '' };
  if (parts[0] === 'matches' && parts.length === 2 && parts[1]) return { page: 'match', id: parts[1] };
  if (parts.length === 1 && parts[0] && /^[a-z0-9_-]+$/i.test(parts[0]))
    return { page: 'live', game: parts[0] };
  return { page: 'not-found', path };
}

export const href = {
  overview: '#/',
  matches: (game = '') => (game === '' ? '#/matches' : `#/matches?game=${encodeURIComponent(game)}`),
  match: (id: string) => `#/matches/${encodeURIComponent(id)}`,
  live: (game: string) => `#/${encodeURIComponent(game)}`,
};

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
