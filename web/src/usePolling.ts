import { useCallback, useEffect, useState } from 'react';
import { getJson } from './api.js';

export interface Polled<T> {
  data: T | null;
  error: string | null;
  loading: boolean;
  /** When `data` was loaded (ms since epoch), 0 before. */
  loadedAt: number;
  reload: () => void;
}

/**
 * Fetches `url` now and then every `intervalMs` (null: once); keeps the last good data on errors.
 * `auth`: send the dashboard's token with the GET (staff reads).
 */
export function usePolling<T>(url: string | null, intervalMs: number | null, auth = false): Polled<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(url !== null);
  const [loadedAt, setLoadedAt] = useState(0);
  const [tick, setTick] = useState(0);
  const [shownUrl, setShownUrl] = useState(url);

  // A new url shows nothing stale: reset during render (React's "adjust state on prop change").
  if (shownUrl !== url) {
    setShownUrl(url);
    setData(null);
    setError(null);
    setLoading(url !== null);
  }

  useEffect(() => {
    if (url === null) return;
    const controller = new AbortController();
    let timer: number | undefined;
    const load = async () => {
      try {
        const value = await getJson<T>(url, controller.signal, auth);
        setData(value);
        setLoadedAt(Date.now());
        setError(null);
      } catch (err) {
        if (controller.signal.aborted) return;
        setError(err instanceof Error ? err.message : String(err));
      } finally {
        if (!controller.signal.aborted) {
          setLoading(false);
          if (intervalMs !== null) timer = window.setTimeout(() => void load(), intervalMs);
        }
      }
    };
    void load();
    return () => {
      controller.abort();
      window.clearTimeout(timer);
    };
  }, [url, intervalMs, tick, auth]);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, loading, loadedAt, reload };
}
