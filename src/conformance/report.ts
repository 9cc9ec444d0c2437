import type { WireEntry } from '../core/conformance.js';
import type { ScenarioResult } from './runner.js';

/**
 * The check-client report in three forms: terminal text (one line per scenario, then each failure
 * with its rule, wire excerpt and hint), JSON, and JUnit XML (a testsuite per game, a testcase per
 * scenario) for a student's CI.
 */

export interface Summary {
  game: string;
  passed: number;
  failed: number;
  errors: number;
  /** Not run (fail fast: the first scenarios all failed the same way). */
  skipped: number;
  /** Warnings over all scenarios (deviations the spec tells the other side to tolerate). */
  warnings: number;
  total: number;
}

export function summarize(game: string, results: readonly ScenarioResult[]): Summary {
  const count = (s: ScenarioResult['status']): number => results.filter((r) => r.status === s).length;
  return { game, passed: count('pass'), failed: count('fail'), errors: count('error'), skipped: count('skipped'), warnings: results.reduce((n, r) => n + r.warnings.length, 0), total: results.length };
}

const MARK: Record<ScenarioResult['status'], string> = { pass: 'pass ', fail: 'FAIL ', error: 'ERROR', skipped: 'skip ' };

/** A wire entry with its group (src/conformance/wire.ts WireLogEntry): lines of one write, read or datagram share `write`. */
type GroupedEntry = WireEntry & { write?: number; pieces?: number };

/** Where an entry stands in its group of one write/read: alone, first, inside, last. */
export type GroupMark = 'single' | 'first' | 'middle' | 'last';
const GROUP_MARK: Record<GroupMark, string> = { single: ' ', first: '┌', middle: '│', last: '└' };

/**
 * The group marks of a run of entries: consecutive lines of the same direction that went out in
 * one write (or came in one read or datagram) are `first` … `last`; a line alone in its write is `single`.
 */
export function groupMarks(entries: readonly WireEntry[]): GroupMark[] {
  const key = (e: GroupedEntry | undefined): string | null => (e === undefined || e.dir === 'note' || e.write === undefined ? null : `${e.dir}:${e.write}`);
  return entries.map((e, i) => {
    const k = key(e);
    if (k === null) return 'single';
    const before = key(entries[i - 1]) === k;
    const after = key(entries[i + 1]) === k;
    return before ? (after ? 'middle' : 'last') : after ? 'first' : 'single';
  });
}

/**
 * `+1234ms  S: + MOVE 3000` (S: the scripted server, C: the client, `..` an event); `mark` (see
 * groupMarks) puts ┌ │ └ before the lines of one write, and a line that came in several writes says so.
 */
export function formatEntry(e: WireEntry, mark: GroupMark = 'single'): string {
  const who = e.dir === 'sent' ? 'S:' : e.dir === 'received' ? 'C:' : '..';
  const text = e.text.length > 160 ? `${e.text.slice(0, 150)}… (${e.text.length} characters)` : e.text;
  const pieces = (e as GroupedEntry).pieces;
  return `+${String(e.atMs).padStart(6)}ms ${GROUP_MARK[mark]}${who} ${text}${pieces !== undefined && pieces > 1 ? `  [this line in ${pieces} writes]` : ''}`;
}

/**
 * Entries as text lines, with the marks of their groups. When `entries` is a slice of `whole` (an
 * excerpt of the wire log), a group cut by the slice's edge is marked as going on (│).
 */
export function formatEntries(entries: readonly WireEntry[], whole: readonly WireEntry[] = entries): string[] {
  const at = entries.length > 0 ? whole.indexOf(entries[0]!) : -1;
  const sliced = at >= 0 && entries.every((e, i) => whole[at + i] === e);
  const from = sliced ? Math.max(0, at - 1) : 0;
  const window = sliced ? whole.slice(from, at + entries.length + 1) : entries;
  const marks = groupMarks(window).slice(sliced ? at - from : 0);
  return entries.map((e, i) => formatEntry(e, marks[i]));
}

/** The one line of a scenario, as printed while the run goes on. */
export function formatResultLine(r: ScenarioResult): string {
  const why = r.status === 'pass' ? '' : `  — ${r.message ?? ''}`;
  const warned = r.warnings.map((w) => `\n         warning: ${w}`).join('');
  return `${MARK[r.status]}  ${r.id.padEnd(34)} ${r.title}${r.status === 'pass' ? ` (${r.durationMs} ms)` : why}${warned}`;
}

function indent(text: string, prefix: string): string {
  return text
    .trimEnd()
    .split('\n')
    .map((l) => prefix + l)
    .join('\n');
}

