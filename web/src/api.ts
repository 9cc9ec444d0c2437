/** Small fetch helpers: JSON in, an Error with the server's `{error}` text out. */

const TOKEN_KEY = 'spielhalle.token';

/**
 * The dashboard token (docs/operations.md, "Exposing the server"): a server that listens beyond
 * loopback prints its URL with `?token=…`; opened once, the token is kept in localStorage and
 * taken out of the address bar. Every state-changing request sends it.
 */
function readToken(): string | null {
  try {
    const url = new URL(window.location.href);
    const given = url.searchParams.get('token');
    if (given) {
      window.localStorage.setItem(TOKEN_KEY, given);
      url.searchParams.delete('token');
      window.history.replaceState(window.history.state, '', url.toString());
      return given;
    }
    return window.localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

const token = readToken();

/** Whether this dashboard holds a token (staff opened it with `?token=…` once): staff parts show then. */
export const hasToken = (): boolean => token !== null;

const authorization = (): Record<string, string> => (token === null ? {} : { authorization: `Bearer ${token}` });

/** A WebSocket URL with the token as `token=` (browsers cannot set headers on a WebSocket). */
export function withToken(url: string): string {
  if (token === null) return url;
  return `${url}${url.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`;
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    /** The answer's JSON body (e.g. a list of `errors`), null when it had none. */
    readonly body: unknown = null,
  ) {
    super(message);
  }
}

/** A GET; `auth` sends the token too (staff reads such as the ladder's roster, which holds codes). */
export async function getJson<T>(url: string, signal?: AbortSignal, auth = false): Promise<T> {
  const response = await fetch(url, {
    headers: { accept: 'application/json', ...(auth ? authorization() : {}) },
    ...(signal ? { signal } : {}),
  });
  return readJson<T>(response);
}

/** POSTs `body` as JSON; the answer as getJson reads it. */
export async function postJson<T>(url: string, body: unknown = {}): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      accept: 'application/json',
      'content-type': 'application/json',
      ...authorization(),
    },
    body: JSON.stringify(body),
  });
  return readJson<T>(response);
}

async function readJson<T>(response: Response): Promise<T> {
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    // Not JSON (a proxy error page, say): reported below with the status.
  }
  if (!response.ok) {
    const message =
      typeof body === 'object' && body !== null && 'error' in body && typeof body.error === 'string'
        ? body.error
        : `${response.status} ${response.statusText}`;
    throw new ApiError(message, response.status, body);
  }
  return body as T;
}

/** A query string from the defined values only. */
export function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/** A GET of a listing whose total (before paging) the server sends in `x-total-count`. */
export async function getPage(
  url: string,
  signal?: AbortSignal,
): Promise<{ items: unknown; total: number | null }> {
  const response = await fetch(url, {
    headers: { accept: 'application/json' },
    ...(signal ? { signal } : {}),
  });
  const items = await readJson<unknown>(response);
  const total = Number(response.headers.get('x-total-count') ?? 'NaN');
  return { items, total: Number.isSafeInteger(total) ? total : null };
}
