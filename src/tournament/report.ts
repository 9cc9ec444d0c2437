import type { TournamentMatchRecord, TournamentRecord } from '../core/records.js';
import type { TournamentProgress } from './coordinator.js';
import type { MatchResult, Standings } from './standings.js';

/** How the CLI shows a tournament: progress lines, match lines, the standings table. Pure text. */

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** One line for a finished match: `anna beat bert (reason)`, `anna drew with bert`, placings, a bye. */
export function describeResult(r: MatchResult): string {
  const reason = r.reason === undefined || r.reason === '' ? '' : ` (${r.reason})`;
  const [a, b] = r.seats;
  if (a === undefined) return `empty match${reason}`;
  if (b === undefined) return r.reason === 'bye' ? `${a.name} has a bye` : `${a.name} alone${reason}`;
  if (r.seats.length === 2 && a.outcome !== undefined) {
    if (a.outcome === 'draw') return `${a.name} drew with ${b.name}${reason}`;
    const [winner, loser] = a.outcome === 'win' ? [a, b] : [b, a];
    return `${winner.name} beat ${loser.name}${reason}`;
  }
  const placed = [...r.seats].sort((x, y) => (x.placing ?? Infinity) - (y.placing ?? Infinity));
  return `${placed.map((s) => `${s.placing ?? '?'}. ${s.name}`).join(', ')}${reason}`;
}

/** The plain (not a terminal) line after each finished match: `[12/56] 1-3 anna beat bert (reason) · leader anna`. */
export function matchLine(p: TournamentProgress): string | null {
  if (p.finished === undefined) return null;
  return `[${p.done}/${p.total}] ${p.finished.id} ${describeResult(p.finished)}${p.leader === null ? '' : ` · leader ${p.leader}`}`;
}

/** The terminal's redrawn line: bar, done/total, matches per minute, ETA, leader. */
export function progressLine(p: TournamentProgress, width = 24): string {
  const share = p.total > 0 ? Math.min(1, p.done / p.total) : 0;
  const full = Math.round(share * width);
  const bar = `[${'#'.repeat(full)}${'.'.repeat(width - full)}]`;
  const eta = p.etaMs === null ? 'ETA –' : `ETA ${formatDuration(p.etaMs)}`;
  const parts = [
    `${bar} ${p.done}/${p.total}`,
    `${p.perMinute.toFixed(1)}/min`,
    formatDuration(p.elapsedMs),
    eta,
    `running ${p.running.length}`,
    ...(p.leader === null ? [] : [`leader ${p.leader}`]),
  ];
  return parts.join('  ');
}

function round(x: number): string {
  return Number.isFinite(x) ? String(Math.round(x)) : '–';
}

function table(rows: readonly (readonly string[])[], rightAligned: ReadonlySet<number>): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) => (rightAligned.has(i) ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** The standings as a text table: rank, name, rating [low–high], Elo, games, W/D/L or placings, points, crashes, timeouts. */
export function formatStandings(s: Standings): string {
  const multi = s.method === 'openskill';
  const header = [
    '#',
    'name',
    'rating',
    '95 %',
    ...(multi ? [] : ['Elo']),
    'games',
    multi ? 'placings' : 'W/D/L',
    'points',
    'crashes',
    'timeouts',
  ];
  const rows = s.rows.map((r) => [
    String(r.rank),
    r.name,
    multi ? r.rating.toFixed(1) : round(r.rating),
    multi ? `[${r.low.toFixed(1)}–${r.high.toFixed(1)}]` : `[${round(r.low)}–${round(r.high)}]`,
    ...(multi ? [] : [round(r.elo ?? Number.NaN)]),
    String(r.games),
    multi ? r.placings.join('/') : `${r.wins}/${r.draws}/${r.losses}`,
    String(Math.round(r.points * 100) / 100),
    String(r.crashes),
    String(r.timeouts),
  ]);
  const right = new Set(multi ? [0, 2, 4, 6, 7, 8] : [0, 2, 4, 5, 7, 8, 9]);
  const legend = multi
    ? 'rating: OpenSkill μ with μ ± 1.96 σ'
    : 'rating: Bradley–Terry (Elo scale) with its 95 % interval; Elo: sequential';
  return `${table([header, ...rows], right)}\n${legend}\n`;
}

/** `tournament status`: what it is, how far, and what is being played now. */
export function formatStatus(
  t: TournamentRecord,
  running: readonly TournamentMatchRecord[],
  leader: string | null,
  now = Date.now(),
): string {
  const lines = [
    `tournament ${t.id}: ${t.name} (${t.game}, ${t.format})`,
    // The note only where it adds something: never "stopped (stopped)".
    `status:   ${t.status}${t.note === null || t.note === '' || t.note === t.status ? '' : ` (${t.note})`}`,
    `progress: ${t.done}/${t.total} matches done${t.total > 0 ? ` (${Math.floor((100 * t.done) / t.total)} %)` : ''}`,
    `leader:   ${leader ?? '–'}`,
    `created:  ${new Date(t.createdAt).toISOString()}, last change ${new Date(t.updatedAt).toISOString()}`,
  ];
  if (t.finishedAt !== null) lines.push(`ended:    ${new Date(t.finishedAt).toISOString()}`);
  if (running.length > 0) {
    lines.push(`running:`);
    for (const m of running) {
      const since = m.startedAt === null ? '' : ` for ${formatDuration(now - m.startedAt)}`;
      lines.push(`  ${m.id}  ${m.seats.join(' vs ')}${since} on ${m.worker ?? '?'} (attempt ${m.attempts})`);
    }
  }
  return lines.join('\n') + '\n';
}