/** Details of one failed or errored scenario. */
export function formatFailure(r: ScenarioResult): string {
  const out: string[] = [`${MARK[r.status].trim()} ${r.game}/${r.id}: ${r.title}`, `  what happened: the client ${r.message ?? ''}`];
  if (r.judgement) {
    out.push(`  rule:  ${r.judgement.rule} (${r.judgement.section})`);
    out.push(`  hint:  ${r.judgement.hint}`);
  }
  if (r.excerpt.length > 0) {
    const lines = formatEntries(r.excerpt, r.wire);
    const grouped = lines.some((l) => /^\+\s*\d+ms [┌│└]/.test(l));
    // Over UDP every datagram is its own group: the marks appear only for TCP writes and reads.
    out.push(`  wire (S: the scripted ${r.scriptedSide}, C: your client, time since the start${grouped ? '; ┌│└ lines that went in one write (S:) or came in one read (C:)' : ''}):`);
    for (const line of lines) out.push(`    ${line}`);
  }
  for (const w of r.warnings) out.push(`  warning (tolerated by the spec, not a failure): ${w}`);
  if (r.stopped) out.push('  exit: still running at the end of the scenario (stopped by check-client)');
  else if (r.exit) out.push(`  exit: ${r.exit.signal !== null ? `killed by ${r.exit.signal}` : `code ${String(r.exit.code)}`}`);
  if (r.stderr.trim() !== '') out.push('  stderr:', indent(lastLines(r.stderr, 12), '    | '));
  if (r.stdout.trim() !== '') out.push('  stdout:', indent(lastLines(r.stdout, 6), '    | '));
  return out.join('\n');
}

function lastLines(text: string, n: number): string {
  const lines = text.trimEnd().split('\n');
  return (lines.length > n ? [`[… ${lines.length - n} earlier lines]`, ...lines.slice(-n)] : lines).join('\n');
}

export function formatSummaryLine(s: Summary): string {
  const parts = [`${s.passed} passed`];
  if (s.failed > 0) parts.push(`${s.failed} failed`);
  if (s.errors > 0) parts.push(`${s.errors} could not run`);
  if (s.skipped > 0) parts.push(`${s.skipped} skipped (--keep-going runs them)`);
  if (s.warnings > 0) parts.push(`${s.warnings} warning${s.warnings === 1 ? '' : 's'}`);
  return `${s.game}: ${parts.join(', ')} of ${s.total} scenarios`;
}

/** The whole terminal report: the scenario lines, the failures in detail, the summary. */
export function formatText(game: string, results: readonly ScenarioResult[]): string {
  const out = results.map(formatResultLine);
  const bad = results.filter((r) => r.status === 'fail' || r.status === 'error');
  if (bad.length > 0) out.push('', ...bad.map((r) => formatFailure(r) + '\n'));
  out.push(formatSummaryLine(summarize(game, results)));
  return out.join('\n') + '\n';
}

export function formatJson(game: string, results: readonly ScenarioResult[]): string {
  return (
    JSON.stringify(
      {
        ...summarize(game, results),
        ok: results.every((r) => r.status === 'pass'),
        scenarios: results.map((r) => ({
          id: r.id,
          title: r.title,
          status: r.status,
          durationMs: r.durationMs,
          message: r.message,
          warnings: r.warnings,
          rule: r.judgement?.rule ?? null,
          section: r.judgement?.section ?? null,
          hint: r.judgement?.hint ?? null,
          excerpt: r.excerpt,
          wire: r.wire,
          exit: r.exit,
          stoppedByKit: r.stopped,
          stdout: r.stdout,
          stderr: r.stderr,
        })),
      },
      null,
      2,
    ) + '\n'
  );
}

/** Text for XML attributes and character data (no control characters but tab and newline). */
export function escapeXml(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  );
}

export function formatJUnit(game: string, results: readonly ScenarioResult[]): string {
  const s = summarize(game, results);
  const seconds = (ms: number): string => (ms / 1000).toFixed(3);
  const total = results.reduce((t, r) => t + r.durationMs, 0);
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="spielhalle check-client" tests="${s.total}" failures="${s.failed}" errors="${s.errors}" time="${seconds(total)}">`,
    `  <testsuite name="${escapeXml(game)}" tests="${s.total}" failures="${s.failed}" errors="${s.errors}" skipped="${s.skipped}" time="${seconds(total)}">`,
  ];
  for (const r of results) {
    const head = `    <testcase classname="check-client.${escapeXml(game)}" name="${escapeXml(`${r.id}: ${r.title}`)}" time="${seconds(r.durationMs)}"`;
    if (r.status === 'pass') {
      if (r.warnings.length === 0) out.push(`${head}/>`);
      else out.push(`${head}>`, `      <system-out>${escapeXml(r.warnings.map((w) => `warning: ${w}`).join('\n'))}</system-out>`, '    </testcase>');
      continue;
    }
    if (r.status === 'skipped') {
      out.push(`${head}>`, `      <skipped message="${escapeXml(r.message ?? '')}"/>`, '    </testcase>');
      continue;
    }
    const tag = r.status === 'fail' ? 'failure' : 'error';
    const message = r.judgement ? `${r.message ?? ''} — rule: ${r.judgement.rule} (${r.judgement.section})` : (r.message ?? '');
    out.push(`${head}>`);
    out.push(`      <${tag} message="${escapeXml(message)}" type="${tag === 'failure' ? 'ProtocolViolation' : 'ScenarioError'}">${escapeXml(formatFailure(r))}</${tag}>`);
    if (r.stdout !== '') out.push(`      <system-out>${escapeXml(r.stdout)}</system-out>`);
    if (r.stderr !== '') out.push(`      <system-err>${escapeXml(r.stderr)}</system-err>`);
    out.push('    </testcase>');
  }
  out.push('  </testsuite>', '</testsuites>');
  return out.join('\n') + '\n';
}
