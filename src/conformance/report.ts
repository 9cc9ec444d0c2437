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
  total: number;
}

export function summarize(game: string, results: readonly ScenarioResult[]): Summary {
  const count = (s: ScenarioResult['status']): number => results.filter((r) => r.status === s).length;
  return { game, passed: count('pass'), failed: count('fail'), errors: count('error'), total: results.length };
}

const MARK: Record<ScenarioResult['status'], string> = { pass: 'pass ', fail: 'FAIL ', error: 'ERROR' };

/** `+1234ms  S: + MOVE 3000` (S: the scripted server, C: the client, `..` an event). */
export function formatEntry(e: WireEntry): string {
  const who = e.dir === 'sent' ? 'S:' : e.dir === 'received' ? 'C:' : '..';
  const text = e.text.length > 160 ? `${e.text.slice(0, 150)}… (${e.text.length} characters)` : e.text;
  return `+${String(e.atMs).padStart(6)}ms  ${who} ${text}`;
}

/** The one line of a scenario, as printed while the run goes on. */
export function formatResultLine(r: ScenarioResult): string {
  const why = r.status === 'pass' ? '' : `  — ${r.message ?? ''}`;
  return `${MARK[r.status]}  ${r.id.padEnd(34)} ${r.title}${r.status === 'pass' ? ` (${r.durationMs} ms)` : why}`;
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
    out.push(`  wire (S: the scripted ${r.scriptedSide}, C: your client, time since the start):`);
    for (const e of r.excerpt) out.push(`    ${formatEntry(e)}`);
  }
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
  return `${s.game}: ${parts.join(', ')} of ${s.total} scenarios`;
}

/** The whole terminal report: the scenario lines, the failures in detail, the summary. */
export function formatText(game: string, results: readonly ScenarioResult[]): string {
  const out = results.map(formatResultLine);
  const bad = results.filter((r) => r.status !== 'pass');
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
    `  <testsuite name="${escapeXml(game)}" tests="${s.total}" failures="${s.failed}" errors="${s.errors}" skipped="0" time="${seconds(total)}">`,
  ];
  for (const r of results) {
    const head = `    <testcase classname="check-client.${escapeXml(game)}" name="${escapeXml(`${r.id}: ${r.title}`)}" time="${seconds(r.durationMs)}"`;
    if (r.status === 'pass') {
      out.push(`${head}/>`);
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
