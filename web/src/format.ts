/** Display helpers: times, durations, compact JSON. */

export function formatTime(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function formatDuration(ms: number | null): string {
  if (ms === null) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${minutes} min ${seconds} s`;
}

/** `+1.234 s` relative to `from`. */
export function formatOffset(at: number, from: number): string {
  const ms = at - from;
  return `${ms < 0 ? '−' : '+'}${(Math.abs(ms) / 1000).toFixed(3)} s`;
}

/** JSON on one line, cut to `max` characters. */
export function compactJson(value: unknown, max = 120): string {
  if (value === null || value === undefined) return '';
  let text: string;
  try {
    text = typeof value === 'string' ? value : JSON.stringify(value);
  } catch {
    text = '(not serializable)';
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const GAMES = new Set(['catan', 'mia', 'connect4', 'dame', 'ostseeschach']);

/** A game the dashboard has names (and a protocol line) for in both languages. */
export const isKnownGame = (game: string): boolean => GAMES.has(game);

const FORMATS = new Set(['round-robin', 'swiss', 'seatings', 'tables']);

/** A tournament format in the reader's language (`round-robin`: „Jeder gegen jeden“); an unknown one as it is. */
export function formatName(format: string, t: (key: string) => string): string {
  return FORMATS.has(format) ? t(`tournamentFormat.${format}`) : format;
}

/** A game's name in the reader's language (`gameName.<id>`); an id the dashboard does not know stays as it is. */
export function gameName(game: string, t: (key: string) => string): string {
  return GAMES.has(game) ? t(`gameName.${game}`) : game;
}
